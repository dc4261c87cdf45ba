#include "render/table_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/sweep_axes.hpp"
#include "render/bytes_basis_text.hpp"
#include "render/point_label.hpp"
#include "render/svg/svg_roofline.hpp"
#include "render/value_format.hpp"
#include "result/clock_notes.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kMissing = "-";
constexpr size_t kMaxReasonChars = 60;  // keeps a skipped row on one terminal line
constexpr const char* kColumnGap = "  ";

enum class Align { kLeft, kRight };

struct Column {
  const char* title;
  Align align;
};

constexpr std::array<Column, 13> kColumns = {{{"operator", Align::kLeft},
                                              {"version", Align::kLeft},
                                              {"L", Align::kRight},
                                              {"time", Align::kRight},
                                              {"TFLOP/s", Align::kRight},
                                              {"TB/s", Align::kRight},
                                              {"FLOP/B", Align::kRight},
                                              {"L2 FLOP/B", Align::kRight},
                                              {"bound", Align::kLeft},
                                              {"binding", Align::kLeft},
                                              {"% of roof", Align::kRight},
                                              {"validation", Align::kLeft},
                                              {"status", Align::kLeft}}};

using Row = std::array<std::string, kColumns.size()>;

bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Terminal columns taken by `text`: one per code point. "µs" is 3 bytes but 2 columns, so byte
// counts would misalign every row that shows microseconds.
size_t display_width(const std::string& text) {
  size_t width = 0;
  for (const char c : text) width += is_utf8_continuation(c) ? 0 : 1;
  return width;
}

std::string pad(const std::string& text, size_t width, Align align) {
  const size_t fill = width > display_width(text) ? width - display_width(text) : 0;
  return align == Align::kLeft ? text + std::string(fill, ' ') : std::string(fill, ' ') + text;
}

// About three significant digits in fixed notation (869, 86.9, 8.69, 0.869); tiny values keep
// two significant digits instead of printing as 0.000.
std::string format_number(double v) {
  if (!std::isfinite(v)) return kMissing;
  const double magnitude = std::fabs(v);
  if (magnitude != 0 && magnitude < 1e-3) return fmt::format("{:.2g}", v);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  return fmt::format("{:.{}f}", v, decimals);
}

