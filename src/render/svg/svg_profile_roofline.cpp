#include "render/svg/svg_profile_roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "render/svg/svg_common.hpp"
#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

// Canvas and plot area, px; the legend sits right of the plot, the kernel lists under it.
constexpr double kWidth = 1000;
constexpr double kPlotLeft = 88;
constexpr double kPlotRight = 735;
constexpr double kPlotTop = 110;
constexpr double kPlotBottom = 560;
constexpr double kLegendX = 762;
constexpr double kListTop = kPlotBottom + 84;
constexpr double kListLinePx = 16;
// A kernel with all of the GPU time would get this radius; area ∝ share, so r ∝ √share.
constexpr double kRadiusAtFullShare = 48;
// Below this a marker could not be seen; its area is then no longer proportional.
constexpr double kMinRadius = 2.5;
constexpr double kTitlePx = 18;
constexpr double kSubtitlePx = 12;
constexpr double kLabelPx = 11;
// Head room around the data on the log axes, as a factor, so no marker sits on the frame.
constexpr double kAxisMargin = 2.0;
constexpr size_t kMaxListLines = 30;
constexpr size_t kMaxLineChars = 135;
constexpr size_t kMaxListNameChars = 64;
constexpr const char* kInk = kSvgInk;
constexpr const char* kGrey = "#555555";
// What the DRAM bytes and FLOPs are in `report`'s mode: single-pass counts bf16 tensor FLOPs
// only, full mode every pipe's (each kernel under the roof of the pipe most of them ran on).
std::string bases_text(const ProfileReport& report) {
  return std::string("DRAM bytes: read + in-window write + write-back of the isolated launch; ") +
         (report.config.mode == kModeFull
              ? "FLOPs: every pipe's (full mode), under the roof of the pipe most ran on"
              : "FLOPs: bf16 tensor FLOPs (single-pass mode counts no SIMT FLOPs)");
}

// The x axis title in `report`'s mode.
std::string intensity_axis_title(const ProfileReport& report) {
  return report.config.mode == kModeFull
             ? "Arithmetic intensity (FLOP per byte of DRAM traffic, log scale)"
             : "Arithmetic intensity (bf16 tensor FLOP per byte of DRAM traffic, log scale)";
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::optional<double> positive(const std::optional<double>& v) {
  return v && std::isfinite(*v) && *v > 0 ? v : std::nullopt;
}

const PeakSet& used_set(const PeaksBlock& block) {
  switch (block.used) {
    case RoofSource::kCounters:
      return block.counters;
    case RoofSource::kMeasured:
      return block.measured;
    case RoofSource::kDatasheet:
      break;
  }
  return block.datasheet;
}

std::string joined(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : separator) + part;
  return out;
}

// "name nvtx a/b" for the lists: the NVTX path tells apart kernels of the same name.
std::string listed_name(const KernelSummary& k) {
  return truncated_text(k.name, kMaxListNameChars) +
         (k.nvtx_path.empty() ? "" : " (nvtx " + joined(k.nvtx_path, "/") + ")");
}

}  // namespace

bool has_placement(const KernelSummary& k) {
  return k.roofline && std::isfinite(k.roofline->arithmetic_intensity_flop_per_byte) &&
         std::isfinite(k.roofline->achieved_flop_per_s) &&
         k.roofline->arithmetic_intensity_flop_per_byte > 0 && k.roofline->achieved_flop_per_s > 0;
}

