#include "render/svg/svg_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "core/operator_names.hpp"

namespace rooflinectl {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr const char* kInk = kSvgInk;
constexpr double kTickPx = 12;
constexpr double kLabelPx = 11;
// Average advance of DejaVu Sans digits and lower case, in em, rounded up (see text_width_px).
constexpr double kEmPerChar = 0.64;

// Okabe–Ito palette without black and yellow (yellow is unreadable on white).
// The six colours of the first six operators, then the palette's black and yellow: with six
// shapes, the nine operators of kOperatorNames get nine distinct (colour, shape) pairs.
constexpr std::array<const char*, 8> kPalette = {"#D55E00", "#0072B2", "#009E73", "#CC79A7",
                                                 "#E69F00", "#56B4E9", "#000000", "#F0E442"};
constexpr std::array<MarkerShape, 6> kShapes = {MarkerShape::kCircle,       MarkerShape::kSquare,
                                                MarkerShape::kTriangleUp,   MarkerShape::kDiamond,
                                                MarkerShape::kTriangleDown, MarkerShape::kPentagon};

std::string polygon(const std::vector<std::pair<double, double>>& vertices, const std::string& fill,
                    const std::string& stroke, const std::string& attributes) {
  std::string points;
  for (const auto& [x, y] : vertices)
    points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x, y);
  return fmt::format(R"(<polygon points="{}" fill="{}" stroke="{}" stroke-width="1.3" {}/>)",
                     points, fill, stroke, attributes);
}

// Regular n-gon of circumradius r; `start_deg` is the angle of the first vertex (0 = right,
// -90 = up, since y grows downwards).
std::vector<std::pair<double, double>> regular(double x, double y, double r, int n,
                                               double start_deg) {
  std::vector<std::pair<double, double>> v;
  for (int i = 0; i < n; ++i) {
    const double a = (start_deg + 360.0 * i / n) * kPi / 180.0;
    v.emplace_back(x + r * std::cos(a), y + r * std::sin(a));
  }
  return v;
}

}  // namespace

double text_width_px(const std::string& text, double font_px) {
  size_t code_points = 0;
  for (const char c : text) code_points += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return static_cast<double>(code_points) * kEmPerChar * font_px;
}

std::string truncated_text(const std::string& text, size_t max_code_points) {
  if (max_code_points == 0) return "";
  size_t code_points = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (++code_points == max_code_points) {
      // The rest (this code point on) must fit in one code point, else it is replaced by "…".
      size_t rest = 0;
      for (size_t j = i; j < text.size(); ++j)
        rest += (static_cast<unsigned char>(text[j]) & 0xC0) != 0x80;
      return rest <= 1 ? text : text.substr(0, i) + "…";
    }
  }
  return text;
}

Scale Scale::linear(double d0, double d1, double p0, double p1) {
  return Scale(d0, d1, p0, p1, false);
}
Scale Scale::log10(double d0, double d1, double p0, double p1) {
  return Scale(d0, d1, p0, p1, true);
}

double Scale::operator()(double v) const {
  const double t = log_ ? (std::log10(v) - std::log10(d0_)) / (std::log10(d1_) - std::log10(d0_))
                        : (v - d0_) / (d1_ - d0_);
  return p0_ + t * (p1_ - p0_);
}

std::vector<double> decade_ticks(double lo, double hi) {
  std::vector<double> ticks;
  for (int e = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
       e <= static_cast<int>(std::floor(std::log10(hi) + 1e-9)); ++e) {
    ticks.push_back(std::pow(10.0, e));
  }
  return ticks;
}

std::vector<double> log_minor_ticks(double lo, double hi) {
  std::vector<double> ticks;
  for (int e = static_cast<int>(std::floor(std::log10(lo)));
       e <= static_cast<int>(std::ceil(std::log10(hi))); ++e) {
    for (int m = 2; m <= 9; ++m) {
      const double v = m * std::pow(10.0, e);
      if (v > lo && v < hi) ticks.push_back(v);
    }
  }
  return ticks;
}

std::vector<double> log_125_ticks(double lo, double hi) {
  std::vector<double> ticks;
  for (int e = static_cast<int>(std::floor(std::log10(lo)));
       e <= static_cast<int>(std::ceil(std::log10(hi))); ++e) {
    for (const double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e);
      if (v >= lo * (1 - 1e-12) && v <= hi * (1 + 1e-12)) ticks.push_back(v);
    }
  }
  return ticks;
}

