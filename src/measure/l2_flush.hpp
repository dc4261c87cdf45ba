// L2 eviction between timed samples and before counter launches.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace rooflinectl {

/// Evicts the L2 cache without leaving dirty lines behind. `flush` first writes a buffer of
/// 2 × L2 bytes (cudaMemsetAsync), which forces earlier dirty lines — e.g. the previous launch's
/// outputs — back to DRAM, then reads the whole buffer with a read-only sweep kernel, which
/// replaces those now-dirty buffer lines with clean ones. The next kernel therefore starts with a
/// cold L2 and no pending write-backs charged to its DRAM counters (cupti-on-h200.md, "L2 state
/// and DRAM counters"). Twice the L2 size because Hopper's L2 is two partitions that can both hold
/// a line, and replacement is not strict LRU.
/// Move-only RAII owner of the device buffer, allocated on the current device.
class L2Flusher {
 public:
  /// Allocates 2 × `l2_bytes` (rounded up to 16 B) on the current device. Throws a bad-input
  /// Error when `l2_bytes` <= 0, an environment Error when CUDA fails (e.g. out of memory).
  explicit L2Flusher(int64_t l2_bytes);
  ~L2Flusher();
  L2Flusher(L2Flusher&& other) noexcept;
  L2Flusher& operator=(L2Flusher&& other) noexcept;
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;

  /// Enqueues the write + read sweep on `stream` (asynchronous). Throws an environment Error when
  /// a call or the launch fails, or when the object was moved from.
  void flush(cudaStream_t stream);
  /// The flush mechanism in one phrase for the report's cache policy, e.g. "memset then read-only
  /// sweep of a 120 MiB buffer (2 x L2): L2 left cold, without dirty lines".
  std::string policy() const;
  /// Size of the flush buffer in bytes.
  int64_t buffer_bytes() const { return buffer_bytes_; }

 private:
  void release() noexcept;

  void* buffer_ = nullptr;
  int64_t buffer_bytes_ = 0;
  int sweep_blocks_ = 0;
};

}  // namespace rooflinectl
