#include "cmd_model.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "cli/output_extension.hpp"
#include "cli/preset_support.hpp"
#include "core/error.hpp"
#include "core/model_preset.hpp"
#include "core/sweep_axes.hpp"
#include "core/sweep_config.hpp"
#include "device/gpu_spec.hpp"
#include "io/atomic_file.hpp"
#include "kernels/operator.hpp"
#include "model/prediction.hpp"
#include "render/model_writer.hpp"
#include "sweep/sweep_runner.hpp"

namespace rooflinectl {

CLI::App* setup_model(CLI::App& app, ModelOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "model",
      "Analytic model on a GPU from the spec table (no GPU needed): predicted roofline "
      "placement, attention memory, flash IO bound");
  sub->add_option("--gpu", o.gpu, "GPU spec id, e.g. h200-sxm (an unknown id lists the known ones)")
      ->required();
  sub->add_option("--config", o.config_file,
                  "JSON sweep config for ops, seq and shape, keys as in configs/default.json; its "
                  "values replace the built-in defaults the other options show, and options "
                  "override it (default: none, the built-in defaults, the same as "
                  "configs/default.json)");
  add_shape_options(*sub, o.shape);
  sub->add_option("--format", o.format, "stdout format: table | json (default table)");
  sub->add_option("--output,-o", o.output,
                  "Write the JSON here (atomically; name ending in .json) (default: no file)")
      ->each([&o](const std::string&) { o.output_given = true; });
  return sub;
}

int run_model_command(const ModelOptions& o) {
  if (o.format != "table" && o.format != "json") {
    throw bad_input(fmt::format("invalid --format '{}': allowed table, json", o.format));
  }
  if (o.output_given) {
    // The file is JSON whatever --format says (--format is for stdout), as `sweep --output`.
    check_output_extension(o.output, ".json", "the model is JSON (--format sets stdout only)");
    check_output_file_path(o.output);
  }
  const GpuSpec& gpu = find_gpu_spec(o.gpu);
  SweepConfig config =
      o.config_file.empty() ? default_sweep_config() : load_sweep_config(o.config_file);
  apply_shape_options(o.shape, config);
  // The model report describes one shape (its "shape" block and tables); lists are sweep's.
  for (const SweepAxis axis : kSweepAxes) {
    if (config.axes.varies(axis)) {
      throw bad_input(fmt::format(
          "invalid {} with several values for `model`: it predicts one shape (give one value; "
          "`sweep` takes lists)",
          axis_flag(axis)));
    }
  }
  if (!config.filter.empty()) {
    throw bad_input(
        fmt::format("invalid config key 'filter' ('{}') for `model`: it predicts one "
                    "shape (the filter is sweep's)",
                    config.filter));
  }
  const ModelPreset* preset = o.shape.model ? &find_model_preset(*o.shape.model) : nullptr;
  std::vector<std::string> refusals;
  if (preset) {
    // A preset describes a published model, not a sweep: its gemm, gelu and layernorm widths are
    // ones no sweep runs, and a head_dim the kernels lack (Gemma 2's 256) is still worth
    // planning. The shape must be valid; what the kernels refuse becomes a note.
    check_plan_shapes(config);
    check_kernel_requests(config.kernels);
    refusals = sweep_refusals(config);
  } else {
    // The same shape checks as sweep (head_dim support per kernel, GQA divisibility, ...), all
    // host-only: a prediction for a shape no kernel runs would not be comparable with any sweep.
    check_sweep_plan(config);
  }
  std::vector<std::pair<std::string, Pipe>> ops;
  for (const auto& op : config.ops) ops.emplace_back(op, find_operator(op).pipe);

  ModelReport report = build_model_report(config, ops, gpu, preset);
  report.notes.insert(report.notes.end(), refusals.begin(), refusals.end());
  const std::string json = model_report_to_json_text(report);
  if (o.output_given) {
    write_file_atomically(o.output, json);
    fmt::print(stderr, "model written to {}\n", o.output);
  }
  write_stdout(o.format == "json" ? json : format_model_table(report));
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace rooflinectl