std::vector<double> nice_linear_ticks(double max, int target_count) {
  const double raw = max / std::max(1, target_count);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (int i = 0;; ++i) {
    ticks.push_back(i * step);
    if (i * step >= max * (1 - 1e-12)) break;
  }
  return ticks;
}

double nice_floor_125(double v) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(v)));
  for (const double m : {5.0, 2.0, 1.0}) {
    if (m * magnitude <= v * (1 + 1e-12)) return m * magnitude;
  }
  return magnitude;
}

double nice_ceil_125(double v) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(v)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * magnitude >= v * (1 - 1e-12)) return m * magnitude;
  }
  return 10 * magnitude;
}

std::string format_tick(double v) {
  const double magnitude = std::fabs(v);
  if (magnitude >= 1e9) return fmt::format("{:g}G", v / 1e9);
  if (magnitude >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (magnitude >= 1e4) return fmt::format("{:g}k", v / 1e3);  // 1000 stays "1000"
  return fmt::format("{:g}", v);
}

SeriesStyle operator_style(const std::string& op, size_t fallback_index) {
  size_t index = fallback_index;
  for (size_t i = 0; i < kOperatorNames.size(); ++i) {
    if (op == kOperatorNames[i]) index = i;
  }
  return {kPalette[index % kPalette.size()], kShapes[index % kShapes.size()]};
}

std::string display_name(const std::string& op) {
  std::string out = op;
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

std::string lighten(const std::string& colour, double amount) {
  const auto channel = [&](size_t at) {
    const int c = std::stoi(colour.substr(at, 2), nullptr, 16);
    return static_cast<int>(std::lround(c + (255 - c) * std::clamp(amount, 0.0, 1.0)));
  };
  return fmt::format("#{:02X}{:02X}{:02X}", channel(1), channel(3), channel(5));
}

std::string marker_svg(MarkerShape shape, double x, double y, double r, const std::string& fill,
                       const std::string& stroke, const std::string& attributes) {
  switch (shape) {
    case MarkerShape::kCircle:
      return fmt::format(
          R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="{}" stroke="{}" stroke-width="1.3" {}/>)",
          x, y, r * 0.85, fill, stroke, attributes);
    case MarkerShape::kSquare:
      return polygon(regular(x, y, r, 4, 45), fill, stroke, attributes);
    case MarkerShape::kTriangleUp:
      return polygon(regular(x, y + r * 0.15, r * 1.1, 3, -90), fill, stroke, attributes);
    case MarkerShape::kDiamond:
      return polygon(regular(x, y, r * 1.1, 4, -90), fill, stroke, attributes);
    case MarkerShape::kTriangleDown:
      return polygon(regular(x, y - r * 0.15, r * 1.1, 3, 90), fill, stroke, attributes);
    case MarkerShape::kPentagon:
      return polygon(regular(x, y, r, 5, -90), fill, stroke, attributes);
  }
  return "";
}

std::string text_svg(double x, double y, const std::string& content, double font_px,
                     const std::string& anchor, const std::string& extra) {
  return fmt::format(
      R"(<text x="{:.1f}" y="{:.1f}" font-size="{:g}" text-anchor="{}"{}{}>{}</text>)", x, y,
      font_px, anchor, extra.empty() ? "" : " ", extra, xml_escape(content));
}

bool Box::overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }

bool Box::inside(const Box& b) const {
  return x0 >= b.x0 && x1 <= b.x1 && y0 >= b.y0 && y1 <= b.y1;
}

double distance_to_box(const Box& box, double x, double y) {
  const double dx = std::max({box.x0 - x, 0.0, x - box.x1});
  const double dy = std::max({box.y0 - y, 0.0, y - box.y1});
  return std::hypot(dx, dy);
}

void LabelPlacer::reserve_marker(double x, double y, double r) {
  taken_.push_back(Box{x - r - 1, y - r - 1, x + r + 1, y + r + 1});
  markers_.emplace_back(x, y);
}

bool LabelPlacer::nearer_to_another_marker(const Box& box, double x, double y) const {
  // A marker this close to the anchor is the anchor's own (the anchor may sit on its edge).
  constexpr double kOwnMarkerPx = 8;
  const double own = distance_to_box(box, x, y);
  for (const auto& [mx, my] : markers_) {
    if (std::hypot(mx - x, my - y) <= kOwnMarkerPx) continue;
    if (distance_to_box(box, mx, my) < own) return true;
  }
  return false;
}

