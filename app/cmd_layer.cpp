#include "cmd_layer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <vector>

#include "cli/output_extension.hpp"
#include "cli/strict_integer.hpp"
#include "compare/compare.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/model_preset.hpp"
#include "core/operator_names.hpp"
#include "core/seq_range.hpp"
#include "core/shape.hpp"
#include "core/sweep_config.hpp"
#include "device/device_info.hpp"
#include "device/gpu_spec.hpp"
#include "io/atomic_file.hpp"
#include "kernels/operator.hpp"
#include "model/layer_measured.hpp"
#include "model/layer_plan.hpp"
#include "model/layer_report.hpp"
#include "render/layer_writer.hpp"
#include "render/svg/svg_layer_split.hpp"
#include "roofline/roof_source.hpp"
#include "sweep/interruption.hpp"
#include "sweep/sweep_runner.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kDefaultSeq = "512..32768";
constexpr const char* kDefaultContext = "512..131072";

// The kernel's refusal of a layer operator's shape (its check_shape message), empty when it runs.
std::string kernel_refusal(const std::string& op, const Shape& shape) {
  try {
    find_operator(op).check_shape(shape);
    return std::string();
  } catch (const Error& e) {
    if (e.exit_code() != ExitCode::kBadInput) throw;
    return e.what();
  }
}

// The sweep options of a measured layer: the defaults, the measurement flags, and every operator
// of the plan in `ops` (the report's config.kernels records their versions).
SweepConfig measurement_config(const LayerOptions& o, const LayerMeasurementPlan& plan) {
  SweepConfig config = default_sweep_config();
  config.ops.clear();
  for (const PlannedPoint& point : plan.points) {
    if (std::find(config.ops.begin(), config.ops.end(), point.op) == config.ops.end()) {
      config.ops.push_back(point.op);
    }
  }
  if (o.repetitions) config.repetitions = *o.repetitions;
  if (o.max_noise) config.max_noise = parse_threshold(*o.max_noise, "--max-noise");
  if (o.no_counters) config.counters = false;
  if (o.require_counters) config.require_counters = true;
  if (o.device) config.device = *o.device;
  return config;
}

// The flags that only a measurement reads, refused with --analytic rather than ignored.
void check_analytic_flags(const LayerOptions& o) {
  const auto refuse = [](const char* flag) {
    throw bad_input(fmt::format(
        "invalid {} with --analytic: it sets how the GPU measures the layer, and --analytic "
        "measures nothing (drop one of them)",
        flag));
  };
  if (o.repetitions) refuse("--repetitions");
  if (o.max_noise) refuse("--max-noise");
  if (o.no_counters) refuse("--no-counters");
  if (o.require_counters) refuse("--require-counters");
  if (o.roof) refuse("--roof");
  if (o.device) refuse("--device");
}

// Refuses a (batch, length) whose tensors exceed the 2^50-element bound sweep and model enforce
// (validate_common_shape at the preset's widths, the length as seq_len: prefill's activations,
// decode's KV cache), naming the flags: the analytic view would otherwise print products that
// overflow nothing but mean nothing (M = 4.6e18).
void check_layer_sizes(const ModelPreset& preset, LayerPhase phase,
                       const std::vector<int64_t>& batches, const std::vector<int64_t>& lengths) {
  for (const int64_t batch : batches) {
    for (const int64_t length : lengths) {
      Shape s;
      s.batch = batch;
      s.heads = preset.heads;
      s.kv_heads = preset.kv_heads;
      s.head_dim = preset.head_dim;
      s.seq_len = length;
      s.hidden = preset.widths.d_model;
      s.ffn_dim = preset.widths.ffn_dim;
      try {
        validate_common_shape(s);
      } catch (const Error& e) {
        throw bad_input(fmt::format("invalid layer point --batch {} {} {}: {}", batch,
                                    phase == LayerPhase::kPrefill ? "--seq" : "--context", length,
                                    e.what()));
      }
    }
  }
}