ProfileChartRoofs profile_chart_roofs(const ProfileReport& report) {
  ProfileChartRoofs roofs;
  std::vector<std::string> sources;
  if (report.peaks) {
    const PeakSet& set = used_set(*report.peaks);
    roofs.tensor_flop_per_s = positive(set.tensor_bf16.value);
    roofs.dram_bytes_per_s = positive(set.dram.value);
    roofs.l2_bytes_per_s = positive(set.l2.value);
    if (!roofs.l2_bytes_per_s) roofs.l2_null_reason = set.null_reason.value_or(set.l2.source);
    if (roofs.tensor_flop_per_s || roofs.dram_bytes_per_s) {
      sources.push_back(to_string(set.source) + " (the report's peaks)");
    }
  } else {
    roofs.l2_null_reason = "the report has no peaks";
  }
  std::vector<double> tensor, dram, fp32;
  for (const auto& k : report.kernels) {
    if (!has_placement(k)) continue;
    (k.roofline->roof.pipe == Pipe::kFp32 ? fp32 : tensor)
        .push_back(k.roofline->roof.peak_flop_per_s);
    dram.push_back(k.roofline->roof.peak_bytes_per_s);
  }
  if (!fp32.empty()) {
    roofs.fp32_flop_per_s =
        report.peaks ? positive(used_set(*report.peaks).fp32.value) : std::nullopt;
    if (!roofs.fp32_flop_per_s) roofs.fp32_flop_per_s = median_of(fp32);
  }
  const bool fall_back = (!roofs.tensor_flop_per_s || !roofs.dram_bytes_per_s) && !dram.empty();
  if (fall_back) {
    if (!roofs.tensor_flop_per_s && !tensor.empty()) roofs.tensor_flop_per_s = median_of(tensor);
    if (!roofs.dram_bytes_per_s) roofs.dram_bytes_per_s = median_of(dram);
    sources.push_back("median of the placed kernels' own roofs");
  }
  roofs.source = sources.empty() ? "none" : joined(sources, "; ");
  return roofs;
}

std::string short_kernel_name(const std::string& name, size_t max_chars) {
  std::string s = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
  const std::string anonymous = "(anonymous namespace)::";
  for (size_t at; (at = s.find(anonymous)) != std::string::npos;) s.erase(at, anonymous.size());
  s = s.substr(0, s.find_first_of("<("));
  const size_t scope = s.rfind("::");
  if (scope != std::string::npos && scope + 2 < s.size()) s = s.substr(scope + 2);
  if (s.empty()) s = name;
  return truncated_text(s, max_chars);
}

std::vector<std::string> unplaced_kernel_lines(const ProfileReport& report) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < report.kernels.size(); ++i) {
    const KernelSummary& k = report.kernels[i];
    if (has_placement(k)) continue;
    const std::optional<double> bytes_per_s = in_window_dram_bytes_per_s(k);
    lines.push_back(fmt::format(
        "#{}  {}  {} TB/s  {}: {}", i + 1, format_percent(k.share_of_gpu_time),
        bytes_per_s ? format_3sig(*bytes_per_s / 1e12) : kNoValue, listed_name(k), k.verdict));
  }
  return lines;
}

