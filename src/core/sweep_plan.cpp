#include "core/sweep_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <type_traits>
#include <utility>

#include "core/error.hpp"
#include "core/layer_widths.hpp"
#include "core/operator_names.hpp"
#include "core/point_filter.hpp"
#include "core/shard.hpp"

namespace rooflinectl {

namespace {

/// Replaces each shape of `shapes` by one copy per value of `values` (outer loop: the shapes),
/// `set` writing the value; one value or fewer leaves `shapes` as they are.
template <typename T, typename Set>
void expand(std::vector<Shape>& shapes, const std::vector<T>& values, Set set) {
  if (values.size() < 2) return;
  std::vector<Shape> out;
  out.reserve(shapes.size() * values.size());
  for (const Shape& shape : shapes) {
    for (const T& value : values) {
      out.push_back(shape);
      set(out.back(), value);
    }
  }
  shapes = std::move(out);
}

/// The combinations of every axis but dtype and seq_len that `op` runs at `dtype`.
std::vector<Shape> operator_shapes(const SweepConfig& config, const std::string& op, Dtype dtype) {
  const SweepAxes& a = config.axes;
  const auto used = [&](SweepAxis axis, const auto& list) {
    return operator_uses_axis(op, axis) ? list : std::decay_t<decltype(list)>{};
  };
  std::vector<Shape> shapes{config.base};
  shapes.front().dtype = dtype;
  if (op != kGemmOp) {  // explicit GEMM dims are gemm's alone: the other points stay as before
    shapes.front().gemm_n = 0;
    shapes.front().gemm_k = 0;
  }
  if (!operator_uses_layer_widths(op)) {  // attention has no hidden or FFN width
    shapes.front().hidden = 0;
    shapes.front().ffn_dim = 0;
  }
  // An operator without a KV cache never reads it: its points say auto (their own dtype) rather
  // than the axis's first value.
  if (!operator_uses_axis(op, SweepAxis::kKvDtype)) shapes.front().kv_dtype = KvDtype::kAuto;
  if (!operator_uses_axis(op, SweepAxis::kGemmDtype)) shapes.front().gemm_dtype = GemmDtype::kAuto;
  if (!operator_uses_axis(op, SweepAxis::kQLen)) shapes.front().q_len = 0;  // L_q is attention's
  expand(shapes, used(SweepAxis::kBatch, a.batch), [](Shape& s, int64_t v) { s.batch = v; });
  expand(shapes, used(SweepAxis::kHeads, a.heads), [](Shape& s, int64_t v) { s.heads = v; });
  expand(shapes, used(SweepAxis::kKvHeads, a.kv_heads),
         [](Shape& s, int64_t v) { s.kv_heads = v; });
  expand(shapes, used(SweepAxis::kHeadDim, a.head_dim),
         [](Shape& s, int64_t v) { s.head_dim = v; });
  expand(shapes, used(SweepAxis::kCausal, a.causal), [](Shape& s, bool v) { s.causal = v; });
  expand(shapes, used(SweepAxis::kGeluForm, a.gelu_form),
         [](Shape& s, GeluForm v) { s.gelu_form = v; });
  expand(shapes, used(SweepAxis::kKvDtype, a.kv_dtype),
         [](Shape& s, KvDtype v) { s.kv_dtype = v; });
  expand(shapes, used(SweepAxis::kGemmDtype, a.gemm_dtype),
         [](Shape& s, GemmDtype v) { s.gemm_dtype = v; });
  expand(shapes, used(SweepAxis::kQLen, a.q_len), [](Shape& s, int64_t v) { s.q_len = v; });
  return shapes;
}

/// Sets the point's length L and settles its query length (settle_query_len); false when the
/// point is not planned: a q_len longer than L, or equal to L where the q_len list has L itself,
/// which plans that point already.
bool set_length(const SweepConfig& config, Shape& shape, int64_t seq_len) {
  const bool chunk = shape.q_len != 0;
  if (!settle_query_len(shape, seq_len)) return false;
  if (!chunk || shape.q_len != 0) return true;
  const std::vector<int64_t>& q = config.axes.q_len;
  return std::find(q.begin(), q.end(), int64_t{0}) == q.end();
}

}  // namespace

std::vector<PlannedPoint> plan_all_points(const SweepConfig& config) {
  std::optional<PointFilter> filter;
  if (!config.filter.empty()) filter = parse_point_filter(config.filter);
  std::vector<PlannedPoint> points;
  for (const Dtype dtype : axis_values(config.axes.dtype, config.base.dtype)) {
    for (const std::string& op : config.ops) {
      for (const Shape& shape : operator_shapes(config, op, dtype)) {
        for (const int64_t seq_len : config.seq_lens) {
          PlannedPoint point{op, shape, points.size() + 1};
          if (!set_length(config, point.shape, seq_len)) continue;
          if (filter && !filter->keeps(op, point.shape)) continue;
          points.push_back(std::move(point));
        }
      }
    }
  }
  return points;
}

namespace {

/// The bad-input message of `check` on `point`, empty when it runs.
std::string refusal_of(const std::function<void(const std::string&, const Shape&)>& check,
                       const PlannedPoint& point) {
  try {
    check(point.op, point.shape);
  } catch (const Error& e) {
    if (e.exit_code() != ExitCode::kBadInput) throw;
    return e.what();
  }
  return std::string();
}

}  // namespace

void check_planned_points(
    const SweepConfig& config, const std::vector<PlannedPoint>& points,
    const std::function<void(const std::string& op, const Shape& shape)>& check) {
  for (const PlannedPoint& point : points) {
    const std::string refusal = refusal_of(check, point);
    if (refusal.empty()) continue;
    if (config.axes.none()) throw bad_input(refusal);
    // Refused at every point of the operator alike: no combination is to blame, no filter helps.
    const bool everywhere = std::all_of(points.begin(), points.end(), [&](const PlannedPoint& p) {
      return p.op != point.op || refusal_of(check, p) == refusal;
    });
    if (everywhere) throw bad_input(refusal);
    std::string axes_term;
    for (const SweepAxis axis : kSweepAxes) {
      if (config.axes.varies(axis) && operator_uses_axis(point.op, axis)) {
        axes_term += fmt::format("|{}!={}", axis_name(axis), axis_value_text(axis, point.shape));
      }
    }
    // The operator's term drops this combination of this operator only; when other operators
    // run too, the same combination may be refused for them next (a GQA ratio is every
    // attention operator's), so the term without the operator is offered as well.
    const std::string term = "op!=" + point.op + axes_term;
    const std::string every_op =
        config.ops.size() > 1 && !axes_term.empty()
            ? fmt::format("; for every operator: --filter '{}'", axes_term.substr(1))
            : "";
    const std::string label = swept_axes_label(config.axes, point.op, point.shape);
    throw bad_input(fmt::format("{}: in the combination {}{} (drop it with --filter '{}'{})",
                                refusal, point.op, label.empty() ? "" : " " + label, term,
                                every_op));
  }
}

bool shard_runs(const ShardSpec& shard, const PlannedPoint& point) {
  if (!shard.plan_indices.empty()) {
    return std::binary_search(shard.plan_indices.begin(), shard.plan_indices.end(), point.index);
  }
  return shard_of_point(point.op, point.shape, shard.count) == shard.index;
}

std::vector<PlannedPoint> plan_points(const SweepConfig& config) {
  std::vector<PlannedPoint> points = plan_all_points(config);
  if (!config.shard) return points;
  std::vector<PlannedPoint> mine;
  for (const PlannedPoint& point : points) {
    if (shard_runs(*config.shard, point)) mine.push_back(point);
  }
  return mine;
}

}  // namespace rooflinectl
