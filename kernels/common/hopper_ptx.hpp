// PTX wrappers shared by the sm_90a kernels (kernels/gemm_wgmma.cu,
// kernels/flash_attention_wgmma.cu): mbarriers, TMA tensor loads, wgmma descriptors and group
// control, register reallocation, named barriers, cluster arrives and TMA stores. Sources: PTX
// ISA 8.x, sections "mbarrier", "cp.async.bulk.tensor", "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate" (wgmma), "setmaxnreg", "bar.sync". Device code for sm_90a only: include from
// .cu files built with -gencode=arch=compute_90a,code=sm_90a; the wrappers exist only where that
// feature set does.
#pragma once

#include <cuda.h>  // CUtensorMap

#include <cstdint>

namespace rooflinectl {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

/// 32-bit shared-memory address of a generic pointer into shared memory.
__device__ __forceinline__ uint32_t smem_u32(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

/// Initializes the mbarrier at `bar` to expect `count` arrivals per phase.
__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

/// Makes initialized barriers visible to the async proxy (TMA complete_tx); once, after init.
__device__ __forceinline__ void mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// One arrival that also raises the phase's expected transaction count by `bytes`.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

/// One arrival.
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

/// Blocks until the phase of parity `parity` of the barrier has completed. A fresh barrier is in
/// phase 0, so waiting on parity 1 returns at once (the "previous" phase counts as complete).
__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

/// TMA: the box at element coordinates (c0 innermost, c1) of a 2-D `map` into shared memory at
/// `dst`, completing its bytes on `bar`. Outside the tensor TMA writes zeros (and still counts
/// the full box).
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                            int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

/// As tma_load_2d for a 3-D `map` (c0 innermost, then c1, c2).
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                            int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}

/// wgmma shared-memory descriptor (PTX ISA, "Matrix Descriptor Format") of a swizzled layout:
/// bits 0-13 start address >> 4, 16-29 leading byte offset >> 4, 32-45 stride byte offset >> 4,
/// 62-63 layout (1 = 128-byte swizzle, 2 = 64-byte swizzle). Base offset (bits 49-51) is 0: every
/// swizzle atom (8 rows × kSwizzleBytes: 1024 / 512 B, the span after which the swizzle pattern
/// repeats) must start aligned to its size.
template <int kSwizzleBytes>
__device__ __forceinline__ uint64_t swizzled_descriptor(uint32_t address, uint32_t leading_bytes,
                                                        uint32_t stride_bytes) {
  static_assert(kSwizzleBytes == 128 || kSwizzleBytes == 64, "128- or 64-byte swizzle");
  constexpr uint64_t kLayout = kSwizzleBytes == 128 ? 1 : 2;
  return static_cast<uint64_t>((address & 0x3FFFF) >> 4) |
         (static_cast<uint64_t>(leading_bytes >> 4) << 16) |
         (static_cast<uint64_t>(stride_bytes >> 4) << 32) | (kLayout << 62);
}

/// Orders this warpgroup's earlier register writes before the wgmma that follow (required
/// before the first wgmma and whenever accumulator or A registers were touched in between).
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

/// Closes the group of wgmma issued since the last commit.
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/// Waits until at most kPending committed wgmma groups of this warpgroup are still running.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

/// Keeps the compiler from moving reads or writes of `x` across this point (an accumulator of
/// an asynchronous wgmma is only valid after its wgmma_wait).
__device__ __forceinline__ void register_fence(float& x) { asm volatile("" : "+f"(x)::"memory"); }
__device__ __forceinline__ void register_fence(uint32_t& x) {
  asm volatile("" : "+r"(x)::"memory");
}

/// Lowers this warpgroup's per-thread register limit to kRegisters (a multiple of 8; the
/// registers go to the block's pool).
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
}
/// Raises this warpgroup's per-thread register limit to kRegisters from the block's pool (waits
/// until the pool has them).
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
}

/// Named barrier `id` (1-15; 0 is __syncthreads) of `threads` threads: wait for all of them.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/// Named barrier `id` of `threads` threads: count this warp's arrival and go on without waiting.
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Thread-block clusters (gemm v3's W multicast) and the TMA-store epilogue: PTX ISA sections
// "mapa", "barrier.cluster", "cp.async.bulk.tensor" (.multicast::cluster, bulk_group), "stmatrix".

/// Arrives once on the barrier at the shared-memory offset of `bar` in block `cta_rank` of the
/// cluster (this block included). Default semantics (release, CTA scope): what it orders is the
/// completion of this warp's wgmma reads of a stage (waited for with wgmma.wait_group) before
/// the producers' next TMA writes into it, which the barrier phase itself orders; a
/// cluster-scope release would add a memory fence per stage that nothing needs.
__device__ __forceinline__ void mbarrier_arrive_cluster(uint32_t bar, uint32_t cta_rank) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
      "r"(cta_rank)
      : "memory");
}

/// Every thread of every block of the cluster waits here for all the others, release/acquire
/// at cluster scope (barrier initialization before any remote arrive or multicast).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

/// tma_load_2d into the same shared-memory offset of every block of the cluster in `cta_mask`
/// (bit i = rank i), completing the box's bytes on the barrier at the offset of `bar` in each.
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap* map,
                                                      uint32_t bar, int c0, int c1,
                                                      uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(cta_mask)
      : "memory");
}

/// stmatrix .x4: four 8×8 16-bit matrices from the warp's registers into shared memory; lanes
/// 8i..8i+7 give the row addresses of matrix i, register i holds a thread's two elements of
/// matrix i in the mma/wgmma accumulator layout (row lane/4, columns 2·(lane%4) + {0, 1}).
__device__ __forceinline__ void stmatrix_x4(uint32_t address, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(address),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

/// TMA store of the box at `src` to element coordinates (c0 innermost, c1) of `map`, as one bulk
/// async-group; elements outside the tensor are not written.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n"
      "cp.async.bulk.commit_group;" ::"l"(reinterpret_cast<uint64_t>(map)),
      "r"(c0), "r"(c1), "r"(src)
      : "memory");
}

#endif

}  // namespace rooflinectl