std::string format_time(double seconds) {
  if (!std::isfinite(seconds)) return kMissing;
  if (seconds < 1e-3) return fmt::format("{:.1f} µs", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

// One line, at most kMaxReasonChars code points, cut on a code-point boundary.
std::string shorten(const std::string& reason) {
  std::string line;
  for (const char c : reason) line += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  if (display_width(line) <= kMaxReasonChars) return line;
  size_t kept = 0;
  size_t end = 0;
  while (end < line.size() && kept < kMaxReasonChars - 1) {
    ++end;
    while (end < line.size() && is_utf8_continuation(line[end])) ++end;
    ++kept;
  }
  return line.substr(0, end) + "…";
}

std::string format_status(const PointResult& p) {
  const std::string status = to_string(p.status);
  if (p.status != PointStatus::kOk) {
    return p.reason.empty() ? status : status + ": " + shorten(p.reason);
  }
  if (!p.roofline && !p.roofline_null_reason.empty()) {
    return status + "; no roofline: " + shorten(p.roofline_null_reason);
  }
  // An error flag, not a percentage to admire: the footnote says what it means.
  if (p.roofline && p.roofline->above_roof) return status + "; ERROR: above roof!";
  return status;
}

/// What the rows showed, for the footnotes.
struct TableNotes {
  bool any_analytic = false;
  bool any_above_roof = false;
  bool any_write_back_after_window = false;  ///< a point above the DRAM slope by its write-back
  bool any_l2 = false;                       ///< a point placed under the L2 roof too
  bool any_counted = false;                  ///< a point placed from counted FLOPs and bytes
};

Row format_row(const PointResult& p, const SweepAxes& axes, TableNotes& notes) {
  Row row;
  row.fill(kMissing);
  // The operator, then what tells its points apart (point_variant_label): "decode_attention
  // paged/16", "decode_attention kv=fp8_e4m3", "gemm N=6144 K=4096", "flash_attention fp16 B=8".
  row[0] = p.op + point_variant_label(axes, p.op, p.shape);
  if (!p.version.empty()) row[1] = p.version;
  row[2] = std::to_string(p.shape.seq_len);
  if (p.timing) row[3] = format_time(p.timing->median_s);
  if (p.roofline) {
    const RooflinePoint& r = *p.roofline;
    row[4] = format_number(r.achieved_flop_per_s / 1e12);
    row[5] = format_number(r.achieved_bytes_per_s / 1e12);
    row[6] = format_number(r.arithmetic_intensity_flop_per_byte);
    if (r.basis == "analytic") {
      row[6] += "*";
      notes.any_analytic = true;
    } else {
      notes.any_counted = true;
    }
    // Only with both L2 figures: the point was then also placed under the L2 roof.
    if (r.l2_attainable_flop_per_s) {
      row[7] = format_number(*r.l2_arithmetic_intensity_flop_per_byte);
      notes.any_l2 = true;
    }
    row[8] = to_string(r.bound);
    row[9] = to_string(r.binding_level);
    if (std::isfinite(r.fraction_of_roof)) {
      row[10] = fmt::format("{:.1f}%", r.fraction_of_roof * 100.0);
      if (r.above_roof) {
        row[10] += "!";
        notes.any_above_roof = true;
      }
      if (r.write_back_after_window) {
        row[10] += "~";
        notes.any_write_back_after_window = true;
      }
    }
  }
  if (p.validation) row[11] = p.validation->passed ? "pass" : "FAIL";
  row[12] = format_status(p);
  return row;
}

}  // namespace

std::string format_sources_note(const Report& report) {
  std::string out;
  if (report.sources.empty() && report.config.shard) {
    out += fmt::format(
        "shard {} of the sweep: its points only (`rooflinectl merge` joins the {} shard reports "
        "into the whole sweep)\n",
        report.config.shard->text(), report.config.shard->count);
  }
  for (size_t i = 0; i < report.sources.size(); ++i) {
    const MergeSource& source = report.sources[i];
    size_t points = 0;
    for (const PointResult& p : report.points) points += p.source == i ? 1 : 0;
    out +=
        fmt::format("shard {}: {} points measured on {} (device {}, {}), from {}\n",
                    source.shard.text(), points, source.device.name, source.device.index,
                    source.device.uuid.empty() ? "UUID unknown" : source.device.uuid, source.file);
  }
  return out;
}

std::string format_console_table(const Report& report) {
  std::vector<Row> rows;
  Row header;
  for (size_t c = 0; c < kColumns.size(); ++c) header[c] = kColumns[c].title;
  rows.push_back(header);
  TableNotes notes;
  for (const auto& p : report.points) rows.push_back(format_row(p, report.config.axes, notes));

  std::array<size_t, kColumns.size()> widths{};
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  }

  std::string out;
  auto append_row = [&](const Row& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += kColumnGap;
      // The last column is not padded: trailing blanks only make copied output noisy.
      line += c + 1 == row.size() ? row[c] : pad(row[c], widths[c], kColumns[c].align);
    }
    out += line + "\n";
  };
  append_row(rows.front());
  Row rule;
  for (size_t c = 0; c < rule.size(); ++c) rule[c] = std::string(widths[c], '-');
  append_row(rule);
  for (size_t i = 1; i < rows.size(); ++i) append_row(rows[i]);

  if (notes.any_analytic) {
    out += "* placed from the analytic FLOPs and bytes (no counters for this point)\n";
  }
  if (notes.any_counted) {
    out +=
        "TFLOP/s: counted FLOPs over the median time: every FLOP the kernel executed (padded "
        "and masked tiles, softmax on CUDA cores), more than the papers' 4·B·H·L_q·L·d; the "
        "operator's own count is each point's analytic.flop in the JSON\n";
  }
  if (const std::string basis = bytes_basis_summary(report); !basis.empty()) out += basis + "\n";
  out += format_sources_note(report);
  if (notes.any_l2) {
    out +=
        "L2 FLOP/B: FLOPs per L2 byte (lts__t_bytes), placed under the L2 roof too; binding: the "
        "lowest ceiling at the point (compute, DRAM or L2), which % of roof is against; '-' under "
        "L2 FLOP/B: L2 unknown, only DRAM and compute compared\n";
  }
  if (notes.any_above_roof) {
    out +=
        "! above the roof: achieved exceeds attainable, which means a unit, formula or counter "
        "bug\n";
  }
  if (notes.any_write_back_after_window) {
    out += fmt::format("~ {}\n", kWriteBackAfterWindowNote);
  }
  if (report.peaks) {
    const PeaksBlock& peaks = *report.peaks;
    // The values the points were placed against (the cache path stays in the JSON only: it names
    // a file on the machine that ran the sweep).
    const ChartRoofs roofs = chart_roofs(report);
    std::vector<std::string> values;
    if (roofs.dram_bytes_per_s)
      values.push_back("HBM " + format_si(*roofs.dram_bytes_per_s, "B/s"));
    if (roofs.l2_bytes_per_s) {
      // Points with roofs of their own (counters: each point's L2 clock) get their range, so
      // that the median shown is not looked for in every point's JSON.
      const bool one_value = *roofs.l2_min_bytes_per_s == *roofs.l2_max_bytes_per_s;
      values.push_back(
          one_value
              ? fmt::format("L2 {} ({})", format_si(*roofs.l2_bytes_per_s, "B/s"), roofs.l2_kinds)
              : fmt::format("L2 {} ({}; the median of the points' {}–{}, each point "
                            "under its own)",
                            format_si(*roofs.l2_bytes_per_s, "B/s"), roofs.l2_kinds,
                            format_si(*roofs.l2_min_bytes_per_s, "B/s"),
                            format_si(*roofs.l2_max_bytes_per_s, "B/s")));
    }
    if (roofs.tensor_flop_per_s) {
      values.push_back(fmt::format(
          "{} tensor {}", axis_summary(report.config.axes, report.config.base, SweepAxis::kDtype),
          format_si(*roofs.tensor_flop_per_s, "FLOP/s")));
    }
    if (roofs.tensor_fp8_flop_per_s) {
      values.push_back("fp8 tensor " + format_si(*roofs.tensor_fp8_flop_per_s, "FLOP/s"));
    }
    if (roofs.fp32_flop_per_s)
      values.push_back("fp32 " + format_si(*roofs.fp32_flop_per_s, "FLOP/s"));
    out += fmt::format("roofs: {}", to_string(peaks.used));
    if (!values.empty()) out += fmt::format(" — {}", fmt::join(values, ", "));
    if (peaks.used == RoofSource::kDatasheet && !peaks.datasheet.null_reason) {
      out += " (" + peaks.datasheet.description + ")";
    } else if (peaks.used == RoofSource::kCounters) {
      out += " (median over points of peak_sustained × each point's measured clock)";
    }
    out += "\n";
    if (!peaks.note.empty()) out += "note: " + peaks.note + "\n";
  }
  if (const auto clocks = sample_clocks_summary(report)) out += *clocks + "\n";
  return out;
}

}  // namespace rooflinectl