// The datasheet of a measured view's analytic columns: --gpu, else the spec of the GPU measured.
const GpuSpec& measured_gpu_spec(const LayerOptions& o, int device) {
  if (o.gpu) return find_gpu_spec(*o.gpu);
  const DeviceRecord record = query_device(device);
  const GpuSpec* spec =
      match_gpu_spec(record.name, record.cc_major, record.cc_minor, record.sm_count);
  if (spec == nullptr) {
    throw bad_input(fmt::format(
        "layer: GPU {} '{}' is not in the datasheet table, which the analytic columns and peak "
        "memory need: add --gpu ID naming the closest spec (`rooflinectl list` lists them)",
        device, record.name));
  }
  return *spec;
}

}  // namespace

CLI::App* setup_layer(CLI::App& app, LayerOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "layer",
      "One transformer layer of a model preset, operator by operator at its real shapes: time "
      "split, bounds, TTFT or decode tokens/s, peak memory; each operator measured on the GPU as "
      "a sweep point (--analytic: from the datasheet, no GPU needed)");
  sub->add_option("--model", o.model, "model preset id, e.g. llama-3.1-8b (list shows them)")
      ->required();
  sub->add_option("--phase", o.phase,
                  "prefill (whole prompts, M = B*L) | decode (one token per sequence, M = B)")
      ->required();
  sub->add_option("--seq", o.seq, "prefill prompt lengths L, as sweep --seq (default 512..32768)");
  sub->add_option("--context", o.context,
                  "decode KV-cache lengths, as sweep --seq (default 512..131072)");
  sub->add_option("--batch", o.batch, "batch sizes B, a list or range: 1,16,64 (default 1)");
  sub->add_option("--kv-dtype", o.kv_dtype,
                  "Element type of the stored KV cache: auto (bf16) | fp8_e4m3 (1 byte, one fp32 "
                  "scale per KV head for K and for V): decode reads it, peak memory holds it "
                  "(default auto)");
  sub->add_flag("--analytic", o.analytic,
                "model the layer from the --gpu datasheet instead of measuring it");
  sub->add_option("--gpu", o.gpu,
                  "GPU spec id, e.g. h200-sxm: required with --analytic; measured, the datasheet "
                  "of the analytic columns (default: the spec of the GPU measured)");
  CLI::Option* repetitions =
      sub->add_option("--repetitions", o.repetitions,
                      "Timed samples per operator, fixed sampling (default 10)")
          ->transform(strict_integer<int>(fmt::format("integers 1..{}", kMaxRepetitions)));
  sub->add_option("--max-noise", o.max_noise,
                  "Adaptive sampling, as sweep's: sample each operator until the 95% interval of "
                  "the median is within this of it, e.g. 1% (default: off)")
      ->excludes(repetitions);
  CLI::Option* no_counters =
      sub->add_flag("--no-counters", o.no_counters, "Skip the CUPTI counter pass (timing only)");
  sub->add_flag("--require-counters", o.require_counters,
                "Exit 3 before measuring when counters cannot be read (see `doctor`)")
      ->excludes(no_counters);
  sub->add_option("--roof", o.roof,
                  "Roof of the measured placement: datasheet | counters | measured (default: "
                  "measured when `rooflinectl peaks` has cached this GPU, else datasheet)")
      ->check(one_of({to_string(RoofSource::kDatasheet), to_string(RoofSource::kCounters),
                      to_string(RoofSource::kMeasured)}));
  sub->add_option("--device", o.device, "CUDA device index to measure on (default 0)")
      ->transform(device_index());
  sub->add_option("--format", o.format, "stdout format: table | json (default table)");
  sub->add_option("--output,-o", o.output,
                  "Write the JSON here (atomically; name ending in .json) (default: no file)")
      ->each([&o](const std::string&) { o.output_given = true; });
  sub->add_option("--chart", o.chart,
                  "Write the layer's time split as an SVG chart here (atomically; name ending in "
                  ".svg): a bar per length stacked by operator, a panel per batch (default: none)")
      ->type_name("FILE.svg");
  return sub;
}

