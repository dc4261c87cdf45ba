#include "result/point_key.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/sweep_axes.hpp"

namespace rooflinectl {
namespace {

// The shape axes, e.g. "L=4096 B=1 H=16/16 d=128 bf16 erf" for gelu, then shape_variant_label's;
// the GELU form only where `op` reads it (operator_uses_axis: gelu, geglu), so that an attention
// point's name does not carry a GELU form it never used.
std::string axes_text(const std::string& op, const Shape& shape) {
  const std::string gelu_form = operator_uses_axis(op, SweepAxis::kGeluForm)
                                    ? " " + to_string(shape.gelu_form)
                                    : std::string();
  return fmt::format("L={} B={} H={}/{} d={} {}{}{}{}", shape.seq_len, shape.batch, shape.heads,
                     shape.kv_heads, shape.head_dim, to_string(shape.dtype),
                     shape.causal ? " causal" : "", gelu_form, shape_variant_label(shape));
}

// What tells points apart (the operator and every shape axis, not the kernel version), as a
// tuple of references: equal for the same point, and ordered, so that points can be sorted.
auto point_identity(const std::string& op, const Shape& s) {
  return std::tie(op, s.batch, s.heads, s.kv_heads, s.head_dim, s.seq_len, s.causal, s.dtype,
                  s.gelu_form, s.kv_layout, s.page_size, s.kv_dtype, s.gemm_n, s.gemm_k, s.hidden,
                  s.ffn_dim, s.q_len, s.gemm_dtype);
}

auto point_identity(const PointResult& point) { return point_identity(point.op, point.shape); }

}  // namespace

std::string shape_variant_label(const Shape& shape, const SweepAxes* named_elsewhere) {
  const auto shown = [&](SweepAxis axis) {
    return named_elsewhere == nullptr || !named_elsewhere->varies(axis);
  };
  std::string out;
  if (shape.q_len != 0 && shown(SweepAxis::kQLen)) out += " " + q_len_label(shape);
  if (shape.kv_layout == KvLayout::kPaged) out += " " + kv_layout_label(shape);
  if (shape.kv_dtype != KvDtype::kAuto && shown(SweepAxis::kKvDtype)) {
    out += " " + kv_dtype_label(shape);
  }
  if (shape.gemm_dtype != GemmDtype::kAuto && shown(SweepAxis::kGemmDtype)) {
    out += " " + gemm_dtype_label(shape);
  }
  if (const std::string gemm = gemm_dims_label(shape); !gemm.empty()) out += " " + gemm;
  if (const std::string widths = layer_widths_label(shape); !widths.empty()) out += " " + widths;
  return out;
}

bool PointKey::same_point(const PointKey& o) const {
  return point_identity(op, shape) == point_identity(o.op, o.shape);
}

std::string PointKey::label() const {
  return fmt::format("{} {} {}", op, version, axes_text(op, shape));
}

std::string PointKey::shape_label() const { return fmt::format("{} {}", op, axes_text(op, shape)); }

PointKey point_key(const PointResult& point) { return {point.op, point.version, point.shape}; }

void check_unique_points(const Report& report, const std::string& origin) {
  // Positions sorted by point (stable: equal points stay in report order), so each repeated
  // point's first and second occurrences sit side by side: O(n log n) for the thousands of
  // points of a merged report. Named: the repeated point that comes first, with its next
  // occurrence.
  const auto identity = [&](size_t i) { return point_identity(report.points[i]); };
  std::vector<size_t> order(report.points.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return identity(a) < identity(b); });
  std::optional<std::pair<size_t, size_t>> repeat;
  for (size_t k = 0; k + 1 < order.size(); ++k) {
    const bool first_occurrence = k == 0 || identity(order[k - 1]) != identity(order[k]);
    const bool repeated = identity(order[k]) == identity(order[k + 1]);
    if (first_occurrence && repeated && (!repeat || order[k] < repeat->first)) {
      repeat = std::make_pair(order[k], order[k + 1]);
    }
  }
  if (!repeat) return;
  throw bad_input(fmt::format("{}: point '{}' appears twice (points[{}] and points[{}])", origin,
                              point_key(report.points[repeat->first]).shape_label(), repeat->first,
                              repeat->second));
}

}  // namespace rooflinectl
