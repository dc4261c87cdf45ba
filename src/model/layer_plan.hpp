// The sweep points that measure one transformer layer of a model preset (`rooflinectl layer`
// without --analytic): each operator of layer_operators at its real shape, as a point the sweep
// runner validates, times and places like any sweep point, shared where two operators run the same
// problem. Pure host code, no CUDA.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model_preset.hpp"
#include "core/sweep_plan.hpp"
#include "model/layer_operators.hpp"

namespace rooflinectl {

/// Where one operator of one layer point gets its measurement.
struct LayerOperatorSource {
  std::string name;  ///< the layer operator (LayerOperator::name), e.g. "qkv_proj"
  std::string op;    ///< the sweep operator that runs it, e.g. "gemm", "rmsnorm", "flash_attention"
  Shape shape;       ///< the sweep point's shape
  /// Position (0-based) in LayerMeasurementPlan::points of the point that measures it; nullopt
  /// when the operator's kernel refuses the shape (unmeasured_reason says why).
  std::optional<size_t> point;
  std::string unmeasured_reason;  ///< empty when `point` is set
};

/// The sweep points of a measured layer view and which operator each one measures.
struct LayerMeasurementPlan {
  /// Distinct sweep points in first-use order, index = 1-based position, each with a label naming
  /// the phase, batch, length and layer operators it measures ("prefill B=1 L=512 qkv_proj (gemm
  /// N=6144 K=4096)"); every point is bf16.
  std::vector<PlannedPoint> points;
  /// One list per layer point, batch-major (every length of the first batch, then the next), each
  /// in layer_operators order.
  std::vector<std::vector<LayerOperatorSource>> sources;
};

/// Why the kernel of sweep operator `op` cannot run `shape` (its check_shape's message), or empty
/// when it can. The kernels answer it; the plan only asks.
using KernelRefusal = std::function<std::string(const std::string& op, const Shape& shape)>;

/// The sweep point that measures `layer_op` of `preset` at `point`: the preset's heads, kv_heads
/// and head_dim, bf16, its GELU form (erf when it names none); GEMMs (kind "gemm") at batch B and
/// seq_len L (prefill, M = B·L) or 1 (decode, M = B) with gemm_n, gemm_k = the operator's N and K;
/// norms and activations at the same rows with hidden = the preset's d_model and ffn_dim = its
/// ffn_dim; attention as flash_attention at seq_len L, causal (prefill), or decode_attention at
/// seq_len = the context with point.kv_dtype (decode).
PlannedPoint layer_sweep_point(const ModelPreset& preset, const LayerPoint& point,
                               const LayerOperator& layer_op);

/// The measurement plan of `preset`'s layer at every (batch, length) of `batches` × `lengths`
/// (batch-major) in `phase`: one sweep point per distinct (operator, shape) of layer_sweep_point,
/// so an operator pair of one shape (ffn_gate and ffn_up; the two norms) and decode's GEMMs,
/// norms and activations, which do not depend on the context, are measured once. Operators whose
/// kernel `refusal` names a reason for get no point (e.g. flash_attention at head_dim 256). Throws
/// a bad-input Error when a list is empty or a value is < 1 (layer_operators).
LayerMeasurementPlan plan_layer_measurement(const ModelPreset& preset, LayerPhase phase,
                                            const std::vector<int64_t>& batches,
                                            const std::vector<int64_t>& lengths, KvDtype kv_dtype,
                                            const KernelRefusal& refusal);

}  // namespace rooflinectl