int run_layer_command(const LayerOptions& o) {
  if (o.analytic) {
    if (!o.gpu)
      throw bad_input(
          "layer --analytic needs --gpu ID (e.g. h200-sxm; `rooflinectl list` lists them)");
    check_analytic_flags(o);
  }
  const LayerPhase phase = parse_layer_phase(o.phase);
  if (o.format != "table" && o.format != "json") {
    throw bad_input(fmt::format("invalid --format '{}': allowed table, json", o.format));
  }
  if (phase == LayerPhase::kPrefill && o.context) {
    throw bad_input(fmt::format(
        "invalid --context '{}' with --phase prefill: prefill takes --seq (prompt lengths); "
        "--context is the KV-cache length of --phase decode",
        *o.context));
  }
  if (phase == LayerPhase::kDecode && o.seq) {
    throw bad_input(fmt::format(
        "invalid --seq '{}' with --phase decode: decode takes --context (KV-cache lengths); "
        "--seq is the prompt length of --phase prefill",
        *o.seq));
  }
  if (o.output_given) {
    check_output_extension(o.output, ".json",
                           "the layer report is JSON (--format sets stdout only)");
    check_output_file_path(o.output);
  }
  if (o.chart) {
    check_output_extension(*o.chart, ".svg", "the chart is SVG", "--chart");
    check_output_file_path(*o.chart);
  }
  const std::vector<int64_t> lengths =
      phase == LayerPhase::kPrefill
          ? parse_length_spec(o.seq.value_or(kDefaultSeq), {"--seq"})
          : parse_length_spec(o.context.value_or(kDefaultContext), {"--context"});
  const std::vector<int64_t> batches = parse_length_spec(o.batch, kBatchSpecNames);
  const KvDtype kv_dtype = parse_kv_dtype(o.kv_dtype);
  const ModelPreset& preset = find_model_preset(o.model);
  check_layer_sizes(preset, phase, batches, lengths);

  LayerReport report;
  int exit_code = static_cast<int>(ExitCode::kOk);
  if (o.analytic) {
    report = build_layer_report(preset, find_gpu_spec(*o.gpu), phase, batches, lengths, kv_dtype);
  } else {
    std::optional<RoofSource> roof;
    if (o.roof) roof = parse_roof_source(*o.roof);
    if (roof == RoofSource::kCounters && o.no_counters) {
      throw bad_input(
          "invalid --roof counters with --no-counters: counter-derived roofs need the counter "
          "pass");
    }
    if (o.gpu) find_gpu_spec(*o.gpu);  // an unknown id is refused before the GPU is opened
    const LayerMeasurementPlan plan =
        plan_layer_measurement(preset, phase, batches, lengths, kv_dtype, kernel_refusal);
    const SweepConfig config = measurement_config(o, plan);
    validate_run_settings(config);
    if (device_count() == 0) {
      throw environment_error(no_device_message() +
                              "; without a GPU, `layer --analytic --gpu ID` models the layer from "
                              "a datasheet");
    }
    const GpuSpec& gpu = measured_gpu_spec(o, config.device);
    const LayerReport analytic = build_layer_report(preset, gpu, phase, batches, lengths, kv_dtype);
    // A signal stops the measurement between points; the points measured so far are reported.
    const InterruptScope interrupt_scope;
    const Report sweep = run_planned_points(config, plan.points, std::cerr, roof);
    report = assemble_measured_layer_report(analytic, plan, sweep);
    if (pending_interrupt() != 0 || report_was_interrupted(sweep)) {
      exit_code = kInterruptedExitCode;
    } else {
      for (const MeasuredLayerPoint& point : report.measurement->points) {
        if (!point.layer_time_s) exit_code = static_cast<int>(ExitCode::kPartial);
      }
    }
  }
  const std::string json = layer_report_to_json_text(report);
  // The report and its chart together: a chart that cannot be written leaves no report either.
  std::vector<std::pair<std::string, std::string>> files;
  if (o.output_given) files.emplace_back(o.output, json);
  if (o.chart) files.emplace_back(*o.chart, layer_split_svg(layer_time_split(report)));
  write_files_atomically(files);
  if (o.output_given) fmt::print(stderr, "layer report written to {}\n", o.output);
  if (o.chart) fmt::print(stderr, "layer time-split chart written to {}\n", *o.chart);
  write_stdout(o.format == "json" ? json : format_layer_table(report));
  return exit_code;
}

}  // namespace rooflinectl
