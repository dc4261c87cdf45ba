#include "render/peaks_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace rooflinectl {
namespace {

constexpr const char* kMissing = "-";
constexpr const char* kColumnGap = "  ";

using Row = std::vector<std::string>;

std::string format_rate(const std::optional<double>& v, CeilingKind kind) {
  if (!v || !std::isfinite(*v)) return kMissing;
  return fmt::format("{:.4g} {}", *v / 1e12, is_bandwidth(kind) ? "TB/s" : "TFLOP/s");
}

std::string format_percent(const std::optional<double>& num, const std::optional<double>& den) {
  if (!num || !den || !std::isfinite(*num) || !std::isfinite(*den) || !(*den > 0)) return kMissing;
  return fmt::format("{:.1f}%", *num / *den * 100.0);
}

std::string format_ratio(const std::optional<double>& num, double den) {
  if (!num || !std::isfinite(*num) || !(den > 0)) return kMissing;
  return fmt::format("{:.3f}", *num / den);
}

std::string format_ridge(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return kMissing;
  return fmt::format("{:.1f}", *v);
}

// Left-aligned first column, right-aligned numbers; the last column is not padded.
std::string render(const std::vector<Row>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < rows[r].size(); ++c) {
      const std::string& cell = rows[r][c];
      const size_t fill = widths[c] - cell.size();
      if (c > 0) line += kColumnGap;
      if (c == 0) {
        line += c + 1 == rows[r].size() ? cell : cell + std::string(fill, ' ');
      } else {
        line += std::string(fill, ' ') + cell;
      }
    }
    out += line + "\n";
    if (r == 0) {
      std::string rule;
      for (size_t c = 0; c < widths.size(); ++c) {
        if (c > 0) rule += kColumnGap;
        rule += std::string(widths[c], '-');
      }
      out += rule + "\n";
    }
  }
  return out;
}

std::string source_note(const PeakSet& set) {
  if (set.null_reason)
    return fmt::format("{}: unavailable: {}", to_string(set.source), *set.null_reason);
  return fmt::format("{}: {}", to_string(set.source), set.description);
}

}  // namespace

std::string format_peaks_table(const PeaksRecord& record) {
  std::string out = fmt::format(
      "peaks of {} (cc {}.{}, {} SMs, L2 {:.0f} MiB), {}, driver {}, max SM clock {:.0f} MHz, "
      "measured {}\n\n",
      record.device_name, record.cc_major, record.cc_minor, record.sm_count,
      static_cast<double>(record.l2_bytes) / (1024.0 * 1024.0), record.key.gpu_uuid,
      record.key.driver, record.key.sm_clock_max_hz / 1e6, record.timestamp_utc);

  std::vector<Row> rows = {{"ceiling", "measured", "datasheet", "counters", "meas/datasheet",
                            "meas/counters", "counted/work"}};
  std::vector<std::string> notes;
  for (const auto& b : record.benchmarks) {
    const std::optional<double> datasheet = record.datasheet.get(b.kind).value;
    const std::optional<double> counters = record.counters.get(b.kind).value;
    rows.push_back({b.label, format_rate(b.rate, b.kind), format_rate(datasheet, b.kind),
                    format_rate(counters, b.kind), format_percent(b.rate, datasheet),
                    format_percent(b.rate, counters),
                    format_ratio(b.counted_work, b.work_per_launch)});
    if (!b.null_reason.empty()) notes.push_back(fmt::format("{}: {}", b.label, b.null_reason));
  }
  out += render(rows);

  out += "\n";
  std::vector<Row> ridges = {{"ridge point (FLOP/B)", "measured", "datasheet", "counters"}};
  // The fp8 row shows where the ridge moves for FP8 GEMM (twice the bf16 rate, the same DRAM).
  for (const CeilingKind kind : {CeilingKind::kTensorBf16, CeilingKind::kTensorFp16,
                                 CeilingKind::kTensorFp8, CeilingKind::kFp32}) {
    ridges.push_back({ceiling_label(kind), format_ridge(ridge_flop_per_byte(record.measured, kind)),
                      format_ridge(ridge_flop_per_byte(record.datasheet, kind)),
                      format_ridge(ridge_flop_per_byte(record.counters, kind))});
  }
  out += render(ridges);

  out += "\nsources:\n";
  for (const PeakSet* set : {&record.measured, &record.datasheet, &record.counters}) {
    out += "  " + source_note(*set) + "\n";
  }
  // Which benchmark each measured ceiling came from (the best of its kind, e.g. the DRAM roof
  // may be the cudaMemcpyAsync copy rather than our copy kernel).
  if (!record.measured.null_reason) {
    out += "measured roofs (best benchmark of each kind):\n";
    for (const CeilingKind kind : kAllCeilingKinds) {
      const Ceiling& c = record.measured.get(kind);
      out += fmt::format("  {}: {}{}\n", ceiling_label(kind),
                         c.value ? format_rate(c.value, kind) + ", " : std::string(), c.source);
    }
  }
  if (!notes.empty()) {
    out += "notes:\n";
    for (const auto& note : notes) out += "  " + note + "\n";
  }
  return out;
}

}  // namespace rooflinectl
