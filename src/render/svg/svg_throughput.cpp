#include "render/svg/svg_throughput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "core/sweep_axes.hpp"
#include "render/attention_summary.hpp"
#include "render/svg/svg_common.hpp"
#include "render/svg/svg_roofline.hpp"
#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

constexpr double kWidth = 1200;
constexpr double kHeight = 540;
constexpr double kPanelLeft = 80;  // x of the first panel's plot area
constexpr double kPanelWidth = 300;
constexpr double kPanelStride = 390;  // plot width + room for the next panel's tick labels
constexpr double kPlotTop = 140;
constexpr double kPlotBottom = 440;
constexpr double kMarkerRadius = 5;
constexpr double kTickPx = 11;
constexpr double kLabelPx = 11;
// Room above the highest value, as a factor, so labels above the top markers fit.
constexpr double kHeadRoom = 1.15;
constexpr const char* kInk = "#333333";
// Room left and right of the shortest and longest L on the log axis, as a factor, so a label
// centred above an end marker stays inside the panel.
constexpr double kLengthMargin = 1.5;

struct SeriesPoint {
  int64_t seq_len;
  double value;
};

struct Series {
  std::string op;
  size_t style_index;  // position in the report's operator order (operator_style fallback)
  std::vector<SeriesPoint> points;
};

struct Panel {
  std::string id;  // data-panel of its markers
  std::string title;
  std::string subtitle;  // roof or method line under the title
  std::string y_title;
  bool log_y = false;
  std::vector<Series> series;
  std::optional<double> roof;  // dashed horizontal line, in panel units
  std::string roof_label;
  bool speedups = false;  // write flash/naive above each L (tokens panel)
  // true: the y range reaches the roof; false: the roof is drawn only when the data's range
  // reaches it, else the subtitle says "<roof_label> (off scale)".
  bool roof_sets_range = true;
};

bool placed(const PointResult& p) {
  return p.roofline && std::isfinite(p.roofline->achieved_flop_per_s) &&
         std::isfinite(p.roofline->achieved_bytes_per_s) && p.roofline->achieved_flop_per_s > 0;
}

bool is_prefill_attention(const std::string& op) {
  return op == kFlashAttentionOp || op == kNaiveAttentionOp;
}

// TB/s panel: memory-bound at every placed L on a non-tensor pipe. Tensor-core operators stay in
// TFLOP/s even when memory-bound (naive attention is) so flash and naive share an axis.
bool bandwidth_operator(const Report& report, const std::string& op) {
  bool any = false;
  for (const auto& p : report.points) {
    if (p.op != op || !placed(p)) continue;
    any = true;
    if (p.roofline->roof.pipe == Pipe::kTensor || p.roofline->bound != Bound::kMemory) return false;
  }
  return any;
}

std::vector<Panel> build_panels(const Report& report) {
  const ChartRoofs roofs = chart_roofs(report);
  Panel flops;
  flops.id = "tflops";
  flops.title = "Compute throughput";
  flops.y_title = "achieved TFLOP/s";
  Panel bytes;
  bytes.id = "tbps";
  bytes.title = "DRAM bandwidth (memory-bound operators)";
  bytes.y_title = "achieved TB/s";
  Panel tokens;
  tokens.id = "tokens";
  tokens.title = "Attention prefill: flash vs naive";
  tokens.subtitle = "labels: speedup flash / naive";
  tokens.y_title = "tokens/s (log scale)";
  tokens.log_y = true;
  tokens.speedups = true;
  if (roofs.tensor_flop_per_s) {
    flops.roof = *roofs.tensor_flop_per_s / 1e12;
    flops.roof_label = "tensor roof " + format_si(*roofs.tensor_flop_per_s, "FLOP/s");
    flops.roof_sets_range = false;
  }
  if (roofs.dram_bytes_per_s) {
    bytes.roof = *roofs.dram_bytes_per_s / 1e12;
    bytes.roof_label = "HBM roof " + format_si(*roofs.dram_bytes_per_s, "B/s");
  }
  const std::vector<std::string> ops = operators_in_order(report);
  for (size_t i = 0; i < ops.size(); ++i) {
    const bool bandwidth = bandwidth_operator(report, ops[i]);
    Series rate{ops[i], i, {}};
    Series tok{ops[i], i, {}};
    for (const auto& p : report.points) {
      if (p.op != ops[i]) continue;
      if (placed(p)) {
        rate.points.push_back({p.shape.seq_len, bandwidth
                                                    ? p.roofline->achieved_bytes_per_s / 1e12
                                                    : p.roofline->achieved_flop_per_s / 1e12});
      }
      if (p.status == PointStatus::kOk && p.tokens_per_s && std::isfinite(*p.tokens_per_s) &&
          *p.tokens_per_s > 0) {
        tok.points.push_back({p.shape.seq_len, *p.tokens_per_s});
      }
    }
    for (auto* s : {&rate, &tok}) {
      std::stable_sort(s->points.begin(), s->points.end(),
                       [](const auto& a, const auto& b) { return a.seq_len < b.seq_len; });
    }
    if (!rate.points.empty()) (bandwidth ? bytes : flops).series.push_back(rate);
    if (is_prefill_attention(ops[i]) && !tok.points.empty()) tokens.series.push_back(tok);
  }
  return {flops, bytes, tokens};
}