namespace {

// A placed kernel at its pixel position; rank counts every kernel of the report from 1.
struct Marker {
  const KernelSummary* kernel;
  size_t rank;
  double x, y, r;
};

// What every part of the chart is drawn from.
struct Chart {
  const ProfileReport& report;
  ProfileChartRoofs roofs;
  LogLogFrame frame;
  std::vector<Marker> markers;  ///< in report order (longest total time first)
  std::vector<std::string> placed_lines;
  std::vector<std::string> unplaced_lines;
};

// Every marker, the compute roof and the ridges inside, with head room.
LogLogFrame frame_of(const ProfileReport& report, const ProfileChartRoofs& roofs) {
  LogLogFrame f;
  f.left = kPlotLeft;
  f.right = kPlotRight;
  f.top = kPlotTop;
  f.bottom = kPlotBottom;
  std::vector<double> xs, ys;
  for (const auto& k : report.kernels) {
    if (!has_placement(k)) continue;
    xs.push_back(k.roofline->arithmetic_intensity_flop_per_byte);
    ys.push_back(k.roofline->achieved_flop_per_s);
    // The in-window tail's end stays on the chart (markers_svg).
    if (k.roofline->write_back_after_window &&
        k.roofline->in_window_arithmetic_intensity_flop_per_byte) {
      xs.push_back(*k.roofline->in_window_arithmetic_intensity_flop_per_byte);
    }
  }
  for (const auto& peak : {roofs.tensor_flop_per_s, roofs.fp32_flop_per_s}) {
    if (!peak) continue;
    ys.push_back(*peak);
    for (const auto& bw : {roofs.dram_bytes_per_s, roofs.l2_bytes_per_s}) {
      if (bw) xs.push_back(*peak / *bw);
    }
  }
  if (xs.empty() || ys.empty()) return f;
  f.x_lo = nice_floor_125(*std::min_element(xs.begin(), xs.end()) / kAxisMargin);
  f.x_hi = nice_ceil_125(*std::max_element(xs.begin(), xs.end()) * kAxisMargin);
  f.y_lo = nice_floor_125(*std::min_element(ys.begin(), ys.end()) / kAxisMargin);
  f.y_hi = nice_ceil_125(*std::max_element(ys.begin(), ys.end()) * kAxisMargin);
  return f;
}

std::string placed_line(const Marker& m) {
  const RooflinePoint& p = *m.kernel->roofline;
  const std::string in_window =
      p.write_back_after_window
          ? fmt::format(" (write-back after the kernel; in window {} of the DRAM roof)",
                        format_percent(in_window_dram_fraction(p).value_or(0)))
          : "";
  return fmt::format("#{}  {}  {} FLOP/B, {} TFLOP/s, {} of its roof{}{}  {}", m.rank,
                     format_percent(m.kernel->share_of_gpu_time),
                     format_3sig(p.arithmetic_intensity_flop_per_byte),
                     format_3sig(p.achieved_flop_per_s / 1e12), format_percent(p.fraction_of_roof),
                     in_window, p.above_roof ? " (ABOVE ITS ROOF: an error)" : "",
                     listed_name(*m.kernel));
}

Chart make_chart(const ProfileReport& report) {
  Chart chart{report, profile_chart_roofs(report), {}, {}, {}, unplaced_kernel_lines(report)};
  chart.frame = frame_of(report, chart.roofs);
  const Scale sx = chart.frame.sx(), sy = chart.frame.sy();
  for (size_t i = 0; i < report.kernels.size(); ++i) {
    const KernelSummary& k = report.kernels[i];
    if (!has_placement(k)) continue;
    const double r = std::max(kMinRadius, kRadiusAtFullShare * std::sqrt(k.share_of_gpu_time));
    chart.markers.push_back(Marker{&k, i + 1, sx(k.roofline->arithmetic_intensity_flop_per_byte),
                                   sy(k.roofline->achieved_flop_per_s), r});
    chart.placed_lines.push_back(placed_line(chart.markers.back()));
  }
  return chart;
}

std::string gpu_name(const ProfileReport& report) {
  return report.devices.empty() || report.devices.front().name.empty()
             ? "unknown GPU"
             : report.devices.front().name;
}

// Title, the program line, the bases and the roofs' source.
std::string title_svg(const Chart& chart) {
  const ProfileReport& report = chart.report;
  std::string device = gpu_name(report);
  if (!report.devices.empty()) {
    const DeviceRecord& d = report.devices.front();
    device += fmt::format(" (cc {}.{}, {} SMs)", d.cc_major, d.cc_minor, d.sm_count);
  }
  double placed_share = 0;
  for (const Marker& m : chart.markers) placed_share += m.kernel->share_of_gpu_time;
  const std::string exit =
      report.program.exit_code ? fmt::format("exit {}", *report.program.exit_code)
      : report.program.signal  ? fmt::format("signal {}", *report.program.signal)
                               : std::string("exit unknown");
  std::string svg = text_svg(kPlotLeft, 32, "Roofline of a profiled program: " + device, kTitlePx,
                             "start", R"(font-weight="bold" class="title")") +
                    "\n";
  const std::string program = fmt::format(
      "{} ({}) · {} kernels, {} placed ({} of GPU time) · profile of {}",
      truncated_text(joined(report.program.command, " "), 60), exit, report.kernels.size(),
      chart.markers.size(), format_percent(placed_share), report.timestamp_utc);
  svg += text_svg(kPlotLeft, 54, program, kSubtitlePx, "start",
                  fmt::format(R"(fill="{}" class="program")", kGrey)) +
         "\n";
  svg += text_svg(kPlotLeft, 72, bases_text(report), kSubtitlePx, "start",
                  fmt::format(R"(fill="{}" class="bases")", kGrey)) +
         "\n";
  const ProfileChartRoofs& roofs = chart.roofs;
  const std::string l2 = roofs.l2_bytes_per_s ? "L2 " + format_si(*roofs.l2_bytes_per_s, "B/s")
                                              : "no L2 roof: " + roofs.l2_null_reason;
  svg += text_svg(kPlotLeft, 90, truncated_text("Roofs: " + roofs.source + "; " + l2, 125),
                  kSubtitlePx, "start", fmt::format(R"(fill="{}" class="roof-source")", kGrey)) +
         "\n";
  return svg;
}

// A flat compute roof at `peak` from the intensity `ridge` (clamped to the frame) to the right
// edge, `line_attributes` its stroke, labelled `label` at the right end; all reserved in
// `labels`. Returns the SVG and the roof's y.
std::pair<std::string, double> flat_roof_svg(const Chart& chart, LabelPlacer& labels, double peak,
                                             double ridge, const char* pipe,
                                             const char* line_attributes,
                                             const std::string& label) {
  const Scale sx = chart.frame.sx(), sy = chart.frame.sy();
  const double x0 = sx(std::max(ridge, chart.frame.x_lo)), y = sy(peak);
  std::string svg = fmt::format(
      R"(<line class="roof" data-pipe="{}" x1="{:.1f}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="{}" {}/>)"
      "\n",
      pipe, x0, y, kPlotRight, y, kInk, line_attributes);
  labels.reserve(Box{x0, y - 3, kPlotRight, y + 3});
  const double w = text_width_px(label, kLabelPx);
  svg += text_svg(kPlotRight - 6, y - 6, label, kLabelPx, "end",
                  fmt::format(R"(class="roof-label" fill="{}")", kInk)) +
         "\n";
  labels.reserve(Box{kPlotRight - 6 - w, y - 6 - kLabelPx, kPlotRight - 6, y - 3});
  return {svg, y};
}

