#include "cmd_model.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "cli/config_file.hpp"
#include "cli/non_empty.hpp"
#include "cli/output_extension.hpp"
#include "cli/preset_support.hpp"
#include "cli/strict_integer.hpp"
#include "core/error.hpp"
#include "core/model_preset.hpp"
#include "core/operator_names.hpp"
#include "core/seq_range.hpp"
#include "core/sweep_axes.hpp"
#include "core/sweep_config.hpp"
#include "device/gpu_spec.hpp"
#include "io/atomic_file.hpp"
#include "kernels/operator.hpp"
#include "model/memory_model.hpp"
#include "model/prediction.hpp"
#include "render/model_writer.hpp"
#include "sweep/sweep_runner.hpp"

namespace rooflinectl {
namespace {

constexpr double kGiB = 1073741824.0;
constexpr double kMaxKvBudgetGib = 1048576;           // 1 PiB: larger is a typo
constexpr double kDefaultGpuMemoryUtilization = 0.9;  // vLLM's default
constexpr int64_t kMaxModelLen = int64_t{1} << 30;

// The KV-cache capacity `o` asks for (nullopt: none) at the shape of `config` on `gpu`, with the
// budget's origin stored in `report`. Bad input as run_model_command says.
std::optional<KvCapacity> kv_capacity_of(const ModelOptions& o, const SweepConfig& config,
                                         const GpuSpec& gpu, const ModelPreset* preset,
                                         ModelReport& report) {
  const bool any = o.kv_lengths || o.kv_budget_gib || o.gpu_memory_utilization || o.layers;
  if (!o.max_model_len) {
    if (any) {
      throw bad_input(
          "--kv-lengths, --kv-budget-gib, --gpu-memory-utilization and --layers are for the "
          "KV-cache capacity: give --max-model-len too");
    }
    return std::nullopt;
  }
  if (*o.max_model_len < 1 || *o.max_model_len > kMaxModelLen) {
    throw bad_input(fmt::format("invalid --max-model-len {}: allowed 1..2^30", *o.max_model_len));
  }
  if (preset && *o.max_model_len > preset->max_context) {
    // As vLLM refuses a max_model_len above the model's max_position_embeddings.
    throw bad_input(fmt::format(
        "invalid --max-model-len {}: above {}'s context window of {} positions (max_context, "
        "configs/models/{}.json); allowed 1..{}",
        *o.max_model_len, preset->id, preset->max_context, preset->id, preset->max_context));
  }
  if (!o.kv_lengths) {
    throw bad_input(
        "--max-model-len needs --kv-lengths: the positions sequences actually hold (prompt + "
        "output), e.g. --kv-lengths 500,4352");
  }
  if (o.kv_budget_gib && o.gpu_memory_utilization) {
    throw bad_input(
        "--kv-budget-gib and --gpu-memory-utilization both set the KV-cache budget: give one");
  }
  if (!preset && !o.layers) {
    throw bad_input("the KV-cache capacity needs a layer count: give --model or --layers");
  }
  if (!preset && !o.kv_budget_gib) {
    throw bad_input(
        "the KV-cache capacity needs a budget: give --kv-budget-gib, or --model for the weights "
        "to take out of the GPU's memory");
  }
  if (o.layers && (*o.layers < 1 || *o.layers > kMaxPresetWidth)) {
    throw bad_input(fmt::format("invalid --layers {}: allowed 1..2^20", *o.layers));
  }
  KvCapacitySpec spec;
  spec.layers = o.layers ? *o.layers : preset->layers;
  spec.kv_heads = config.base.kv_heads;
  spec.head_dim = config.base.head_dim;
  spec.kv_element_bytes = kv_element_bytes(config.base);
  spec.page_size =
      config.base.kv_layout == KvLayout::kPaged ? config.base.page_size : kDefaultKvPageSize;
  spec.max_model_len = *o.max_model_len;
  if (o.kv_budget_gib) {
    spec.budget_bytes = *o.kv_budget_gib * kGiB;
  } else {
    const double utilization = o.gpu_memory_utilization.value_or(kDefaultGpuMemoryUtilization);
    const double weights = model_weight_bytes(*preset, spec.layers);
    spec.budget_bytes = kv_budget_after_weights(gpu.memory_bytes.value, utilization, weights);
    report.kv_budget_utilization = utilization;
    report.kv_budget_weight_bytes = weights;
  }
  return kv_capacity(spec, parse_length_spec(*o.kv_lengths, {"--kv-lengths"}));
}

}  // namespace

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
                  "configs/default.json)")
      ->check(non_empty("give a JSON config file, or leave --config out"));
  add_shape_options(*sub, o.shape, AxisValues::kSingle);
  sub->add_option("--format", o.format, "stdout format: table | json (default table)");
  sub->add_option("--output,-o", o.output,
                  "Write the JSON here (atomically; name ending in .json) (default: no file)")
      ->each([&o](const std::string&) { o.output_given = true; });
  sub->add_option("--max-model-len", o.max_model_len,
                  "KV-cache capacity: the longest sequence the server admits (vLLM's "
                  "--max-model-len); contiguous allocation reserves it for every sequence. With "
                  "--kv-lengths, adds the table of sequences that fit (default: no table)")
      ->transform(strict_integer<int64_t>("integers 1..2^30"));
  sub->add_option("--kv-lengths", o.kv_lengths,
                  "KV-cache capacity: positions each sequence actually holds (prompt + output), "
                  "one row each, as --seq: 500,4352,33280 (default: none)");
  sub->add_option("--kv-budget-gib", o.kv_budget_gib,
                  "KV-cache capacity: memory for the KV cache, GiB (default: "
                  "--gpu-memory-utilization x the GPU's memory - the --model preset's weights)")
      ->check(strict_number(0, false, kMaxKvBudgetGib, "GiB above 0 up to 1048576"));
  sub->add_option("--gpu-memory-utilization", o.gpu_memory_utilization,
                  "KV-cache capacity: share of the GPU's memory the engine may use, the weights "
                  "then taken out (vLLM's flag; default 0.9, vLLM's)")
      ->check(strict_number(0, false, 1, "above 0 up to 1"));
  sub->add_option("--layers", o.layers,
                  "KV-cache capacity: layers holding K and V (default: the --model preset's)")
      ->transform(strict_integer<int64_t>("integers 1..2^20"));
  return sub;
}

