#include "cmd_peaks.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>

#include "cli/strict_integer.hpp"
#include "core/error.hpp"
#include "core/utc_timestamp.hpp"
#include "core/version.hpp"
#include "cupti/profiler_session.hpp"
#include "device/device_info.hpp"
#include "device/gpu_spec.hpp"
#include "gpu/cuda_check.hpp"
#include "io/peaks_json.hpp"
#include "peaks/bench/peak_benchmarks.hpp"
#include "peaks/bench/peak_plan.hpp"
#include "peaks/peak_sources.hpp"
#include "peaks/peaks_cache.hpp"
#include "peaks/peaks_key.hpp"
#include "render/peaks_table.hpp"
#include "result/peak_set.hpp"

namespace rooflinectl {
namespace {

PeakSet datasheet_for(const DeviceRecord& device) {
  const GpuSpec* spec =
      match_gpu_spec(device.name, device.cc_major, device.cc_minor, device.sm_count);
  return datasheet_peak_set(spec, device.name, device.cc_major, device.cc_minor, device.sm_count);
}

/// Runs the benchmarks and the counter pass; `failed` counts benchmarks that errored.
PeaksRecord measure(const DeviceRecord& device, const PeaksKey& key, int& failed) {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  RFL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  int max_threads_per_sm = 0;
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor,
                                        device.index));
  const PeakBenchmarkPlan plan = plan_peak_benchmarks(
      device.sm_count, max_threads_per_sm, device.l2_bytes, static_cast<int64_t>(free_bytes));

  std::unique_ptr<ProfilerSession> session;
  std::string counters_reason;
  for (const auto* metrics :
       {&peak_counter_metric_names(), &peak_counter_verified_metric_names()}) {
    try {
      session = std::make_unique<ProfilerSession>(device.index, *metrics);
      break;
    } catch (const Error& e) {
      counters_reason = e.what();
      fmt::print(stderr, "notice: {}\n", e.what());
    }
  }
  if (!session) {
    fmt::print(stderr, "notice: hardware counters unavailable, no counter-derived peaks\n");
  }
  const PeakRunResult run =
      run_peak_benchmarks(plan, device.cc_major, device.cc_minor, session.get(), std::cerr);
  if (session && !run.counter_peaks) counters_reason = run.counters_null_reason;

  PeaksRecord record;
  record.key = key;
  record.device_name = device.name;
  record.cc_major = device.cc_major;
  record.cc_minor = device.cc_minor;
  record.sm_count = device.sm_count;
  record.l2_bytes = device.l2_bytes;
  record.tool_version = kToolVersion;
  record.timestamp_utc = utc_timestamp_now();
  record.benchmarks = run.benchmarks;
  record.measured = measured_peak_set(
      run.benchmarks,
      fmt::format("rooflinectl peaks microbenchmarks on this GPU, {}, median of {} CUDA-event "
                  "timed launches each",
                  record.timestamp_utc, plan.repetitions));
  record.counters =
      run.counter_peaks
          ? counter_peak_set(*run.counter_peaks, device.cc_major, device.cc_minor,
                             "CUPTI peak_sustained per cycle x the highest clocks seen in the "
                             "benchmarks' counter ranges")
          : unavailable_peak_set(RoofSource::kCounters, counters_reason);
  failed = run.failed;
  return record;
}

}  // namespace

CLI::App* setup_peaks(CLI::App& app, PeaksOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "peaks",
      "Measure this GPU's ceilings (DRAM, L2, fp32, tensor) next to the datasheet and "
      "counter-derived peaks; cached for `sweep --roof measured`");
  sub->add_option("--device", o.device, "CUDA device index (default 0)")->transform(device_index());
  sub->add_option("--format", o.format, "stdout format: table | json (default table)");
  sub->add_flag("--no-cache", o.no_cache,
                "Measure even when a cached result exists (the new result replaces it)");
  return sub;
}

int run_peaks_command(const PeaksOptions& o) {
  if (o.format != "table" && o.format != "json") {
    throw bad_input(fmt::format("invalid --format '{}': allowed table, json", o.format));
  }
  if (o.device < 0) {
    throw bad_input(fmt::format("invalid --device {}: must be a device index >= 0", o.device));
  }
  const DeviceRecord device = query_device(o.device);  // no GPU → exit 3, bad index → exit 2
  RFL_CUDA_CHECK(cudaSetDevice(o.device));
  RFL_CUDA_CHECK(cudaFree(nullptr));  // create the context before CUPTI attaches to it
  const PeaksKey key = query_peaks_key(o.device);
  const std::optional<std::string> cache_dir = default_peaks_cache_dir();

  std::optional<PeaksRecord> record;
  if (cache_dir && !o.no_cache) {
    std::string why_not;
    record = load_peaks_cache(*cache_dir, key, why_not);
    if (record) {
      fmt::print(stderr, "using cached peaks measured {} ({}/{}); --no-cache measures again\n",
                 record->timestamp_utc, *cache_dir, peaks_cache_file_name(key));
    }
  }
  int failed = 0;
  if (!record) {
    record = measure(device, key, failed);
    if (!cache_dir) {
      fmt::print(stderr, "notice: not cached: neither XDG_CACHE_HOME nor HOME is set\n");
    } else {
      try {
        fmt::print(stderr, "peaks cached in {}\n", save_peaks_cache(*cache_dir, *record));
      } catch (const Error& e) {
        fmt::print(stderr, "notice: not cached: {}\n", e.what());
      }
    }
  }
  // The table may have gained this GPU (or corrected a figure) since the entry was cached.
  record->datasheet = datasheet_for(device);
  if (record->datasheet.null_reason) {
    fmt::print(stderr, "notice: {}: datasheet column empty, compare with counter-derived peaks\n",
               *record->datasheet.null_reason);
  }
  if (o.format == "json") {
    fmt::print("{}", peaks_record_to_json_text(*record));
  } else {
    fmt::print("{}", format_peaks_table(*record));
  }
  return failed > 0 ? static_cast<int>(ExitCode::kPartial) : static_cast<int>(ExitCode::kOk);
}

}  // namespace rooflinectl
