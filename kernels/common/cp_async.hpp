// Asynchronous global → shared copies (PTX ISA 8.x, "cp.async", "cp.async.commit_group",
// "cp.async.wait_group"; sm_80 and later), as the tiled kernels (flash attention, GEMM) and the
// staged decode kernel issue them. Device code: include from .cu files only.
#pragma once

#include <cstdint>

namespace rooflinectl {

/// The 32-bit shared-state-space address of a pointer into shared memory.
__device__ __forceinline__ uint32_t smem_address(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

/// 16-byte global → shared copy through L2 only (.cg, no L1 allocation); `src_bytes` 16 copies,
/// 0 reads nothing and zero-fills the 16 destination bytes (tile edges, keys past the end).
__device__ __forceinline__ void cp_async_16(void* smem_dst, const void* gmem_src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(smem_dst)),
               "l"(gmem_src), "r"(src_bytes));
}

/// 8-byte variant of cp_async_16 (.ca: the PTX ISA allows .cg for 16 bytes only); `src_bytes` 8
/// or 0 (zero-fill).
__device__ __forceinline__ void cp_async_8(void* smem_dst, const void* gmem_src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_address(smem_dst)),
               "l"(gmem_src), "r"(src_bytes));
}

/// Closes this thread's copies issued since the last commit into one group.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

/// Waits until at most kPending of this thread's committed groups are still in flight; the
/// completed copies are then visible to this thread (other threads need a barrier as well).
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace rooflinectl