namespace {

// An FP8 GEMM input or KV cache beside an operator that has none: sweep's message suggests
// listing auto too, which `model` (one shape) refuses, so it says what `model` can do instead.
void check_model_input_dtypes(const SweepConfig& config) {
  for (const std::string& op : config.ops) {
    if (config.base.gemm_dtype != GemmDtype::kAuto && op != kGemmOp) {
      throw bad_input(fmt::format(
          "invalid --gemm-dtype {} with operator '{}' (--ops): only {} has GEMM inputs, and "
          "`model` predicts one shape (model it alone: --ops {})",
          to_string(config.base.gemm_dtype), op, kGemmOp, kGemmOp));
    }
    if (config.base.kv_dtype != KvDtype::kAuto && op != kDecodeAttentionOp) {
      throw bad_input(fmt::format(
          "invalid --kv-dtype {} with operator '{}' (--ops): only {} has a KV cache, and "
          "`model` predicts one shape (model it alone: --ops {})",
          to_string(config.base.kv_dtype), op, kDecodeAttentionOp, kDecodeAttentionOp));
    }
  }
}

}  // namespace

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
      o.config_file.empty() ? default_sweep_config() : load_config_file(o.config_file);
  apply_shape_options(o.shape, config);
  const ModelPreset* preset = o.shape.model ? &find_model_preset(*o.shape.model) : nullptr;
  // A preset's layer runs its own FFN step and norm (swiglu, rmsnorm for Llama), not the default
  // sweep's gelu and layernorm, unless --ops or the config names operators.
  if (preset && !o.shape.ops && o.config_file.empty()) config.ops = preset_operator_names(*preset);
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
  check_model_input_dtypes(config);
  std::vector<std::string> refusals;
  // A flag that replaced a preset's attention axis is the user's value, checked as sweep checks
  // it (README: only the preset's own head_dim becomes a note).
  const bool preset_axes = preset && config.base.heads == preset->heads &&
                           config.base.kv_heads == preset->kv_heads &&
                           config.base.head_dim == preset->head_dim;
  if (preset_axes) {
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
  for (const auto& op : config.ops) ops.emplace_back(op, find_operator(op).pipe(config.base));

  ModelReport report = build_model_report(config, ops, gpu, preset);
  report.notes.insert(report.notes.end(), refusals.begin(), refusals.end());
  report.kv_capacity = kv_capacity_of(o, config, gpu, preset, report);
  const std::string json = model_report_to_json_text(report);
  if (o.output_given) {
    write_file_atomically(o.output, json);
    fmt::print(stderr, "model written to {}\n", o.output);
  }
  write_stdout(o.format == "json" ? json : format_model_table(report));
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace rooflinectl
