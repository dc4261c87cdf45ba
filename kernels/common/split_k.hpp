// The split-K reduction shared by the skinny GEMMs (gemm_v4_skinny_splitk in kernels/gemm.cu,
// gemm_v6_skinny_wgmma in kernels/gemm_skinny_wgmma.cu): every split of a column tile stores its
// fp32 partial [split][m][n], publishes it and takes a ticket on the tile's arrival counter; the
// last to arrive sums all partials in split order (the same bits whatever the arrival order) and
// re-arms the counter for the next launch. Source: CUDA C++ Programming Guide, "Memory Fence
// Functions" (the last-block sum example). Device code, any sm_80+ target.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace rooflinectl {

#if defined(__CUDACC__)

/// After this block's partial stores: true in every participating thread when this block is the
/// last of `splits` to arrive at `counter`, and then every other block's partial is visible to it.
/// `sync` is a barrier over all participating threads (__syncthreads, or a named barrier when
/// only some warps of the block store partials); `leader` is exactly one of them; `flag` is a
/// shared-memory bool they share.
template <class Sync>
__device__ __forceinline__ bool split_k_last_arrival(int* counter, int64_t splits, bool* flag,
                                                     bool leader, Sync sync) {
  // Publish this thread's partial stores before the block is counted.
  __threadfence();
  sync();
  if (leader) {
    __threadfence();
    *flag = atomicAdd(counter, 1) == static_cast<int>(splits - 1);
  }
  sync();
  const bool last = *flag;
  if (last) __threadfence();
  return last;
}

/// Adds `v` to `sum` (float or float2, componentwise).
__device__ __forceinline__ void split_k_add(float& sum, float v) { sum += v; }
__device__ __forceinline__ void split_k_add(float2& sum, float2 v) {
  sum.x += v.x;
  sum.y += v.y;
}

/// Σ over s = 0 .. splits-1, in that order, of partials[s·plane + offset] (V: float or float2,
/// `plane` and `offset` in V elements), read with .cg from L2, where the other blocks' stores
/// are, never a stale L1 line.
template <class V>
__device__ __forceinline__ V split_k_sum(const V* partials, int64_t plane, int64_t splits,
                                         int64_t offset) {
  V sum = __ldcg(partials + offset);
  for (int64_t s = 1; s < splits; ++s) split_k_add(sum, __ldcg(partials + s * plane + offset));
  return sum;
}

#endif

}  // namespace rooflinectl
