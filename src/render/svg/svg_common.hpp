// Small SVG building blocks shared by the roofline and throughput charts: escaping, scales,
// ticks, operator styles, markers, and a label placer that keeps labels from overlapping. The
// charts are plain SVG 1.1 text with no scripts, fonts or external references. Pure; no throws
// except where noted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "render/xml_escape.hpp"

namespace rooflinectl {

/// Font stack of every chart text; widths are estimated for it (text_width_px).
inline constexpr const char* kSvgFontFamily = "DejaVu Sans, Verdana, Arial, sans-serif";

/// Estimated rendered width in px of `text` at `font_px`: DejaVu Sans advances are about 0.55–0.64
/// em for digits and lower case (0.64 is used, so estimates err wide and labels keep their gap).
/// Counts code points, not bytes.
double text_width_px(const std::string& text, double font_px);

/// Ink of axes, roofs and their labels.
inline constexpr const char* kSvgInk = "#333333";

/// `text` cut to at most `max_code_points` code points, the last one "…" when cut (never inside
/// a UTF-8 sequence).
std::string truncated_text(const std::string& text, size_t max_code_points);

/// Maps data values in [d0, d1] to pixels [p0, p1], linearly or on log10 (then d0, d1 > 0).
class Scale {
 public:
  static Scale linear(double d0, double d1, double p0, double p1);
  static Scale log10(double d0, double d1, double p0, double p1);
  double operator()(double v) const;
  double d0() const { return d0_; }
  double d1() const { return d1_; }
  bool is_log() const { return log_; }

 private:
  Scale(double d0, double d1, double p0, double p1, bool log)
      : d0_(d0), d1_(d1), p0_(p0), p1_(p1), log_(log) {}
  double d0_, d1_, p0_, p1_;
  bool log_;
};

/// Powers of ten within [lo, hi] (both > 0), ascending.
std::vector<double> decade_ticks(double lo, double hi);
/// Multiples 2..9 of each power of ten inside (lo, hi): the faint minor grid of a log axis.
std::vector<double> log_minor_ticks(double lo, double hi);
/// 1, 2 and 5 × each power of ten within [lo, hi]: labels for a log axis shorter than 3 decades.
std::vector<double> log_125_ticks(double lo, double hi);
/// Round steps (1, 2 or 5 × 10^k) from 0 up to the first tick ≥ max (max > 0), about
/// `target_count` of them; the last element is the axis end.
std::vector<double> nice_linear_ticks(double max, int target_count);
/// Largest 1, 2 or 5 × 10^k ≤ v, and the smallest ≥ v (v > 0): log-axis ends.
double nice_floor_125(double v);
double nice_ceil_125(double v);
/// Compact tick text: 0.01, 0.5, 1, 20, 300, 1000, 10k, 2M (no trailing zeros).
std::string format_tick(double v);

/// Marker shapes, distinct in outline so operators stay apart in grayscale too.
enum class MarkerShape { kCircle, kSquare, kTriangleUp, kDiamond, kTriangleDown, kPentagon };

/// How one operator is drawn in every chart: colour (#rrggbb, Okabe–Ito colour-blind-safe
/// palette, Wong, Nature Methods 8:441, 2011) and marker shape.
struct SeriesStyle {
  std::string colour;
  MarkerShape shape;
};

/// Fixed style for the built-in operators (the same in both charts, distinct for each of
/// kOperatorNames); an unknown operator gets the style at `fallback_index` of the palette,
/// cycling.
SeriesStyle operator_style(const std::string& op, size_t fallback_index);

/// "naive_attention" → "naive attention": operator names as a reader sees them in a legend.
std::string display_name(const std::string& op);

/// `colour` (#rrggbb) mixed with white: amount 0 keeps it, 1 gives white.
std::string lighten(const std::string& colour, double amount);

/// A dashed tail from the edge of a marker of radius `r` at (x, y) to `x_end` (> x) at the same
/// height, ending in a short upright tick: a roofline point above the DRAM slope at its
/// whole-traffic intensity by its deferred write-back (RooflinePoint::write_back_after_window),
/// pointing at its FLOP per in-window DRAM byte; from the centre when x_end ≤ x + r, so that the
/// tick shows over the marker. Empty when x_end ≤ x.
std::string in_window_tail_svg(double x, double y, double r, double x_end);

/// One marker centred at (x, y) with circumradius `r`; `attributes` (e.g. class, data-*) are
/// inserted verbatim into the element and must already be escaped.
std::string marker_svg(MarkerShape shape, double x, double y, double r, const std::string& fill,
                       const std::string& stroke, const std::string& attributes);

/// A <text> element; `anchor` is start | middle | end; `extra` goes verbatim into the element.
std::string text_svg(double x, double y, const std::string& content, double font_px,
                     const std::string& anchor, const std::string& extra = "");

/// Axis-aligned box in px (y grows downwards).
struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool overlaps(const Box& other) const;
  bool inside(const Box& bounds) const;
};

