#include "cmd_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/config_file.hpp"
#include "cli/non_empty.hpp"
#include "cli/output_extension.hpp"
#include "cli/preset_support.hpp"
#include "cli/report_format.hpp"
#include "cli/strict_integer.hpp"
#include "compare/compare.hpp"
#include "compare/compare_power.hpp"
#include "core/device_list.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/model_preset.hpp"
#include "core/shard.hpp"
#include "core/sweep_config.hpp"
#include "core/sweep_plan.hpp"
#include "device/device_info.hpp"
#include "io/atomic_file.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "render/compare_writer.hpp"
#include "render/table_writer.hpp"
#include "result/consistency.hpp"
#include "roofline/roof_source.hpp"
#include "sweep/device_workers.hpp"
#include "sweep/interruption.hpp"
#include "sweep/sweep_runner.hpp"

namespace rooflinectl {
namespace {

std::optional<std::string> getenv_lookup(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

SweepConfig build_config(const SweepOptions& o) {
  SweepConfig config =
      o.config_file.empty() ? default_sweep_config() : load_config_file(o.config_file);
  apply_shape_options(o.shape, config);
  if (o.filter) config.filter = *o.filter;
  if (o.repetitions) config.repetitions = *o.repetitions;
  if (o.warmup_runs) config.warmup_runs = *o.warmup_runs;
  if (o.max_noise) config.max_noise = parse_threshold(*o.max_noise, "--max-noise");
  if (o.min_samples) config.min_samples = *o.min_samples;
  if (o.min_time_s) config.min_time_s = *o.min_time_s;
  if (o.max_time_s) config.max_time_s = *o.max_time_s;
  if (!config.max_noise && (o.min_samples || o.min_time_s || o.max_time_s)) {
    throw bad_input(
        "invalid --min-samples/--min-time/--max-time without --max-noise: they bound adaptive "
        "sampling, which --max-noise turns on (fixed sampling takes --repetitions)");
  }
  if (o.no_counters) config.counters = false;
  if (o.require_counters) {
    if (!config.counters) {
      throw bad_input(fmt::format(
          "invalid --require-counters: config '{}' sets \"counters\": false", o.config_file));
    }
    config.require_counters = true;
  }
  if (o.warm_l2) config.warm_l2 = true;
  if (o.sm_throughput) config.sm_throughput = true;
  if (o.device) config.device = *o.device;
  if (o.lock_clocks) {
    if (*o.lock_clocks != "base") {
      throw bad_input(fmt::format("invalid --lock-clocks '{}' (allowed: base)", *o.lock_clocks));
    }
    config.lock_clocks = *o.lock_clocks;
  }
  if (o.shard) {
    config.shard = *o.shard == "auto" ? shard_from_environment(getenv_lookup)
                                      : parse_shard_spec(*o.shard, "--shard");
  }
  if (o.plan_indices) {
    if (!o.shard || *o.shard == "auto") {
      throw bad_input(
          "invalid --plan-indices without --shard i/n: the explicit plan positions of one worker "
          "of `sweep --devices`");
    }
    config.shard->plan_indices =
        parse_plan_indices(*o.plan_indices, plan_all_points(config).size(), "--plan-indices");
  }
  return config;
}

// The points the sweep will run (its shard's), as compare matches them (the version is not
// known yet).
std::vector<PointKey> planned_points(const SweepConfig& config) {
  std::vector<PointKey> keys;
  for (const PlannedPoint& point : plan_points(config)) keys.push_back({point.op, "", point.shape});
  return keys;
}

void check_output_path(const std::string& path) {
  if (std::filesystem::is_directory(path)) {
    throw bad_input(
        fmt::format("invalid --output '{}': is a directory, a file path is needed", path));
  }
  // The report file is JSON whatever --format says (--format is for stdout), as plot's is SVG.
  check_output_extension(path, ".json", "the report is JSON (--format sets stdout only)");
  // Checked now (writable directory included) so that a sweep of many minutes does not end in a
  // report it cannot write.
  check_output_file_path(path);
}

}  // namespace

CLI::App* setup_sweep(CLI::App& app, SweepOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "sweep",
      "Run operators over sequence lengths (and any shape axis given a list); place each on the "
      "roofline");
  sub->add_option(
         "--config", o.config_file,
         "JSON sweep config, keys as in configs/default.json; its values replace the built-in "
         "defaults the other options show, and options override it (default: none, the "
         "built-in defaults, the same as configs/default.json)")
      ->check(non_empty("give a JSON config file, or leave --config out"));
  add_shape_options(*sub, o.shape, AxisValues::kLists);
  sub->add_option("--filter", o.filter,
                  "Keep the points of the axis product where EXPR holds: FIELD OP VALUE terms "
                  "joined by , or & (and) and | (or), e.g. 'op!=gelu,batch>=8' or "
                  "'op!=flash_attention|head_dim!=96'; FIELD op, batch, heads, kv_heads, head_dim, "
                  "dtype, causal, gelu_form, kv_dtype, gemm_dtype, q_len, seq; OP = != < <= > >= "
                  "(README, \"Axes and products\") (default: every point)")
      ->type_name("EXPR")
      ->check(non_empty("give FIELD OP VALUE terms, or leave --filter out"));
  sub->add_option("--output,-o", o.output,
                  "Write the JSON report here (atomically; name ending in .json) (default: no "
                  "report file)")
      ->each([&o](const std::string&) { o.output_given = true; });
  sub->add_option(
      "--format", o.format,
      "stdout format: table | json | csv | md | bmf (Bencher Metric Format, docs/ci.md) (default "
      "table)");
  CLI::Option* repetitions =
      sub->add_option("--repetitions", o.repetitions,
                      "Timed samples per point, fixed sampling (default 10)")
          ->transform(strict_integer<int>(fmt::format("integers 1..{}", kMaxRepetitions)));
  sub->add_option("--warmup-runs", o.warmup_runs,
                  "Untimed launches of each point before its timed samples (nvbench's and "
                  "google/benchmark's warm-up; config key warmup_runs) (default " +
                      std::to_string(default_sweep_config().warmup_runs) + ")")
      ->transform(strict_integer<int>(fmt::format("integers 0..{}", kMaxRepetitions)));
  sub->add_option("--max-noise", o.max_noise,
                  "Adaptive sampling: sample each point until the 95% interval of the median is "
                  "within this of it, e.g. 1% (default: off, fixed --repetitions)")
      ->excludes(repetitions);
  sub->add_option("--min-samples", o.min_samples,
                  "Adaptive sampling: fewest samples per point, taken even past --max-time "
                  "(default 10, at least 6)")
      ->transform(strict_integer<int>(fmt::format("integers 6..{}", kMaxRepetitions)));
  sub->add_option("--min-time", o.min_time_s,
                  "Adaptive sampling: least summed sample time per point, seconds (default 0)")
      ->check(strict_number(0, true, kMaxSamplingSeconds,
                            fmt::format("seconds 0 to {:g}", kMaxSamplingSeconds)));
  sub->add_option("--max-time", o.max_time_s,
                  "Adaptive sampling: most sampling wall time per point, seconds (default 1)")
      ->check(strict_number(0, false, kMaxSamplingSeconds,
                            fmt::format("seconds above 0 up to {:g}", kMaxSamplingSeconds)));
  CLI::Option* no_counters =
      sub->add_flag("--no-counters", o.no_counters, "Skip the CUPTI counter pass (timing only)");
  sub->add_flag("--require-counters", o.require_counters,
                "Exit 3 before the sweep starts when counters cannot be read (see `doctor`)")
      ->excludes(no_counters);
  sub->add_flag("--warm-l2", o.warm_l2, "Do not flush L2 before each timed sample");
  sub->add_flag("--sm-throughput", o.sm_throughput,
                "Also count sm__throughput (Nsight Compute's SM speed-of-light, the table's SM %): "
                "8 more CUPTI replay passes per point on Hopper, about +0.2 s a point")
      ->excludes(no_counters);
  CLI::Option* device = sub->add_option("--device", o.device, "CUDA device index (default 0)")
                            ->transform(device_index());
  sub->add_option("--baseline", o.baseline,
                  "Compare against this report after the sweep: Markdown summary on stdout (the "
                  "table goes to stderr), exit 1 on a regression (see `compare`) (default: none)")
      ->check(non_empty("give a sweep report file, or leave --baseline out"));
  add_compare_gate_flags(*sub, o.gate);
  sub->add_option("--roof", o.roof,
                  "Roof source: datasheet | counters | measured (default: measured when "
                  "`rooflinectl peaks` has cached this GPU, else datasheet)")
      ->check(one_of({to_string(RoofSource::kDatasheet), to_string(RoofSource::kCounters),
                      to_string(RoofSource::kMeasured)}));
  sub->add_option("--lock-clocks", o.lock_clocks,
                  "Lock the SM clocks for the sweep through NVML: base (the default applications "
                  "clock), reset on exit and on SIGINT/SIGTERM; needs root, else exit 3 "
                  "(default: clocks left alone)");
  CLI::Option* shard = sub->add_option(
      "--shard", o.shard,
      "Run one shard of the sweep: i/n (1-based) or auto (Slurm array or Kubernetes Indexed Job, "
      "docs/cluster.md); points go to shards by a hash of their key, and `merge` joins the "
      "shards' reports (default: every point)");
  // The workers of --devices run their explicit share of the plan (sweep/device_workers.hpp).
  sub->add_option("--plan-indices", o.plan_indices,
                  "Internal (sweep --devices workers): with --shard i/n, the plan positions to run")
      ->group("");
  sub->add_option("--devices", o.devices,
                  "Spread the points over these GPUs of this host: all, or indices such as 0,1; "
                  "one worker process per GPU runs a shard, and the report records each point's "
                  "GPU (default: one GPU, --device)")
      ->excludes(device)
      ->excludes(shard);
  return sub;
}

int run_sweep_command(const SweepOptions& o) {
  const ReportFormat format =
      parse_report_format(o.format, "--format",
                          {ReportFormat::kTable, ReportFormat::kJson, ReportFormat::kCsv,
                           ReportFormat::kMarkdown, ReportFormat::kBmf});
  if (o.output_given) check_output_path(o.output);
  // The gate flags are checked even without --baseline: a bad value is an error, not ignored.
  const CompareOptions gate_options = compare_options_from_flags(o.gate);
  std::optional<RoofSource> roof;
  if (o.roof) roof = parse_roof_source(*o.roof);
  if (roof == RoofSource::kCounters && o.no_counters) {
    throw bad_input(
        "invalid --roof counters with --no-counters: counter-derived roofs need the counter pass");
  }
  SweepConfig config = build_config(o);
  const ModelPreset* preset = o.shape.model ? &find_model_preset(*o.shape.model) : nullptr;
  if (preset) {
    check_preset_sweepable(*preset, config);
    config.model_preset = preset->id;
  }
  // --devices: checked before the baseline is read; one device is a plain sweep on it.
  std::vector<int> devices;
  if (o.devices) {
    const int count = device_count();
    devices =
        parse_device_list(*o.devices, count, "--devices", count == 0 ? no_device_message() : "");
    config.device = devices.front();
  }
  // A bad baseline must cost nothing: it is read and checked before the GPU does any work.
  std::optional<Report> baseline;
  std::optional<CompareOptions> gate;
  if (!o.baseline.empty()) {
    gate = gate_options;
    if (o.format != "table") {
      throw bad_input(
          fmt::format("invalid --format '{}' with --baseline: stdout carries the "
                      "Markdown comparison; write the report with --output",
                      o.format));
    }
    baseline = load_report_to_compare(o.baseline);
    // What compare_reports would refuse after the sweep, refused before the GPU does any work.
    if (baseline->schema_version != kReportSchemaVersion) {
      throw bad_input(fmt::format(
          "--baseline {}: report schema_version {} cannot be compared with this sweep's {} (the "
          "DRAM-byte method changed: docs/counter-method.md); sweep the baseline again with this "
          "rooflinectl",
          o.baseline, baseline->schema_version, kReportSchemaVersion));
    }
    check_report_consistency(*baseline, o.baseline);
    // A sweep whose points match none of the baseline's would run in full and then be refused
    // by the comparison (a changed batch, dtype or operator set): refused now instead.
    Report planned;
    for (const PointKey& key : planned_points(config)) {
      PointResult point;
      point.op = key.op;
      point.shape = key.shape;
      planned.points.push_back(std::move(point));
    }
    check_something_matches(*baseline, planned, "the planned sweep");
    // Adaptive sampling takes at least min_samples: the power check holds for any run of it.
    check_time_gate_power(
        planned_time_gate_family(
            *baseline, planned_points(config),
            static_cast<size_t>(config.max_noise ? config.min_samples : config.repetitions)),
        config.max_noise ? "--min-samples" : "--repetitions");
  }
  // Caught from here until the report is written: a signal stops the sweep between points and
  // the points done so far are still written (atomically), never half a file.
  const InterruptScope interrupt_scope;
  // Said before the points run, where a long sweep's reader sees it; without a GPU run_sweep's
  // one error line is all stderr holds.
  if (preset && device_count() > 0) {
    fmt::print(stderr, "{}\n", preset_sweep_notice(*preset, config.base, config.ops));
  }
  const Report report = devices.size() > 1
                            ? run_sweep_on_devices(config, devices, WorkerFlags{o.roof}, std::cerr)
                            : run_sweep(config, std::cerr, roof);
  const std::string json = report_to_json_text(report);
  if (o.output_given) {
    write_file_atomically(o.output, json);
    fmt::print(stderr, "report written to {}\n", o.output);
  }
  if (baseline) {
    fmt::print(stderr, "{}", render_report(report, ReportFormat::kTable));
    const CompareResult result = compare_reports(*baseline, report, *gate);
    fmt::print("{}", format_compare_markdown(result));
    // A failed or skipped point exits 1 as without --baseline, even when the comparison is clean.
    const bool partial = std::any_of(report.points.begin(), report.points.end(),
                                     [](const auto& p) { return p.status != PointStatus::kOk; });
    return partial ? static_cast<int>(ExitCode::kPartial) : result.exit_code();
  }
  fmt::print("{}", format == ReportFormat::kJson ? json : render_report(report, format));
  if (pending_interrupt() != 0 || report_was_interrupted(report)) return kInterruptedExitCode;
  for (const auto& point : report.points) {
    if (point.status != PointStatus::kOk) return static_cast<int>(ExitCode::kPartial);
  }
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace rooflinectl
