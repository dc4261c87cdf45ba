// Decode attention: one query token per sequence against a KV cache of L = seq_len positions.
// Q, O: [batch, heads, head_dim]; K, V: [batch, kv_heads, L, head_dim]; 16-bit, fp32 math.
// Query head h reads KV head h / g, g = heads / kv_heads (GQA; g = 1 is multi-head attention).
// O = softmax(q·Kᵀ·scale)·V with scale = 1/sqrt(head_dim). A single query sits at the last
// position, so a causal mask hides nothing and the causal flag is ignored.
//
// Versions:
//   decode_attention_v1_split_kv  flash-decoding (Dao, Haziza, Massa & Sizov 2023, "Flash-Decoding
//                                 for long-context inference"): the L keys are cut into
//                                 num_splits ranges so that B·H_kv·splits blocks fill the chip even
//                                 for batch 1. Each block streams its K/V range through shared
//                                 memory in 32-key tiles (cp.async, double-buffered, 16-byte
//                                 copies) and uses every K/V row for all the g query heads of its
//                                 KV head (up to 32 per block; larger groups are cut into chunks of
//                                 32 that re-read K/V, mostly from L2). fp32 FMA on CUDA cores: at
//                                 ~g FLOP/byte decode is memory-bound, so tensor cores would not
//                                 help. Online softmax (Milakov & Gimelshein 2018) in base 2 per
//                                 block yields a partial (max, sum, unnormalized o) per split in an
//                                 fp32 workspace; decode_combine merges the splits with the
//                                 log-sum-exp rescale and writes O.
//
// Analytic model (for src/model), e = 2:
//   FLOPs = 4·B·H·L·d: q·k (2·d per key) and p·v (2·d per key) per query head. The fp32 counters
//   also see the softmax (subtract, l update, per-tile rescale: ~3 FLOP per key and head, plus
//   d/16 per 32-key tile), about 1 + 3/(4·d) ≈ 1.01× the formula; exp2 runs on the MUFU pipe and
//   is counted nowhere.
//   Bytes = 2·B·H_kv·L·d·e (K and V read once) + 2·B·H·d·e (Q read, O written). Not counted: the
//   workspace, B·H·splits·(d + 2)·4 bytes written by decode_split_kv and read by decode_combine
//   (≤ 2% of the K/V bytes for g = 1 with the split heuristic below; it mostly stays in L2).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <type_traits>

#include "core/error.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/operator.hpp"
#include "kernels/reference_attention.hpp"

