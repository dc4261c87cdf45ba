#include "model/layer_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "core/operator_names.hpp"
#include "result/point_key.hpp"

namespace rooflinectl {

PlannedPoint layer_sweep_point(const ModelPreset& preset, const LayerPoint& point,
                               const LayerOperator& layer_op) {
  const bool prefill = point.phase == LayerPhase::kPrefill;
  PlannedPoint p;
  p.op = layer_op.kind;
  Shape& s = p.shape;
  s.batch = point.batch;
  s.heads = preset.heads;
  s.kv_heads = preset.kv_heads;
  s.head_dim = preset.head_dim;
  s.dtype = Dtype::kBf16;
  s.gelu_form = preset.gelu_form.value_or(GeluForm::kErf);
  s.seq_len = prefill ? point.seq_len : 1;
  if (layer_op.kind == kGemmOp) {
    s.gemm_n = layer_op.gemm->n;
    s.gemm_k = layer_op.gemm->k;
  } else if (layer_op.kind == kFlashAttentionOp) {
    s.causal = true;
  } else if (layer_op.kind == kDecodeAttentionOp) {
    s.seq_len = point.seq_len;
    s.kv_dtype = point.kv_dtype;
  } else {
    s.hidden = preset.widths.d_model;
    s.ffn_dim = preset.widths.ffn_dim;
  }
  return p;
}

LayerMeasurementPlan plan_layer_measurement(const ModelPreset& preset, LayerPhase phase,
                                            const std::vector<int64_t>& batches,
                                            const std::vector<int64_t>& lengths, KvDtype kv_dtype,
                                            const KernelRefusal& refusal) {
  if (batches.empty() || lengths.empty()) {
    throw bad_input("the layer view needs at least one batch and one length");
  }
  LayerMeasurementPlan plan;
  // The layer operators each point measures, in first-use order, and the length it was planned at.
  std::vector<std::vector<std::string>> names;
  for (const int64_t batch : batches) {
    for (const int64_t length : lengths) {
      const LayerPoint point{phase, batch, length, kv_dtype};
      std::vector<LayerOperatorSource>& sources = plan.sources.emplace_back();
      for (const LayerOperator& layer_op : layer_operators(preset, point)) {
        const PlannedPoint planned = layer_sweep_point(preset, point, layer_op);
        LayerOperatorSource source{layer_op.name, planned.op, planned.shape, std::nullopt, ""};
        source.unmeasured_reason = refusal(planned.op, planned.shape);
        if (source.unmeasured_reason.empty()) {
          const auto same =
              std::find_if(plan.points.begin(), plan.points.end(), [&](const auto& p) {
                return PointKey{p.op, "", p.shape}.same_point(
                    PointKey{planned.op, "", planned.shape});
              });
          const size_t at = static_cast<size_t>(same - plan.points.begin());
          if (same == plan.points.end()) {
            plan.points.push_back(planned);
            plan.points.back().index = plan.points.size();
            names.emplace_back();
          }
          if (std::find(names[at].begin(), names[at].end(), layer_op.name) == names[at].end()) {
            names[at].push_back(layer_op.name);
          }
          source.point = at;
        }
        sources.push_back(std::move(source));
      }
    }
  }
  for (size_t i = 0; i < plan.points.size(); ++i) {
    PlannedPoint& p = plan.points[i];
    const bool by_length = phase == LayerPhase::kPrefill || p.op == kDecodeAttentionOp;
    const std::string variant = shape_variant_label(p.shape);
    p.label = fmt::format(
        "{} B={}{} {} ({}{})", to_string(phase), p.shape.batch,
        by_length ? fmt::format(" {}={}", phase == LayerPhase::kPrefill ? "L" : "context",
                                p.shape.seq_len)
                  : std::string(),
        fmt::join(names[i], "/"), p.op, variant);
  }
  return plan;
}

}  // namespace rooflinectl