std::optional<Box> LabelPlacer::place(double x, double y, double width, double height,
                                      LabelSide first, double clearance_px) {
  constexpr double kGap = 5;  // px between the anchor and the nearest label edge
  for (const double reach : {1.0, 2.2, 3.5}) {
    const double g = kGap * reach + 3 + clearance_px;
    // Right, left, above, below, then the four diagonals: (x0, y0) of the text box.
    std::array<std::pair<double, double>, 8> candidates = {{
        {x + g, y - height / 2},
        {x - g - width, y - height / 2},
        {x - width / 2, y - g - height},
        {x - width / 2, y + g},
        {x + g, y - g - height},
        {x + g, y + g},
        {x - g - width, y - g - height},
        {x - g - width, y + g},
    }};
    if (first == LabelSide::kAbove) std::swap(candidates[0], candidates[2]);
    if (first == LabelSide::kBelowRight) std::swap(candidates[0], candidates[5]);
    for (const auto& [x0, y0] : candidates) {
      const Box box{x0, y0, x0 + width, y0 + height};
      if (!box.inside(bounds_)) continue;
      const auto hits = [&](const Box& other) { return box.overlaps(other); };
      if (std::any_of(taken_.begin(), taken_.end(), hits)) continue;
      if (std::any_of(placed_.begin(), placed_.end(), hits)) continue;
      if (nearer_to_another_marker(box, x, y)) continue;
      placed_.push_back(box);
      return box;
    }
  }
  return std::nullopt;
}

std::string svg_open(double width, double height, const std::string& title) {
  return fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0:g}" height="{1:g}" viewBox="0 0 {0:g} {1:g}" font-family="{2}">)"
      "\n<title>{3}</title>\n"
      R"(<rect x="0" y="0" width="{0:g}" height="{1:g}" fill="#FFFFFF"/>)"
      "\n",
      width, height, kSvgFontFamily, xml_escape(title));
}

std::string log_grid_svg(const LogLogFrame& a) {
  const Scale sx = a.sx(), sy = a.sy();
  std::string svg = R"(<g class="grid" stroke-width="1">)"
                    "\n";
  const auto vertical_lines = [&](const std::vector<double>& ticks, const char* colour) {
    for (const double v : ticks) {
      svg += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="{3}"/>)"
                         "\n",
                         sx(v), a.top, a.bottom, colour);
    }
  };
  const auto horizontal_lines = [&](const std::vector<double>& ticks, const char* colour) {
    for (const double v : ticks) {
      svg += fmt::format(R"(<line x1="{1}" y1="{0:.1f}" x2="{2}" y2="{0:.1f}" stroke="{3}"/>)"
                         "\n",
                         sy(v), a.left, a.right, colour);
    }
  };
  vertical_lines(log_minor_ticks(a.x_lo, a.x_hi), "#F0F0F0");
  horizontal_lines(log_minor_ticks(a.y_lo, a.y_hi), "#F0F0F0");
  vertical_lines(decade_ticks(a.x_lo, a.x_hi), "#D6D6D6");
  horizontal_lines(decade_ticks(a.y_lo, a.y_hi), "#D6D6D6");
  svg += "</g>\n";
  svg += fmt::format(
      R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="1.2"/>)"
      "\n",
      a.left, a.top, a.right - a.left, a.bottom - a.top, kInk);
  return svg;
}

namespace {

// The labelled ticks of a log axis: its decades, or 1, 2 and 5 × each decade when fewer than
// three decades lie inside (one or two labels leave a short axis unreadable).
std::vector<double> labelled_ticks(double lo, double hi) {
  const std::vector<double> decades = decade_ticks(lo, hi);
  return decades.size() < 3 ? log_125_ticks(lo, hi) : decades;
}

}  // namespace

std::string log_axes_svg(const LogLogFrame& a, const std::string& x_title,
                         const std::string& y_title, double y_unit) {
  const Scale sx = a.sx(), sy = a.sy();
  std::string svg = R"(<g class="axis x">)"
                    "\n";
  for (const double v : labelled_ticks(a.x_lo, a.x_hi)) {
    svg += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="{3}"/>)", sx(v),
                       a.bottom, a.bottom + 5, kInk);
    svg +=
        text_svg(sx(v), a.bottom + 20, format_tick(v), kTickPx, "middle", R"(class="tick")") + "\n";
  }
  svg += text_svg((a.left + a.right) / 2, a.bottom + 46, x_title, 13, "middle",
                  R"(class="axis-title")");
  svg += "\n</g>\n";
  svg += R"(<g class="axis y">)"
         "\n";
  for (const double v : labelled_ticks(a.y_lo, a.y_hi)) {
    svg += fmt::format(R"(<line x1="{1}" y1="{0:.1f}" x2="{2}" y2="{0:.1f}" stroke="{3}"/>)", sy(v),
                       a.left - 5, a.left, kInk);
    svg += text_svg(a.left - 9, sy(v) + 4, format_tick(v / y_unit), kTickPx, "end",
                    R"(class="tick")") +
           "\n";
  }
  const double y_title_x = a.left - 62;
  const double y_title_y = (a.top + a.bottom) / 2;
  svg += text_svg(y_title_x, y_title_y, y_title, 13, "middle",
                  fmt::format(R"svg(class="axis-title" transform="rotate(-90 {} {})")svg",
                              y_title_x, y_title_y));
  svg += "\n</g>\n";
  return svg;
}

