// "Standard" attention as frameworks' math path runs it, materializing the scores in HBM:
//   launch 1  S = Q·Kᵀ·scale   cuBLAS strided-batched GEMM, S in the input dtype [B, H, L, L]
//   launch 2  P = softmax(S)   our row-wise kernel (causal mask, fp32 statistics), P in the
//                              input dtype in a separate buffer [B, H, L, L]
//   launch 3  O = P·V          cuBLAS strided-batched GEMM
// S and P are each written once and read once in HBM: that O(L²) traffic is what this operator
// exists to show on the roofline, next to flash_attention which never writes them.
// naive_attention_v2_register_rows: the softmax holds each row in registers (rows a multiple of
// 8 elements up to 65536): one HBM read of S with ld.global.cs, one (max, Σexp) combine, P
// written with st.global.cs. Rows up to 8192 use row groups of one or two warps, several rows
// per block; longer rows a block each. Other rows run the streaming masked_softmax_kernel.
// File order: softmax kernels, launchers, OperatorRun, registration. The reference is the shared
// attention reference (kernels/reference_attention.hpp); v1 and the measurements are in
// docs/perf-notes.md.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "core/error.hpp"
#include "core/kernel_version.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/cublas_handle.hpp"
#include "kernels/common/fast_math.hpp"
#include "kernels/common/pack_pair.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/operator.hpp"
#include "kernels/reference_attention.hpp"

