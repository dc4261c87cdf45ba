// Sizes of the `rooflinectl peaks` microbenchmarks, derived from the device so that each one fills
// every SM and runs long enough (~0.3–1 ms per launch on an H200) for CUDA-event timing to be
// accurate. Pure host code, unit-tested on the CPU.
#pragma once

#include <cstdint>

namespace rooflinectl {

/// Block sizes and per-trip work the kernels (peak_benchmarks.cu) and the plan share.
inline constexpr int kPeakStreamThreads = 512;   ///< DRAM and L2 kernels
inline constexpr int kPeakComputeThreads = 256;  ///< FFMA and mma.sync kernels
inline constexpr int kPeakWgmmaThreads = 128;    ///< one warpgroup
inline constexpr int kPeakFmaChains = 8;         ///< independent FFMA accumulators per thread
inline constexpr int kPeakFmaUnroll = 8;         ///< FFMAs per chain per loop trip
inline constexpr int kPeakMmaChains = 8;     ///< independent mma accumulators per warp (per trip)
inline constexpr int kPeakWgmmaPerTrip = 4;  ///< wgmma per commit group (one loop trip)

inline constexpr int kPeakL2Threads = 512;      ///< threads per block of the L2 read benchmark
inline constexpr int kPeakL2LoadsInFlight = 8;  ///< 16-byte loads in flight per thread (L2)
/// Bytes one L2 block reads per loop trip: every thread's loads in flight.
inline constexpr int64_t kPeakL2StepBytes = int64_t{16} * kPeakL2Threads * kPeakL2LoadsInFlight;

/// Launch sizes of every peak microbenchmark.
struct PeakBenchmarkPlan {
  int sm_count = 0;
  int repetitions = 20;  ///< timed samples per benchmark (median reported)
  int warmup_runs = 3;
  // DRAM: copy, read-only, write-only over buffers far larger than L2.
  int64_t dram_buffer_bytes = 0;  ///< each of the two buffers, multiple of 16 B
  int stream_blocks = 0;          ///< sm_count × resident 512-thread blocks per SM
  // L2: each of l2_blocks blocks (one per SM, kPeakL2Threads threads) reads its own contiguous
  // chunk of the buffer (about half of L2) l2_passes times, kPeakL2LoadsInFlight 16-byte loads
  // in flight per thread.
  int64_t l2_buffer_bytes = 0;  ///< l2_blocks × a whole number of kPeakL2StepBytes per block
  int l2_blocks = 0;
  int l2_passes = 0;
  // fp32 FFMA: every thread runs fma chains; 256-thread blocks fill each SM.
  int fma_blocks = 0;
  int fma_iterations = 0;  ///< loop trips; FMAs per thread = iterations × per-trip count
  // mma.sync m16n8k16: 256-thread blocks fill each SM.
  int mma_blocks = 0;
  int mma_iterations = 0;  ///< loop trips per warp
  // wgmma m64n256k16 (sm_90a): one 128-thread warpgroup per block, two blocks per SM.
  int wgmma_blocks = 0;
  int wgmma_iterations = 0;  ///< loop trips per warpgroup
};

/// The plan for a device with `sm_count` SMs, `max_threads_per_sm` resident threads per SM,
/// `l2_bytes` of L2 and `free_bytes` of free device memory:
/// - DRAM buffers: max(1 GiB, 16 × L2) each, so that L2 holds < 1/16 of the traffic, capped at
///   free/4 (two buffers plus the L2 flusher's 8 × L2 and headroom);
/// - L2 buffer: about L2/2, a whole number of kPeakL2StepBytes per block (of L2/16 … L2/2, one
///   contiguous chunk per block of L2/2 read fastest on the H200; docs/perf-notes.md, "L2 read
///   ceiling"), 256 passes per launch;
/// - compute: a grid of sm_count × (max_threads_per_sm / block size) blocks, iteration counts
///   fixed per thread so a launch takes about the same time on any SM count.
/// Throws a bad-input Error for non-positive arguments, an environment Error when free memory
/// cannot hold DRAM buffers of at least 4 × L2 each (L2 would then hide part of the traffic).
PeakBenchmarkPlan plan_peak_benchmarks(int sm_count, int max_threads_per_sm, int64_t l2_bytes,
                                       int64_t free_bytes);

}  // namespace rooflinectl
