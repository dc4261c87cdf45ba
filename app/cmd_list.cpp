#include "cmd_list.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/sweep_config.hpp"
#include "cupti/metrics.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {

CLI::App* setup_list(CLI::App& app) {
  return app.add_subcommand("list", "List operators, sweep axes with defaults, and counters");
}

int run_list_command() {
  fmt::print("operators:\n");
  for (const auto& spec : operator_specs()) {
    fmt::print("  {:<18} {:<7} {}\n", spec.name, to_string(spec.pipe), spec.summary);
  }
  const SweepConfig d = default_sweep_config();
  fmt::print("axes (defaults):\n");
  fmt::print("  --seq        {}\n", d.seq_spec);
  fmt::print("  --batch      {}\n", d.base.batch);
  fmt::print("  --heads      {}\n", d.base.heads);
  fmt::print("  --kv-heads   {} (GQA when below --heads)\n", d.base.kv_heads);
  fmt::print("  --head-dim   {}\n", d.base.head_dim);
  fmt::print("  --dtype      {} (bf16 | fp16)\n", to_string(d.base.dtype));
  fmt::print("  --gelu-form  {} (erf | tanh)\n", to_string(d.base.gelu_form));
  fmt::print("  --causal     {}\n", d.base.causal ? "on" : "off");
  fmt::print("  --repetitions {}\n", d.repetitions);
  fmt::print("counters (CUPTI range profiler, one range per kernel):\n");
  for (const auto& name : counter_metric_names()) fmt::print("  {}\n", name);
  return 0;
}

}  // namespace rooflinectl
