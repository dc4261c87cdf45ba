#include "sweep_runner.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <memory>
#include <ostream>
#include <random>

#include "core/error.hpp"
#include "core/utc_timestamp.hpp"
#include "core/version.hpp"
#include "cupti/metrics.hpp"
#include "cupti/profiler_session.hpp"
#include "device/device_info.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/operator.hpp"
#include "measure/canary.hpp"
#include "measure/l2_flush.hpp"
#include "measure/memory_check.hpp"
#include "measure/timing.hpp"
#include "model/operator_model.hpp"
#include "model/reconcile.hpp"
#include "report/interruption.hpp"
#include "roofline/roof_from_counters.hpp"
#include "roofline/above_roof_guard.hpp"
#include "roofline/roof_selection.hpp"
#include "sweep_progress.hpp"
#include "sweep_roofs.hpp"

namespace rooflinectl {
namespace {

/// Owns a CUDA stream for the sweep.
class Stream {
 public:
  Stream() { RFL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// Everything a point measurement needs that lives for the whole sweep.
struct SweepContext {
  const SweepConfig& config;
  const DeviceRecord& device;
  std::unique_ptr<ProfilerSession> profiler;  // null when counters are off or unavailable
  std::string counters_null_reason;
  L2Flusher& flusher;
  cudaStream_t stream;
  const PeaksBlock* peaks = nullptr;  // the roof sources; peaks->used is the one points get
};

void place_point(PointResult& point, const OperatorSpec& spec, const DeviceRecord& device,
                 const PeaksBlock& peaks) {
  if (!point.timing) {
    point.roofline_null_reason = "not timed";
    return;
  }
  std::string reason;
  const auto roof = select_point_roof(peaks.used, spec.pipe, point.shape.dtype, peaks,
                                      point.counters, device.cc_major, device.cc_minor, reason);
  if (!roof) {
    point.roofline_null_reason = reason;
    return;
  }
  const auto flop = point.counters.total.total_flop();
  const auto bytes = point.counters.total.dram_bytes();
  if (!flop || !bytes || *flop <= 0 || *bytes <= 0) {
    point.roofline_null_reason = "counted FLOPs or DRAM bytes missing or zero";
    return;
  }
  point.roofline = place_on_roofline(*roof, *flop, *bytes, point.timing->median_s, "counters");
}

size_t free_device_memory_bytes() {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  RFL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

// The method and its limits are documented at PointResult::peak_device_memory_bytes. A free count
// that did not drop is not a measurement of zero: small buffers can be carved from memory the
// driver already holds, or another process freed memory meanwhile.
void record_peak_memory(PointResult& point, size_t free_before_bytes) {
  const size_t free_after_bytes = free_device_memory_bytes();
  if (free_after_bytes >= free_before_bytes) {
    point.peak_device_memory_null_reason = fmt::format(
        "cudaMemGetInfo free bytes did not drop ({} before allocation, {} after the timed pass)",
        free_before_bytes, free_after_bytes);
    return;
  }
  point.peak_device_memory_bytes = static_cast<double>(free_before_bytes - free_after_bytes);
  point.peak_device_memory_null_reason.clear();
}

void measure_point(PointResult& point, const OperatorSpec& spec, SweepContext& ctx) {
  point.peak_device_memory_null_reason = "not measured: the point did not reach its timed pass";
  const MemoryCheck memory = check_device_memory(spec.device_bytes(point.shape));
  point.device_bytes_needed = memory.needed_bytes;
  if (!memory.fits) {
    point.status = PointStatus::kSkipped;
    point.reason = "does not fit in device memory: " + describe_memory_shortfall(memory);
    point.counters.null_reason = "point skipped";
    point.roofline_null_reason = "point skipped";
    return;
  }
  const size_t free_before_bytes = free_device_memory_bytes();
  std::unique_ptr<OperatorRun> run = spec.create(point.shape);
  point.version = run->version();
  run->fill_random(point.seed);
  point.validation = run->validate();
  if (!point.validation->passed) {
    point.status = PointStatus::kFailed;
    point.reason = "validation failed: " + point.validation->detail;
    point.counters.null_reason = "not measured: validation failed";
    point.roofline_null_reason = "not measured: validation failed";
    return;
  }

  const TimingOptions timing_options{ctx.config.repetitions, ctx.config.warmup_runs,
                                     !ctx.config.warm_l2};
  point.timing = time_launches([&](cudaStream_t s) { run->launch(s); }, timing_options,
                               ctx.flusher, ctx.stream);
  point.tokens_per_s = tokens_per_second(point.op, point.shape, point.timing->median_s);
  record_peak_memory(point, free_before_bytes);

  if (ctx.profiler) {
    const auto ranges = ctx.profiler->profile(
        [&] { ctx.flusher.flush(ctx.stream); RFL_CUDA_CHECK(cudaStreamSynchronize(ctx.stream)); },
        [&] { run->launch(ctx.stream); });
    point.counters = counters_from_ranges(ranges, run->kernel_names(), ctx.profiler->passes(),
                                          "L2 flushed before the profiled launch: " +
                                              ctx.flusher.policy());
  } else {
    point.counters.null_reason = ctx.counters_null_reason;
  }
  place_point(point, spec, ctx.device, *ctx.peaks);
  point.reconciliation = reconcile(point, spec.pipe, ctx.device);
}

/// The copy canary, or a record of why it could not be taken: a sweep is still worth having
/// without it (compare then says it cannot tell whether the machine changed).
CanaryResult take_canary(int64_t l2_bytes, cudaStream_t stream, std::ostream& progress) {
  try {
    CanaryResult canary = measure_copy_canary(l2_bytes, stream);
    fmt::print(progress, "canary: device-to-device copy {:.3f} TB/s\n",
               *canary.copy_bytes_per_s / 1e12);
    return canary;
  } catch (const Error& e) {
    cudaGetLastError();  // clear a non-sticky error so the sweep can run
    fmt::print(progress, "notice: copy canary not measured: {}\n", e.what());
    CanaryResult canary;
    canary.null_reason = e.what();
    return canary;
  }
}

}  // namespace

void check_sweep_plan(const SweepConfig& config) {
  validate_sweep_config(config);
  for (const auto& op : config.ops) {
    const OperatorSpec& spec = find_operator(op);
    for (const int64_t seq_len : config.seq_lens) {
      Shape shape = config.base;
      shape.seq_len = seq_len;
      spec.check_shape(shape);
    }
  }
}

Report run_sweep(const SweepConfig& config, std::ostream& progress,
                 const std::optional<RoofSource>& roof) {
  check_sweep_plan(config);
  if (device_count() == 0) {
    throw environment_error(no_device_message());
  }
  Report report;
  report.tool_version = kToolVersion;
  report.git_revision = kGitRevision;
  report.timestamp_utc = utc_timestamp_now();
  report.config = config;
  report.device = query_device(config.device);
  RFL_CUDA_CHECK(cudaSetDevice(config.device));
  RFL_CUDA_CHECK(cudaFree(nullptr));  // create the context before CUPTI attaches to it

  Stream stream;
  L2Flusher flusher(report.device.l2_bytes);
  report.canary = take_canary(report.device.l2_bytes, stream.get(), progress);
  SweepContext ctx{config, report.device, nullptr, "", flusher, stream.get()};
  if (!config.counters) {
    ctx.counters_null_reason = "counters disabled (--no-counters)";
  } else {
    try {
      ctx.profiler = std::make_unique<ProfilerSession>(config.device, counter_metric_names());
    } catch (const Error& e) {
      if (config.require_counters) {
        throw environment_error(
            fmt::format("--require-counters: hardware counters cannot be read: {}", e.what()));
      }
      ctx.counters_null_reason = e.what();
      fmt::print(progress, "notice: hardware counters unavailable, timing only: {}\n", e.what());
    }
  }
  report.device.counters_available = ctx.profiler != nullptr;
  report.device.counters_reason = ctx.counters_null_reason;
  PeaksBlock peaks = prepare_sweep_roofs(report.device, roof, config.counters, progress);
  ctx.peaks = &peaks;

  const uint64_t base_seed = std::random_device{}();
  const size_t total = config.ops.size() * config.seq_lens.size();
  size_t index = 0;
  SweepProgress shown(progress, total);
  for (const auto& op : config.ops) {
    const OperatorSpec& spec = find_operator(op);
    for (const int64_t seq_len : config.seq_lens) {
      PointResult point;
      point.op = op;
      point.shape = config.base;
      point.shape.seq_len = seq_len;
      point.seed = base_seed + 0x9E3779B97F4A7C15ull * ++index;
      point.analytic = analytic_model(op, point.shape);
      if (mark_if_interrupted(point)) {
        report.points.push_back(std::move(point));
        continue;
      }
      shown.start(index, fmt::format("{} L={}", op, seq_len));
      try {
        measure_point(point, spec, ctx);
      } catch (const Error& e) {
        point.status = PointStatus::kFailed;
        point.reason = e.what();
        point.timing.reset();
        point.roofline.reset();
        if (!point.counters.null_reason) point.counters.null_reason = "point failed";
        point.roofline_null_reason = "point failed";
        cudaGetLastError();  // clear a non-sticky error so the next point can run
      }
      shown.done();
      if (point.status != PointStatus::kOk) {
        shown.note(fmt::format("[{}/{}] {} L={}: {}: {}", index, total, op, seq_len,
                               to_string(point.status), point.reason));
      }
      if (point.roofline) {
        if (const auto error = above_roof_error(*point.roofline)) {
          shown.note(fmt::format("[{}/{}] {} L={}: error: {}", index, total, op, seq_len, *error));
        }
      }
      report.points.push_back(std::move(point));
    }
  }
  shown.finish();
  finish_sweep_roofs(peaks, report.points, report.device);
  report.peaks = peaks;
  return report;
}

}  // namespace rooflinectl
