#include "render/svg/svg_roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

#include "core/sweep_axes.hpp"
#include "render/bytes_basis_text.hpp"
#include "render/svg/svg_common.hpp"
#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

// Canvas and plot area, px. The legend sits right of the plot.
constexpr double kWidth = 1000;
constexpr double kHeight = 660;
constexpr double kPlotLeft = 88;
constexpr double kPlotRight = 735;
constexpr double kPlotTop = 92;
constexpr double kPlotBottom = 568;
constexpr double kLegendX = 762;
constexpr double kMarkerRadius = 5.5;
constexpr double kTitlePx = 18;
constexpr double kSubtitlePx = 12;
constexpr double kLabelPx = 11;
// Shortest L is drawn this far towards white; the longest keeps the operator's full colour.
constexpr double kLightestShade = 0.8;
// Head room around the data on the log axes, as a factor, so no marker sits on the frame.
constexpr double kAxisMargin = 2.0;
constexpr const char* kInk = kSvgInk;
constexpr size_t kMaxNoteChars = 150;
// Labels farther than this from their marker get a leader line.
constexpr double kLeaderMinPx = 14;

struct PlacedPoint {
  const PointResult* point;
  double x;
  double y;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool placed(const PointResult& p) {
  return p.roofline && std::isfinite(p.roofline->arithmetic_intensity_flop_per_byte) &&
         std::isfinite(p.roofline->achieved_flop_per_s) &&
         p.roofline->arithmetic_intensity_flop_per_byte > 0 && p.roofline->achieved_flop_per_s > 0;
}

// Baseline of text drawn in a placer box of height 1.2 em.
double baseline(const Box& box, double font_px) { return box.y0 + font_px * 0.95; }

std::string halo() { return R"(stroke="#FFFFFF" stroke-width="3" paint-order="stroke")"; }

// Rank of each L among the report's distinct lengths, as a shade amount (longest → 0).
std::map<int64_t, double> shades(const Report& report) {
  std::set<int64_t> lengths;
  for (const auto& p : report.points) lengths.insert(p.shape.seq_len);
  std::map<int64_t, double> out;
  size_t i = 0;
  for (const int64_t l : lengths) {
    const double t = lengths.size() > 1 ? static_cast<double>(i++) / (lengths.size() - 1) : 1.0;
    out[l] = kLightestShade * (1.0 - t);
  }
  return out;
}

std::string truncated(const std::string& text) {
  if (text.size() <= kMaxNoteChars) return text;
  size_t end = kMaxNoteChars;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "…";
}

// The median L2 roof of the placed points that have one, and its source kinds.
void chart_l2_roof(const Report& report, ChartRoofs& roofs) {
  std::vector<double> l2;
  std::vector<RoofSource> kinds;
  for (const auto& p : report.points) {
    if (!placed(p)) continue;
    const Roof& roof = p.roofline->roof;
    if (!roof.l2_bytes_per_s || !std::isfinite(*roof.l2_bytes_per_s) || !roof.l2_source_kind) {
      continue;
    }
    l2.push_back(*roof.l2_bytes_per_s);
    if (std::find(kinds.begin(), kinds.end(), *roof.l2_source_kind) == kinds.end())
      kinds.push_back(*roof.l2_source_kind);
  }
  if (l2.empty()) return;
  roofs.l2_bytes_per_s = median(l2);
  roofs.l2_min_bytes_per_s = *std::min_element(l2.begin(), l2.end());
  roofs.l2_max_bytes_per_s = *std::max_element(l2.begin(), l2.end());
  for (const RoofSource kind : kinds) {
    roofs.l2_kinds += (roofs.l2_kinds.empty() ? "" : ", ") + to_string(kind);
  }
}

}  // namespace

ChartRoofs chart_roofs(const Report& report) {
  std::vector<double> tensor, tensor_fp8, fp32, dram;
  std::vector<RoofSource> kinds;
  for (const auto& p : report.points) {
    if (!placed(p)) continue;
    const Roof& roof = p.roofline->roof;
    if (std::find(kinds.begin(), kinds.end(), roof.source_kind) == kinds.end())
      kinds.push_back(roof.source_kind);
    if (std::isfinite(roof.peak_flop_per_s) && roof.peak_flop_per_s > 0) {
      const bool fp8 = p.shape.gemm_dtype == GemmDtype::kFp8E4m3;
      (roof.pipe == Pipe::kFp32 ? fp32 : fp8 ? tensor_fp8 : tensor).push_back(roof.peak_flop_per_s);
    }
    if (std::isfinite(roof.peak_bytes_per_s) && roof.peak_bytes_per_s > 0) {
      dram.push_back(roof.peak_bytes_per_s);
    }
  }
  ChartRoofs roofs;
  chart_l2_roof(report, roofs);
  if (!tensor.empty()) roofs.tensor_flop_per_s = median(tensor);
  if (!tensor_fp8.empty()) roofs.tensor_fp8_flop_per_s = median(tensor_fp8);
  if (!fp32.empty()) roofs.fp32_flop_per_s = median(fp32);
  if (!dram.empty()) roofs.dram_bytes_per_s = median(dram);
  for (const RoofSource kind : kinds) {
    const char* words = kind == RoofSource::kMeasured ? "measured benchmarks"
                        : kind == RoofSource::kDatasheet
                            ? "datasheet (configs/gpus)"
                            : "counters peak_sustained × clock measured per kernel";
    roofs.kinds += (roofs.kinds.empty() ? "" : "; ") + std::string(words);
  }
  return roofs;
}

std::vector<std::string> points_without_roofline(const Report& report) {
  std::vector<std::string> out;
  for (const auto& p : report.points) {
    if (placed(p)) continue;
    std::string why = p.status != PointStatus::kOk ? to_string(p.status) : p.roofline_null_reason;
    if (why.empty()) why = "no roofline placement";
    out.push_back(fmt::format("{} L={}: {}", p.op, p.shape.seq_len, why));
  }
  return out;
}

namespace {

// The axis ranges of the log-log chart on its plot area.
using Axes = LogLogFrame;

// A point above the DRAM slope at its whole-traffic intensity by its deferred write-back
// (RooflinePoint::write_back_after_window), drawn with a tail to its in-window intensity.
bool has_in_window_tail(const PointResult& p) {
  return p.roofline->write_back_after_window &&
         p.roofline->in_window_arithmetic_intensity_flop_per_byte.has_value();
}

// A point drawn at its FLOP per L2 byte too: its L2 bytes are known.
bool has_l2_marker(const PointResult& p) {
  const std::optional<double>& i = p.roofline->l2_arithmetic_intensity_flop_per_byte;
  return i && std::isfinite(*i) && *i > 0;
}

// Every marker (DRAM and L2), every roof and every ridge point inside, with head room.
Axes axis_ranges(const std::vector<const PointResult*>& points, const ChartRoofs& roofs) {
  Axes axes;
  axes.left = kPlotLeft;
  axes.right = kPlotRight;
  axes.top = kPlotTop;
  axes.bottom = kPlotBottom;
  if (points.empty()) return axes;
  std::vector<double> xs, ys;
  for (const auto* p : points) {
    xs.push_back(p->roofline->arithmetic_intensity_flop_per_byte);
    if (has_l2_marker(*p)) xs.push_back(*p->roofline->l2_arithmetic_intensity_flop_per_byte);
    if (has_in_window_tail(*p)) {
      xs.push_back(*p->roofline->in_window_arithmetic_intensity_flop_per_byte);
    }
    ys.push_back(p->roofline->achieved_flop_per_s);
  }
  for (const auto& peak :
       {roofs.tensor_fp8_flop_per_s, roofs.tensor_flop_per_s, roofs.fp32_flop_per_s}) {
    if (!peak) continue;
    ys.push_back(*peak);
    for (const auto& bw : {roofs.dram_bytes_per_s, roofs.l2_bytes_per_s}) {
      if (bw) xs.push_back(*peak / *bw);
    }
  }
  axes.x_lo = nice_floor_125(*std::min_element(xs.begin(), xs.end()) / kAxisMargin);
  axes.x_hi = nice_ceil_125(*std::max_element(xs.begin(), xs.end()) * kAxisMargin);
  axes.y_lo = nice_floor_125(*std::min_element(ys.begin(), ys.end()) / kAxisMargin);
  axes.y_hi = nice_ceil_125(*std::max_element(ys.begin(), ys.end()) * kAxisMargin);
  return axes;
}

// The second marker of the hierarchical roofline: for each point with L2 bytes, a hollow marker of
// its operator's colour at its FLOP per L2 byte and the same FLOP/s, joined to its DRAM marker by
// a thin line. Reserved in `labels`.
std::string l2_markers_svg(const std::vector<std::string>& ops,
                           const std::map<std::string, std::vector<PlacedPoint>>& series,
                           const Scale& sx, LabelPlacer& labels) {
  std::string links, markers;
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto it = series.find(ops[i]);
    if (it == series.end()) continue;
    const SeriesStyle style = operator_style(ops[i], i);
    for (const auto& pp : it->second) {
      if (!has_l2_marker(*pp.point)) continue;
      const double x = sx(*pp.point->roofline->l2_arithmetic_intensity_flop_per_byte);
      links += fmt::format(
          R"(<line class="l2-link" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="0.8" stroke-opacity="0.7"/>)"
          "\n",
          pp.x, pp.y, x, pp.y, style.colour);
      markers += marker_svg(style.shape, x, pp.y, kMarkerRadius, "#FFFFFF", style.colour,
                            fmt::format(R"(class="point-l2" data-op="{}" data-seq-len="{}")",
                                        xml_escape(ops[i]), pp.point->shape.seq_len)) +
                 "\n";
      labels.reserve_marker(x, pp.y, kMarkerRadius);
    }
  }
  if (markers.empty()) return "";
  return "<g class=\"l2-markers\">\n" + links + markers + "</g>\n";
}

// Legend: operators, the L shading, the ridge symbol and, for a hierarchical chart, what the
// hollow markers are; what an in-window tail is when a point has one.
std::string legend_svg(const std::vector<std::string>& ops, const std::map<int64_t, double>& shade,
                       bool any_ridge, bool any_l2_marker, bool any_in_window_tail) {
  std::string svg = "<g class=\"legend\">\n";
  double y = kPlotTop + 8;
  svg += text_svg(kLegendX, y, "Operator", 13, "start", R"(font-weight="bold")") + "\n";
  y += 22;
  for (size_t i = 0; i < ops.size(); ++i) {
    const SeriesStyle style = operator_style(ops[i], i);
    svg += marker_svg(style.shape, kLegendX + 7, y - 4, kMarkerRadius, style.colour, style.colour,
                      R"(class="legend-marker")") +
           "\n";
    svg += text_svg(kLegendX + 20, y, display_name(ops[i]), 12, "start") + "\n";
    y += 21;
  }
  if (!shade.empty()) {
    y += 12;
    svg += text_svg(kLegendX, y, "Sequence length L", 13, "start", R"(font-weight="bold")") + "\n";
    y += 20;
    double x = kLegendX + 7;
    const double step = std::min(26.0, 190.0 / static_cast<double>(shade.size()));
    for (const auto& [l, amount] : shade) {
      svg += marker_svg(MarkerShape::kCircle, x, y - 4, kMarkerRadius, lighten("#555555", amount),
                        "#555555", "") +
             "\n";
      x += step;
    }
    y += 18;
    svg += text_svg(kLegendX + 2, y, std::to_string(shade.begin()->first), 11, "start") + "\n";
    if (shade.size() > 1) {
      svg += text_svg(x - step + 8, y, std::to_string(shade.rbegin()->first), 11, "end") + "\n";
    }
    y += 18;
    svg +=
        text_svg(kLegendX, y, "lighter = shorter L; numbers at", 11, "start", R"(fill="#555555")") +
        "\n";
    y += 15;
    svg +=
        text_svg(kLegendX, y, "the points: their L (ends only)", 11, "start", R"(fill="#555555")") +
        "\n";
  }
  if (any_ridge) {
    y += 30;
    svg += fmt::format(
        R"(<circle cx="{}" cy="{}" r="4" fill="#FFFFFF" stroke="{}" stroke-width="1.6"/>)"
        "\n",
        kLegendX + 7, y - 4, kInk);
    svg += text_svg(kLegendX + 20, y, "ridge point I* = peak / BW", 12, "start") + "\n";
    y += 18;
    svg +=
        text_svg(kLegendX, y, "left of it: memory-bound", 11, "start", R"(fill="#555555")") + "\n";
  }
  if (any_l2_marker) {
    y += 30;
    svg +=
        fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#555555" stroke-width="0.8"/>)"
                    "\n",
                    kLegendX + 7, y - 4, kLegendX + 27, y - 4);
    svg += marker_svg(MarkerShape::kCircle, kLegendX + 7, y - 4, kMarkerRadius, "#FFFFFF",
                      "#555555", R"(class="legend-marker-l2")") +
           "\n";
    svg += marker_svg(MarkerShape::kCircle, kLegendX + 27, y - 4, kMarkerRadius, "#555555",
                      "#555555", "") +
           "\n";
    svg += text_svg(kLegendX + 40, y, "hierarchical roofline", 12, "start") + "\n";
    for (const char* line : {"hollow: the point at FLOP per L2", "byte, same FLOP/s, under the",
                             "dashed L2 slope (Nsight Compute)"}) {
      y += 15;
      svg += text_svg(kLegendX, y, line, 11, "start", R"(fill="#555555")") + "\n";
    }
  }
  if (any_in_window_tail) {
    y += 30;
    svg += in_window_tail_svg(kLegendX + 7, y - 4, kMarkerRadius, kLegendX + 27);
    svg += marker_svg(MarkerShape::kCircle, kLegendX + 7, y - 4, kMarkerRadius, "#555555",
                      "#555555", "") +
           "\n";
    svg += text_svg(kLegendX + 40, y, "in-window tail", 12, "start") + "\n";
    for (const char* line : {"to the FLOP per in-window DRAM", "byte: above the slope by",
                             "write-back that moved after", "the kernel (not an error)"}) {
      y += 15;
      svg += text_svg(kLegendX, y, line, 11, "start", R"(fill="#555555")") + "\n";
    }
  }
  return svg + "</g>\n";
}

// What every part of the chart is drawn from: the placed points, their roofs, the axis ranges and
// the scales that map them onto the plot area.
struct Chart {
  const Report& report;
  ChartRoofs roofs;
  std::vector<const PointResult*> points;  ///< the placed points, in report order
  bool any_l2_marker = false;              ///< some point gets a hollow L2 marker
  bool any_in_window_tail = false;         ///< some point gets an in-window tail
  Axes axes;
  Scale sx;  ///< arithmetic intensity → x px
  Scale sy;  ///< FLOP/s → y px
};

Chart make_chart(const Report& report) {
  const ChartRoofs roofs = chart_roofs(report);
  std::vector<const PointResult*> points;
  for (const auto& p : report.points) {
    if (placed(p)) points.push_back(&p);
  }
  const bool any_l2_marker =
      std::any_of(points.begin(), points.end(), [](const auto* p) { return has_l2_marker(*p); });
  const bool any_in_window_tail = std::any_of(points.begin(), points.end(),
                                              [](const auto* p) { return has_in_window_tail(*p); });
  const Axes axes = axis_ranges(points, roofs);
  return Chart{report, roofs,     points,   any_l2_marker, any_in_window_tail,
               axes,   axes.sx(), axes.sy()};
}

std::string gpu_name(const Report& report) {
  return report.device.name.empty() ? "unknown GPU" : report.device.name;
}

// Title, shape line and the roofs' sources.
std::string title_svg(const Chart& chart) {
  const Report& report = chart.report;
  const DeviceRecord& d = report.device;
  const Shape& base = report.config.base;
  std::string svg = text_svg(kPlotLeft, 32,
                             fmt::format("Roofline: {} (cc {}.{}, {} SMs)", gpu_name(report),
                                         d.cc_major, d.cc_minor, d.sm_count),
                             kTitlePx, "start", R"(font-weight="bold" class="title")");
  const auto axis = [&](SweepAxis a) { return axis_summary(report.config.axes, base, a); };
  svg +=
      text_svg(kPlotLeft, 54,
               fmt::format("{} points · B = {}, H = {}, H_kv = {}, d = {}, {}, {} · sweep of {}",
                           chart.points.size(), axis(SweepAxis::kBatch), axis(SweepAxis::kHeads),
                           axis(SweepAxis::kKvHeads), axis(SweepAxis::kHeadDim),
                           axis(SweepAxis::kDtype), axis(SweepAxis::kCausal), report.timestamp_utc),
               kSubtitlePx, "start", R"(fill="#555555")");
  const size_t analytic =
      std::count_if(chart.points.begin(), chart.points.end(),
                    [](const auto* p) { return p->roofline->basis == "analytic"; });
  const ChartRoofs& roofs = chart.roofs;
  svg +=
      text_svg(kPlotLeft, 72,
               fmt::format("Roofs: {}{}, median over points. FLOPs and DRAM bytes: {}",
                           roofs.kinds.empty() ? "none" : roofs.kinds,
                           roofs.l2_bytes_per_s ? " (L2: " + roofs.l2_kinds + ")" : "",
                           analytic ? fmt::format("counters ({} from the analytic model)", analytic)
                                    : std::string("hardware counters")) +
                   bytes_basis_short(report),
               kSubtitlePx, "start", R"(fill="#555555" class="roof-source")");
  return svg;
}

// A ridge point (I*, peak): where a pipe's flat roof meets the DRAM slope, highest roof first.
// Empty without a DRAM roof.
struct Ridge {
  double intensity;
  double peak_flop_per_s;
};

std::vector<Ridge> ridges(const ChartRoofs& roofs) {
  std::vector<Ridge> out;
  for (const auto& peak :
       {roofs.tensor_fp8_flop_per_s, roofs.tensor_flop_per_s, roofs.fp32_flop_per_s}) {
    if (peak && roofs.dram_bytes_per_s) out.push_back({*peak / *roofs.dram_bytes_per_s, *peak});
  }
  return out;
}

// Where the markers (DRAM and L2) and the ridge markers will be, so roof labels can avoid them.
std::vector<Box> marker_boxes(const Chart& chart) {
  std::vector<Box> boxes;
  for (const auto* p : chart.points) {
    const double x = chart.sx(p->roofline->arithmetic_intensity_flop_per_byte),
                 y = chart.sy(p->roofline->achieved_flop_per_s);
    boxes.push_back(
        Box{x - kMarkerRadius, y - kMarkerRadius, x + kMarkerRadius, y + kMarkerRadius});
    if (!has_l2_marker(*p)) continue;
    const double x_l2 = chart.sx(*p->roofline->l2_arithmetic_intensity_flop_per_byte);
    boxes.push_back(
        Box{x_l2 - kMarkerRadius, y - kMarkerRadius, x_l2 + kMarkerRadius, y + kMarkerRadius});
  }
  for (const Ridge& r : ridges(chart.roofs)) {
    const double x = chart.sx(r.intensity), y = chart.sy(r.peak_flop_per_s);
    boxes.push_back(Box{x - 5, y - 5, x + 5, y + 5});
  }
  return boxes;
}

// The HBM slope and the L2 slope, each up to the highest compute roof.
std::string slopes_svg(const Chart& chart, std::vector<Box>& avoid, LabelPlacer& labels) {
  const ChartRoofs& roofs = chart.roofs;
  const double highest_peak =
      std::max({roofs.tensor_fp8_flop_per_s.value_or(0), roofs.tensor_flop_per_s.value_or(0),
                roofs.fp32_flop_per_s.value_or(0)});
  if (!(highest_peak > 0)) return "";
  std::string svg;
  if (roofs.dram_bytes_per_s) {
    svg += slanted_roof_svg(SlantedRoof{*roofs.dram_bytes_per_s, "roof-hbm",
                                        "HBM " + format_si(*roofs.dram_bytes_per_s, "B/s"), ""},
                            chart.axes, highest_peak, avoid, labels);
  }
  if (roofs.l2_bytes_per_s) {
    svg += slanted_roof_svg(
        SlantedRoof{
            *roofs.l2_bytes_per_s, "roof-l2",
            fmt::format("L2 {} ({})", format_si(*roofs.l2_bytes_per_s, "B/s"), roofs.l2_kinds),
            R"( stroke-dasharray="6 3")"},
        chart.axes, highest_peak, avoid, labels);
  }
  return svg;
}

// One flat roof per pipe, from its lowest ridge (DRAM or L2) to the right edge, labelled at the
// right end; the line and the label are reserved in `labels`.
std::string flat_roofs_svg(const Chart& chart, LabelPlacer& labels) {
  const ChartRoofs& roofs = chart.roofs;
  struct PipeRoof {
    const char* data_pipe;  ///< "tensor", "tensor-fp8" or "fp32"
    std::optional<double> peak;
    std::string name;
    const char* dash;
  };
  const PipeRoof pipe_roofs[] = {
      {"tensor-fp8", roofs.tensor_fp8_flop_per_s, "fp8 tensor-core roof",
       R"( stroke-dasharray="2 3")"},
      {"tensor", roofs.tensor_flop_per_s,
       axis_summary(chart.report.config.axes, chart.report.config.base, SweepAxis::kDtype) +
           " tensor-core roof",
       ""},
      {"fp32", roofs.fp32_flop_per_s, "fp32 FMA roof", R"( stroke-dasharray="7 4")"},
  };
  std::string svg;
  for (const auto& r : pipe_roofs) {
    if (!r.peak) continue;
    const double ridge =
        roofs.dram_bytes_per_s ? *r.peak / *roofs.dram_bytes_per_s : chart.axes.x_lo;
    const double l2_ridge = roofs.l2_bytes_per_s ? *r.peak / *roofs.l2_bytes_per_s : ridge;
    const double x0 = chart.sx(std::max(std::min(ridge, l2_ridge), chart.axes.x_lo)),
                 y = chart.sy(*r.peak);
    svg += fmt::format(
        R"(<line class="roof" data-pipe="{}" x1="{:.1f}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="{}" stroke-width="2"{}/>)"
        "\n",
        r.data_pipe, x0, y, kPlotRight, y, kInk, r.dash);
    labels.reserve(Box{x0, y - 3, kPlotRight, y + 3});
    const std::string text = r.name + " " + format_si(*r.peak, "FLOP/s");
    const double w = text_width_px(text, kLabelPx);
    svg += text_svg(kPlotRight - 6, y - 6, text, kLabelPx, "end",
                    fmt::format(R"(class="roof-label" fill="{}")", kInk)) +
           "\n";
    labels.reserve(Box{kPlotRight - 6 - w, y - 6 - kLabelPx, kPlotRight - 6, y - 3});
  }
  return svg;
}

// The ridge markers with a dotted drop line to the x axis, then their labels.
std::string ridges_svg(const Chart& chart, LabelPlacer& labels) {
  const std::vector<Ridge> points = ridges(chart.roofs);
  std::string svg;
  for (const Ridge& r : points) {
    const double x = chart.sx(r.intensity), y = chart.sy(r.peak_flop_per_s);
    svg += fmt::format(
        R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2}" stroke="#999999" stroke-dasharray="2 3"/>)"
        "\n",
        x, y + 4, kPlotBottom);
    svg += fmt::format(
        R"(<circle class="ridge" cx="{:.1f}" cy="{:.1f}" r="4" fill="#FFFFFF" stroke="{}" stroke-width="1.6"/>)"
        "\n",
        x, y, kInk);
    labels.reserve_marker(x, y, 4);
  }
  for (const Ridge& r : points) {
    const std::string text = fmt::format("ridge {} FLOP/B", format_3sig(r.intensity));
    const auto box =
        labels.place(chart.sx(r.intensity), chart.sy(r.peak_flop_per_s),
                     text_width_px(text, kLabelPx), kLabelPx * 1.2, LabelSide::kBelowRight);
    if (box)
      svg += text_svg(box->x0, baseline(*box, kLabelPx), text, kLabelPx, "start",
                      fmt::format(R"(class="ridge-label" fill="{}" {})", kInk, halo())) +
             "\n";
  }
  return svg;
}

// Roofs: the HBM slope (and the L2 slope) up to the highest ridge, then one flat roof per pipe
// from its lowest ridge, then the ridge points.
std::string roofs_svg(const Chart& chart, std::vector<Box>& avoid, LabelPlacer& labels) {
  std::string svg = R"(<g class="roofs">)"
                    "\n";
  svg += slopes_svg(chart, avoid, labels);
  svg += flat_roofs_svg(chart, labels);
  svg += ridges_svg(chart, labels);
  return svg + "</g>\n";
}

// The series a point belongs to: its operator, and in a sweep with lists the values of the axes
// that vary ("flash_attention fp16 B=8"), so that one line joins one combination's points.
std::string series_name(const Report& report, const PointResult& p) {
  const std::string swept = swept_axes_label(report.config.axes, p.op, p.shape);
  return swept.empty() ? p.op : p.op + " " + swept;
}

// The series in legend order: operators in report order, each operator's combinations in order
// of first appearance (without lists: the operators).
std::vector<std::string> series_in_order(const Report& report) {
  std::vector<std::string> names;
  for (const auto& op : operators_in_order(report)) {
    for (const auto& p : report.points) {
      if (p.op != op) continue;
      std::string name = series_name(report, p);
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

// Each series' placed points in L order, at their pixel positions.
using Series = std::map<std::string, std::vector<PlacedPoint>>;

Series placed_series(const Chart& chart) {
  Series series;
  for (const auto* p : chart.points) {
    series[series_name(chart.report, *p)].push_back(
        {p, chart.sx(p->roofline->arithmetic_intensity_flop_per_byte),
         chart.sy(p->roofline->achieved_flop_per_s)});
  }
  for (auto& [op, pts] : series) {
    std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) {
      return a.point->shape.seq_len < b.point->shape.seq_len;
    });
  }
  return series;
}

// A faint line through each operator's points in L order.
std::string series_lines_svg(const std::vector<std::string>& ops, const Series& series) {
  std::string svg =
      R"(<g class="series-lines" fill="none" stroke-width="1.3" stroke-opacity="0.5">)"
      "\n";
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto it = series.find(ops[i]);
    if (it == series.end() || it->second.size() < 2) continue;
    std::string path;
    for (const auto& pp : it->second)
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "" : " ", pp.x, pp.y);
    svg += fmt::format(R"(<polyline points="{}" stroke="{}"/>)"
                       "\n",
                       path, operator_style(ops[i], i).colour);
  }
  return svg + "</g>\n";
}

// The markers, shaded by L, each reserved in `labels`; a point above its roof is an error (a
// unit, formula or counter is wrong), never a silent point: it gets a red ring. A point above the
// DRAM slope at its whole-traffic intensity gets its in-window tail (in_window_tail_svg).
std::string points_svg(const std::vector<std::string>& ops, const Series& series,
                       const std::map<int64_t, double>& shade, const Scale& sx,
                       LabelPlacer& labels) {
  std::string svg = "<g class=\"points\">\n";
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto it = series.find(ops[i]);
    if (it == series.end()) continue;
    const SeriesStyle style = operator_style(ops[i], i);
    for (const auto& pp : it->second) {
      const int64_t l = pp.point->shape.seq_len;
      svg += marker_svg(style.shape, pp.x, pp.y, kMarkerRadius, lighten(style.colour, shade.at(l)),
                        style.colour,
                        fmt::format(R"(class="point" data-op="{}" data-seq-len="{}")",
                                    xml_escape(ops[i]), l)) +
             "\n";
      labels.reserve_marker(pp.x, pp.y, kMarkerRadius);
      if (has_in_window_tail(*pp.point)) {
        svg += in_window_tail_svg(
            pp.x, pp.y, kMarkerRadius,
            sx(*pp.point->roofline->in_window_arithmetic_intensity_flop_per_byte));
      }
      if (pp.point->roofline->above_roof) {
        svg += fmt::format(
            R"(<circle class="above-roof" cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="none" stroke="#D00000" stroke-width="2"/>)"
            "\n",
            pp.x, pp.y, kMarkerRadius + 4);
        labels.reserve_marker(pp.x, pp.y, kMarkerRadius + 4);
      }
    }
  }
  return svg + "</g>\n";
}

// "above roof" beside every point above its roof: always written, where no free place is left
// just right of the ring, over whatever is there (an error must not be hidden to keep the chart
// tidy).
std::string above_roof_labels_svg(const Series& series, LabelPlacer& labels) {
  std::string svg;
  for (const auto& [op, pts] : series) {
    for (const auto& pp : pts) {
      if (!pp.point->roofline->above_roof) continue;
      const std::string text = "above roof";
      const double w = text_width_px(text, kLabelPx), h = kLabelPx * 1.2;
      const Box box = labels.place(pp.x, pp.y, w, h)
                          .value_or(Box{pp.x + kMarkerRadius + 6, pp.y - h / 2,
                                        pp.x + kMarkerRadius + 6 + w, pp.y + h / 2});
      svg +=
          text_svg(box.x0, baseline(box, kLabelPx), text, kLabelPx, "start",
                   fmt::format(R"(class="above-roof-label" fill="#D00000" font-weight="bold" {})",
                               halo())) +
          "\n";
    }
  }
  return svg;
}

// The L of each operator's shortest and longest point, where a free place is left; a label
// pushed away from its marker gets a thin leader line back to it.
std::string end_labels_svg(const std::vector<std::string>& ops, const Series& series,
                           LabelPlacer& labels) {
  std::string svg;
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto it = series.find(ops[i]);
    if (it == series.end()) continue;
    const SeriesStyle style = operator_style(ops[i], i);
    std::vector<PlacedPoint> ends = {it->second.front()};
    if (it->second.size() > 1) ends.push_back(it->second.back());
    for (const auto& pp : ends) {
      const std::string text = std::to_string(pp.point->shape.seq_len);
      const auto box = labels.place(pp.x, pp.y, text_width_px(text, kLabelPx), kLabelPx * 1.2);
      if (!box) continue;
      if (distance_to_box(*box, pp.x, pp.y) > kLeaderMinPx) {
        const double bx = std::clamp(pp.x, box->x0, box->x1),
                     by = std::clamp(pp.y, box->y0, box->y1);
        svg += fmt::format(
            R"(<line class="leader" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="1"/>)",
            pp.x, pp.y, bx, by, style.colour);
      }
      svg += text_svg(box->x0, baseline(*box, kLabelPx), text, kLabelPx, "start",
                      fmt::format(R"(class="point-label" fill="{}" {})", style.colour, halo())) +
             "\n";
    }
  }
  return svg;
}

// The line under the chart that lists the points without roofline data.
std::string omitted_note_svg(const Report& report) {
  const std::vector<std::string> omitted = points_without_roofline(report);
  if (omitted.empty()) return "";
  std::string note = fmt::format("Not shown, {} point{} without roofline data: ", omitted.size(),
                                 omitted.size() == 1 ? "" : "s");
  for (size_t i = 0; i < omitted.size(); ++i) note += (i ? "; " : "") + omitted[i];
  return text_svg(kPlotLeft, kHeight - 14, truncated(note), 11, "start",
                  R"(class="omitted-note" fill="#555555")") +
         "\n";
}

}  // namespace

std::string roofline_svg(const Report& report) {
  const Chart chart = make_chart(report);
  std::string svg =
      svg_open(kWidth, kHeight, "Roofline of the rooflinectl sweep on " + gpu_name(report));
  svg += title_svg(chart);
  svg += log_grid_svg(chart.axes);
  svg += log_axes_svg(chart.axes,
                      chart.any_l2_marker
                          ? "Arithmetic intensity (FLOP per byte of DRAM traffic; hollow "
                            "markers: of L2 traffic; log scale)"
                          : "Arithmetic intensity (FLOP per byte of DRAM traffic, log scale)",
                      "Performance (TFLOP/s, log scale)", 1e12);

  LabelPlacer labels(Box{kPlotLeft + 2, kPlotTop + 2, kPlotRight - 2, kPlotBottom - 2});
  std::vector<Box> avoid = marker_boxes(chart);
  svg += roofs_svg(chart, avoid, labels);

  // Series: the lines, the L2 markers, then the markers on top and their labels.
  const std::vector<std::string> ops = series_in_order(report);
  const std::map<int64_t, double> shade = shades(report);
  const Series series = placed_series(chart);
  svg += series_lines_svg(ops, series);
  svg += l2_markers_svg(ops, series, chart.sx, labels);
  svg += points_svg(ops, series, shade, chart.sx, labels);
  svg += "<g class=\"point-labels\">\n";
  svg += above_roof_labels_svg(series, labels);
  svg += end_labels_svg(ops, series, labels);
  svg += "</g>\n";
  if (chart.points.empty()) {
    svg +=
        text_svg((kPlotLeft + kPlotRight) / 2, (kPlotTop + kPlotBottom) / 2,
                 "No point of this report has roofline data", 16, "middle", R"(fill="#555555")") +
        "\n";
  }
  svg += legend_svg(ops, shade, !ridges(chart.roofs).empty(), chart.any_l2_marker,
                    chart.any_in_window_tail);
  svg += omitted_note_svg(report);
  return svg + "</svg>\n";
}

}  // namespace rooflinectl
