#include "render/point_label.hpp"

#include "core/shape.hpp"
#include "core/sweep_axes.hpp"

namespace rooflinectl {

std::string point_variant_label(const SweepAxes& axes, const std::string& op, const Shape& shape) {
  std::string label;
  if (shape.q_len != 0 && !axes.varies(SweepAxis::kQLen)) label += " " + q_len_label(shape);
  if (shape.kv_layout == KvLayout::kPaged) label += " " + kv_layout_label(shape);
  if (shape.kv_dtype != KvDtype::kAuto && !axes.varies(SweepAxis::kKvDtype)) {
    label += " " + kv_dtype_label(shape);
  }
  if (shape.gemm_dtype != GemmDtype::kAuto && !axes.varies(SweepAxis::kGemmDtype)) {
    label += " " + gemm_dtype_label(shape);
  }
  if (const std::string gemm = gemm_dims_label(shape); !gemm.empty()) label += " " + gemm;
  if (const std::string widths = layer_widths_label(shape); !widths.empty()) {
    label += " " + widths;
  }
  if (const std::string swept = swept_axes_label(axes, op, shape); !swept.empty()) {
    label += " " + swept;
  }
  return label;
}

}  // namespace rooflinectl
