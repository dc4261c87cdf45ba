#include "render/point_label.hpp"

#include "core/shape.hpp"
#include "core/sweep_axes.hpp"
#include "result/point_key.hpp"

namespace rooflinectl {

std::string point_variant_label(const SweepAxes& axes, const std::string& op, const Shape& shape) {
  std::string label = shape_variant_label(shape, &axes);
  if (const std::string swept = swept_axes_label(axes, op, shape); !swept.empty()) {
    label += " " + swept;
  }
  return label;
}

}  // namespace rooflinectl