namespace rooflinectl {
namespace {

constexpr int kDecodeWarps = 4;
constexpr int kDecodeThreads = kDecodeWarps * 32;
constexpr int kTileKeys = 32;    // one key per lane in the score step
constexpr int kStages = 2;       // tile t+1 is in flight while tile t is used
constexpr int kElemsPerVec = 8;  // one 16-byte access of 16-bit elements
constexpr int kMaxHeadsPerWarp = 8;
constexpr int kMinTilesPerSplit = 2;  // keeps the per-split prologue and combine work small
constexpr int kMaxSplits = 256;       // bounds the workspace and the combine loop
constexpr double kLog2e = 1.4426950408889634;

/// Compile-time layout of one block's shared memory for head_dim `kHeadDim`, with up to
/// kDecodeWarps·kHeadsPerWarp query heads per block.
template <int kHeadDim, int kHeadsPerWarp>
struct DecodeTraits {
  static_assert(kHeadDim == 64 || kHeadDim == 128, "head_dim 64 or 128");
  static constexpr int kVecsPerRow = kHeadDim / kElemsPerVec;
  // 16 bytes of padding per row: in the score step lane j reads row j, and with a row stride of
  // 68 (d = 128) or 36 (d = 64) words, the 8 lanes of each 16-byte-access phase start 4 banks
  // apart, so the reads are conflict-free.
  static constexpr int kRowStride = kHeadDim + kElemsPerVec;
  static constexpr int kDimsPerLane = kHeadDim / 32;  // P·V step: lane owns consecutive dims
  static constexpr int kHeadsPerBlock = kDecodeWarps * kHeadsPerWarp;
  static constexpr int kTileElems = kTileKeys * kRowStride;  // one K or V tile
  static constexpr size_t kKvBytes = size_t{kStages} * 2 * kTileElems * sizeof(uint16_t);
  static constexpr size_t kQBytes = size_t{kHeadsPerBlock} * kHeadDim * sizeof(float);
  static constexpr size_t kPBytes = size_t{kHeadsPerBlock} * kTileKeys * sizeof(float);
  static constexpr size_t kSmemBytes = kKvBytes + kQBytes + kPBytes;
  static constexpr int kCopiesPerThread = kTileKeys * kVecsPerRow / kDecodeThreads;
  static_assert(kTileKeys * kVecsPerRow % kDecodeThreads == 0, "whole tile copies per thread");
  static_assert(kKvBytes % 16 == 0 && kQBytes % 16 == 0, "16-byte aligned smem regions");
};

/// Kernel arguments. Rows of Q, O and the workspace are indexed by b·heads + h.
struct DecodeParams {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* partial_o;    ///< [batch·heads, num_splits, head_dim] unnormalized Σ p·v per split
  float2* partial_ml;  ///< [batch·heads, num_splits] (max of log2-scaled scores, Σ 2^(s - max))
  int64_t kv_len;
  int64_t heads;
  int64_t kv_heads;
  int64_t group;           ///< g = heads / kv_heads
  int64_t keys_per_split;  ///< multiple of kTileKeys; the last split may be shorter
  int num_splits;
  float q_scale_log2;  ///< softmax scale · log2(e): scores come out ready for exp2
};

// ---------------------------------------------------------------------------------------------
// Device helpers.

template <class T>
struct Pair16;
template <>
struct Pair16<__nv_bfloat16> {
  using Type = __nv_bfloat162;
  static __device__ __forceinline__ float2 to_float2(Type v) { return __bfloat1622float2(v); }
};
template <>
struct Pair16<__half> {
  using Type = __half2;
  static __device__ __forceinline__ float2 to_float2(Type v) { return __half22float2(v); }
};

// Widens kCount (even) consecutive 16-bit elements at `src` (aligned to 2·kCount bytes).
template <class T, int kCount>
__device__ __forceinline__ void load_as_float(const T* src, float (&f)[kCount]) {
  static_assert(kCount == 2 || kCount == 4 || kCount == 8, "2, 4 or 8 elements");
  using Raw =
      std::conditional_t<kCount == 8, uint4, std::conditional_t<kCount == 4, uint2, uint32_t>>;
  const Raw raw = *reinterpret_cast<const Raw*>(src);
  const auto* pairs = reinterpret_cast<const typename Pair16<T>::Type*>(&raw);
#pragma unroll
  for (int i = 0; i < kCount / 2; ++i) {
    const float2 p = Pair16<T>::to_float2(pairs[i]);
    f[2 * i] = p.x;
    f[2 * i + 1] = p.y;
  }
}

// 16-byte global→shared copy that bypasses L1 (K/V are read once); when !valid the destination
// is zero-filled (src-size 0) so masked keys hold zeros, not stale bits that could be NaN.
__device__ __forceinline__ void cp_async_16(void* smem_dst, const void* gmem_src, bool valid) {
  const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src),
               "r"(src_bytes)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most kPending of this thread's committed copy groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Kernels.

// Grid (batch·kv_heads, num_splits, head chunks). Block (x, y, z) takes keys
// [y·keys_per_split, min(L, (y+1)·keys_per_split)) of KV head x and the query heads
// z·kHeadsPerBlock ... of its group. Warp w owns heads w, w + kDecodeWarps, ...; in the score step
// its lane j is key j of the tile (a full dot product per lane, K row from shared memory, q
// broadcast), in the P·V step lane c owns dims [c·d/32, (c+1)·d/32). Each lane keeps its own
// running sum l (the tile max is warp-wide, so every lane rescales alike) and the lanes' sums
// are added once at the end.
template <class T, int kHeadDim, int kHeadsPerWarp>
__global__ void __launch_bounds__(kDecodeThreads) decode_split_kv_kernel(const DecodeParams p) {
  using Tr = DecodeTraits<kHeadDim, kHeadsPerWarp>;
  extern __shared__ __align__(16) unsigned char smem[];
  T* kv_smem = reinterpret_cast<T*>(smem);  // [kStages][K, V][kTileKeys][kRowStride]
  float* q_smem = reinterpret_cast<float*>(smem + Tr::kKvBytes);  // [kHeadsPerBlock][kHeadDim]
  float* p_smem = q_smem + Tr::kHeadsPerBlock * kHeadDim;         // [kHeadsPerBlock][kTileKeys]

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int64_t batch_kv = blockIdx.x;
  const int64_t b = batch_kv / p.kv_heads;
  const int64_t kv_head = batch_kv % p.kv_heads;
  const int split = blockIdx.y;
  const int64_t head_begin = static_cast<int64_t>(blockIdx.z) * Tr::kHeadsPerBlock;
  const int heads_here = static_cast<int>(min(p.group - head_begin, int64_t{Tr::kHeadsPerBlock}));
  const int64_t row0 = b * p.heads + kv_head * p.group + head_begin;
  const int64_t key_begin = split * p.keys_per_split;
  const int64_t key_end = min(p.kv_len, key_begin + p.keys_per_split);
  const T* k = static_cast<const T*>(p.k) + batch_kv * p.kv_len * kHeadDim;
  const T* v = static_cast<const T*>(p.v) + batch_kv * p.kv_len * kHeadDim;

  auto load_tile = [&](int64_t tile_key0, int stage) {
    T* ks = kv_smem + stage * 2 * Tr::kTileElems;
    T* vs = ks + Tr::kTileElems;
#pragma unroll
    for (int c = 0; c < Tr::kCopiesPerThread; ++c) {
      const int i = threadIdx.x + c * kDecodeThreads;  // consecutive threads: consecutive 16 B
      const int row = i / Tr::kVecsPerRow;
      const int col = (i % Tr::kVecsPerRow) * kElemsPerVec;
      const int64_t key = tile_key0 + row;
      const bool valid = key < key_end;
      const int64_t src = (valid ? key : key_begin) * kHeadDim + col;  // in bounds either way
      cp_async_16(ks + row * Tr::kRowStride + col, k + src, valid);
      cp_async_16(vs + row * Tr::kRowStride + col, v + src, valid);
    }
    cp_async_commit();
  };

  load_tile(key_begin, 0);
  const T* q = static_cast<const T*>(p.q) + row0 * kHeadDim;
  for (int i = threadIdx.x; i < heads_here * kHeadDim; i += kDecodeThreads) {
    q_smem[i] = static_cast<float>(q[i]) * p.q_scale_log2;
  }

  float o[kHeadsPerWarp][Tr::kDimsPerLane] = {};
  float m[kHeadsPerWarp];
  float l[kHeadsPerWarp];
#pragma unroll
  for (int hh = 0; hh < kHeadsPerWarp; ++hh) {
    m[hh] = -INFINITY;
    l[hh] = 0.0f;
  }

  const int num_tiles = static_cast<int>((key_end - key_begin + kTileKeys - 1) / kTileKeys);
  for (int tile = 0; tile < num_tiles; ++tile) {
    const int64_t tile_key0 = key_begin + static_cast<int64_t>(tile) * kTileKeys;
    if (tile + 1 < num_tiles) {
      load_tile(tile_key0 + kTileKeys, (tile + 1) % kStages);
    } else {
      cp_async_commit();  // empty group: "all but the newest group done" still means this tile
    }
    cp_async_wait<1>();
    __syncthreads();  // this tile (and, on the first pass, q_smem) visible to every thread
    const T* ks = kv_smem + (tile % kStages) * 2 * Tr::kTileElems;
    const T* vs = ks + Tr::kTileElems;

    float s[kHeadsPerWarp] = {};
#pragma unroll
    for (int c = 0; c < Tr::kVecsPerRow; ++c) {
      float kf[kElemsPerVec];
      load_as_float<T, kElemsPerVec>(ks + lane * Tr::kRowStride + c * kElemsPerVec, kf);
#pragma unroll
      for (int hh = 0; hh < kHeadsPerWarp; ++hh) {
        const int h = warp + hh * kDecodeWarps;
        if (h < heads_here) {
          const float* qh = q_smem + h * kHeadDim + c * kElemsPerVec;
          const float4 q0 = *reinterpret_cast<const float4*>(qh);
          const float4 q1 = *reinterpret_cast<const float4*>(qh + 4);
          s[hh] = fmaf(q0.x, kf[0], s[hh]);
          s[hh] = fmaf(q0.y, kf[1], s[hh]);
          s[hh] = fmaf(q0.z, kf[2], s[hh]);
          s[hh] = fmaf(q0.w, kf[3], s[hh]);
          s[hh] = fmaf(q1.x, kf[4], s[hh]);
          s[hh] = fmaf(q1.y, kf[5], s[hh]);
          s[hh] = fmaf(q1.z, kf[6], s[hh]);
          s[hh] = fmaf(q1.w, kf[7], s[hh]);
        }
      }
    }

    const bool key_valid = tile_key0 + lane < key_end;
#pragma unroll
    for (int hh = 0; hh < kHeadsPerWarp; ++hh) {
      const int h = warp + hh * kDecodeWarps;
      if (h < heads_here) {
        // Every tile holds at least one valid key, so m_new is finite; on the first tile
        // m = -inf and alpha = 0 clears nothing but the zero-initialised o and l.
        const float score = key_valid ? s[hh] : -INFINITY;
        const float m_new = fmaxf(m[hh], warp_max(score));
        const float alpha = exp2f(m[hh] - m_new);
        const float prob = exp2f(score - m_new);
        l[hh] = fmaf(l[hh], alpha, prob);
        m[hh] = m_new;
#pragma unroll
        for (int d = 0; d < Tr::kDimsPerLane; ++d) o[hh][d] *= alpha;
        p_smem[h * kTileKeys + lane] = prob;
      }
    }
    __syncwarp();  // a warp reads back only the probabilities it wrote

#pragma unroll 2
    for (int j = 0; j < kTileKeys; j += 4) {
      float vf[4][Tr::kDimsPerLane];
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        load_as_float<T, Tr::kDimsPerLane>(vs + (j + jj) * Tr::kRowStride + lane * Tr::kDimsPerLane,
                                           vf[jj]);
      }
#pragma unroll
      for (int hh = 0; hh < kHeadsPerWarp; ++hh) {
        const int h = warp + hh * kDecodeWarps;
        if (h < heads_here) {
          const float4 pr = *reinterpret_cast<const float4*>(p_smem + h * kTileKeys + j);
#pragma unroll
          for (int d = 0; d < Tr::kDimsPerLane; ++d) {
            float acc = o[hh][d];
            acc = fmaf(pr.x, vf[0][d], acc);
            acc = fmaf(pr.y, vf[1][d], acc);
            acc = fmaf(pr.z, vf[2][d], acc);
            acc = fmaf(pr.w, vf[3][d], acc);
            o[hh][d] = acc;
          }
        }
      }
    }
    __syncthreads();  // next iteration copies tile + 2 into the stage just read
  }

#pragma unroll
  for (int hh = 0; hh < kHeadsPerWarp; ++hh) {
    const int h = warp + hh * kDecodeWarps;
    if (h < heads_here) {
      const float l_total = warp_sum(l[hh]);
      const int64_t slot = (row0 + h) * p.num_splits + split;
      float* dst = p.partial_o + slot * kHeadDim + lane * Tr::kDimsPerLane;
#pragma unroll
      for (int d = 0; d < Tr::kDimsPerLane; ++d) dst[d] = o[hh][d];
      if (lane == 0) p.partial_ml[slot] = make_float2(m[hh], l_total);
    }
  }
}

// One block per query row (b·heads + h), one thread per dim: O = Σ_s 2^(m_s - M)·o_s /
// Σ_s 2^(m_s - M)·l_s with M = max_s m_s (every split has at least one key, so l_s > 0).
template <class T, int kHeadDim>
__global__ void __launch_bounds__(kHeadDim) decode_combine_kernel(const DecodeParams p) {
  const int64_t row = blockIdx.x;
  const float2* ml = p.partial_ml + row * p.num_splits;
  const float* po = p.partial_o + row * p.num_splits * kHeadDim + threadIdx.x;
  float m_max = -INFINITY;
  for (int s = 0; s < p.num_splits; ++s) m_max = fmaxf(m_max, ml[s].x);
  float l_sum = 0.0f;
  float acc = 0.0f;
  for (int s = 0; s < p.num_splits; ++s) {
    const float2 stat = ml[s];
    const float w = exp2f(stat.x - m_max);
    l_sum = fmaf(stat.y, w, l_sum);
    acc = fmaf(po[static_cast<int64_t>(s) * kHeadDim], w, acc);
  }
  static_cast<T*>(p.o)[row * kHeadDim + threadIdx.x] = T(acc / l_sum);
}

// ---------------------------------------------------------------------------------------------
// Launch plan.

using DecodeKernel = void (*)(DecodeParams);

struct DecodeKernels {
  DecodeKernel split;
  DecodeKernel combine;
  size_t split_smem_bytes;
};

template <class T, int kHeadDim, int kHeadsPerWarp>
DecodeKernels kernels_for() {
  return {&decode_split_kv_kernel<T, kHeadDim, kHeadsPerWarp>, &decode_combine_kernel<T, kHeadDim>,
          DecodeTraits<kHeadDim, kHeadsPerWarp>::kSmemBytes};
}

template <class T, int kHeadDim>
DecodeKernels kernels_for_dim(int heads_per_warp) {
  switch (heads_per_warp) {
    case 1:
      return kernels_for<T, kHeadDim, 1>();
    case 2:
      return kernels_for<T, kHeadDim, 2>();
    case 4:
      return kernels_for<T, kHeadDim, 4>();
    default:
      return kernels_for<T, kHeadDim, kMaxHeadsPerWarp>();
  }
}

template <class T>
DecodeKernels kernels_for_type(int64_t head_dim, int heads_per_warp) {
  return head_dim == 64 ? kernels_for_dim<T, 64>(heads_per_warp)
                        : kernels_for_dim<T, 128>(heads_per_warp);
}

/// Split count (flash-decoding heuristic): enough splits that base_blocks·splits reaches one
/// full wave of resident blocks (sm_count × resident_blocks_per_sm), so every SM streams K/V even
/// at batch 1; but no split shorter than kMinTilesPerSplit tiles (the Q load, pipeline fill and
/// the workspace round trip are per split), and at most kMaxSplits. Pure function; ≥ 1.
int choose_num_splits(int64_t base_blocks, int64_t kv_len, int sm_count,
                      int resident_blocks_per_sm) {
  const int64_t wave = int64_t{sm_count} * std::max(resident_blocks_per_sm, 1);
  const int64_t to_fill = (wave + base_blocks - 1) / base_blocks;
  const int64_t by_length = std::max<int64_t>(1, kv_len / (kMinTilesPerSplit * kTileKeys));
  return static_cast<int>(std::clamp<int64_t>(std::min(to_fill, by_length), 1, kMaxSplits));
}

/// Everything the launches of one shape need; the same plan sizes the workspace.
struct DecodePlan {
  DecodeKernels kernels;
  int heads_per_warp = 1;
  int64_t head_chunks = 1;  ///< blocks per KV head along the GQA group (gridDim.z)
  int num_splits = 1;
  int64_t keys_per_split = 0;
};

// Queries the current device (SM count, occupancy of the chosen kernel) and sets the kernel's
// dynamic shared-memory limit, which the occupancy query and the launch both need.
DecodePlan make_decode_plan(const Shape& s) {
  DecodePlan plan;
  const int64_t group = s.group_size();
  const int64_t heads_per_block_needed = std::min<int64_t>(group, kDecodeWarps * kMaxHeadsPerWarp);
  const int64_t per_warp = (heads_per_block_needed + kDecodeWarps - 1) / kDecodeWarps;
  while (plan.heads_per_warp < per_warp) plan.heads_per_warp *= 2;
  const int64_t heads_per_block = int64_t{kDecodeWarps} * plan.heads_per_warp;
  plan.head_chunks = (group + heads_per_block - 1) / heads_per_block;
  plan.kernels = s.dtype == Dtype::kBf16
                     ? kernels_for_type<__nv_bfloat16>(s.head_dim, plan.heads_per_warp)
                     : kernels_for_type<__half>(s.head_dim, plan.heads_per_warp);

  const int64_t base_blocks = s.batch * s.kv_heads * plan.head_chunks;
  if (s.batch * s.kv_heads > INT_MAX || plan.head_chunks > 65535 || s.batch * s.heads > INT_MAX) {
    throw bad_input(fmt::format(
        "decode_attention: batch {} × kv-heads {} (heads {}) exceeds the launch grid limits",
        s.batch, s.kv_heads, s.heads));
  }
  int device = 0;
  int sm_count = 0;
  int resident = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  RFL_CUDA_CHECK(cudaFuncSetAttribute(plan.kernels.split,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(plan.kernels.split_smem_bytes)));
  RFL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &resident, plan.kernels.split, kDecodeThreads, plan.kernels.split_smem_bytes));
  const int splits = choose_num_splits(base_blocks, s.seq_len, sm_count, resident);
  // Round the range up to whole tiles, then drop splits that would be left empty.
  const int64_t per_split = (s.seq_len + splits - 1) / splits;
  plan.keys_per_split = (per_split + kTileKeys - 1) / kTileKeys * kTileKeys;
  plan.num_splits = static_cast<int>((s.seq_len + plan.keys_per_split - 1) / plan.keys_per_split);
  return plan;
}

