#include "peaks/bench/peak_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kMinDramBufferBytes = int64_t{1} << 30;
constexpr int64_t kDramBufferL2Multiple = 16;
constexpr int64_t kMinDramBufferL2Multiple = 4;
// Half of L2: of the buffers L2/16 … L2/2 and the read patterns of scripts/read_patterns.cu, one
// contiguous chunk per block of L2/2 read fastest on the H200 (8.41 TB/s, against 6.93 for the
// earlier grid-stride sweep of L2/4 with 4 loads in flight; docs/perf-notes.md).
constexpr int64_t kL2BufferDivisor = 2;
constexpr int kL2Passes = 256;
constexpr int kWgmmaBlocksPerSm = 2;
// Per-thread / per-warp work, sized for ~1 ms per launch on an H200 (132 SMs at ~1.9 GHz):
// FFMA 2048 threads/SM × 2^17 FMA / 128 lanes ≈ 2.1 M cycles; mma.sync 32 warps/SM × 32768 mma
// × 4096 FLOP at ~2700 FLOP/cycle ≈ 1.6 M cycles; wgmma 2 warpgroups/SM × 8192 wgmma × 524288
// FLOP at 4096 FLOP/cycle ≈ 2.1 M cycles. Not measured values: only launch lengths.
constexpr int kFmaIterations = 1 << 11;    // × kPeakFmaChains × kPeakFmaUnroll = 2^17 FMA
constexpr int kMmaIterations = 1 << 12;    // × kPeakMmaChains = 32768 mma per warp
constexpr int kWgmmaIterations = 1 << 11;  // × kPeakWgmmaPerTrip = 8192 wgmma per warpgroup

}  // namespace

PeakBenchmarkPlan plan_peak_benchmarks(int sm_count, int max_threads_per_sm, int64_t l2_bytes,
                                       int64_t free_bytes) {
  if (sm_count <= 0 || max_threads_per_sm < kPeakStreamThreads || l2_bytes <= 0 ||
      free_bytes <= 0) {
    throw bad_input(fmt::format(
        "invalid device facts for the peak benchmarks: {} SMs, {} threads/SM, L2 {} B, free {} B "
        "(need SMs > 0, threads/SM >= {}, L2 > 0, free > 0)",
        sm_count, max_threads_per_sm, l2_bytes, free_bytes, kPeakStreamThreads));
  }
  PeakBenchmarkPlan plan;
  plan.sm_count = sm_count;
  const int64_t wanted = std::max(kMinDramBufferBytes, kDramBufferL2Multiple * l2_bytes);
  const int64_t cap = free_bytes / 4 / kMiB * kMiB;
  plan.dram_buffer_bytes = std::min(wanted, cap);
  if (plan.dram_buffer_bytes < kMinDramBufferL2Multiple * l2_bytes) {
    throw environment_error(fmt::format(
        "not enough free device memory for the DRAM benchmarks: {} MiB free, need two buffers of "
        "at least {} MiB (4 x L2)",
        free_bytes / kMiB, kMinDramBufferL2Multiple * l2_bytes / kMiB));
  }
  plan.stream_blocks = sm_count * (max_threads_per_sm / kPeakStreamThreads);
  plan.l2_blocks = sm_count;
  const int64_t steps_per_block =
      std::max<int64_t>(1, l2_bytes / kL2BufferDivisor / sm_count / kPeakL2StepBytes);
  plan.l2_buffer_bytes = steps_per_block * kPeakL2StepBytes * sm_count;
  plan.l2_passes = kL2Passes;
  plan.fma_blocks = sm_count * (max_threads_per_sm / kPeakComputeThreads);
  plan.fma_iterations = kFmaIterations;
  plan.mma_blocks = sm_count * (max_threads_per_sm / kPeakComputeThreads);
  plan.mma_iterations = kMmaIterations;
  plan.wgmma_blocks = sm_count * kWgmmaBlocksPerSm;
  plan.wgmma_iterations = kWgmmaIterations;
  return plan;
}

}  // namespace rooflinectl
