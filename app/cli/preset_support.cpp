#include "cli/preset_support.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/layer_widths.hpp"
#include "core/sweep_plan.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {

void check_plan_shapes(const SweepConfig& config) {
  validate_sweep_config(config);
  check_planned_points(config, plan_all_points(config), [](const std::string&, const Shape& shape) {
    validate_common_shape(shape);
  });
}

std::vector<std::string> sweep_refusals(const SweepConfig& config) {
  std::vector<std::string> refusals;
  std::set<std::string> refused_ops;  // one refusal per operator: its first point that cannot run
  for (const PlannedPoint& point : plan_all_points(config)) {
    if (refused_ops.count(point.op) > 0) continue;
    try {
      find_operator(point.op).check_shape(point.shape);
    } catch (const Error& e) {
      refusals.push_back(fmt::format("sweep cannot run {} at L = {}: {}", point.op,
                                     point.shape.seq_len, std::string(e.what())));
      refused_ops.insert(point.op);
    }
  }
  return refusals;
}

void check_preset_sweepable(const ModelPreset& preset, const SweepConfig& config) {
  check_plan_shapes(config);
  const Shape& s = config.base;
  if (s.heads != preset.heads || s.kv_heads != preset.kv_heads || s.head_dim != preset.head_dim) {
    return;  // a flag replaced a preset axis: check_sweep_plan names that flag's value
  }
  const std::vector<std::string> refusals = sweep_refusals(config);
  if (refusals.empty()) return;
  throw bad_input(fmt::format(
      "invalid --model {}: {} (the preset sets heads {}, kv-heads {}, head-dim {}; --heads, "
      "--kv-heads and --head-dim override it, and `rooflinectl model --model {}` predicts the "
      "preset without a kernel)",
      preset.id, refusals.front(), preset.heads, preset.kv_heads, preset.head_dim, preset.id));
}

std::string preset_sweep_notice(const ModelPreset& preset, const Shape& shape,
                                const std::vector<std::string>& ops) {
  std::vector<std::string> width_ops;
  for (const char* op : {"gemm", "gelu", "layernorm", "rmsnorm", "swiglu", "geglu"}) {
    if (std::find(ops.begin(), ops.end(), op) != ops.end()) width_ops.push_back(op);
  }
  const std::string head =
      fmt::format("notice: --model {} sets heads {}, kv-heads {}, head-dim {} (flags override it)",
                  preset.id, preset.heads, preset.kv_heads, preset.head_dim);
  const std::string tail =
      fmt::format("`rooflinectl model --model {}` predicts the preset's layer", preset.id);
  if (width_ops.empty()) return head + "; " + tail;
  const LayerWidths kernel = kernel_layer_widths(shape);
  const std::string widths =
      kernel.d_model == preset.widths.d_model && kernel.ffn_dim == preset.widths.ffn_dim
          ? fmt::format("run the preset's d_model {} and ffn_dim {}", kernel.d_model,
                        kernel.ffn_dim)
          : fmt::format(
                "run d_model {} and FFN {}, not the preset's d_model {} and ffn_dim {} ({}; add "
                "--hidden {} --ffn-dim {} to run those)",
                kernel.d_model, kernel.ffn_dim, preset.widths.d_model, preset.widths.ffn_dim,
                to_string(preset.widths.ffn_kind), preset.widths.d_model, preset.widths.ffn_dim);
  const std::string names =
      width_ops.size() == 1
          ? width_ops[0]
          : fmt::format("{} and {}", fmt::join(width_ops.begin(), width_ops.end() - 1, ", "),
                        width_ops.back());
  return fmt::format("{}; {} {}; {}", head, names, widths, tail);
}

}  // namespace rooflinectl
