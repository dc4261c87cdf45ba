#include "sweep/sweep_runner.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <stdexcept>
#include <utility>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/phase_times.hpp"
#include "core/sweep_axes.hpp"
#include "core/sweep_plan.hpp"
#include "core/utc_timestamp.hpp"
#include "core/version.hpp"
#include "core/wall_clock.hpp"
#include "cupti/counter_engine.hpp"
#include "cupti/metrics.hpp"
#include "device/device_info.hpp"
#include "device/nvml_clocks.hpp"
#include "device/nvml_fingerprint.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/stream.hpp"
#include "kernels/operator.hpp"
#include "measure/canary.hpp"
#include "measure/l2_flush.hpp"
#include "measure/memory_check.hpp"
#include "measure/timing.hpp"
#include "model/operator_model.hpp"
#include "model/reconcile.hpp"
#include "peaks/roof_from_counters.hpp"
#include "peaks/roof_selection.hpp"
#include "result/placement_inputs.hpp"
#include "result/tokens_per_second.hpp"
#include "roofline/above_roof_guard.hpp"
#include "sweep/interruption.hpp"
#include "sweep/sweep_progress.hpp"
#include "sweep/sweep_roofs.hpp"

namespace rooflinectl {
namespace {

/// The version key `config` asks `spec` to run: its --kernel request, else the default.
std::string requested_version(const SweepConfig& config, const OperatorSpec& spec) {
  const auto request = config.kernels.find(spec.name);
  return request == config.kernels.end() ? spec.default_version : request->second;
}

/// A point kept alive for a shared counter collection: its index in report.points, its run
/// (buffers filled, validated, timed), the device bytes it holds and the kernels its launch
/// enqueues (OperatorRun::kernel_names().size()).
struct HeldPoint {
  size_t point_index = 0;
  std::unique_ptr<OperatorRun> run;
  int64_t device_bytes = 0;
  size_t kernel_ranges = 0;
};

/// Everything a point measurement needs that lives for the whole sweep.
struct SweepContext {
  const SweepConfig& config;
  const DeviceRecord& device;
  L2Flusher& flusher;
  cudaStream_t stream;
  PhaseTimes& phases;  // where the sweep's wall time goes, printed at its end
  std::unique_ptr<CounterEngine> profiler{};  // null when counters are off or unavailable
  std::string counters_null_reason{};
  const PeaksBlock* peaks = nullptr;  // the roof sources; peaks->used is the one points get
  // Per-sample clocks (when unavailable, its reason is recorded instead).
  const NvmlClocks* clocks = nullptr;
  // The whole plan, in report order: report.points[i] is plan[i] (for the points' labels).
  const std::vector<PlannedPoint>* plan = nullptr;
  // Points measured and timed whose byte session waits for a shared collection, their runs kept.
  std::vector<HeldPoint> held{};
  // Device memory the held points may take together (open_counter_engine; see
  // kCollectionMemoryFraction), and one point at most a quarter of it.
  int64_t collection_budget_bytes = 0;
};

/// Share of the device memory free when the counter engine opens that points held for a shared
/// collection may take together, at most kCollectionMemoryCapBytes: small enough that the point
/// measured next still finds its memory free, and a held point at most a quarter of it (larger
/// ones are profiled alone, after the held points' collection, with the whole device free).
constexpr int64_t kCollectionMemoryFraction = 8;
constexpr int64_t kCollectionMemoryCapBytes = int64_t{8} << 30;

/// Device bytes the held points take together.
int64_t held_bytes(const SweepContext& ctx) {
  int64_t bytes = 0;
  for (const HeldPoint& h : ctx.held) bytes += h.device_bytes;
  return bytes;
}

/// Runs `step`, adding its wall time to phase `name` of `phases`; returns what `step` returns.
template <typename Step>
auto timed(PhaseTimes& phases, const std::string& name, Step&& step) {
  const auto start = std::chrono::steady_clock::now();
  struct AddOnExit {
    PhaseTimes& phases;
    const std::string& name;
    std::chrono::steady_clock::time_point start;
    ~AddOnExit() {
      phases.add(name,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  } add_on_exit{phases, name, start};
  return step();
}

void place_point(PointResult& point, const OperatorSpec& spec, const DeviceRecord& device,
                 const PeaksBlock& peaks) {
  if (!point.timing) {
    point.roofline_null_reason = "not timed";
    return;
  }
  std::string reason;
  const auto roof = select_point_roof(peaks.used, spec.pipe(point.shape), point.shape.dtype, peaks,
                                      point.counters, device.cc_major, device.cc_minor, reason,
                                      point.shape.gemm_dtype == GemmDtype::kFp8E4m3);
  if (!roof) {
    point.roofline_null_reason = reason;
    return;
  }
  const PlacementInputs inputs = placement_inputs(point);
  if (!inputs.flop || !inputs.dram_bytes) {
    point.roofline_null_reason = inputs.null_reason;
    return;
  }
  point.roofline =
      place_on_roofline(*roof, *inputs.flop, *inputs.dram_bytes, point.timing->median_s,
                        inputs.basis, inputs.l2, inputs.dram_bytes_in_window);
  point.roofline->bytes_basis = inputs.bytes_basis;
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

/// Counter-pass hooks for `run` on the sweep's stream: the flusher's flush before each session,
/// its second-half read sweep as the write-back range.
CounterPassHooks counter_hooks(OperatorRun& run, SweepContext& ctx) {
  CounterPassHooks hooks;
  hooks.flush_l2 = [&ctx] { ctx.flusher.flush(ctx.stream); };
  hooks.launch = [&run, &ctx] { run.launch(ctx.stream); };
  hooks.writeback_sweep = [&ctx] { ctx.flusher.read_sweep(ctx.stream); };
  hooks.cache_policy = "L2 flushed before each session's launch: " + ctx.flusher.policy();
  hooks.sweep_method = ctx.flusher.read_sweep_policy();
  return hooks;
}

void finish_point(PointResult& point, const OperatorSpec& spec, SweepContext& ctx) {
  place_point(point, spec, ctx.device, *ctx.peaks);
  point.reconciliation = reconcile(point, spec.pipe(point.shape), ctx.device);
}

/// The point at `position` of the plan (report.points[position]) in progress lines and NVTX
/// ranges: its planned label when it has one, else "gemm L=4096", with the values of the axes
/// that vary when the sweep has lists ("flash_attention fp16 B=8 L=4096").
std::string point_text(const SweepContext& ctx, size_t position, const PointResult& point) {
  if (const std::string& label = (*ctx.plan)[position].label; !label.empty()) return label;
  const std::string axes = swept_axes_label(ctx.config.axes, point.op, point.shape);
  return fmt::format("{}{} L={}", point.op, axes.empty() ? "" : " " + axes, point.shape.seq_len);
}

/// Allocates, validates and times one point and returns its run, kept for the counter sessions,
/// when counters are on; without counters the point is placed at once (on the analytic model).
std::unique_ptr<OperatorRun> measure_point(PointResult& point, const OperatorSpec& spec,
                                           SweepContext& ctx, const std::string& text) {
  point.peak_device_memory_null_reason = "not measured: the point did not reach its timed pass";
  const MemoryCheck memory = check_device_memory(spec.device_bytes(point.shape));
  point.device_bytes_needed = memory.needed_bytes;
  if (!memory.fits) {
    point.status = PointStatus::kSkipped;
    point.reason = "does not fit in device memory: " + describe_memory_shortfall(memory);
    point.counters.null_reason = "point skipped";
    point.roofline_null_reason = "point skipped";
    return nullptr;
  }
  const size_t free_before_bytes = free_device_memory_bytes();
  std::unique_ptr<OperatorRun> run = timed(ctx.phases, "allocate and fill", [&] {
    std::unique_ptr<OperatorRun> created =
        spec.create(point.shape, requested_version(ctx.config, spec));
    created->fill_random(point.seed);
    return created;
  });
  point.version = run->version();
  point.validation = timed(ctx.phases, "validate", [&] { return run->validate(); });
  if (!point.validation->passed) {
    point.status = PointStatus::kFailed;
    point.reason = "validation failed: " + point.validation->detail;
    point.counters.null_reason = "not measured: validation failed";
    point.roofline_null_reason = "not measured: validation failed";
    return nullptr;
  }

  TimingOptions timing_options;
  timing_options.repetitions = ctx.config.repetitions;
  timing_options.warmup_runs = ctx.config.warmup_runs;
  timing_options.flush_l2 = !ctx.config.warm_l2;
  timing_options.nvtx_range = text;
  timing_options.max_noise = ctx.config.max_noise;
  timing_options.min_samples = ctx.config.min_samples;
  timing_options.min_time_s = ctx.config.min_time_s;
  timing_options.max_time_s = ctx.config.max_time_s;
  // Clocks on record: one NVML reading right after each timed sample.
  SampleClockRecorder sample_clocks(*ctx.clocks);
  timing_options.after_each_sample = sample_clocks.callback();
  point.timing = timed(ctx.phases, "time", [&] {
    return time_launches([&](cudaStream_t s) { run->launch(s); }, timing_options, ctx.flusher,
                         ctx.stream);
  });
  sample_clocks.store(*point.timing);
  point.tokens_per_s = tokens_per_second(point.op, point.shape, point.timing->median_s);
  record_peak_memory(point, free_before_bytes);

  if (ctx.profiler) {
    // The counter sessions and the placement come later (hold_for_counters).
    point.counters.null_reason = "not measured: the sweep stopped before the counter sessions";
    point.roofline_null_reason = "not placed: the sweep stopped before the counter sessions";
    return run;
  }
  point.counters.null_reason = ctx.counters_null_reason;
  finish_point(point, spec, ctx);
  return nullptr;
}

/// A point above its roof is an error (README), said on its own progress line.
void report_above_roof(const PointResult& point, const std::string& label, SweepProgress& shown) {
  if (!point.roofline) return;
  if (const auto error = above_roof_error(*point.roofline)) {
    shown.note(fmt::format("{}: error: {}", label, *error));
  }
}

/// Gives every point of `indices` counters null for `reason` and places it without them.
void place_without_counters(Report& report, SweepContext& ctx, const std::vector<size_t>& indices,
                            const std::string& reason) {
  for (const size_t index : indices) {
    PointResult& point = report.points[index];
    point.counters = CounterResult{};
    point.counters.null_reason = reason;
    finish_point(point, find_operator(point.op), ctx);
  }
}

/// Merges the counters of the point at `index` (all its sessions done) and places it.
void combine_and_place(Report& report, SweepContext& ctx, size_t index,
                       const CounterPassRanges& ranges, OperatorRun& run) {
  PointResult& point = report.points[index];
  point.counters = ctx.profiler->combine(ranges, counter_hooks(run, ctx), run.kernel_names());
  point.roofline_null_reason.clear();
  finish_point(point, find_operator(point.op), ctx);
}

/// Runs the byte session of every held point, in one collection when they fit one
/// (CounterEngine::bytes_passes), then frees their runs. The ranges go to `pending` while the
/// engine has follow-up sessions; otherwise each point is merged and placed here. An interrupted
/// sweep or a failed session leaves the points validated and timed, placed without counters.
void run_held_byte_sessions(Report& report, SweepContext& ctx,
                            std::vector<std::pair<size_t, CounterPassRanges>>& pending,
                            SweepProgress& shown) {
  if (ctx.held.empty()) return;
  std::vector<HeldPoint> held = std::move(ctx.held);
  ctx.held.clear();
  std::vector<size_t> indices;
  std::vector<CollectionMember> members;
  for (const HeldPoint& h : held) {
    indices.push_back(h.point_index);
    members.push_back({counter_hooks(*h.run, ctx), h.kernel_ranges});
  }
  if (const int signal_number = pending_interrupt()) {
    place_without_counters(report, ctx, indices,
                           fmt::format("not measured: the sweep was interrupted by {} before the "
                                       "byte session",
                                       signal_name(signal_number)));
    return;
  }
  std::vector<CollectedPass> passes;
  try {
    passes = timed(ctx.phases, "byte pass", [&] { return ctx.profiler->bytes_passes(members); });
  } catch (const Error& e) {
    place_without_counters(report, ctx, indices, fmt::format("bytes session failed: {}", e.what()));
    shown.note(fmt::format("counters not measured for {} point(s): {}", indices.size(), e.what()));
    cudaGetLastError();
    return;
  }
  for (size_t i = 0; i < held.size(); ++i) {
    CounterPassRanges ranges;
    ranges.bytes = std::move(passes[i].ranges);
    ranges.byte_attempts = passes[i].attempts;
    ranges.session_wall_times_s.push_back(passes[i].wall_time_s);
    ranges.session_points.push_back(passes[i].points_in_collection);
    if (ctx.profiler->follow_up_count() > 0) {
      pending.emplace_back(indices[i], std::move(ranges));
      continue;
    }
    // This chip fits every metric into the byte session.
    combine_and_place(report, ctx, indices[i], ranges, *held[i].run);
    const PointResult& point = report.points[indices[i]];
    report_above_roof(point, point_text(ctx, indices[i], point), shown);
  }
}

/// Keeps the point at `index` (just measured; `run` its kernels) for a shared byte-session
/// collection, running the held points' collection first when this one would not fit it (range
/// count), and right after when the point is too large to stay held.
void hold_for_counters(Report& report, SweepContext& ctx, size_t index,
                       std::unique_ptr<OperatorRun> run, int64_t device_bytes,
                       std::vector<std::pair<size_t, CounterPassRanges>>& pending,
                       SweepProgress& shown) {
  const size_t kernels = run->kernel_names().size();
  std::vector<size_t> kernel_ranges;
  for (const HeldPoint& h : ctx.held) kernel_ranges.push_back(h.kernel_ranges);
  kernel_ranges.push_back(kernels);
  if (!ctx.profiler->fit_one_collection(kernel_ranges, true)) {
    run_held_byte_sessions(report, ctx, pending, shown);
  }
  ctx.held.push_back({index, std::move(run), device_bytes, kernels});
  if (device_bytes > ctx.collection_budget_bytes / 4) {
    run_held_byte_sessions(report, ctx, pending, shown);
  }
}

/// Runs every follow-up session of the engine over the points of `pending` (byte passes done),
/// one session at a time so that CUPTI switches metric sets once per session, not per point; the
/// points of a session share collections as the byte sessions do (each operator built again
/// with the same seed: same data, same kernels), within the same memory budget. After the last
/// session each point is merged and placed. A point whose session fails, or every pending point
/// once the sweep is interrupted, is kept (validated and timed) and placed without counters.
void run_follow_up_sessions(std::vector<std::pair<size_t, CounterPassRanges>>& pending,
                            Report& report, SweepContext& ctx, std::ostream& progress) {
  std::vector<bool> failed(pending.size(), false);
  for (size_t index = 0; index < ctx.profiler->follow_up_count(); ++index) {
    const std::string& role = ctx.profiler->sessions()[index + 1].role;
    const bool last_session = index + 1 == ctx.profiler->follow_up_count();
    SweepProgress shown(progress, pending.size());
    size_t i = 0;
    while (i < pending.size()) {
      if (failed[i]) {
        ++i;
        continue;
      }
      if (const int signal_number = pending_interrupt()) {
        for (; i < pending.size(); ++i) {
          if (failed[i]) continue;
          place_without_counters(
              report, ctx, {pending[i].first},
              fmt::format("not measured: the sweep was interrupted by {} before the {} session",
                          signal_name(signal_number), role));
          failed[i] = true;
        }
        break;
      }
      // One collection: consecutive points within the memory budget and the range limit.
      std::vector<size_t> group;
      std::vector<std::unique_ptr<OperatorRun>> runs;
      std::vector<size_t> kernel_ranges;
      int64_t group_bytes = 0;
      for (; i < pending.size(); ++i) {
        if (failed[i]) continue;
        const PointResult& point = report.points[pending[i].first];
        const OperatorSpec& spec = find_operator(point.op);
        const int64_t bytes = spec.device_bytes(point.shape);
        const bool alone = bytes > ctx.collection_budget_bytes / 4;
        if (!group.empty() && (alone || group_bytes + bytes > ctx.collection_budget_bytes)) break;
        std::unique_ptr<OperatorRun> run;
        try {
          run = timed(ctx.phases, "allocate and fill", [&] {
            std::unique_ptr<OperatorRun> created =
                spec.create(point.shape, requested_version(ctx.config, spec));
            created->fill_random(point.seed);
            return created;
          });
        } catch (const Error& e) {
          // This point alone: it stays validated and timed, placed without counters.
          place_without_counters(report, ctx, {pending[i].first},
                                 fmt::format("{} session failed: {}", role, e.what()));
          shown.note(fmt::format("counters ({} session) not measured for {}: {}", role,
                                 point_text(ctx, pending[i].first, point), e.what()));
          failed[i] = true;
          cudaGetLastError();
          continue;
        }
        kernel_ranges.push_back(run->kernel_names().size());
        if (!group.empty() && !ctx.profiler->fit_one_collection(kernel_ranges, false)) break;
        group.push_back(i);
        runs.push_back(std::move(run));
        group_bytes += bytes;
        if (alone) {
          ++i;
          break;
        }
      }
      if (group.empty()) continue;  // every point left failed to build again
      std::vector<CollectionMember> members;
      for (size_t g = 0; g < group.size(); ++g) {
        members.push_back({counter_hooks(*runs[g], ctx), kernel_ranges[g]});
      }
      const std::string first = point_text(ctx, pending[group.front()].first,
                                           report.points[pending[group.front()].first]);
      shown.start(group.front() + 1, group.size() == 1
                                         ? fmt::format("counters ({} session) {}", role, first)
                                         : fmt::format("counters ({} session) {} and {} more", role,
                                                       first, group.size() - 1));
      std::vector<CollectedPass> passes;
      try {
        passes = timed(ctx.phases, role + " pass",
                       [&] { return ctx.profiler->follow_up_passes(index, members); });
      } catch (const Error& e) {
        for (const size_t g : group) {
          place_without_counters(report, ctx, {pending[g].first},
                                 fmt::format("{} session failed: {}", role, e.what()));
          failed[g] = true;
        }
        shown.note(fmt::format("counters ({} session) not measured for {} point(s) from {}: {}",
                               role, group.size(), first, e.what()));
        cudaGetLastError();
        shown.done();
        continue;
      }
      for (size_t g = 0; g < group.size(); ++g) {
        auto& [point_index, ranges] = pending[group[g]];
        ranges.follow_up.push_back(std::move(passes[g].ranges));
        ranges.session_wall_times_s.push_back(passes[g].wall_time_s);
        ranges.session_points.push_back(passes[g].points_in_collection);
        if (!last_session) continue;
        combine_and_place(report, ctx, point_index, ranges, *runs[g]);
        const PointResult& point = report.points[point_index];
        report_above_roof(point,
                          fmt::format("[{} {}/{}] {}", role, group[g] + 1, pending.size(),
                                      point_text(ctx, point_index, point)),
                          shown);
      }
      shown.done();
    }
    shown.finish();
  }
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

/// The MMA input types of `points` (one dtype group, `dtype`) besides `dtype`'s own, as each
/// operator declares them at its shape (OperatorSpec::mma_inputs): fp8 with an FP8 GEMM point,
/// fp16 with a bf16 decode attention point over an FP8 KV cache. Sweeps without such points
/// keep their metric sets.
MmaInputs extra_mma_inputs(const std::vector<PlannedPoint>& points, Dtype dtype) {
  MmaInputs all;
  for (const PlannedPoint& p : points) all |= find_operator(p.op).mma_inputs(p.shape);
  return mma_inputs_besides(all, dtype);
}

/// Opens the counter engine of the points of `dtype` (its tensor pipe's metrics and those of
/// `extra`) into ctx.profiler, closing the previous one first, and warms it up, or records in
/// ctx.counters_null_reason why there is none: --no-counters, or CUPTI refused (the sweep then
/// times only, unless --require-counters makes that an environment Error). Its wall time is the
/// phase "counter set-up".
void open_counter_engine(SweepContext& ctx, Dtype dtype, MmaInputs extra, std::ostream& progress) {
  const SweepConfig& config = ctx.config;
  const auto start = std::chrono::steady_clock::now();
  ctx.profiler.reset();  // one CUPTI session at a time
  if (!config.counters) {
    ctx.counters_null_reason = "counters disabled (--no-counters)";
  } else if (!ctx.counters_null_reason.empty()) {
    // An earlier dtype's set-up was refused: CUPTI's refusals are the environment's, not the
    // metric set's, so the sweep stays timing-only rather than printing the notice again.
  } else {
    try {
      ctx.profiler =
          std::make_unique<CounterEngine>(config.device, dtype, config.sm_throughput, extra);
      ctx.profiler->warm_up([&] { ctx.flusher.flush(ctx.stream); },
                            [&] { ctx.flusher.read_sweep(ctx.stream); });
      ctx.collection_budget_bytes =
          std::min(static_cast<int64_t>(free_device_memory_bytes()) / kCollectionMemoryFraction,
                   kCollectionMemoryCapBytes);
    } catch (const Error& e) {
      if (config.require_counters) {
        throw environment_error(
            fmt::format("--require-counters: hardware counters cannot be read: {}", e.what()));
      }
      ctx.counters_null_reason = e.what();
      fmt::print(progress, "notice: hardware counters unavailable, timing only: {}\n", e.what());
    }
  }
  ctx.phases.add("counter set-up", seconds_since(start));
}

/// Marks `point` failed with the message of `e`, dropping what it had measured.
void mark_failed(PointResult& point, const Error& e) {
  point.status = PointStatus::kFailed;
  point.reason = e.what();
  point.timing.reset();
  point.roofline.reset();
  point.counters = CounterResult{};
  point.counters.null_reason = "point failed";
  point.roofline_null_reason = "point failed";
}

/// Measures `plan` (points of one dtype, in plan order) into report.points, one progress line
/// each, numbered after `index` (the points before them) of `total`; once interrupted, the
/// remaining points are recorded as such. With counters, measured points are held for shared
/// byte-session collections (hold_for_counters), and a point that needs more memory than the
/// held ones leave runs after their collection. Returns the byte passes whose follow-up sessions
/// are still to run, each with its point's index: those sessions follow the loop, so that CUPTI
/// switches metric sets once per session, not per point.
std::vector<std::pair<size_t, CounterPassRanges>> measure_points(
    Report& report, SweepContext& ctx, const std::vector<PlannedPoint>& plan, size_t index,
    size_t total, uint64_t base_seed, std::ostream& progress) {
  std::vector<std::pair<size_t, CounterPassRanges>> pending;
  SweepProgress shown(progress, total);
  for (const PlannedPoint& planned : plan) {
    const std::string& op = planned.op;
    const OperatorSpec& spec = find_operator(op);
    PointResult point;
    point.op = op;
    point.shape = planned.shape;
    point.seed = base_seed + 0x9E3779B97F4A7C15ull * planned.index;
    point.analytic = analytic_model(op, point.shape);
    ++index;
    if (mark_if_interrupted(point)) {
      report.points.push_back(std::move(point));
      continue;
    }
    const std::string what = point_text(ctx, report.points.size(), point);
    const std::string label = fmt::format("[{}/{}] {}", index, total, what);
    const int64_t device_bytes = spec.device_bytes(point.shape);
    if (held_bytes(ctx) + device_bytes > ctx.collection_budget_bytes) {
      run_held_byte_sessions(report, ctx, pending, shown);
    }
    shown.start(index, what);
    std::unique_ptr<OperatorRun> run;
    try {
      run = measure_point(point, spec, ctx, what);
    } catch (const Error& e) {
      mark_failed(point, e);
      cudaGetLastError();  // clear a non-sticky error so the next point can run
    }
    shown.done();
    if (point.status != PointStatus::kOk) {
      shown.note(fmt::format("{}: {}: {}", label, to_string(point.status), point.reason));
    }
    report_above_roof(point, label, shown);
    report.points.push_back(std::move(point));
    if (run) {
      hold_for_counters(report, ctx, report.points.size() - 1, std::move(run), device_bytes,
                        pending, shown);
    }
  }
  run_held_byte_sessions(report, ctx, pending, shown);
  shown.finish();
  return pending;
}

}  // namespace

void check_sweep_plan(const SweepConfig& config) {
  validate_sweep_config(config);
  check_kernel_requests(config.kernels);
  check_planned_points(
      config, plan_all_points(config),
      [](const std::string& op, const Shape& shape) { find_operator(op).check_shape(shape); });
}

namespace {

/// The measurement of `plan` (checked by the caller) on config.device: what run_sweep and
/// run_planned_points share.
Report run_checked_points(const SweepConfig& config, const std::vector<PlannedPoint>& plan,
                          std::ostream& progress, const std::optional<RoofSource>& roof,
                          std::chrono::steady_clock::time_point sweep_start) {
  PhaseTimes phases;
  if (device_count() == 0) {
    throw environment_error(no_device_message());
  }
  Report report;
  report.tool_version = kToolVersion;
  report.git_revision = kGitRevision;
  report.timestamp_utc = utc_timestamp_now();
  report.config = config;
  // The version asked of every operator that runs, defaults included, is on record.
  report.config.kernels.clear();
  for (const auto& op : config.ops) {
    report.config.kernels[op] = requested_version(config, find_operator(op));
  }
  report.device = query_device(config.device);
  if (config.shard) {
    fmt::print(progress, "shard {}: {} of the sweep's {} points ({})\n", config.shard->text(),
               plan.size(), plan_all_points(config).size(), kShardAssignment);
  }
  timed(phases, "context", [&] {
    RFL_CUDA_CHECK(cudaSetDevice(config.device));
    RFL_CUDA_CHECK(cudaFree(nullptr));  // create the context before CUPTI attaches to it
  });

  // NVML for this GPU, matched by PCI bus id (CUDA and NVML orders can differ). Unavailable (no
  // driver NVML): the sweep runs and records why there are no clocks.
  const NvmlClocks clocks(report.device.pci_bus_id);
  read_nvml_fingerprint(clocks, report.device);
  if (!clocks.available()) {
    fmt::print(progress, "notice: per-sample clocks not recorded: {}\n",
               clocks.unavailable_reason());
  }
  // --lock-clocks: locked before the canary and the first point; reset when clock_lock is
  // destroyed, on every way out of this function (an interrupted sweep returns normally, an
  // error unwinds), or by restore() below. Refused (no root, no NVML): exit 3 before any work.
  const std::unique_ptr<GpuClockLock> clock_lock = lock_sweep_clocks(config.lock_clocks, clocks);
  if (clock_lock) fmt::print(progress, "clocks: {}\n", clock_lock->description());

  Stream stream;
  L2Flusher flusher(report.device.l2_bytes);
  report.canary = timed(phases, "canary", [&] {
    return take_canary(report.device.l2_bytes, stream.get(), progress);
  });
  SweepContext ctx{config, report.device, flusher, stream.get(), phases};
  ctx.clocks = &clocks;
  ctx.plan = &plan;
  // The plan's points by dtype (its outermost axis, so each dtype's points are contiguous): each
  // dtype's points are counted by an engine of that dtype's tensor-pipe metrics, opened once.
  std::vector<std::vector<PlannedPoint>> dtype_groups;
  for (const PlannedPoint& point : plan) {
    if (dtype_groups.empty() || dtype_groups.back().front().shape.dtype != point.shape.dtype) {
      dtype_groups.emplace_back();
    }
    dtype_groups.back().push_back(point);
  }
  const Dtype first_dtype =
      dtype_groups.empty() ? config.base.dtype : dtype_groups.front().front().shape.dtype;
  open_counter_engine(
      ctx, first_dtype,
      dtype_groups.empty() ? MmaInputs{} : extra_mma_inputs(dtype_groups.front(), first_dtype),
      progress);
  report.device.counters_available = ctx.profiler != nullptr;
  report.device.counters_reason = ctx.counters_null_reason;
  PeaksBlock peaks = timed(phases, "roofs", [&] {
    return prepare_sweep_roofs(report.device, roof, config.counters, progress);
  });
  ctx.peaks = &peaks;

  const uint64_t base_seed = std::random_device{}();
  size_t done = 0;
  for (size_t group = 0; group < dtype_groups.size(); ++group) {
    if (group > 0 && ctx.profiler) {
      const Dtype dtype = dtype_groups[group].front().shape.dtype;
      open_counter_engine(ctx, dtype, extra_mma_inputs(dtype_groups[group], dtype), progress);
    }
    std::vector<std::pair<size_t, CounterPassRanges>> pending =
        measure_points(report, ctx, dtype_groups[group], done, plan.size(), base_seed, progress);
    done += dtype_groups[group].size();
    if (ctx.profiler) run_follow_up_sessions(pending, report, ctx, progress);
  }
  ctx.profiler.reset();
  timed(phases, "roofs", [&] { finish_sweep_roofs(peaks, report.points, report.device); });
  report.peaks = peaks;
  if (clock_lock) report.device.clock_lock = clock_lock->restore();
  fmt::print(
      progress, "{}\n",
      phase_times_line(
          phases,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep_start).count()));
  return report;
}

}  // namespace

Report run_sweep(const SweepConfig& config, std::ostream& progress,
                 const std::optional<RoofSource>& roof) {
  const auto sweep_start = std::chrono::steady_clock::now();
  check_sweep_plan(config);
  return run_checked_points(config, plan_points(config), progress, roof, sweep_start);
}

Report run_planned_points(const SweepConfig& config, const std::vector<PlannedPoint>& plan,
                          std::ostream& progress, const std::optional<RoofSource>& roof) {
  const auto sweep_start = std::chrono::steady_clock::now();
  check_kernel_requests(config.kernels);
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedPoint& point = plan[i];
    if (point.index != i + 1) {
      throw std::logic_error(fmt::format("planned point '{}' has index {} at position {}",
                                         point.label, point.index, i + 1));
    }
    if (std::find(config.ops.begin(), config.ops.end(), point.op) == config.ops.end()) {
      throw std::logic_error(
          fmt::format("planned point '{}' runs {}, which config.ops lacks", point.label, point.op));
    }
    try {
      find_operator(point.op).check_shape(point.shape);
    } catch (const Error& e) {
      if (e.exit_code() != ExitCode::kBadInput) throw;
      throw bad_input(fmt::format("{}: {}", point.label, e.what()));
    }
  }
  return run_checked_points(config, plan, progress, roof, sweep_start);
}

}  // namespace rooflinectl
