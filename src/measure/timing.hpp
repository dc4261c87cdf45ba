// Timed pass: CUDA events around each launch, separate from the counter pass (a launch replayed
// for counters runs many times slower, cupti-on-h200.md).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <optional>
#include <string>

#include "core/statistics.hpp"
#include "measure/l2_flush.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// How to time a launch.
struct TimingOptions {
  int repetitions = 10;  ///< timed samples, >= 1 (fixed sampling: max_noise unset)
  int warmup_runs = 3;   ///< untimed launches first (module loading, clocks ramping up), >= 0
  bool flush_l2 = true;  ///< flush L2 before every sample (outside the timed events)
  /// NVTX range (measure/nvtx_range.hpp) around each timed sample's launch, e.g.
  /// "naive_attention L=512"; empty: none.
  std::string nvtx_range;
  /// Adaptive sampling, as nvbench's --max-noise: when set, samples are taken until the median's
  /// noise (median_noise in core/statistics.hpp: the 95% interval's half-width over the
  /// median) is at most this fraction, with at least `min_samples` samples and `min_time_s` of
  /// summed sample time, or until `max_time_s` of wall time has passed and at least `min_samples`
  /// were taken (a floor even past max_time: compare's power check counts on it); `repetitions`
  /// is unused.
  std::optional<double> max_noise;
  int min_samples = 10;     ///< adaptive: fewest samples, >= kMinSamplesForNoise
  double min_time_s = 0.0;  ///< adaptive: least summed sample time, s
  double max_time_s = 1.0;  ///< adaptive: most wall time for the samples of one point, s
  /// Called on the host right after each timed sample has completed (its stop event
  /// synchronized), e.g. to read the clocks; empty: none. With a callback or adaptive sampling
  /// the host waits for every sample; otherwise all samples are enqueued before one wait.
  std::function<void()> after_each_sample;
};

/// Times `launch` (which enqueues its kernels on the stream it is given) on `stream`:
/// `warmup_runs` untimed launches, then per sample an optional `flusher.flush`, an event record,
/// the launch (inside the NVTX range `options.nvtx_range`) and another event record: `repetitions`
/// samples, or with `max_noise` as many as adaptive sampling takes (TimingOptions). Returns the
/// samples in seconds in run order, their median (mean of the two middle ones for an even count),
/// min and max, the median's noise (median_noise; null below 6 samples), how sampling ended, and
/// the SM clock measured right afterwards (measure_sm_clock_hz). Event timing resolves ~0.5 µs
/// (CUDA Runtime API, cudaEventElapsedTime). Throws a bad-input Error for repetitions < 1,
/// warmup_runs < 0, a max_noise outside (0, 1), min_samples < 6, min_time_s < 0 or max_time_s <= 0,
/// an environment Error when a CUDA call fails; exceptions from `launch` propagate.
TimingResult time_launches(const std::function<void(cudaStream_t)>& launch,
                           const TimingOptions& options, L2Flusher& flusher, cudaStream_t stream);

}  // namespace rooflinectl
