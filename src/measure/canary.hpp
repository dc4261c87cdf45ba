// Copy-bandwidth canary: a short measurement taken at the start of every sweep that fingerprints
// the machine's memory system. Two reports whose canaries differ by more than the compare time
// threshold were taken on a machine that changed (clocks, a neighbour on the GPU, another GPU),
// so their time differences say little about the code.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "result/report.hpp"

namespace rooflinectl {

/// Copy size as a multiple of the L2 size: at 4× almost every byte of the copy streams from and
/// to DRAM, so the canary measures HBM, not L2.
inline constexpr int64_t kCanaryL2Multiple = 4;
/// Timed copies after one untimed warm-up copy; the median of 5 ignores one or two outliers.
inline constexpr int kCanaryRuns = 5;

/// Measures device-to-device copy bandwidth on the current device: allocates two buffers of
/// kCanaryL2Multiple × `l2_bytes` (rounded up to 16 B), fills the source, copies once untimed, then
/// times kCanaryRuns cudaMemcpyAsync copies on `stream`, each between its own pair of CUDA events.
/// copy_bytes_per_s = 2 · copy_bytes / median time (each byte is read once and written once).
/// Takes ~10 ms on an H200 (4 × 60 MiB copied 6 times at ~4 TB/s). Synchronous; frees its buffers.
/// Throws a bad-input Error when l2_bytes <= 0, an environment Error when a CUDA call fails
/// (e.g. out of memory).
CanaryResult measure_copy_canary(int64_t l2_bytes, cudaStream_t stream);

}  // namespace rooflinectl