// The bf16 tensor roof from its lowest ridge to the right edge, labelled at the right end, and
// the DRAM ridge point; all reserved in `labels`.
std::string compute_roof_svg(const Chart& chart, LabelPlacer& labels) {
  const ProfileChartRoofs& roofs = chart.roofs;
  if (!roofs.tensor_flop_per_s) return "";
  const double peak = *roofs.tensor_flop_per_s;
  double ridge = chart.frame.x_lo;
  if (roofs.dram_bytes_per_s) ridge = peak / *roofs.dram_bytes_per_s;
  if (roofs.l2_bytes_per_s) ridge = std::min(ridge, peak / *roofs.l2_bytes_per_s);
  auto [svg, y] = flat_roof_svg(chart, labels, peak, ridge, "tensor", R"(stroke-width="2")",
                                "bf16 tensor-core roof " + format_si(peak, "FLOP/s"));
  if (!roofs.dram_bytes_per_s) return svg;
  const double intensity = peak / *roofs.dram_bytes_per_s;
  const double x = chart.frame.sx()(intensity);
  svg += fmt::format(
      R"(<circle class="ridge" cx="{:.1f}" cy="{:.1f}" r="4" fill="#FFFFFF" stroke="{}" stroke-width="1.6"/>)"
      "\n",
      x, y, kInk);
  labels.reserve_marker(x, y, 4);
  const std::string ridge_text = fmt::format("ridge {} FLOP/B", format_3sig(intensity));
  if (const auto box = labels.place(x, y, text_width_px(ridge_text, kLabelPx), kLabelPx * 1.2,
                                    LabelSide::kBelowRight)) {
    svg += text_svg(box->x0, box->y0 + kLabelPx * 0.95, ridge_text, kLabelPx, "start",
                    fmt::format(R"(class="ridge-label" fill="{}")", kInk)) +
           "\n";
  }
  return svg;
}

// The fp32 (SIMT) roof, dashed, from its DRAM ridge to the right edge, labelled at the right end;
// drawn only when a kernel is placed on it.
std::string fp32_roof_svg(const Chart& chart, LabelPlacer& labels) {
  const ProfileChartRoofs& roofs = chart.roofs;
  if (!roofs.fp32_flop_per_s) return "";
  const double peak = *roofs.fp32_flop_per_s;
  const double ridge = roofs.dram_bytes_per_s ? peak / *roofs.dram_bytes_per_s : chart.frame.x_lo;
  return flat_roof_svg(chart, labels, peak, ridge, "fp32",
                       R"(stroke-width="1.6" stroke-dasharray="6 3")",
                       "fp32 (SIMT) roof " + format_si(peak, "FLOP/s"))
      .first;
}