// Where one panel with data is drawn: its x extent and scales, its y ticks and whether its roof
// lies inside the y range.
struct PanelFrame {
  const Panel& panel;
  double left;
  double right;
  const Scale& sx;            ///< L → x px
  std::vector<double> ticks;  ///< y ticks, panel units
  double y_lo;
  double y_hi;
  Scale sy;  ///< panel units → y px
  bool roof_drawn;
};

// The frame of `panel` at `left`; nullopt when it has no value to show.
std::optional<PanelFrame> panel_frame(const Panel& panel, double left, const Scale& sx) {
  std::vector<double> values;
  for (const auto& s : panel.series) {
    for (const auto& p : s.points) values.push_back(p.value);
  }
  if (panel.roof && panel.roof_sets_range) values.push_back(*panel.roof);
  if (values.empty()) return std::nullopt;
  const double lo = *std::min_element(values.begin(), values.end());
  const double hi = *std::max_element(values.begin(), values.end());
  std::vector<double> ticks;
  double y_lo = 0, y_hi = 0;
  if (panel.log_y) {
    y_lo = nice_floor_125(lo / 1.5);
    y_hi = nice_ceil_125(hi * 2.0);
    ticks = decade_ticks(y_lo, y_hi);
    if (ticks.size() < 3) ticks = log_125_ticks(y_lo, y_hi);  // a short range needs more labels
  } else {
    ticks = nice_linear_ticks(hi * kHeadRoom, 5);
    y_hi = ticks.back();
  }
  const Scale sy = panel.log_y ? Scale::log10(y_lo, y_hi, kPlotBottom, kPlotTop)
                               : Scale::linear(0, y_hi, kPlotBottom, kPlotTop);
  const bool roof_drawn = panel.roof && *panel.roof <= y_hi;
  return PanelFrame{panel, left, left + kPanelWidth, sx, ticks, y_lo, y_hi, sy, roof_drawn};
}

// The panel's group start, title and subtitle.
std::string panel_heading_svg(const Panel& panel, double left) {
  std::string svg = fmt::format("<g class=\"panel\" data-panel=\"{}\">\n", panel.id);
  svg += text_svg(left, kPlotTop - 30, panel.title, 14, "start",
                  R"(font-weight="bold" class="panel-title")") +
         "\n";
  if (!panel.subtitle.empty()) {
    svg += text_svg(left, kPlotTop - 12, panel.subtitle, 11, "start", R"(fill="#555555")") + "\n";
  }
  return svg;
}

// A panel without data: its frame saying so, and the group's end.
std::string empty_panel_svg(double left) {
  std::string svg =
      fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}"/>)"
                  "\n",
                  left, kPlotTop, kPanelWidth, kPlotBottom - kPlotTop, kInk);
  svg += text_svg(left + kPanelWidth / 2, (kPlotTop + kPlotBottom) / 2, "no data", 13, "middle",
                  R"(fill="#555555")");
  return svg + "\n</g>\n";
}

// The faint minor grid of a log y axis, then the y axis: tick lines across the panel, their
// labels and the axis title.
std::string y_axis_svg(const PanelFrame& f) {
  std::string svg;
  if (f.panel.log_y) {
    for (const double v : log_minor_ticks(f.y_lo, f.y_hi)) {
      svg += fmt::format(R"(<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="#F0F0F0"/>)"
                         "\n",
                         f.left, f.sy(v), f.right, f.sy(v));
    }
  }
  svg += "<g class=\"axis y\">\n";
  for (const double v : f.ticks) {
    svg += fmt::format(R"(<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="#DDDDDD"/>)",
                       f.left, f.sy(v), f.right, f.sy(v));
    svg +=
        text_svg(f.left - 7, f.sy(v) + 4, format_tick(v), kTickPx, "end", R"(class="tick")") + "\n";
  }
  const double ty = (kPlotTop + kPlotBottom) / 2;
  svg += text_svg(f.left - 48, ty, f.panel.y_title, 12, "middle",
                  fmt::format(R"svg(class="axis-title" transform="rotate(-90 {} {})")svg",
                              f.left - 48, ty)) +
         "\n</g>\n";
  return svg;
}

