#include "result/consistency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/error.hpp"
#include "result/placement_inputs.hpp"

namespace rooflinectl {
namespace {

bool same_value(double stored, double expected) {
  return std::fabs(stored - expected) <=
         kConsistencyTolerance * std::max(std::fabs(stored), std::fabs(expected));
}

// Stored in-window DRAM bytes must be the counted read + write of a write-back-inclusive
// placement, and absent on every other basis.
void check_in_window_bytes(const RooflinePoint& placed, const std::optional<double>& expected,
                           const std::string& where) {
  const std::optional<double>& stored = placed.dram_bytes_in_window;
  if (!stored && !expected) return;
  if (stored && expected && same_value(*stored, *expected)) return;
  const auto text = [](const std::optional<double>& v) {
    return v ? fmt::format("{}", *v) : std::string("null");
  };
  throw bad_input(fmt::format(
      "{}: roofline.dram_bytes_in_window {} differs from {} from counters.total (read + write "
      "on bytes_basis {}): the placement and its raw data disagree (edited report?)",
      where, text(stored), text(expected), placed.bytes_basis));
}

// Stored L2 bytes must be the counted ones; a placement without them (a report written before
// the L2 roofline existed) is consistent as it is.
void check_l2_bytes(const PointResult& p, const std::string& where) {
  const std::optional<double>& stored = p.roofline->l2_bytes;
  if (!stored) return;
  const L2Bytes expected = placement_l2_bytes(p, p.roofline->basis);
  if (!expected.bytes) {
    throw bad_input(fmt::format("{}: roofline.l2_bytes {} is set but {}", where, *stored,
                                expected.null_reason));
  }
  if (same_value(*stored, *expected.bytes)) return;
  throw bad_input(fmt::format(
      "{}: roofline.l2_bytes {} differs from counters.total.l2_bytes {}: the placement and its "
      "raw data disagree (edited report?), so readers would show contradicting values",
      where, *stored, *expected.bytes));
}

}  // namespace

void check_report_consistency(const Report& report, const std::string& origin) {
  for (size_t i = 0; i < report.points.size(); ++i) {
    const PointResult& p = report.points[i];
    if (!p.roofline) continue;
    const std::string where =
        fmt::format("{}: points[{}] ({} at L = {})", origin, i, p.op, p.shape.seq_len);
    std::string why_not;
    const auto expected =
        expected_placement_inputs(p, p.roofline->basis, p.roofline->bytes_basis, why_not);
    if (!expected) {
      throw bad_input(fmt::format("{}: has a roofline placement on basis '{}' but {}", where,
                                  p.roofline->basis, why_not));
    }
    for (const auto& [key, stored, wanted] :
         {std::tuple<const char*, double, double>{"flop", p.roofline->flop, expected->flop},
          {"dram_bytes", p.roofline->dram_bytes, expected->dram_bytes}}) {
      if (same_value(stored, wanted)) continue;
      throw bad_input(fmt::format(
          "{}: roofline.{} {} differs from {} {} from {}: the placement and its raw data "
          "disagree (edited report?), so readers would show contradicting values",
          where, key, stored, key, wanted, expected->source));
    }
    check_in_window_bytes(*p.roofline, expected->dram_bytes_in_window, where);
    check_l2_bytes(p, where);
  }
}

}  // namespace rooflinectl
