#include "measure/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/statistics.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/event.hpp"
#include "measure/clock_probe.hpp"
#include "measure/nvtx_range.hpp"

namespace rooflinectl {
namespace {

constexpr double kSecondsPerMs = 1e-3;

void check_options(const TimingOptions& options) {
  if (options.repetitions < 1) {
    throw bad_input(fmt::format("invalid --repetitions {}: must be >= 1", options.repetitions));
  }
  if (options.warmup_runs < 0) {
    throw bad_input(fmt::format("invalid warm-up count {}: must be >= 0", options.warmup_runs));
  }
  if (!options.max_noise) return;
  if (!(*options.max_noise > 0 && *options.max_noise < 1)) {
    throw bad_input(
        fmt::format("invalid --max-noise {}: allowed above 0% and below 100%", *options.max_noise));
  }
  if (options.min_samples < static_cast<int>(kMinSamplesForNoise)) {
    throw bad_input(
        fmt::format("invalid --min-samples {}: allowed {} or more (the fewest for a 95% "
                    "interval of the median)",
                    options.min_samples, kMinSamplesForNoise));
  }
  if (!(options.min_time_s >= 0)) {
    throw bad_input(fmt::format("invalid --min-time {}: must be >= 0 s", options.min_time_s));
  }
  if (!(options.max_time_s > 0)) {
    throw bad_input(fmt::format("invalid --max-time {}: must be > 0 s", options.max_time_s));
  }
}

}  // namespace

TimingResult time_launches(const std::function<void(cudaStream_t)>& launch,
                           const TimingOptions& options, L2Flusher& flusher, cudaStream_t stream) {
  check_options(options);
  for (int i = 0; i < options.warmup_runs; ++i) launch(stream);

  const bool adaptive = options.max_noise.has_value();
  const bool wait_each = adaptive || static_cast<bool>(options.after_each_sample);
  const auto start_wall = std::chrono::steady_clock::now();
  std::deque<Event> starts;  // one more per sample while adaptive sampling runs
  std::deque<Event> stops;
  std::vector<double> samples_s;
  std::string stop_reason;
  const auto elapsed_s = [](const Event& start, const Event& stop) {
    float ms = 0;
    RFL_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return static_cast<double>(ms) * kSecondsPerMs;
  };
  for (size_t i = 0; adaptive || i < static_cast<size_t>(options.repetitions); ++i) {
    starts.emplace_back();
    stops.emplace_back();
    if (options.flush_l2) flusher.flush(stream);
    RFL_CUDA_CHECK(cudaEventRecord(starts.back().get(), stream));
    {
      const NvtxRange range(options.nvtx_range);
      launch(stream);
    }
    RFL_CUDA_CHECK(cudaEventRecord(stops.back().get(), stream));
    if (!wait_each) continue;
    RFL_CUDA_CHECK(cudaEventSynchronize(stops.back().get()));
    samples_s.push_back(elapsed_s(starts.back(), stops.back()));
    if (options.after_each_sample) options.after_each_sample();
    if (!adaptive) continue;
    stop_reason = adaptive_sampling_stop(
        samples_s,
        {*options.max_noise, options.min_samples, options.min_time_s, options.max_time_s},
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_wall).count());
    if (!stop_reason.empty()) break;
  }
  if (!wait_each) {
    // One sync for all samples keeps the host out of the way between launches.
    RFL_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (size_t i = 0; i < starts.size(); ++i) samples_s.push_back(elapsed_s(starts[i], stops[i]));
  }

  TimingResult result;
  result.samples_s = std::move(samples_s);
  result.median_s = median(result.samples_s);
  const auto [min_it, max_it] =
      std::minmax_element(result.samples_s.begin(), result.samples_s.end());
  result.min_s = *min_it;
  result.max_s = *max_it;
  result.warmup_runs = options.warmup_runs;
  result.noise = median_noise(result.samples_s);
  result.sampling = adaptive ? fmt::format("adaptive (min {} samples, min {:g} s, max {:g} s): {}",
                                           options.min_samples, options.min_time_s,
                                           options.max_time_s, stop_reason)
                             : fmt::format("fixed: {} samples", result.samples_s.size());
  result.l2_flushed = options.flush_l2;
  result.cache_policy =
      options.flush_l2
          ? "L2 flushed before each timed sample (warm-up launches unflushed): " + flusher.policy()
          : "L2 left warm between timed samples (--warm-l2): an input that fits in L2 is read "
            "from L2, not DRAM";
  result.sm_clock_hz = measure_sm_clock_hz(stream);
  return result;
}

}  // namespace rooflinectl
