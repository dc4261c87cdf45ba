// What the sweep's kernels can run of a model preset's shape (`--model NAME`): `model` notes the
// operators a sweep would refuse and predicts them anyway; `sweep` refuses before any GPU work
// and says which widths it does not take from the preset.
#pragma once

#include <string>
#include <vector>

#include "core/model_preset.hpp"
#include "core/sweep_config.hpp"

namespace rooflinectl {

/// Checks what every point of `config` must satisfy whatever its kernels run:
/// validate_sweep_config and validate_common_shape at each point of the plan. Throws a bad-input
/// Error.
void check_plan_shapes(const SweepConfig& config);

/// One sentence per operator of `config.ops` whose kernel refuses a point of the plan (its
/// OperatorSpec::check_shape message at the first such L), naming the operator; empty when the
/// sweep can run every point. Throws a bad-input Error for an unknown operator name.
std::vector<std::string> sweep_refusals(const SweepConfig& config);

/// check_plan_shapes, then throws a bad-input Error "invalid --model ID: <the kernel's refusal>
/// (...)" naming the preset,
/// the value and what the kernel allows, when a kernel of `config.ops` refuses the attention axes
/// the preset set (heads, kv_heads, head_dim still equal to the preset's: a refusal of a value
/// a flag gave is left to check_sweep_plan's own message).
void check_preset_sweepable(const ModelPreset& preset, const SweepConfig& config);

/// The line `sweep --model ID` prints before it starts: what it took from the preset, and the
/// widths those of `ops` that run at layer widths (gemm, the element-wise and norm operators)
/// run at (kernel_layer_widths of `shape`: --hidden and --ffn-dim, else H·d and 4·d_model),
/// naming only those in `ops`; where the widths differ from the preset's d_model and ffn_dim,
/// the flags that run the preset's; and `model --model ID` for its whole layer.
std::string preset_sweep_notice(const ModelPreset& preset, const Shape& shape,
                                const std::vector<std::string>& ops);

}  // namespace rooflinectl