// The DRAM and L2 slopes up to the compute roof (or the top of the frame), then the flat roof.
std::string roofs_svg(const Chart& chart, LabelPlacer& labels) {
  const ProfileChartRoofs& roofs = chart.roofs;
  const double highest = roofs.tensor_flop_per_s.value_or(chart.frame.y_hi);
  std::vector<Box> avoid;
  for (const Marker& m : chart.markers) {
    avoid.push_back(Box{m.x - m.r, m.y - m.r, m.x + m.r, m.y + m.r});
  }
  std::string svg = "<g class=\"roofs\">\n";
  if (roofs.dram_bytes_per_s) {
    svg += slanted_roof_svg(SlantedRoof{*roofs.dram_bytes_per_s, "roof-hbm",
                                        "DRAM " + format_si(*roofs.dram_bytes_per_s, "B/s"), ""},
                            chart.frame, highest, avoid, labels);
  }
  if (roofs.l2_bytes_per_s) {
    svg += slanted_roof_svg(
        SlantedRoof{*roofs.l2_bytes_per_s, "roof-l2",
                    "L2 " + format_si(*roofs.l2_bytes_per_s, "B/s"), R"( stroke-dasharray="6 3")"},
        chart.frame, highest, avoid, labels);
  }
  svg += compute_roof_svg(chart, labels);
  svg += fp32_roof_svg(chart, labels);
  return svg + "</g>\n";
}

// The circles, largest first so that smaller ones stay visible on top (reserved in the label
// placer before the roofs are drawn); a kernel above its roof (a unit, formula or counter is wrong)
// gets a red ring.
std::string markers_svg(const Chart& chart) {
  std::vector<const Marker*> order;
  for (const Marker& m : chart.markers) order.push_back(&m);
  std::stable_sort(order.begin(), order.end(),
                   [](const Marker* a, const Marker* b) { return a->r > b->r; });
  std::string svg = "<g class=\"kernels\">\n";
  for (const Marker* m : order) {
    const std::string colour = operator_style("", m->rank - 1).colour;
    svg += fmt::format(
        R"(<circle class="kernel" data-rank="{}" data-share="{}" data-name="{}" cx="{:.1f}" cy="{:.1f}" r="{:.2f}" fill="{}" fill-opacity="0.45" stroke="{}" stroke-width="1.3"/>)"
        "\n",
        m->rank, m->kernel->share_of_gpu_time, xml_escape(m->kernel->name), m->x, m->y, m->r,
        colour, colour);
    if (m->kernel->roofline->above_roof) {
      svg += fmt::format(
          R"(<circle class="above-roof" cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="none" stroke="#D00000" stroke-width="2"/>)"
          "\n",
          m->x, m->y, m->r + 4);
    }
    const RooflinePoint& p = *m->kernel->roofline;
    if (p.write_back_after_window && p.in_window_arithmetic_intensity_flop_per_byte) {
      svg += in_window_tail_svg(m->x, m->y, m->r,
                                chart.frame.sx()(*p.in_window_arithmetic_intensity_flop_per_byte));
    }
  }
  return svg + "</g>\n";
}

// "#rank short name" beside each marker, in rank order, else "#rank", else nothing (the list
// under the chart names every kernel).
std::string marker_labels_svg(const Chart& chart, LabelPlacer& labels) {
  std::string svg = "<g class=\"kernel-labels\">\n";
  for (const Marker& m : chart.markers) {
    for (const std::string& text :
         {fmt::format("#{} {}", m.rank, short_kernel_name(m.kernel->name)),
          fmt::format("#{}", m.rank)}) {
      const auto box = labels.place(m.x, m.y, text_width_px(text, kLabelPx), kLabelPx * 1.2,
                                    LabelSide::kRight, m.r);
      if (!box) continue;
      svg +=
          text_svg(box->x0, box->y0 + kLabelPx * 0.95, text, kLabelPx, "start",
                   fmt::format(R"(class="kernel-label" data-rank="{}" fill="{}")", m.rank, kInk)) +
          "\n";
      break;
    }
  }
  return svg + "</g>\n";
}

// What the circles mean: three reference areas, the rank, the red ring, and the in-window tail
// when a kernel has one.
std::string legend_svg(bool any_in_window_tail) {
  std::string svg = "<g class=\"legend\">\n";
  double y = kPlotTop + 8;
  svg += text_svg(kLegendX, y, "Share of GPU time", 13, "start", R"(font-weight="bold")") + "\n";
  y += 10;
  for (const double share : {0.25, 0.05, 0.01}) {
    const double r = kRadiusAtFullShare * std::sqrt(share);
    y += r + 6;
    svg += fmt::format(
        R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.2f}" fill="#BBBBBB" fill-opacity="0.45" stroke="{}" stroke-width="1"/>)"
        "\n",
        kLegendX + 26, y, r, kGrey);
    svg += text_svg(kLegendX + 62, y + 4, format_percent(share), 12, "start") + "\n";
    y += r;
  }
  std::vector<const char*> lines = {"marker area ∝ the kernel's share", "(at least 2.5 px across)",
                                    "#N: its row in the table",
                                    "red ring: above its roof (an error)"};
  if (any_in_window_tail) {
    lines.insert(lines.end(),
                 {"dashed tail: to its FLOP per", "in-window DRAM byte (above the",
                  "slope by write-back that moved", "after the kernel: not an error)"});
  }
  for (const char* line : lines) {
    y += 17;
    svg += text_svg(kLegendX, y, line, 11, "start", fmt::format(R"(fill="{}")", kGrey)) + "\n";
  }
  return svg + "</g>\n";
}

