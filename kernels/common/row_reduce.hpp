// What the row-normalization kernels (kernels/layernorm.cu, kernels/rmsnorm.cu) share: how many
// threads hold one row in registers, and the sum over those threads. A row of `width` 16-bit
// elements is read as width / 8 16-byte vectors; thread t of a row owns vectors t, t +
// threads_per_row, ... (each load instruction of a warp reads 512 contiguous bytes), at most
// kRowMaxVecsPerThread of them. Device code: include from .cu files only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/common/pack_pair.hpp"

namespace rooflinectl {

/// 16-byte vectors of a row one thread holds in registers: 64 elements.
inline constexpr int kRowMaxVecsPerThread = 8;
/// Rows per block in the warp-per-row configuration.
inline constexpr int kWarpRowsPerBlock = 4;
/// Widest row the configurations hold: 1024 threads × kRowMaxVecsPerThread vectors × 8 elements.
inline constexpr int64_t kRowMaxWidth = 1024 * kRowMaxVecsPerThread * kElemsPerVec;

/// Calls `launch(std::integral_constant<int, kThreadsPerRow>, std::integral_constant<int,
/// kRowsPerBlock>)` with the fewest threads per row whose registers (kRowMaxVecsPerThread vectors
/// each) hold a row of `width` elements, in steps of powers of 2: a warp per row up to width 2048
/// (shuffle-only reductions, kWarpRowsPerBlock rows per 128-thread block), then 64, 128, 256
/// threads up to 4096, 8192, 16384, and a 1024-thread block up to kRowMaxWidth. So every benchmark
/// width (2048, 4096, 8192) gives each thread the full 8 vectors, 128 bytes of loads in flight.
/// LayerNorm v1 used 256 threads from 2056 on: at d_model 4096 each thread then had only 2 loads
/// in flight before the block-wide reductions and the dependent γ/β reads, and the kernel reached
/// 0.69× copy against 0.89–0.90× at 2048 and 8192 (4–8 loads; docs/perf-notes.md). The caller
/// checks width ≤ kRowMaxWidth. Host code.
template <class Launch>
void with_row_config(int64_t width, Launch&& launch) {
  const int64_t vecs = width / kElemsPerVec;
  if (vecs <= 32 * kRowMaxVecsPerThread) {
    launch(std::integral_constant<int, 32>{}, std::integral_constant<int, kWarpRowsPerBlock>{});
  } else if (vecs <= 64 * kRowMaxVecsPerThread) {
    launch(std::integral_constant<int, 64>{}, std::integral_constant<int, 1>{});
  } else if (vecs <= 128 * kRowMaxVecsPerThread) {
    launch(std::integral_constant<int, 128>{}, std::integral_constant<int, 1>{});
  } else if (vecs <= 256 * kRowMaxVecsPerThread) {
    launch(std::integral_constant<int, 256>{}, std::integral_constant<int, 1>{});
  } else {
    launch(std::integral_constant<int, 1024>{}, std::integral_constant<int, 1>{});
  }
}

/// Butterfly sum over groups of `kLanes` lanes: every lane ends with the same (bitwise) total,
/// because each step adds the same two operands in either order.
template <int kLanes>
__device__ __forceinline__ float butterfly_sum(float v) {
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

/// Sum over the kThreadsPerRow threads of a row, returned to all of them. A warp-wide row needs
/// only shuffles; a block-wide row adds one shared-memory exchange of the per-warp sums
/// (`scratch`: kThreadsPerRow / 32 floats), which every warp then reduces itself (no second
/// barrier, and identical results in all warps). `scratch` must not be reused by the block before
/// every thread has returned from here.
template <int kThreadsPerRow>
__device__ __forceinline__ float row_sum(float v, float* scratch) {
  v = butterfly_sum<32>(v);
  if constexpr (kThreadsPerRow == 32) {
    return v;
  } else {
    constexpr int kWarps = kThreadsPerRow / 32;
    static_assert((kWarps & (kWarps - 1)) == 0 && kWarps <= 32, "warps per row: power of 2, ≤ 32");
    const int lane = threadIdx.x % 32;
    if (lane == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    return butterfly_sum<kWarps>(scratch[lane % kWarps]);
  }
}

}  // namespace rooflinectl