std::string slanted_roof_svg(const SlantedRoof& roof, const LogLogFrame& axes, double highest_peak,
                             std::vector<Box>& avoid, LabelPlacer& labels) {
  const Scale sx = axes.sx(), sy = axes.sy();
  const double bw = roof.bytes_per_s;
  const double i0 = std::max(axes.x_lo, axes.y_lo / bw);
  const double i1 = std::min(axes.x_hi, highest_peak / bw);
  if (!(i1 > i0)) return "";
  const double x0 = sx(i0), y0 = sy(i0 * bw), x1 = sx(i1), y1 = sy(i1 * bw);
  std::string svg = fmt::format(
      R"(<line class="{}" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2"{}/>)"
      "\n",
      roof.css_class, x0, y0, x1, y1, kInk, roof.dash);
  const double length = std::hypot(x1 - x0, y1 - y0);
  for (double t = 0; t <= length; t += 6) {
    const double x = x0 + (x1 - x0) * t / length, y = y0 + (y1 - y0) * t / length;
    labels.reserve(Box{x - 3, y - 3, x + 3, y + 3});
  }
  const double angle = std::atan2(y1 - y0, x1 - x0);
  const double w = text_width_px(roof.text, kLabelPx);
  const double nx = std::sin(angle) * 7, ny = -std::cos(angle) * 7;  // 7 px off the line
  const auto footprint = [&](double t) {
    std::vector<Box> boxes;
    const double bx = x0 + (x1 - x0) * t + nx, by = y0 + (y1 - y0) * t + ny;
    for (double u = 0; u <= w; u += 5) {
      // Centre of the glyphs: half a font height above the baseline, perpendicular to it.
      const double cx = bx + std::cos(angle) * u + std::sin(angle) * kLabelPx * 0.4;
      const double cy = by + std::sin(angle) * u - std::cos(angle) * kLabelPx * 0.4;
      boxes.push_back(Box{cx - 4, cy - 4, cx + 4, cy + 4});
    }
    return boxes;
  };
  const auto covered = [&](const std::vector<Box>& boxes) {
    size_t n = 0;
    for (const auto& m : avoid) {
      n += std::any_of(boxes.begin(), boxes.end(), [&](const Box& b) { return b.overlaps(m); });
    }
    return n;
  };
  double best_t = 0.5;
  size_t best_covered = SIZE_MAX;
  for (const double t : {0.5, 0.65, 0.35, 0.8, 0.2}) {
    const size_t n = covered(footprint(t));
    if (n < best_covered) {
      best_t = t;
      best_covered = n;
    }
  }
  const double lx = x0 + (x1 - x0) * best_t + nx, ly = y0 + (y1 - y0) * best_t + ny;
  svg +=
      text_svg(lx, ly, roof.text, kLabelPx, "start",
               fmt::format(
                   R"svg(class="roof-label" fill="{}" transform="rotate({:.2f} {:.1f} {:.1f})")svg",
                   kInk, angle * 180.0 / kPi, lx, ly)) +
      "\n";
  for (const auto& box : footprint(best_t)) {
    labels.reserve(box);
    avoid.push_back(box);
  }
  return svg;
}

std::string in_window_tail_svg(double x, double y, double r, double x_end) {
  if (!(x_end > x)) return "";
  // A tail shorter than the radius starts at the centre, so that its tick still shows.
  return fmt::format(
      R"(<path class="in-window-tail" d="M{:.1f},{:.1f} H{:.1f} M{:.1f},{:.1f} V{:.1f}" fill="none" stroke="{}" stroke-width="1.2" stroke-dasharray="4 3"/>)"
      "\n",
      x_end > x + r ? x + r : x, y, x_end, x_end, y - 4, y + 4, kSvgInk);
}

}  // namespace rooflinectl