// A heading and up to kMaxListLines lines of class `css_class` from `y`; returns the next y.
double list_svg(const std::string& heading, const std::vector<std::string>& lines,
                const char* css_class, double y, std::string& svg) {
  svg += text_svg(kPlotLeft - 60, y, truncated_text(heading, kMaxLineChars), 12, "start",
                  R"(font-weight="bold")") +
         "\n";
  for (size_t i = 0; i < lines.size() && i < kMaxListLines; ++i) {
    y += kListLinePx;
    svg += text_svg(kPlotLeft - 50, y, truncated_text(lines[i], kMaxLineChars), 11, "start",
                    fmt::format(R"(class="{}" fill="{}")", css_class, kGrey)) +
           "\n";
  }
  if (lines.size() > kMaxListLines) {
    y += kListLinePx;
    svg += text_svg(kPlotLeft - 50, y, fmt::format("... {} more", lines.size() - kMaxListLines), 11,
                    "start", fmt::format(R"(fill="{}")", kGrey)) +
           "\n";
  }
  return y + kListLinePx * 1.6;
}

size_t shown_lines(const std::vector<std::string>& lines) {
  return lines.empty() ? 0 : 1 + std::min(lines.size(), kMaxListLines + 1);
}

// The placed and the unplaced kernels as text, under the axes.
std::string lists_svg(const Chart& chart) {
  std::string svg = "<g class=\"kernel-lists\">\n";
  double y = kListTop;
  if (!chart.placed_lines.empty()) {
    y = list_svg("Placed: share of GPU time, FLOP per DRAM byte, achieved TFLOP/s, % of roof",
                 chart.placed_lines, "placed-kernel", y, svg);
  }
  if (!chart.unplaced_lines.empty()) {
    list_svg(std::string(chart.report.config.mode == kModeFull
                             ? "Not placed (no FLOPs under a roof the peaks have"
                             : "Not placed (no bf16 tensor FLOPs counted") +
                 ": no intensity): share of GPU time, DRAM TB/s in the kernel's window, verdict",
             chart.unplaced_lines, "unplaced-kernel", y, svg);
  }
  return svg + "</g>\n";
}

}  // namespace

std::string profile_roofline_svg(const ProfileReport& report) {
  const Chart chart = make_chart(report);
  const size_t list_lines = shown_lines(chart.placed_lines) + shown_lines(chart.unplaced_lines);
  const double height = kListTop + kListLinePx * (static_cast<double>(list_lines) + 2);
  std::string svg =
      svg_open(kWidth, height, "Roofline of a rooflinectl profile on " + gpu_name(report));
  svg += title_svg(chart);
  svg += log_grid_svg(chart.frame);
  svg += log_axes_svg(chart.frame, intensity_axis_title(report), "Performance (TFLOP/s, log scale)",
                      1e12);
  LabelPlacer labels(Box{kPlotLeft + 2, kPlotTop + 2, kPlotRight - 2, kPlotBottom - 2});
  // Markers are reserved before the roofs' labels are placed, so that those keep off them.
  for (const Marker& m : chart.markers) labels.reserve_marker(m.x, m.y, m.r);
  svg += roofs_svg(chart, labels);
  svg += markers_svg(chart);
  svg += marker_labels_svg(chart, labels);
  if (chart.markers.empty()) {
    svg += text_svg((kPlotLeft + kPlotRight) / 2, (kPlotTop + kPlotBottom) / 2,
                    "No kernel of this profile has a roofline placement", 16, "middle",
                    fmt::format(R"(class="no-placement" fill="{}")", kGrey)) +
           "\n";
  }
  svg += legend_svg(std::any_of(chart.markers.begin(), chart.markers.end(), [](const Marker& m) {
    return m.kernel->roofline->write_back_after_window;
  }));
  svg += lists_svg(chart);
  return svg + "</svg>\n";
}

}  // namespace rooflinectl