int64_t workspace_floats(const Shape& s, const DecodePlan& plan) {
  return s.batch * s.heads * plan.num_splits * s.head_dim;
}

int64_t workspace_stats(const Shape& s, const DecodePlan& plan) {
  return s.batch * s.heads * plan.num_splits;
}

class DecodeAttentionRun final : public OperatorRun {
 public:
  explicit DecodeAttentionRun(const Shape& shape)
      : shape_(shape),
        plan_(make_decode_plan(shape)),
        q_(shape.batch * shape.heads * shape.head_dim),
        k_(shape.batch * shape.kv_heads * shape.seq_len * shape.head_dim),
        v_(k_.count()),
        o_(q_.count()),
        partial_o_(workspace_floats(shape, plan_)),
        partial_ml_(workspace_stats(shape, plan_)) {}

  void fill_random(uint64_t seed) override {
    // q twice as wide as k so the softmax is not nearly flat (score std ≈ 0.67 at any head_dim).
    fill_uniform(q_.get(), q_.count(), shape_.dtype, seed, -2.0f, 2.0f);
    fill_uniform(k_.get(), k_.count(), shape_.dtype, seed + 1, -1.0f, 1.0f);
    fill_uniform(v_.get(), v_.count(), shape_.dtype, seed + 2, -1.0f, 1.0f);
  }