namespace rooflinectl {
namespace {

// cuBLAS's recommended workspace on Hopper (cuBLAS API reference, cublasSetWorkspace: 32 MiB on
// sm_90, 4 MiB before). Owned by the run so that device_bytes() can count it.
constexpr int64_t kCublasWorkspaceBytes = int64_t{32} << 20;

// ---------------------------------------------------------------------------------------------
// Softmax kernel

constexpr int kSoftmaxMaxThreads = 512;
constexpr float kLog2e = 1.4426950408889634f;
// Chunks each thread loads before consuming any: 4 × 16 bytes in flight per thread, 64 KiB per
// SM with 1024 resident threads, above the ~25 KiB per SM that Little's law asks for at
// 4.8 TB/s and ~0.7 µs DRAM latency over 132 SMs, so the row loop is not latency-bound.
constexpr int kChunksInFlight = 4;

/// One block per row; threads = one per 8-element chunk of the row, rounded up to whole warps,
/// between 1 and 16 warps. Short rows (L ≤ 256) then get a single warp instead of idle ones;
/// the longest rows (L = 32768: 4096 chunks) give each thread 8 chunks per pass, two rounds of
/// kChunksInFlight loads.
int softmax_threads(int64_t kv_len) {
  const int64_t chunks = (kv_len + kElemsPerVec - 1) / kElemsPerVec;
  const int64_t warps = (chunks + 31) / 32;
  return static_cast<int>(std::min<int64_t>(warps, kSoftmaxMaxThreads / 32) * 32);
}

// Chunks stay packed (4 registers, not 8) between the load and their use, which keeps
// kChunksInFlight of them in registers without spilling.
template <class T>
__device__ __forceinline__ uint4 load_chunk(const T* src) {
  return *reinterpret_cast<const uint4*>(src);
}

template <class T>
__device__ __forceinline__ void store8(T* dst, const float (&x)[kElemsPerVec]) {
  *reinterpret_cast<uint4*>(dst) = pack8<T>(x);
}

// e^x as 2^(x·log2 e). Callers pass x = s - max ≤ 0 (or -inf), formed before scaling, so that
// huge finite logits (bf16 up to 3.4e38) never overflow the product.
__device__ __forceinline__ float exp_natural(float x) { return exp2f(x * kLog2e); }

/// Running softmax statistics of a set of logits: max and Σ exp(x - max). {-inf, 0} is empty.
struct SoftmaxStats {
  float max;
  float sum;
};

__device__ __forceinline__ SoftmaxStats combine(SoftmaxStats a, SoftmaxStats b) {
  const float m = fmaxf(a.max, b.max);
  if (m == -INFINITY) return {m, 0.0f};  // both empty: avoid (-inf) - (-inf)
  return {m, a.sum * exp_natural(a.max - m) + b.sum * exp_natural(b.max - m)};
}

/// Adds the visible values of x[0..n) (visible[i] false: masked) to `stats`, rescaling the sum
/// once per group rather than once per element.
template <int kN>
__device__ __forceinline__ void accumulate(SoftmaxStats& stats, const float (&x)[kN],
                                           const bool (&visible)[kN]) {
  float group_max = -INFINITY;
#pragma unroll
  for (int i = 0; i < kN; ++i) {
    if (visible[i]) group_max = fmaxf(group_max, x[i]);
  }
  if (group_max > stats.max) {
    stats.sum *= exp_natural(stats.max - group_max);
    stats.max = group_max;
  }
  if (stats.max == -INFINITY) return;  // nothing finite seen yet
#pragma unroll
  for (int i = 0; i < kN; ++i) {
    if (visible[i]) stats.sum += exp_natural(x[i] - stats.max);
  }
}

/// Block-wide combine of every thread's statistics (blocks of up to 1024 threads, whole warps);
/// all threads receive the row's result.
__device__ SoftmaxStats block_combine(SoftmaxStats stats) {
  __shared__ SoftmaxStats warp_stats[32];
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int warps = static_cast<int>(blockDim.x) / 32;
  for (int offset = 16; offset > 0; offset /= 2) {
    const SoftmaxStats other{__shfl_xor_sync(0xffffffffu, stats.max, offset),
                             __shfl_xor_sync(0xffffffffu, stats.sum, offset)};
    stats = combine(stats, other);
  }
  if (lane == 0) warp_stats[warp] = stats;
  __syncthreads();
  if (warp == 0) {
    stats = lane < warps ? warp_stats[lane] : SoftmaxStats{-INFINITY, 0.0f};
    for (int offset = 16; offset > 0; offset /= 2) {
      const SoftmaxStats other{__shfl_xor_sync(0xffffffffu, stats.max, offset),
                               __shfl_xor_sync(0xffffffffu, stats.sum, offset)};
      stats = combine(stats, other);
    }
    if (lane == 0) warp_stats[0] = stats;
  }
  __syncthreads();
  return warp_stats[0];
}

/// P[row, :] = softmax(S[row, :]) over the visible keys, 0 elsewhere; S, P: [rows, kv_len].
/// Row r is query i = r % q_len; with `causal` it sees keys j ≤ i + (kv_len − q_len) (bottom-
/// right aligned). A row with no visible key, or whose visible logits are all −inf, is all 0.
///
/// Pass 1 reads the visible part of the row with 16-byte loads and keeps per-thread (max, Σexp)
/// in fp32, combined across the block; pass 2 reads it again and writes P. The second read is
/// expected to hit L2: between a block's two reads of a row the GPU moves about one row read
/// and one row written per resident block (≈ 35 MiB at L = 32768 with 2 blocks on each of 132
/// SMs), less than the 50-60 MiB L2 of H100/H200, so DRAM should see S read about once; the
/// counter pass measures how far that holds.
///
/// Rows start 16-byte aligned only when kv_len % 8 == 0: each row is split into a scalar head
/// up to its first 16-byte boundary (< 8 elements), whole 16-byte chunks, and a scalar tail
/// (< 8 elements). S and P have the same alignment (16-byte aligned bases, same row offsets).
template <class T>
__global__ void __launch_bounds__(kSoftmaxMaxThreads)
    masked_softmax_kernel(const T* __restrict__ s, T* __restrict__ p, int64_t q_len, int64_t kv_len,
                          bool causal) {
  const int64_t row = blockIdx.x;
  const int64_t query = row % q_len;
  const int64_t visible =
      causal ? std::min(kv_len, std::max<int64_t>(0, query + (kv_len - q_len) + 1)) : kv_len;
  const T* s_row = s + row * kv_len;
  T* p_row = p + row * kv_len;

  const auto misalign = static_cast<int64_t>(reinterpret_cast<uintptr_t>(s_row) % 16);
  const int64_t head = std::min<int64_t>(kv_len, (16 - misalign) % 16 / 2);
  const int64_t chunks = (kv_len - head) / kElemsPerVec;
  const int64_t tail_start = head + chunks * kElemsPerVec;
  const int64_t tid = threadIdx.x;
  // Scalar elements owned by this thread: head element `tid`, tail element `tail_start + tid`.
  const int64_t scalar_j[2] = {tid < head ? tid : -1,
                               tail_start + tid < kv_len ? tail_start + tid : -1};

  SoftmaxStats stats{-INFINITY, 0.0f};
#pragma unroll
  for (const int64_t j : scalar_j) {
    if (j >= 0 && j < visible) {
      const float x[1] = {static_cast<float>(s_row[j])};
      const bool vis[1] = {true};
      accumulate(stats, x, vis);
    }
  }
  const int64_t stride = blockDim.x;
  for (int64_t c0 = tid; c0 < chunks && head + c0 * kElemsPerVec < visible;
       c0 += kChunksInFlight * stride) {
    uint4 raw[kChunksInFlight];
#pragma unroll
    for (int u = 0; u < kChunksInFlight; ++u) {
      const int64_t j0 = head + (c0 + u * stride) * kElemsPerVec;
      if (c0 + u * stride < chunks && j0 < visible) raw[u] = load_chunk(s_row + j0);
    }
#pragma unroll
    for (int u = 0; u < kChunksInFlight; ++u) {
      const int64_t j0 = head + (c0 + u * stride) * kElemsPerVec;
      if (c0 + u * stride < chunks && j0 < visible) {
        float x[kElemsPerVec];
        bool vis[kElemsPerVec];
        unpack8<T>(raw[u], x);
#pragma unroll
        for (int i = 0; i < kElemsPerVec; ++i) vis[i] = j0 + i < visible;
        accumulate(stats, x, vis);
      }
    }
  }

  const SoftmaxStats total = block_combine(stats);
  const bool empty = total.max == -INFINITY;
  const float inv_sum = empty ? 0.0f : 1.0f / total.sum;
  auto probability = [&](float x, int64_t j) {
    return j < visible && !empty ? exp_natural(x - total.max) * inv_sum : 0.0f;
  };

#pragma unroll
  for (const int64_t j : scalar_j) {
    if (j >= 0) {
      const float x = j < visible ? static_cast<float>(s_row[j]) : 0.0f;
      p_row[j] = T(probability(x, j));
    }
  }
  for (int64_t c0 = tid; c0 < chunks; c0 += kChunksInFlight * stride) {
    uint4 raw[kChunksInFlight] = {};
#pragma unroll
    for (int u = 0; u < kChunksInFlight; ++u) {
      const int64_t j0 = head + (c0 + u * stride) * kElemsPerVec;
      if (c0 + u * stride < chunks && j0 < visible) raw[u] = load_chunk(s_row + j0);
    }
#pragma unroll
    for (int u = 0; u < kChunksInFlight; ++u) {
      const int64_t j0 = head + (c0 + u * stride) * kElemsPerVec;
      if (c0 + u * stride < chunks) {
        float x[kElemsPerVec];
        unpack8<T>(raw[u], x);
#pragma unroll
        for (int i = 0; i < kElemsPerVec; ++i) x[i] = probability(x[i], j0 + i);
        store8(p_row + j0, x);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Register-row softmax (v2)

constexpr int kRowPreferredThreads = 512;
constexpr int kRowMaxThreads = 1024;
constexpr int kRowMaxVecs = 8;  // 16-byte vectors per thread
constexpr int64_t kRowMaxLen = int64_t{kRowMaxThreads} * kRowMaxVecs * kElemsPerVec;  // 65536

// Short rows (L ≤ kGroupMaxLen) go to row_group_softmax_kernel: one or two warps per row,
// several rows per block of kGroupBlockThreads, up to kGroupMaxVecs vectors per lane (64
// registers of row data, hence at most 128 registers at kGroupMinBlocks blocks per SM).
constexpr int kGroupBlockThreads = 256;
constexpr int kGroupMinBlocks = 2;
constexpr int kGroupMaxVecs = 16;
constexpr int kGroupMaxWarps = 2;
constexpr int64_t kGroupMaxLen =
    int64_t{32} * kGroupMaxWarps * kGroupMaxVecs * kElemsPerVec;  // 8192

/// Launch shape of the register-row kernels: `vecs` 16-byte vectors per thread (a power of two);
/// `row_warps` > 0: row_group_softmax_kernel with that many warps per row (blocks of
/// kGroupBlockThreads); `row_warps` = 0: register_row_softmax_kernel, one block of `threads`
/// (whole warps) per row. vecs = 0: the row does not qualify (kv_len not a multiple of 8, so rows
/// are not 16-byte aligned, or longer than kRowMaxLen).
struct RowLaunch {
  int vecs;
  int threads;
  int row_warps;
};

/// Rows up to kGroupMaxLen: one warp per row with the fewest vectors per lane that cover it
/// (L = 4096 → 16 vectors, 8 rows per block; L = 512 → 2), two warps × 16 vectors up to 8192.
/// Longer rows: the fewest vectors per thread that cover the row with at most
/// kRowPreferredThreads threads (up to kRowMaxVecs), then up to kRowMaxThreads threads at
/// kRowMaxVecs: 16384 → 4 × 512, 32768 → 8 × 512, 65536 → 8 × 1024.
RowLaunch register_row_launch(int64_t kv_len) {
  if (kv_len % kElemsPerVec != 0 || kv_len > kRowMaxLen) return {0, 0, 0};
  const int64_t chunks = kv_len / kElemsPerVec;
  if (kv_len <= kGroupMaxLen) {
    const int warps = chunks > int64_t{32} * kGroupMaxVecs ? kGroupMaxWarps : 1;
    int vecs = 1;
    while (vecs < kGroupMaxVecs && chunks > int64_t{32} * warps * vecs) vecs *= 2;
    return {vecs, kGroupBlockThreads, warps};
  }
  int vecs = 1;
  while (vecs < kRowMaxVecs && chunks > int64_t{kRowPreferredThreads} * vecs) vecs *= 2;
  const int64_t threads = (chunks + vecs - 1) / vecs;
  return {vecs, static_cast<int>((threads + 31) / 32 * 32), 0};
}

/// Packed pairs of 16-bit values: bit pattern of −inf and the pair max (max of bf16/fp16 values
/// is exact in the type, so it is taken before converting).
template <class T>
struct Packed;

template <>
struct Packed<__nv_bfloat16> {
  static constexpr uint32_t kNegInf = 0xFF80u;
  static __device__ __forceinline__ uint32_t max2(uint32_t a, uint32_t b) {
    __nv_bfloat162 va;
    __nv_bfloat162 vb;
    memcpy(&va, &a, sizeof(a));
    memcpy(&vb, &b, sizeof(b));
    const __nv_bfloat162 m = __hmax2(va, vb);
    uint32_t bits;
    memcpy(&bits, &m, sizeof(bits));
    return bits;
  }
};

template <>
struct Packed<__half> {
  static constexpr uint32_t kNegInf = 0xFC00u;
  static __device__ __forceinline__ uint32_t max2(uint32_t a, uint32_t b) {
    __half2 va;
    __half2 vb;
    memcpy(&va, &a, sizeof(a));
    memcpy(&vb, &b, sizeof(b));
    const __half2 m = __hmax2(va, vb);
    uint32_t bits;
    memcpy(&bits, &m, sizeof(bits));
    return bits;
  }
};

/// Sets lanes first..7 of an 8-lane vector of 16-bit values to −inf (first in [0, 8]).
template <class T>
__device__ __forceinline__ uint4 mask_lanes_from(uint4 v, int first) {
  uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if (2 * i >= first) w[i] = (w[i] & 0xFFFF0000u) | Packed<T>::kNegInf;
    if (2 * i + 1 >= first) w[i] = (w[i] & 0x0000FFFFu) | (Packed<T>::kNegInf << 16);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

/// Warp-wide combine (butterfly over 32 lanes, every lane receives the same result: combine is
/// commutative bit for bit), then across the kWarpsPerRow consecutive warps that own one row
/// through a per-warp shared slot and one __syncthreads. Every thread of the block must call it.
template <int kWarpsPerRow>
__device__ __forceinline__ SoftmaxStats row_group_combine(SoftmaxStats stats) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const SoftmaxStats other{__shfl_xor_sync(0xffffffffu, stats.max, offset),
                             __shfl_xor_sync(0xffffffffu, stats.sum, offset)};
    stats = combine(stats, other);
  }
  if constexpr (kWarpsPerRow == 1) {
    return stats;
  } else {
    __shared__ SoftmaxStats warp_stats[kGroupBlockThreads / 32];
    const int warp = static_cast<int>(threadIdx.x) / 32;
    if (threadIdx.x % 32 == 0) warp_stats[warp] = stats;
    __syncthreads();
    const int first = warp / kWarpsPerRow * kWarpsPerRow;
    SoftmaxStats total = warp_stats[first];
#pragma unroll
    for (int w = 1; w < kWarpsPerRow; ++w) total = combine(total, warp_stats[first + w]);
    return total;
  }
}

/// One row held in registers by a group of `stride` threads (this one is `tid` of them), shared
/// by both register-row kernels. Row `row` is query row % q_len and sees `visible` keys as in
/// masked_softmax_kernel; `active` false (a padding row past the end) loads and stores nothing
/// but still takes part in `group_combine`, which must return the group's combined statistics.
///
/// Thread tid holds vectors tid, tid + stride, ... of its row (coalesced), all loaded before any
/// is consumed, with a streaming hint; vectors past the visible keys are not loaded and masked
/// lanes of the boundary vector become −inf, so no later step tests a mask. Per thread: max over
/// packed pairs (HMNMX2), Σ 2^((x − max)·log2 e) in fp32; one group_combine; then
/// P = 2^((x − max)·log2 e − log2 Σ), which is exactly 0 at −inf (masked) lanes. The difference
/// x − max is formed before scaling, so huge finite logits never overflow. A row with no visible
/// key, or whose visible logits are all −inf, is written as zeros.
template <class T, int kVecs, class GroupCombine>
__device__ __forceinline__ void softmax_row_in_registers(const T* __restrict__ s, T* __restrict__ p,
                                                         int64_t row, bool active, int64_t q_len,
                                                         int kv_len, bool causal, int tid,
                                                         int stride, GroupCombine group_combine) {
  const int64_t query = row % q_len;
  const int visible =
      !active ? 0
      : causal
          ? static_cast<int>(std::clamp<int64_t>(query + (kv_len - q_len) + 1, 0, int64_t{kv_len}))
          : kv_len;
  const auto* s_row = reinterpret_cast<const uint4*>(s + row * kv_len);
  auto* p_row = reinterpret_cast<uint4*>(p + row * kv_len);
  const int chunks = active ? kv_len / kElemsPerVec : 0;
  const int visible_chunks = (visible + kElemsPerVec - 1) / kElemsPerVec;
  const uint4 zero = make_uint4(0, 0, 0, 0);

  uint4 raw[kVecs];
  uint32_t pair_max = Packed<T>::kNegInf | (Packed<T>::kNegInf << 16);
#pragma unroll
  for (int u = 0; u < kVecs; ++u) {
    const int c = tid + u * stride;
    raw[u] = make_uint4(pair_max, pair_max, pair_max, pair_max);
    if (c < visible_chunks) raw[u] = __ldcs(s_row + c);
  }
#pragma unroll
  for (int u = 0; u < kVecs; ++u) {
    const int c = tid + u * stride;
    if (c < visible_chunks && (c + 1) * kElemsPerVec > visible)
      raw[u] = mask_lanes_from<T>(raw[u], visible - c * kElemsPerVec);
  }
#pragma unroll
  for (int u = 0; u < kVecs; ++u) {
    pair_max = Packed<T>::max2(pair_max, Packed<T>::max2(Packed<T>::max2(raw[u].x, raw[u].y),
                                                         Packed<T>::max2(raw[u].z, raw[u].w)));
  }
  const float2 max_pair = unpack_pair<T>(pair_max);
  SoftmaxStats stats{fmaxf(max_pair.x, max_pair.y), 0.0f};
  if (stats.max != -INFINITY) {
#pragma unroll
    for (int u = 0; u < kVecs; ++u) {
      float x[kElemsPerVec];
      unpack8<T>(raw[u], x);
#pragma unroll
      for (int i = 0; i < kElemsPerVec; ++i) stats.sum += ex2_approx((x[i] - stats.max) * kLog2e);
    }
  }

  const SoftmaxStats total = group_combine(stats);
  if (total.max == -INFINITY) {  // no visible key, or all visible logits −inf: uniform per group
#pragma unroll
    for (int u = 0; u < kVecs; ++u) {
      const int c = tid + u * stride;
      if (c < chunks) __stcs(p_row + c, zero);
    }
    return;
  }
  const float log2_sum = lg2_approx(total.sum);
#pragma unroll
  for (int u = 0; u < kVecs; ++u) {
    const int c = tid + u * stride;
    if (c >= chunks) continue;
    if (c >= visible_chunks) {
      __stcs(p_row + c, zero);
      continue;
    }
    float x[kElemsPerVec];
    unpack8<T>(raw[u], x);
    uint4 out;
    out.x = pack_pair<T>(ex2_approx(fmaf(x[0] - total.max, kLog2e, -log2_sum)),
                         ex2_approx(fmaf(x[1] - total.max, kLog2e, -log2_sum)));
    out.y = pack_pair<T>(ex2_approx(fmaf(x[2] - total.max, kLog2e, -log2_sum)),
                         ex2_approx(fmaf(x[3] - total.max, kLog2e, -log2_sum)));
    out.z = pack_pair<T>(ex2_approx(fmaf(x[4] - total.max, kLog2e, -log2_sum)),
                         ex2_approx(fmaf(x[5] - total.max, kLog2e, -log2_sum)));
    out.w = pack_pair<T>(ex2_approx(fmaf(x[6] - total.max, kLog2e, -log2_sum)),
                         ex2_approx(fmaf(x[7] - total.max, kLog2e, -log2_sum)));
    __stcs(p_row + c, out);
  }
}

/// Same contract as masked_softmax_kernel, for long rows that register_row_launch gives whole
/// blocks: one block per row, kv_len a multiple of 8 (every row 16-byte aligned) and at most
/// kVecs × blockDim.x × 8 elements; softmax_row_in_registers with a block-wide combine.
template <class T, int kVecs>
__global__ void __launch_bounds__(kRowMaxThreads)
    register_row_softmax_kernel(const T* __restrict__ s, T* __restrict__ p, int64_t q_len,
                                int kv_len, bool causal) {
  softmax_row_in_registers<T, kVecs>(s, p, blockIdx.x, true, q_len, kv_len, causal,
                                     static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x),
                                     [](SoftmaxStats stats) { return block_combine(stats); });
}

/// Same contract as masked_softmax_kernel, for short rows (kv_len a multiple of 8, at most
/// kVecs × kWarpsPerRow × 32 × 8 ≤ kGroupMaxLen elements): blocks of kGroupBlockThreads threads,
/// kWarpsPerRow warps per row, so each block owns kGroupBlockThreads / (32·kWarpsPerRow)
/// consecutive rows of the `rows` in S; rows past the end are inactive groups. The row's
/// statistics combine with shuffles (and, for two warps, one shared exchange) instead of a
/// block-wide reduction per row.
template <class T, int kVecs, int kWarpsPerRow>
__global__ void __launch_bounds__(kGroupBlockThreads, kGroupMinBlocks)
    row_group_softmax_kernel(const T* __restrict__ s, T* __restrict__ p, int64_t rows,
                             int64_t q_len, int kv_len, bool causal) {
  constexpr int kGroupThreads = 32 * kWarpsPerRow;
  constexpr int kRowsPerBlock = kGroupBlockThreads / kGroupThreads;
  const int64_t row = int64_t{blockIdx.x} * kRowsPerBlock + threadIdx.x / kGroupThreads;
  const bool active = row < rows;
  softmax_row_in_registers<T, kVecs>(
      s, p, active ? row : rows - 1, active, q_len, kv_len, causal,
      static_cast<int>(threadIdx.x % kGroupThreads), kGroupThreads,
      [](SoftmaxStats stats) { return row_group_combine<kWarpsPerRow>(stats); });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Launchers

namespace {

template <class T>
void launch_register_rows(const T* s, T* p, int64_t rows, RowLaunch launch, int64_t q_len,
                          int64_t kv_len, bool causal, cudaStream_t stream) {
  const int len = static_cast<int>(kv_len);  // ≤ kRowMaxLen
  if (launch.row_warps > 0) {
    const int64_t rows_per_block = kGroupBlockThreads / (32 * launch.row_warps);
    const auto blocks = static_cast<unsigned int>((rows + rows_per_block - 1) / rows_per_block);
    const int threads = kGroupBlockThreads;
    if (launch.row_warps == kGroupMaxWarps) {
      row_group_softmax_kernel<T, kGroupMaxVecs, kGroupMaxWarps>
          <<<blocks, threads, 0, stream>>>(s, p, rows, q_len, len, causal);
      return;
    }
    switch (launch.vecs) {
      case 1:
        row_group_softmax_kernel<T, 1, 1>
            <<<blocks, threads, 0, stream>>>(s, p, rows, q_len, len, causal);
        break;
      case 2:
        row_group_softmax_kernel<T, 2, 1>
            <<<blocks, threads, 0, stream>>>(s, p, rows, q_len, len, causal);
        break;
      case 4:
        row_group_softmax_kernel<T, 4, 1>
            <<<blocks, threads, 0, stream>>>(s, p, rows, q_len, len, causal);
        break;
      case 8:
        row_group_softmax_kernel<T, 8, 1>
            <<<blocks, threads, 0, stream>>>(s, p, rows, q_len, len, causal);
        break;
      default:
        row_group_softmax_kernel<T, kGroupMaxVecs, 1>
            <<<blocks, threads, 0, stream>>>(s, p, rows, q_len, len, causal);
        break;
    }
    return;
  }
  const auto blocks = static_cast<unsigned int>(rows);
  switch (launch.vecs) {
    case 1:
      register_row_softmax_kernel<T, 1>
          <<<blocks, launch.threads, 0, stream>>>(s, p, q_len, len, causal);
      break;
    case 2:
      register_row_softmax_kernel<T, 2>
          <<<blocks, launch.threads, 0, stream>>>(s, p, q_len, len, causal);
      break;
    case 4:
      register_row_softmax_kernel<T, 4>
          <<<blocks, launch.threads, 0, stream>>>(s, p, q_len, len, causal);
      break;
    default:
      register_row_softmax_kernel<T, kRowMaxVecs>
          <<<blocks, launch.threads, 0, stream>>>(s, p, q_len, len, causal);
      break;
  }
}

}  // namespace

/// Enqueues P = masked row softmax of S on `stream`: a register-row kernel when
/// register_row_launch accepts kv_len (a multiple of 8, at most 65536: row groups of one or two
/// warps up to 8192, a block per row above), else the streaming two-pass masked_softmax_kernel
/// (all documented above).
/// s, p: device buffers [rows, kv_len] of `dtype` (bf16 or fp16), distinct, 16-byte aligned;
/// rows = batch·heads·q_len and row r is query r % q_len. Statistics in fp32; P rounded to the
/// dtype. Throws a bad-input Error for non-positive sizes, rows not a multiple of q_len, more
/// than INT_MAX rows (one block per row) or misaligned pointers; CUDA errors as environment
/// Errors. Does not synchronize. Exposed (beyond naive_attention_spec) for the GPU tests.
void launch_masked_softmax(const void* s, void* p, int64_t rows, int64_t q_len, int64_t kv_len,
                           bool causal, Dtype dtype, cudaStream_t stream) {
  if (rows <= 0 || q_len <= 0 || kv_len <= 0 || rows % q_len != 0 || rows > INT_MAX) {
    throw bad_input(fmt::format(
        "masked softmax: rows {}, q_len {}, kv_len {} invalid: all positive, rows a multiple "
        "of q_len and at most {}",
        rows, q_len, kv_len, INT_MAX));
  }
  if (reinterpret_cast<uintptr_t>(s) % 16 != 0 || reinterpret_cast<uintptr_t>(p) % 16 != 0) {
    throw bad_input("masked softmax: S and P must be 16-byte aligned");
  }
  const RowLaunch row_launch = register_row_launch(kv_len);
  if (row_launch.vecs > 0) {
    if (dtype == Dtype::kBf16) {
      launch_register_rows(static_cast<const __nv_bfloat16*>(s), static_cast<__nv_bfloat16*>(p),
                           rows, row_launch, q_len, kv_len, causal, stream);
    } else {
      launch_register_rows(static_cast<const __half*>(s), static_cast<__half*>(p), rows, row_launch,
                           q_len, kv_len, causal, stream);
    }
    RFL_CHECK_LAUNCH();
    return;
  }
  const auto blocks = static_cast<unsigned int>(rows);
  const int threads = softmax_threads(kv_len);
  if (dtype == Dtype::kBf16) {
    masked_softmax_kernel<<<blocks, threads, 0, stream>>>(static_cast<const __nv_bfloat16*>(s),
                                                          static_cast<__nv_bfloat16*>(p), q_len,
                                                          kv_len, causal);
  } else {
    masked_softmax_kernel<<<blocks, threads, 0, stream>>>(
        static_cast<const __half*>(s), static_cast<__half*>(p), q_len, kv_len, causal);
  }
  RFL_CHECK_LAUNCH();
}

namespace {

cudaDataType_t cublas_type(Dtype dtype) { return dtype == Dtype::kBf16 ? CUDA_R_16BF : CUDA_R_16F; }

// Tolerance, widened from default_tolerance (2u for bf16, 4u for fp16; unit roundoff u = 2^-8,
// 2^-11) to 8u for both. Why: S is rounded to the dtype before the softmax, which moves each
// logit by up to u·|S| and hence each P_j by a relative 2u·max|S| (d log P_j = dS_j − Σ P_k dS_k);
// P is rounded to the dtype before P·V (u), and O on the final store (u·|O|). With |S| ≲ 2 for
// these inputs (std 1/3), |ΔO| ≲ 5u·Σ_j P_j·|V_j| + u·|O| ≤ 6u with |V| < 1, which can exceed
// the default on rows with few visible keys, where the per-element errors do not average out.
// fp16 P below 6.1e-5 is subnormal (absolute spacing 2^-24), adding at most L·2^-25 ≈ 1e-3 at
// L = 32768 in the worst case, still inside 8u = 3.9e-3.
Tolerance naive_attention_tolerance(Dtype dtype) {
  const Tolerance base = default_tolerance(dtype);
  const double widen = dtype == Dtype::kBf16 ? 4.0 : 2.0;
  return {base.abs * widen, base.rel * widen};
}

// ---------------------------------------------------------------------------------------------
// OperatorRun

/// The versions `--kernel naive_attention=KEY` names.
const std::vector<KernelVersion>& naive_attention_versions() {
  static const std::vector<KernelVersion> versions = {
      {"v2", "naive_attention_v2_register_rows", "compute capability 8.0+", ""}};
  return versions;
}

class NaiveAttentionRun final : public OperatorRun {
 public:
  explicit NaiveAttentionRun(const Shape& shape)
      : shape_(shape),
        group_(shape.group_size()),
        q_(shape.batch * shape.heads * shape.query_len() * shape.head_dim),
        k_(shape.batch * shape.kv_heads * shape.seq_len * shape.head_dim),
        v_(k_.count()),
        o_(q_.count()),
        s_(shape.batch * shape.heads * shape.query_len() * shape.seq_len),
        p_(s_.count()),
        cublas_workspace_(kCublasWorkspaceBytes),
        cublas_(make_cublas_handle()) {
    // S, P and O poisoned once with all-ones bits (NaN in both 16-bit types): anything the
    // kernels fail to write shows up in validation. It also gives compute-sanitizer's initcheck
    // a write it can see: cuBLAS's Hopper kernels store S and O through TMA, which initcheck
    // does not track, so without it our softmax's reads of S and the download of O were
    // reported as uninitialized (the same finding as the GEMM reference, H200, 2026-11-29).
    for (DeviceBuffer<uint16_t>* buffer : {&s_, &p_, &o_}) {
      RFL_CUDA_CHECK(cudaMemset(buffer->get(), 0xFF, static_cast<size_t>(buffer->bytes())));
    }
  }

  // Q, K, V uniform in [-1, 1): with scale 1/sqrt(d) the logits have standard deviation 1/3
  // for any head_dim, so the softmax is neither flat nor one-hot.
  void fill_random(uint64_t seed) override {
    fill_uniform(q_.get(), q_.count(), shape_.dtype, seed ^ 0x2545F4914F6CDD1Dull, -1.0f, 1.0f);
    fill_uniform(k_.get(), k_.count(), shape_.dtype, seed ^ 0x9E3779B97F4A7C15ull, -1.0f, 1.0f);
    fill_uniform(v_.get(), v_.count(), shape_.dtype, seed ^ 0xD1B54A32D192ED03ull, -1.0f, 1.0f);
  }

  Validation validate() override {
    launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    return validate_attention_output(problem(), o_.get(), naive_attention_tolerance(shape_.dtype));
  }

  // cuBLAS is column-major: a row-major [rows, cols] matrix is its column-major [cols, rows]
  // transpose, so per (b, h) with L = seq_len keys, L_q = query_len() queries, d = head_dim:
  //   S = Q·Kᵀ: column-major Sᵀ = K·Qᵀ, i.e. C = op(A)·B with A = K seen as d×L (ld d) and
  //             transa = T, B = Q seen as d×L_q (ld d); C is L×L_q (ld L).
  //   O = P·V:  column-major Oᵀ = Vᵀ·Pᵀ, i.e. C = A·B with A = V seen as d×L (ld d) and
  //             B = P seen as L×L_q (ld L); C is d×L_q (ld d).
  // GQA: call r (0 ≤ r < g) batches query head kv_head·g + r of every (b, kv_head), so K and V
  // advance by one head per batch entry while Q, S, P and O advance by g heads; g calls in all
  // (one when heads == kv_heads). Each matrix stays ≤ L² elements for cuBLAS's int sizes.
  // Under the causal mask the softmax zeroes P right of each row's diagonal; the GEMMs compute
  // every pair.
  void launch(cudaStream_t stream) override {
    RFL_CUBLAS_CHECK(cublas_api().set_stream(cublas_.get(), stream));
    // cublasSetStream resets the workspace to cuBLAS's own pool (cuBLAS API reference).
    RFL_CUBLAS_CHECK(cublas_api().set_workspace(cublas_.get(), cublas_workspace_.get(),
                                                static_cast<size_t>(cublas_workspace_.bytes())));
    const int64_t seq = shape_.seq_len;
    const int64_t q_seq = shape_.query_len();
    const int64_t dim = shape_.head_dim;
    const int batches = static_cast<int>(shape_.batch * shape_.kv_heads);
    const int l = static_cast<int>(seq);
    const int lq = static_cast<int>(q_seq);
    const int d = static_cast<int>(dim);
    const cudaDataType_t type = cublas_type(shape_.dtype);
    const float scale = softmax_scale();
    const float one = 1.0f;
    const float zero = 0.0f;

    for (int64_t r = 0; r < group_; ++r) {
      RFL_CUBLAS_CHECK(cublas_api().gemm_strided_batched_ex(
          cublas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, l, lq, d, &scale, k_.get(), type, d, seq * dim,
          q_.get() + r * q_seq * dim, type, d, group_ * q_seq * dim, &zero,
          s_.get() + r * q_seq * seq, type, l, group_ * q_seq * seq, batches, CUBLAS_COMPUTE_32F,
          CUBLAS_GEMM_DEFAULT));
    }
    launch_masked_softmax(s_.get(), p_.get(), shape_.batch * shape_.heads * q_seq, q_seq, seq,
                          shape_.causal, shape_.dtype, stream);
    for (int64_t r = 0; r < group_; ++r) {
      RFL_CUBLAS_CHECK(cublas_api().gemm_strided_batched_ex(
          cublas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, d, lq, l, &one, v_.get(), type, d, seq * dim,
          p_.get() + r * q_seq * seq, type, l, group_ * q_seq * seq, &zero,
          o_.get() + r * q_seq * dim, type, d, group_ * q_seq * dim, batches, CUBLAS_COMPUTE_32F,
          CUBLAS_GEMM_DEFAULT));
    }
  }

  // One name per launch() call into a library or kernel, in order. cuBLAS chooses its kernels
  // per shape and may run more than one per call (e.g. a split-K reduction); the GPU test
  // NaiveAttentionKernelCount checks this list against a captured graph.
  std::vector<std::string> kernel_names() const override {
    std::vector<std::string> names(static_cast<size_t>(group_), "cublas_qk_gemm");
    names.push_back("softmax");
    names.insert(names.end(), static_cast<size_t>(group_), "cublas_pv_gemm");
    return names;
  }

  std::string version() const override { return naive_attention_versions().front().name; }
  std::vector<DeviceTensorView> tensors() override {
    return {{"q", q_.get(), q_.count()},
            {"k", k_.get(), k_.count()},
            {"v", v_.get(), v_.count()},
            {"o", o_.get(), o_.count()}};
  }

 private:
  float softmax_scale() const { return 1.0f / std::sqrt(static_cast<float>(shape_.head_dim)); }

  AttentionProblem problem() const {
    AttentionProblem p;
    p.q = q_.get();
    p.k = k_.get();
    p.v = v_.get();
    p.batch = shape_.batch;
    p.heads = shape_.heads;
    p.kv_heads = shape_.kv_heads;
    p.head_dim = shape_.head_dim;
    p.q_len = shape_.query_len();
    p.kv_len = shape_.seq_len;
    p.causal = shape_.causal;
    p.dtype = shape_.dtype;
    p.scale = softmax_scale();
    return p;
  }

  Shape shape_;
  int64_t group_;  ///< GQA group g = heads / kv_heads
  DeviceBuffer<uint16_t> q_;
  DeviceBuffer<uint16_t> k_;
  DeviceBuffer<uint16_t> v_;
  DeviceBuffer<uint16_t> o_;
  DeviceBuffer<uint16_t> s_;
  DeviceBuffer<uint16_t> p_;
  DeviceBuffer<uint8_t> cublas_workspace_;
  CublasHandle cublas_;
};

void check_naive_attention_shape(const Shape& s) {
  validate_common_shape(s);
  validate_score_matrix_size(s);  // S and P are stored in device memory
  if (s.head_dim % 8 != 0) {
    throw bad_input(fmt::format(
        "invalid head-dim {} for naive_attention: must be a multiple of 8 (16-byte rows of Q, "
        "K, V and O for cuBLAS's tensor-core kernels)",
        s.head_dim));
  }
  // cuBLAS takes int sizes and batch counts; the softmax runs at most one block per row of S.
  if (s.seq_len > INT_MAX || s.batch * s.kv_heads > INT_MAX ||
      s.batch * s.heads * s.query_len() > INT_MAX) {
    throw bad_input(fmt::format(
        "naive_attention shape too large: seq_len {}, batch × kv-heads {} and batch × heads × "
        "q_len {} must each be at most {}",
        s.seq_len, s.batch * s.kv_heads, s.batch * s.heads * s.query_len(), INT_MAX));
  }
}

}  // namespace

// Analytic model (src/model): FLOPs = 4·B·H·L_q·L·d (two GEMMs of 2·L_q·L·d per head, L_q =
// query_len(); the causal mask does not reduce them, cuBLAS computes all of S). Minimum DRAM
// bytes = (2·B·H·L_q + 2·B·H_kv·L)·d·e (Q, K, V read, O written) + 4·B·H·L_q·L·e (S and P each
// written once and read once), e = 2 bytes.
OperatorSpec naive_attention_spec() {
  OperatorSpec spec;
  spec.name = kNaiveAttentionOp;
  spec.summary = "S = QKᵀ (cuBLAS), P = softmax(S), O = PV (cuBLAS); S and P materialized in HBM";
  spec.pipe = constant_pipe(Pipe::kTensor);
  spec.mma_inputs = dtype_mma_inputs;
  spec.check_shape = check_naive_attention_shape;
  // Q, K, V, O, S and P plus the cuBLAS workspace (at L = 32768, B = 1, H = 16: S and P are
  // 2 × 32 GiB). The reference's own scratch is small (≤ 8192 fp32 rows of head_dim).
  spec.device_bytes = [](const Shape& s) {
    const int64_t e = dtype_size_bytes(s.dtype);
    const int64_t qo = 2 * s.batch * s.heads * s.query_len() * s.head_dim;
    const int64_t kv = 2 * s.batch * s.kv_heads * s.seq_len * s.head_dim;
    const int64_t sp = 2 * s.batch * s.heads * s.query_len() * s.seq_len;
    return (qo + kv + sp) * e + kCublasWorkspaceBytes;
  };
  spec.versions = naive_attention_versions();
  spec.default_version = naive_attention_versions().front().key;
  spec.create = [](const Shape& s, const std::string& version_key) -> std::unique_ptr<OperatorRun> {
    // The key is checked, not chosen: there is one version.
    find_kernel_version("naive_attention", naive_attention_versions(),
                        naive_attention_versions().front().key, version_key);
    return std::make_unique<NaiveAttentionRun>(s);
  };
  return spec;
}

}  // namespace rooflinectl
