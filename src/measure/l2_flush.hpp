// L2 eviction between timed samples and before counter launches.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "gpu/device_buffer.hpp"

namespace rooflinectl {

/// Evicts the L2 cache without leaving dirty lines behind. The flusher owns a zero-filled buffer of
/// 8 × L2 bytes in two halves of 4 × L2 each. `flush` returns any persisting L2 lines to normal
/// (cudaCtxResetPersistingL2Cache: a program's access-policy window would otherwise keep its
/// lines resident), then reads the first half with a read-only sweep kernel: every line it
/// replaces is written back if dirty (during the flush, not during the next kernel) and L2 ends
/// holding clean lines only, so the next kernel starts cold with no pending write-backs charged to
/// its DRAM counters (docs/counter-method.md). The sweep stores nothing: a memset-first flush
/// would itself leave dirty lines (measured on the H200: 0.27 MB charged to the next range).
/// `read_sweep` reads the second half the same way: after a flush and a kernel, none of its
/// lines are resident, so each of its fills evicts a line and its DRAM writes are exactly the
/// kernel's deferred write-back. Four times the L2 size per half because Hopper's L2 is two
/// partitions that can both hold a line and replacement is not strict LRU: 2 × L2 left dirty
/// lines behind on the H200 (docs/counter-method.md).
/// Move-only RAII owner of the device buffer, allocated on the current device.
/// Bytes of the flusher's buffer per byte of L2: two halves, each swept in full (4 × L2).
inline constexpr int64_t kL2FlusherBufferPerL2Byte = 8;

class L2Flusher {
 public:
  /// Allocates 8 × `l2_bytes` (each half rounded up to 16 B) on the current device and zeroes it.
  /// Throws a bad-input Error when `l2_bytes` <= 0, an environment Error when CUDA fails (e.g.
  /// out of memory).
  explicit L2Flusher(int64_t l2_bytes);

  /// Resets persisting lines, then enqueues the read-only sweep of the first half on `stream`
  /// (asynchronous). Throws an environment Error when a call or the launch fails, or when the
  /// object was moved from.
  void flush(cudaStream_t stream);
  /// Enqueues the read-only sweep of the second half (no reset). After a flush and a kernel, its
  /// DRAM writes are exactly the write-back of the lines the kernel left dirty. Errors as flush().
  void read_sweep(cudaStream_t stream);
  /// read_sweep() in one phrase, e.g. "DRAM writes of a read-only sweep of a 120 MiB buffer
  /// (4 x L2) profiled right after the launch".
  std::string read_sweep_policy() const;
  /// The flush mechanism in one phrase for the report's cache policy, e.g. "persisting lines
  /// reset, read-only sweep of a 240 MiB buffer (4 x L2): L2 left cold, without dirty lines".
  std::string policy() const;
  /// Bytes one sweep reads (half the buffer: 4 × L2 rounded up to 16 B).
  int64_t sweep_bytes() const { return sweep_bytes_; }

 private:
  void sweep(const uint4* half, cudaStream_t stream);

  DeviceBuffer<uint4> buffer_;  ///< both halves, sweep_bytes_ each
  int64_t sweep_bytes_ = 0;
  int sweep_blocks_ = 0;
};

}  // namespace rooflinectl
