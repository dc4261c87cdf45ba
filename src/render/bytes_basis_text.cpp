#include "render/bytes_basis_text.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "result/placement_inputs.hpp"

namespace rooflinectl {
namespace {

struct BasisPhrase {
  const char* basis;
  const char* phrase;
};

const BasisPhrase kPhrases[] = {
    {kBytesIsolated,
     "read + in-window write + deferred write-back (the isolated launch's traffic; Nsight "
     "Compute shows read + in-window write)"},
    {kBytesInWindow,
     "read + write in the kernels' windows only (write-back not measured; schema-1 reports took "
     "them from a multi-pass replay, which inflates the writes)"},
    {kBytesAnalytic, "the analytic model's as-implemented bytes (no counters)"},
    {kBytesAnalyticMin,
     "the analytic model's minimum bytes, inputs read and outputs written once (no counters)"},
};

}  // namespace

std::string bytes_basis_summary(const Report& report) {
  std::string out;
  for (const BasisPhrase& entry : kPhrases) {
    const std::string basis = entry.basis;
    const auto count = std::count_if(
        report.points.begin(), report.points.end(),
        [&](const auto& p) { return p.roofline && p.roofline->bytes_basis == basis; });
    if (count == 0) continue;
    out += fmt::format("{}{}, {} point{}", out.empty() ? "DRAM bytes: " : "; ", entry.phrase, count,
                       count == 1 ? "" : "s");
  }
  return out;
}

std::string bytes_basis_short(const Report& report) {
  size_t isolated = 0;
  size_t in_window = 0;
  for (const auto& p : report.points) {
    if (!p.roofline) continue;
    isolated += p.roofline->bytes_basis == kBytesIsolated;
    in_window += p.roofline->bytes_basis == kBytesInWindow;
  }
  if (isolated > 0 && in_window > 0) return ", DRAM bytes of mixed bases";
  if (isolated > 0) return ", DRAM incl. write-back";
  if (in_window > 0) return ", DRAM in-window only";
  return "";
}

}  // namespace rooflinectl