// The x axis: a tick and a grid line at every L of the report, labelled where the label does not
// touch the previous one, and the axis title.
std::string x_axis_svg(const PanelFrame& f, const std::vector<int64_t>& lengths) {
  std::string svg = "<g class=\"axis x\">\n";
  double last_label_right = -1e9;
  for (const int64_t l : lengths) {
    const double x = f.sx(static_cast<double>(l));
    svg += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#EEEEEE"/>)", x,
                       kPlotTop, kPlotBottom);
    svg += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="{3}"/>)", x,
                       kPlotBottom, kPlotBottom + 4, kInk);
    const std::string text = std::to_string(l);
    const double w = text_width_px(text, kTickPx);
    if (x - w / 2 > last_label_right + 4) {
      svg += text_svg(x, kPlotBottom + 17, text, kTickPx, "middle", R"(class="tick")");
      last_label_right = x + w / 2;
    }
    svg += "\n";
  }
  svg += text_svg(f.left + kPanelWidth / 2, kPlotBottom + 38, "sequence length L (log scale)", 12,
                  "middle", R"(class="axis-title")") +
         "\n</g>\n";
  return svg;
}

// The dashed roof across the panel and its label, reserved in `labels`; nothing when the roof is
// off scale.
std::string panel_roof_svg(const PanelFrame& f, LabelPlacer& labels) {
  if (!f.roof_drawn) return "";
  const double y = f.sy(*f.panel.roof);
  std::string svg = fmt::format(
      R"(<line class="roof" x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="{}" stroke-width="1.5" stroke-dasharray="7 4"/>)"
      "\n",
      f.left, y, f.right, y, kInk);
  svg += text_svg(f.right - 5, y - 5, f.panel.roof_label, kLabelPx, "end",
                  fmt::format(R"(fill="{}")", kInk)) +
         "\n";
  labels.reserve(Box{f.right - 5 - text_width_px(f.panel.roof_label, kLabelPx), y - 5 - kLabelPx,
                     f.right, y + 3});
  return svg;
}

// Each series' line through its points, then every marker on top, reserved in `labels`.
std::string panel_series_svg(const PanelFrame& f, LabelPlacer& labels) {
  std::string svg;
  for (const auto& s : f.panel.series) {
    const SeriesStyle style = operator_style(s.op, s.style_index);
    std::string path;
    for (const auto& p : s.points) {
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "" : " ",
                          f.sx(static_cast<double>(p.seq_len)), f.sy(p.value));
    }
    if (s.points.size() > 1) {
      svg += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="1.8"/>)"
                         "\n",
                         path, style.colour);
    }
  }
  for (const auto& s : f.panel.series) {
    const SeriesStyle style = operator_style(s.op, s.style_index);
    for (const auto& p : s.points) {
      const double x = f.sx(static_cast<double>(p.seq_len)), y = f.sy(p.value);
      svg +=
          marker_svg(style.shape, x, y, kMarkerRadius, style.colour, style.colour,
                     fmt::format(R"(class="point" data-op="{}" data-seq-len="{}" data-panel="{}")",
                                 xml_escape(s.op), p.seq_len, f.panel.id)) +
          "\n";
      labels.reserve_marker(x, y, kMarkerRadius);
    }
  }
  return svg;
}

// The flash / naive speedup at each L, above the higher of the two markers at that L or wherever
// the placer finds room.
std::string speedup_labels_svg(const PanelFrame& f, const AttentionSummary& summary,
                               LabelPlacer& labels) {
  std::string svg;
  for (const auto& c : summary.comparisons) {
    const std::string text = fmt::format("{:.2f}×", c.speedup);
    double top = kPlotBottom;
    for (const auto& s : f.panel.series) {
      for (const auto& p : s.points) {
        if (p.seq_len == c.seq_len) top = std::min(top, f.sy(p.value));
      }
    }
    const double x = f.sx(static_cast<double>(c.seq_len));
    const double w = text_width_px(text, kLabelPx);
    const auto box = labels.place(x, top - kMarkerRadius, w, kLabelPx * 1.2, LabelSide::kAbove);
    if (!box) continue;
    svg +=
        text_svg(
            box->x0, box->y0 + kLabelPx * 0.95, text, kLabelPx, "start",
            R"(class="speedup-label" fill="#222222" stroke="#FFFFFF" stroke-width="3" paint-order="stroke")") +
        "\n";
  }
  return svg;
}

std::string draw_panel(const Panel& panel, double left, const Scale& sx,
                       const std::vector<int64_t>& lengths, const AttentionSummary& summary) {
  std::string svg = panel_heading_svg(panel, left);
  const std::optional<PanelFrame> frame = panel_frame(panel, left, sx);
  if (!frame) return svg + empty_panel_svg(left);
  const PanelFrame& f = *frame;
  if (panel.roof && !f.roof_drawn) {
    svg += text_svg(left, kPlotTop - 12, panel.roof_label + " (off scale)", 11, "start",
                    R"(fill="#555555" class="roof-off-scale")") +
           "\n";
  }
  svg += y_axis_svg(f);
  svg += x_axis_svg(f, lengths);
  svg += fmt::format(
      R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="1.2"/>)"
      "\n",
      left, kPlotTop, kPanelWidth, kPlotBottom - kPlotTop, kInk);
  LabelPlacer labels(Box{left + 2, kPlotTop + 2, f.right - 2, kPlotBottom - 2});
  svg += panel_roof_svg(f, labels);
  svg += panel_series_svg(f, labels);
  if (panel.speedups) svg += speedup_labels_svg(f, summary, labels);
  return svg + "</g>\n";
}

}  // namespace

