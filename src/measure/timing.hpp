// Timed pass: CUDA events around each launch, separate from the counter pass (a launch replayed
// for counters runs many times slower, cupti-on-h200.md).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>

#include "measure/l2_flush.hpp"
#include "measure/statistics.hpp"
#include "report/result.hpp"

namespace rooflinectl {

/// How to time a launch.
struct TimingOptions {
  int repetitions = 10;  ///< timed samples, >= 1
  int warmup_runs = 3;   ///< untimed launches first (module loading, clocks ramping up), >= 0
  bool flush_l2 = true;  ///< flush L2 before every sample (outside the timed events)
  /// NVTX range (measure/nvtx_range.hpp) around each timed sample's launch, e.g.
  /// "naive_attention L=512"; empty: none.
  std::string nvtx_range;
};

/// Times `launch` (which enqueues its kernels on the stream it is given) on `stream`:
/// `warmup_runs` untimed launches, then per repetition an optional `flusher.flush`, an event
/// record, the launch (inside the NVTX range `options.nvtx_range`) and another event record; one
/// synchronization at the end. Returns the samples in seconds in run order, their median (mean of
/// the two middle ones for an even count), min and max, and the SM clock measured right afterwards
/// (measure_sm_clock_hz). Event timing resolves ~0.5 µs (CUDA Runtime API, cudaEventElapsedTime).
/// Throws a bad-input Error for repetitions < 1 or warmup_runs < 0, an environment Error when a
/// CUDA call fails; exceptions from `launch` propagate.
TimingResult time_launches(const std::function<void(cudaStream_t)>& launch,
                           const TimingOptions& options, L2Flusher& flusher, cudaStream_t stream);

}  // namespace rooflinectl