  Validation validate() override {
    launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    AttentionProblem problem;
    problem.q = q_.get();
    problem.k = k_.get();
    problem.v = v_.get();
    problem.batch = shape_.batch;
    problem.heads = shape_.heads;
    problem.kv_heads = shape_.kv_heads;
    problem.head_dim = shape_.head_dim;
    problem.q_len = 1;
    problem.kv_len = shape_.seq_len;
    problem.causal = false;  // the single query sees every key either way
    problem.dtype = shape_.dtype;
    problem.scale = softmax_scale();
    return validate_attention_output(problem, o_.get(), default_tolerance(shape_.dtype));
  }

  void launch(cudaStream_t stream) override {
    DecodeParams params;
    params.q = q_.get();
    params.k = k_.get();
    params.v = v_.get();
    params.o = o_.get();
    params.partial_o = partial_o_.get();
    params.partial_ml = partial_ml_.get();
    params.kv_len = shape_.seq_len;
    params.heads = shape_.heads;
    params.kv_heads = shape_.kv_heads;
    params.group = shape_.group_size();
    params.keys_per_split = plan_.keys_per_split;
    params.num_splits = plan_.num_splits;
    params.q_scale_log2 = static_cast<float>(softmax_scale() * kLog2e);
    const dim3 split_grid(static_cast<unsigned>(shape_.batch * shape_.kv_heads),
                          static_cast<unsigned>(plan_.num_splits),
                          static_cast<unsigned>(plan_.head_chunks));
    plan_.kernels.split<<<split_grid, kDecodeThreads, plan_.kernels.split_smem_bytes, stream>>>(
        params);
    RFL_CHECK_LAUNCH();
    plan_.kernels.combine<<<static_cast<unsigned>(shape_.batch * shape_.heads),
                            static_cast<unsigned>(shape_.head_dim), 0, stream>>>(params);
    RFL_CHECK_LAUNCH();
  }