std::string throughput_svg(const Report& report) {
  const DeviceRecord& d = report.device;
  const Shape& base = report.config.base;
  const auto axis = [&](SweepAxis a) { return axis_summary(report.config.axes, base, a); };
  const std::string gpu = d.name.empty() ? "unknown GPU" : d.name;
  std::string svg =
      svg_open(kWidth, kHeight, "Throughput against sequence length, rooflinectl sweep on " + gpu);
  svg += text_svg(kPanelLeft - 40, 32,
                  fmt::format("Throughput against sequence length: {} (cc {}.{}, {} SMs)", gpu,
                              d.cc_major, d.cc_minor, d.sm_count),
                  18, "start", R"(font-weight="bold" class="title")") +
         "\n";
  svg += text_svg(kPanelLeft - 40, 54,
                  fmt::format("B = {}, H = {}, H_kv = {}, d = {}, {}, {} · median of {} timed "
                              "runs, L2 flushed · sweep of {}",
                              axis(SweepAxis::kBatch), axis(SweepAxis::kHeads),
                              axis(SweepAxis::kKvHeads), axis(SweepAxis::kHeadDim),
                              axis(SweepAxis::kDtype), axis(SweepAxis::kCausal),
                              report.config.repetitions, report.timestamp_utc),
                  12, "start", R"(fill="#555555")") +
         "\n";

  // Legend row: every operator, in the report's order.
  const std::vector<std::string> ops = operators_in_order(report);
  svg += "<g class=\"legend\">\n";
  double x = kPanelLeft - 40;
  double entry_px = 0;  // one width for all entries, so the row reads as evenly spaced
  for (const auto& op : ops)
    entry_px = std::max(entry_px, 16 + text_width_px(display_name(op), 12) + 18);
  for (size_t i = 0; i < ops.size(); ++i) {
    const SeriesStyle style = operator_style(ops[i], i);
    svg += marker_svg(style.shape, x + 6, 78, kMarkerRadius, style.colour, style.colour,
                      R"(class="legend-marker")") +
           "\n";
    svg += text_svg(x + 16, 82, display_name(ops[i]), 12, "start") + "\n";
    x += entry_px;
  }
  svg += "</g>\n";

  std::set<int64_t> length_set;
  for (const auto& p : report.points) length_set.insert(p.shape.seq_len);
  const std::vector<int64_t> lengths(length_set.begin(), length_set.end());
  const double l_lo = lengths.empty() ? 256 : lengths.front() / kLengthMargin;
  const double l_hi = lengths.empty() ? 65536 : lengths.back() * kLengthMargin;
  const AttentionSummary summary = summarize_attention(report);
  const std::vector<Panel> panels = build_panels(report);
  for (size_t i = 0; i < panels.size(); ++i) {
    const double left = kPanelLeft + kPanelStride * static_cast<double>(i);
    const Scale sx = Scale::log10(l_lo, l_hi, left, left + kPanelWidth);
    svg += draw_panel(panels[i], left, sx, lengths, summary);
  }

  std::vector<std::string> notes;
  const std::vector<std::string> omitted = points_without_roofline(report);
  if (!omitted.empty()) {
    notes.push_back(
        fmt::format("Left out of the TFLOP/s and TB/s panels, {} point{} without roofline data",
                    omitted.size(), omitted.size() == 1 ? "" : "s") +
        " (see the table).");
  }
  if (!summary.excluded.empty()) {
    notes.push_back(fmt::format("No speedup at {} L where flash or naive did not run ok.",
                                summary.excluded.size()));
  }
  double y = kHeight - 36;
  for (const auto& n : notes) {
    svg += text_svg(kPanelLeft - 40, y, n, 11, "start", R"(class="omitted-note" fill="#555555")") +
           "\n";
    y += 15;
  }
  return svg + "</svg>\n";
}

}  // namespace rooflinectl