/// The side LabelPlacer::place tries first.
enum class LabelSide { kRight, kAbove, kBelowRight };

/// Greedy placement of point labels: each label goes to the first of several positions around
/// its anchor (right, left, above, below, the diagonals; then the same 2.2× and 3.5× as far) that
/// stays inside the bounds, overlaps no earlier label and no reserved box, and is not nearer to
/// another marker than to its own anchor (a label must not seem to name the wrong point). Labels
/// that fit nowhere are dropped rather than drawn over something.
class LabelPlacer {
 public:
  explicit LabelPlacer(Box bounds) : bounds_(bounds) {}
  /// Marks `box` as taken (a line, a line label).
  void reserve(const Box& box) { taken_.push_back(box); }
  /// Marks a marker of radius `r` at (x, y) as taken and remembers its centre for the
  /// nearest-marker rule.
  void reserve_marker(double x, double y, double r);
  /// The text box chosen for a label of `width` × `height` px anchored at (x, y), now reserved;
  /// nullopt when no candidate fits. `first` is tried before the others. `clearance_px` moves
  /// every candidate that much farther from the anchor (a marker's radius, when it is large).
  std::optional<Box> place(double x, double y, double width, double height,
                           LabelSide first = LabelSide::kRight, double clearance_px = 0);
  /// Every label box placed so far (tests check that none overlap).
  const std::vector<Box>& placed() const { return placed_; }

 private:
  bool nearer_to_another_marker(const Box& box, double x, double y) const;

  Box bounds_;
  std::vector<Box> taken_;
  std::vector<Box> placed_;
  std::vector<std::pair<double, double>> markers_;
};

/// Distance in px from (x, y) to the nearest point of `box` (0 inside it).
double distance_to_box(const Box& box, double x, double y);

/// `<svg>` start tag with width, height and viewBox, a white background, the <title> (what a
/// screen reader and a browser tab show) and the default font. Close with "</svg>\n".
std::string svg_open(double width, double height, const std::string& title);

/// A log-log plot area: the data ranges of both axes (all > 0) and the pixel frame they map onto
/// (y grows downwards: y_lo sits at `bottom`).
struct LogLogFrame {
  double x_lo = 1e-1, x_hi = 1e4, y_lo = 1e11, y_hi = 1e16;
  double left = 0, right = 0, top = 0, bottom = 0;
  Scale sx() const { return Scale::log10(x_lo, x_hi, left, right); }
  Scale sy() const { return Scale::log10(y_lo, y_hi, bottom, top); }
};

/// The grid of `frame` (the 2..9 minor lines of each decade faint, then the decades) and its frame.
std::string log_grid_svg(const LogLogFrame& frame);

/// Both axes of `frame`: decade ticks (1, 2 and 5 × each decade on an axis with fewer than three
/// decades) labelled (class "tick") with format_tick(v) on x and
/// format_tick(v / y_unit) on y (y_unit 1e12: FLOP/s shown as TFLOP/s), and the axis titles
/// (class "axis-title"), x centred 46 px under the frame, y rotated 62 px left of it.
std::string log_axes_svg(const LogLogFrame& frame, const std::string& x_title,
                         const std::string& y_title, double y_unit);

/// A bandwidth roof (bytes/s), drawn as a slope of attainable FLOP/s = I x bandwidth.
struct SlantedRoof {
  double bytes_per_s = 0;
  const char* css_class = "";  ///< "roof-hbm", "roof-l2"
  std::string text;            ///< its label
  const char* dash = "";       ///< extra line attributes, e.g. a dash array
};

/// The slope of `roof` from the frame's left (or lower) edge up to `highest_peak` (FLOP/s),
/// labelled just above it at the first of a few positions whose footprint (small boxes along the
/// rotated text) covers the fewest of `avoid` (the markers and earlier slope labels), to which
/// that footprint is then added. The line and its label are reserved in `labels`, so point labels
/// keep off them. Empty when the slope does not cross the frame.
std::string slanted_roof_svg(const SlantedRoof& roof, const LogLogFrame& frame, double highest_peak,
                             std::vector<Box>& avoid, LabelPlacer& labels);

}  // namespace rooflinectl