  std::vector<std::string> kernel_names() const override {
    return {"decode_split_kv", "decode_combine"};
  }

  std::string version() const override { return "decode_attention_v1_split_kv"; }
  std::vector<DeviceTensorView> tensors() override {
    return {{"q", q_.get(), q_.count()}, {"k", k_.get(), k_.count()},
            {"v", v_.get(), v_.count()}, {"o", o_.get(), o_.count()}};
  }

 private:
  double softmax_scale() const { return 1.0 / std::sqrt(static_cast<double>(shape_.head_dim)); }

  Shape shape_;
  DecodePlan plan_;
  DeviceBuffer<uint16_t> q_;
  DeviceBuffer<uint16_t> k_;
  DeviceBuffer<uint16_t> v_;
  DeviceBuffer<uint16_t> o_;
  DeviceBuffer<float> partial_o_;
  DeviceBuffer<float2> partial_ml_;
};

void check_decode_shape(const Shape& shape) {
  validate_common_shape(shape);
  if (shape.head_dim != 64 && shape.head_dim != 128) {
    throw bad_input(fmt::format("decode_attention: head-dim {} is not supported: allowed 64, 128",
                                shape.head_dim));
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Registration.

OperatorSpec decode_attention_spec() {
  OperatorSpec spec;
  spec.name = "decode_attention";
  spec.summary = "one query token per sequence over a KV cache of L positions (GQA, split-KV)";
  spec.pipe = Pipe::kFp32;
  spec.check_shape = check_decode_shape;
  // Q and O [B, H, d], K and V [B, H_kv, L, d] in dtype; fp32 workspace [B·H, splits, d + 2].
  // The split count depends on the current device (SM count, occupancy), hence the plan.
  spec.device_bytes = [](const Shape& shape) {
    const DecodePlan plan = make_decode_plan(shape);
    const int64_t e = dtype_size_bytes(shape.dtype);
    return 2 * shape.batch * shape.heads * shape.head_dim * e +
           2 * shape.batch * shape.kv_heads * shape.seq_len * shape.head_dim * e +
           workspace_floats(shape, plan) * int64_t{sizeof(float)} +
           workspace_stats(shape, plan) * int64_t{sizeof(float2)};
  };
  spec.create = [](const Shape& shape) -> std::unique_ptr<OperatorRun> {
    return std::make_unique<DecodeAttentionRun>(shape);
  };
  return spec;
}

}  // namespace rooflinectl
