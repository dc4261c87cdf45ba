// Memory pre-check: skip a point with a reason instead of failing on cudaMalloc halfway.
#pragma once

#include <cstdint>
#include <string>

namespace rooflinectl {

/// Outcome of comparing a point's device-memory needs with what is free. Bytes throughout.
struct MemoryCheck {
  bool fits = false;
  int64_t needed_bytes = 0;   ///< the point's own buffers (OperatorSpec::device_bytes)
  int64_t free_bytes = 0;     ///< cudaMemGetInfo on the current device
  int64_t reserve_bytes = 0;  ///< kept back for the harness (see check_device_memory)
};

/// Fixed part of the reserve: cuBLAS's workspace (32 MiB per handle recommended on Hopper, cuBLAS
/// docs "cublasSetWorkspace"), CUPTI's counter-data and replay bookkeeping, and kernel modules that
/// lazy loading (CUDA_MODULE_LOADING=LAZY, the default) only allocates at first launch. Kernel
/// replay itself falls back to host memory for its save/restore when the device is full, so it is
/// not counted here.
inline constexpr int64_t kFixedReserveBytes = int64_t{256} << 20;

/// Compares `needed_bytes` + reserve with the free memory of the current device. The reserve is
/// kFixedReserveBytes plus the L2 flusher's buffer (kL2FlusherBufferPerL2Byte × L2 of the current
/// device), so the check
/// is right whether or not the flusher is already allocated (slightly conservative when it is).
/// Throws a bad-input Error when `needed_bytes` < 0, an environment Error when CUDA fails.
MemoryCheck check_device_memory(int64_t needed_bytes);

/// One line for a skip reason, e.g. "needs 68.7 GB (68.3 GB of buffers + 0.4 GB reserve),
/// 61.2 GB free" (GB = 1e9 bytes). Pure.
std::string describe_memory_shortfall(const MemoryCheck& check);

}  // namespace rooflinectl
