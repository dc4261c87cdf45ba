#include "render/svg/svg_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/operator_names.hpp"

namespace rooflinectl {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Average advance of DejaVu Sans digits and lower case, in em, rounded up (see text_width_px).
constexpr double kEmPerChar = 0.64;

// Okabe–Ito palette without black and yellow (yellow is unreadable on white).
constexpr std::array<const char*, 6> kPalette = {"#D55E00", "#0072B2", "#009E73",
                                                 "#CC79A7", "#E69F00", "#56B4E9"};
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
                                      LabelSide first) {
  constexpr double kGap = 5;  // px between the anchor and the nearest label edge
  for (const double reach : {1.0, 2.2, 3.5}) {
    const double g = kGap * reach + 3;
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

}  // namespace rooflinectl
