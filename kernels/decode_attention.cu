// Decode attention: one query token per sequence against a KV cache of L = seq_len positions.
// Q, O: [batch, heads, head_dim]; K, V: [batch, kv_heads, L, head_dim]; 16-bit, fp32 math.
// Paged (--kv-layout paged): K, V [pages, kv_heads, P, head_dim], position t of sequence b at row
// t mod P of page block_table[b][t / P], pages scattered (scattered_block_table); each kernel
// has a paged instantiation that differs only in where a key's row is (kv_row, step_row).
// Query head h reads KV head h / g, g = heads / kv_heads (GQA; g = 1 is multi-head attention).
// O = softmax(q·Kᵀ·scale)·V, scale = 1/sqrt(head_dim); the single query sits at the last
// position, so a causal mask hides nothing and the causal flag is ignored.
// Both versions cut the B·H_kv·L keys, one flat range, into one wave of equal parts
// (flash-decoding, Dao, Haziza, Massa & Sizov 2023, with an exact split), stream K and V from
// global memory straight into registers, and merge in the same launch: the last block of a KV head
// merges the parts' fp32 partials and writes O (kernels/decode_partials.hpp, arrive_ticket).
//   decode_attention_v4_flat_fused_merge (g = 1): fp32 FMA on CUDA cores, an online softmax
//     (Milakov & Gimelshein 2018) in base 2 per group of d/8 lanes.
//   decode_attention_v5_mma_gqa_fused_merge (g ≥ 2): the dot products on tensor cores (mma.sync
//     m16n8k16), the block's 8 or 16 query heads as M.
// The earlier versions and the measurements: docs/perf-notes.md (decode_attention_v1 … v5).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/kernel_tiles.hpp"
#include "core/kernel_version.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/pack_pair.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/decode_partials.hpp"
#include "kernels/operator.hpp"
#include "kernels/reference_attention.hpp"

namespace rooflinectl {
namespace {

using decode::block_part;
using decode::BlockPart;
using decode::DecodeParams;
using decode::finish_segment;
using decode::kv_row;
using decode::kv_segment;
using decode::KvSegment;
using decode::merge_state;
using decode::step_row;
using decode::step_rows;
using decode::StepRows;

constexpr int kDecodeWarps = 8;
constexpr int kDecodeThreads = kDecodeWarps * 32;
// Partials each thread of the final merge loads at once (merge_parts): small enough that the
// merge fits the CUDA-core kernel's 64 registers (4 blocks of 256 threads per SM); at g = 1 the
// merge spreads a head's parts over up to 8 threads per output vector instead.
constexpr int kFlatMergeBatch = 4;
constexpr double kLog2e = 1.4426950408889634;

/// Compile-time layout of a warp's work for head_dim `kHeadDim` and up to `kHeads` query heads.
template <int kHeadDim, int kHeads>
struct DecodeTraits {
  static_assert(kHeadDim == 64 || kHeadDim == 128, "head_dim 64 or 128");
  static constexpr int kLanesPerRow = kHeadDim / kElemsPerVec;  // 16 or 8 lanes read one key row
  static constexpr int kRowsPerLoad = 32 / kLanesPerRow;        // keys per warp load instruction
  // Rows of K and of V each lane loads per step before any math: 4 + 4 sixteen-byte loads
  // (128 B) per lane; 2 + 2 with 8 heads, whose q and o already take 128 registers.
  static constexpr int kLoads = kHeads >= 8 ? 2 : 4;
  static constexpr int kKeysPerStep = kLoads * kRowsPerLoad;  // keys per warp per step
};

// ---------------------------------------------------------------------------------------------
// Device helpers.

// 16-byte load of data read once: through the non-coherent path, not kept in L1.
__device__ __forceinline__ uint4 load_streaming(const void* src) {
  uint4 r;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(src));
  return r;
}

// ---------------------------------------------------------------------------------------------
// Kernels.

// Grid (parts, head chunks). Block (x, z) streams part x for query heads z·kHeads ... of each
// group it touches, one segment (the part's keys in one KV head) at a time. In a segment, warp w
// takes steps of kKeysPerStep consecutive keys, w·kKeysPerStep apart from its neighbours' (the
// block reads the segment front to back); lane group r = lane / kLanesPerRow of a warp takes key
// step + i·kRowsPerLoad + r for i < kLoads, and lane c within the group owns dims
// [8c, 8c + 8) of every row and of q and o. A key's score is the 16- (or 8-) lane sum of the
// group's partial dot products; each lane group keeps its own online softmax, merged across
// groups (shuffles), then warps (shared memory) at the end of the segment. Launch bound: 4 blocks
// per SM (64 registers), v2's occupancy, which the folded-in merge must not lower.
template <class T, int kHeadDim, int kHeads, KvLayout kLayout>
__global__ void __launch_bounds__(kDecodeThreads, 4) decode_split_kv_kernel(const DecodeParams p) {
  using Tr = DecodeTraits<kHeadDim, kHeads>;
  // 16-byte aligned: finish_segment reads and writes it as float4.
  __shared__ __align__(16) float warp_o[kDecodeWarps][kHeads][kHeadDim];
  __shared__ float2 warp_ml[kDecodeWarps][kHeads];

  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int row_in_load = lane / Tr::kLanesPerRow;
  const int col = (lane % Tr::kLanesPerRow) * kElemsPerVec;
  const BlockPart part = block_part<kHeads>(p);
  const int heads_here = part.heads_here;
  const T* k = static_cast<const T*>(p.k);
  const T* v = static_cast<const T*>(p.v);

  for (int64_t seg_begin = part.begin; seg_begin < part.end;) {
    const int64_t batch_kv = seg_begin / p.kv_len;
    const int64_t seg_end = min(part.end, (batch_kv + 1) * p.kv_len);
    const int64_t row0 = batch_kv * p.group + part.head_begin;  // first query row of the block
    const KvSegment seg = kv_segment<kLayout>(p, batch_kv);

    float q[kHeads][kElemsPerVec];
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
      if (h < heads_here) {
        unpack8<T>(*reinterpret_cast<const uint4*>(static_cast<const T*>(p.q) +
                                                   (row0 + h) * kHeadDim + col),
                   q[h]);
#pragma unroll
        for (int c = 0; c < kElemsPerVec; ++c) q[h][c] *= p.q_scale_log2;
      } else {
#pragma unroll
        for (int c = 0; c < kElemsPerVec; ++c) q[h][c] = 0.0f;
      }
    }
    float o[kHeads][kElemsPerVec] = {};
    float m[kHeads];
    float l[kHeads];
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
      m[h] = -INFINITY;
      l[h] = 0.0f;
    }

    for (int64_t step = seg_begin + int64_t{warp} * Tr::kKeysPerStep; step < seg_end;
         step += int64_t{kDecodeWarps} * Tr::kKeysPerStep) {
      uint4 k_raw[Tr::kLoads];
      uint4 v_raw[Tr::kLoads];
      bool valid[Tr::kLoads];
#pragma unroll
      for (int i = 0; i < Tr::kLoads; ++i) {
        const int64_t key = step + i * Tr::kRowsPerLoad + row_in_load;
        valid[i] = key < seg_end;
        k_raw[i] = make_uint4(0, 0, 0, 0);
        v_raw[i] = make_uint4(0, 0, 0, 0);
        if (valid[i]) {
          const int64_t row = kv_row<kLayout>(p, seg, key);
          k_raw[i] = load_streaming(k + row * kHeadDim + col);
          v_raw[i] = load_streaming(v + row * kHeadDim + col);
        }
      }

      float s[kHeads][Tr::kLoads];
#pragma unroll
      for (int i = 0; i < Tr::kLoads; ++i) {
        float kf[kElemsPerVec];
        unpack8<T>(k_raw[i], kf);
#pragma unroll
        for (int h = 0; h < kHeads; ++h) {
          float acc = 0.0f;
#pragma unroll
          for (int c = 0; c < kElemsPerVec; ++c) acc = fmaf(q[h][c], kf[c], acc);
          s[h][i] = acc;
        }
      }
#pragma unroll
      for (int h = 0; h < kHeads; ++h) {
        if (h < heads_here) {
#pragma unroll
          for (int i = 0; i < Tr::kLoads; ++i) {
#pragma unroll
            for (int offset = Tr::kLanesPerRow / 2; offset > 0; offset /= 2) {
              s[h][i] += __shfl_xor_sync(0xffffffffu, s[h][i], offset);
            }
          }
          float step_max = -INFINITY;
#pragma unroll
          for (int i = 0; i < Tr::kLoads; ++i) {
            if (valid[i]) step_max = fmaxf(step_max, s[h][i]);
          }
          const float m_new = fmaxf(m[h], step_max);
          // No valid key seen yet by this lane group: every probability is 0 and alpha is 0.
          const float m_ref = m_new == -INFINITY ? 0.0f : m_new;
          const float alpha = exp2f(m[h] - m_ref);
          float sum = 0.0f;
#pragma unroll
          for (int i = 0; i < Tr::kLoads; ++i) {
            s[h][i] = valid[i] ? exp2f(s[h][i] - m_ref) : 0.0f;
            sum += s[h][i];
          }
          l[h] = fmaf(l[h], alpha, sum);
          m[h] = m_new;
#pragma unroll
          for (int c = 0; c < kElemsPerVec; ++c) o[h][c] *= alpha;
        }
      }
#pragma unroll
      for (int i = 0; i < Tr::kLoads; ++i) {
        float vf[kElemsPerVec];
        unpack8<T>(v_raw[i], vf);
#pragma unroll
        for (int h = 0; h < kHeads; ++h) {
          if (h < heads_here) {
#pragma unroll
            for (int c = 0; c < kElemsPerVec; ++c) o[h][c] = fmaf(s[h][i], vf[c], o[h][c]);
          }
        }
      }
    }

    // Lane groups of the warp hold the same dims for different keys: merge them.
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
      if (h < heads_here) {
#pragma unroll
        for (int offset = Tr::kLanesPerRow; offset < 32; offset *= 2) {
          float o2[kElemsPerVec];
#pragma unroll
          for (int c = 0; c < kElemsPerVec; ++c)
            o2[c] = __shfl_xor_sync(0xffffffffu, o[h][c], offset);
          const float m2 = __shfl_xor_sync(0xffffffffu, m[h], offset);
          const float l2 = __shfl_xor_sync(0xffffffffu, l[h], offset);
          merge_state(m[h], l[h], o[h], m2, l2, o2);
        }
        if (row_in_load == 0) {
#pragma unroll
          for (int c = 0; c < kElemsPerVec; ++c) warp_o[warp][h][col + c] = o[h][c];
          if (lane == 0) warp_ml[warp][h] = make_float2(m[h], l[h]);
        }
      }
    }
    finish_segment<T, kDecodeThreads, kFlatMergeBatch>(warp_o, warp_ml, p, part, batch_kv);
    seg_begin = seg_end;
  }
}

// ---------------------------------------------------------------------------------------------
// GQA path (g ≥ 2): tensor-core dot products.

constexpr int kMmaWarps = 4;
constexpr int kMmaThreads = kMmaWarps * 32;
constexpr int kMmaKeys = 16;  // keys per warp step: two n8 score tiles, one k16 P·V step
static_assert(kMmaKeys <= decode::kMaxStepKeys, "step_rows covers a step");
// Partials per merge batch: the ≤ 10 parts of a KV head at the benchmark's g = 4 (528 parts over
// 64 KV heads) in one round of loads, within the kernel's 128 registers (12 spilled 16 bytes at
// d = 128 once the ticket protocol was added).
constexpr int kMmaMergeBatch = 10;

/// c += a · b for one m16n8k16 tile, fp32 accumulate (PTX ISA, "Matrix Fragments for
/// mma.m16n8k16 with floating point type": lane = 4·group + tid; a: rows group, group + 8,
/// columns 2·tid.. and 8 + 2·tid..; b: rows 2·tid.., 8 + 2·tid.., column group; c: rows group,
/// group + 8, columns 2·tid, 2·tid + 1; the lower element of each pair in the low 16 bits).
template <class T>
__device__ __forceinline__ void mma_16816(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2,
                                          uint32_t a3, uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
}

__device__ __forceinline__ uint32_t word(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// Grid (parts, head chunks), kMmaWarps warps. Same flat split, segments and block merge as
// decode_split_kv_kernel; a warp step is 16 consecutive keys key0 + n and the block's
// kHeadTiles·8 query heads (rows ≥ heads_here are zero queries, computed and never written).
// With lane = 4·group + tid:
//   S = Q·Kᵀ (m16n8k16, M = heads, N = 8 keys, K = d), two key tiles. The d order inside a k16
//     step is permuted (a dot product is order-free): lane loads K row key0 + 8t + group and the
//     query row(s) group (and group + 8) at d = 32i + 8·tid .. + 8, one 16-byte vector per i,
//     and that vector's words (x, y) / (z, w) are the (b0, b1) of k-steps 2i / 2i + 1. Rows
//     group + 8 of Q are heads 8..15 (kHeadTiles 2) or zero.
//   The S accumulator (row = head, column = key 2·tid, 2·tid + 1 of tile t) packed to 16 bits
//     is exactly the B fragment (rows = keys, column = head) of Oᵀ = Vᵀ·Pᵀ (M = d, N = 8 heads,
//     K = 16 keys): no shuffle between the two products.
//   Vᵀ as A: lane needs key pairs (2·tid, 2·tid + 1) and (8 + 2·tid, 9 + 2·tid) at one d. It
//     loads those 4 V rows at d = 64c + 8·group .. + 8 (c < d/64) and pairs the two keys'
//     16-bit elements with one byte permute per register. The M rows of d-tile j are
//     d = dim_of(j) (row group) and dim_of(d/16 + j) (row group + 8), see below.
// Each lane group of 4 lanes (one head row of S) keeps that head's running max; the P·V rescale
// needs the max of the heads in its accumulator columns (2·tid, 2·tid + 1), fetched by shuffle.
// Launch bound: 4 blocks per SM (128 registers) except 16 heads at d = 128 (220 registers, 2);
// 16 heads at d = 64 fit 128 without spills, and without the bound ptxas took 130 once DecodeParams
// grew by the paged-cache fields, which left 3 blocks per SM.
template <class T, int kHeadDim, int kHeadTiles, KvLayout kLayout>
__global__ void __launch_bounds__(kMmaThreads, kHeadTiles == 1 || kHeadDim == 64 ? 4 : 2)
    decode_split_kv_mma_kernel(const DecodeParams p) {
  constexpr int kHeads = kHeadTiles * 8;
  constexpr int kChunksK = kHeadDim / 32;   // 16-byte K (and q) vectors per key row per lane
  constexpr int kChunksV = kHeadDim / 64;   // 16-byte V vectors per key row per lane
  constexpr int kDimTiles = kHeadDim / 16;  // M tiles of Oᵀ
  // 16-byte aligned: finish_segment reads and writes it as float4.
  __shared__ __align__(16) float warp_o[kMmaWarps][kHeads][kHeadDim];
  __shared__ float2 warp_ml[kMmaWarps][kHeads];

  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int group = lane / 4;
  const int tid = lane % 4;
  // Lane's 16-bit element e < 2·kDimTiles of a V row (its 16-byte vectors, in order) is d:
  auto dim_of = [&](int e) { return (e / 8) * 64 + group * 8 + e % 8; };
  const BlockPart part = block_part<kHeads>(p);
  const int heads_here = part.heads_here;
  const T* k = static_cast<const T*>(p.k);
  const T* v = static_cast<const T*>(p.v);

  for (int64_t seg_begin = part.begin; seg_begin < part.end;) {
    const int64_t batch_kv = seg_begin / p.kv_len;
    const int64_t seg_end = min(part.end, (batch_kv + 1) * p.kv_len);
    const int64_t row0 = batch_kv * p.group + part.head_begin;  // first query row of the block
    const KvSegment seg = kv_segment<kLayout>(p, batch_kv);

    uint4 q[kHeadTiles][kChunksK];
#pragma unroll
    for (int ht = 0; ht < kHeadTiles; ++ht) {
      const int h = ht * 8 + group;
#pragma unroll
      for (int i = 0; i < kChunksK; ++i) {
        q[ht][i] = h < heads_here
                       ? *reinterpret_cast<const uint4*>(static_cast<const T*>(p.q) +
                                                         (row0 + h) * kHeadDim + i * 32 + tid * 8)
                       : make_uint4(0, 0, 0, 0);
      }
    }
    float o[kHeadTiles][kDimTiles][4] = {};
    float m[kHeadTiles];
    float l[kHeadTiles];
#pragma unroll
    for (int ht = 0; ht < kHeadTiles; ++ht) {
      m[ht] = -INFINITY;
      l[ht] = 0.0f;
    }

    for (int64_t key0 = seg_begin + int64_t{warp} * kMmaKeys; key0 < seg_end;
         key0 += int64_t{kMmaWarps} * kMmaKeys) {
      uint4 k_raw[2][kChunksK];
      uint4 v_raw[4][kChunksV];
      const StepRows rows = step_rows<kLayout>(p, seg, key0);
#pragma unroll
      for (int t = 0; t < 2; ++t) {
        const int64_t key = key0 + t * 8 + group;
        const int64_t row = step_row<kLayout>(rows, key0, key);
#pragma unroll
        for (int i = 0; i < kChunksK; ++i) {
          k_raw[t][i] = key < seg_end ? load_streaming(k + row * kHeadDim + i * 32 + tid * 8)
                                      : make_uint4(0, 0, 0, 0);
        }
      }
#pragma unroll
      for (int r = 0; r < 4; ++r) {  // keys 2·tid, 2·tid + 1, 8 + 2·tid, 9 + 2·tid
        const int64_t key = key0 + (r / 2) * 8 + tid * 2 + r % 2;
        const int64_t row = step_row<kLayout>(rows, key0, key);
#pragma unroll
        for (int c = 0; c < kChunksV; ++c) {
          v_raw[r][c] = key < seg_end ? load_streaming(v + row * kHeadDim + c * 64 + group * 8)
                                      : make_uint4(0, 0, 0, 0);
        }
      }

      float s[2][4] = {};
#pragma unroll
      for (int t = 0; t < 2; ++t) {
#pragma unroll
        for (int i = 0; i < kChunksK; ++i) {
#pragma unroll
          for (int u = 0; u < 2; ++u) {
            const uint32_t q_hi0 = kHeadTiles == 2 ? word(q[kHeadTiles - 1][i], 2 * u) : 0u;
            const uint32_t q_hi1 = kHeadTiles == 2 ? word(q[kHeadTiles - 1][i], 2 * u + 1) : 0u;
            mma_16816<T>(s[t], word(q[0][i], 2 * u), q_hi0, word(q[0][i], 2 * u + 1), q_hi1,
                         word(k_raw[t][i], 2 * u), word(k_raw[t][i], 2 * u + 1));
          }
        }
      }

      // Online softmax per head row: s[t][2·ht + e] is head ht·8 + group, key 8t + 2·tid + e.
      uint32_t pt[kHeadTiles][2];
      float alpha[kHeadTiles];
#pragma unroll
      for (int ht = 0; ht < kHeadTiles; ++ht) {
        float x[2][2];
        float step_max = -INFINITY;
#pragma unroll
        for (int t = 0; t < 2; ++t) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const bool valid = key0 + t * 8 + tid * 2 + e < seg_end;
            x[t][e] = valid ? s[t][2 * ht + e] * p.q_scale_log2 : -INFINITY;
            step_max = fmaxf(step_max, x[t][e]);
          }
        }
        step_max = fmaxf(step_max, __shfl_xor_sync(0xffffffffu, step_max, 1));
        step_max = fmaxf(step_max, __shfl_xor_sync(0xffffffffu, step_max, 2));
        // Finite: key key0 < seg_end is in every step, and padded head rows score 0.
        const float m_new = fmaxf(m[ht], step_max);
        alpha[ht] = exp2f(m[ht] - m_new);
        float sum = 0.0f;
#pragma unroll
        for (int t = 0; t < 2; ++t) {
          const float p0 = exp2f(x[t][0] - m_new);
          const float p1 = exp2f(x[t][1] - m_new);
          sum += p0 + p1;
          pt[ht][t] = pack_pair<T>(p0, p1);
        }
        l[ht] = fmaf(l[ht], alpha[ht], sum);
        m[ht] = m_new;
      }

#pragma unroll
      for (int ht = 0; ht < kHeadTiles; ++ht) {
        // Columns 2·tid + e of the Oᵀ accumulator are head row 2·tid + e of S: lane 4(2·tid + e).
        const float a0 = __shfl_sync(0xffffffffu, alpha[ht], tid * 8);
        const float a1 = __shfl_sync(0xffffffffu, alpha[ht], tid * 8 + 4);
#pragma unroll
        for (int j = 0; j < kDimTiles; ++j) {
          o[ht][j][0] *= a0;
          o[ht][j][1] *= a1;
          o[ht][j][2] *= a0;
          o[ht][j][3] *= a1;
        }
      }
#pragma unroll
      for (int j = 0; j < kDimTiles; ++j) {
        // Element j of the lane's first kDimTiles V elements is word j / 2, half j % 2.
        const uint32_t sel = j % 2 == 0 ? 0x5410u : 0x7632u;
        const int lo = j / 2;
        const int hi = kDimTiles / 2 + j / 2;
        const uint32_t a0 =
            __byte_perm(word(v_raw[0][lo / 4], lo % 4), word(v_raw[1][lo / 4], lo % 4), sel);
        const uint32_t a1 =
            __byte_perm(word(v_raw[0][hi / 4], hi % 4), word(v_raw[1][hi / 4], hi % 4), sel);
        const uint32_t a2 =
            __byte_perm(word(v_raw[2][lo / 4], lo % 4), word(v_raw[3][lo / 4], lo % 4), sel);
        const uint32_t a3 =
            __byte_perm(word(v_raw[2][hi / 4], hi % 4), word(v_raw[3][hi / 4], hi % 4), sel);
#pragma unroll
        for (int ht = 0; ht < kHeadTiles; ++ht) {
          mma_16816<T>(o[ht][j], a0, a1, a2, a3, pt[ht][0], pt[ht][1]);
        }
      }
    }

    // Warp state to shared memory: l summed over the 4 lanes of a head row; o[ht][j][c] is head
    // ht·8 + 2·tid + c % 2 at d = dim_of(j) (c < 2) or dim_of(kDimTiles + j).
#pragma unroll
    for (int ht = 0; ht < kHeadTiles; ++ht) {
      float l_row = l[ht];
      l_row += __shfl_xor_sync(0xffffffffu, l_row, 1);
      l_row += __shfl_xor_sync(0xffffffffu, l_row, 2);
      if (tid == 0) warp_ml[warp][ht * 8 + group] = make_float2(m[ht], l_row);
#pragma unroll
      for (int j = 0; j < kDimTiles; ++j) {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          warp_o[warp][ht * 8 + tid * 2 + c % 2][dim_of(c < 2 ? j : kDimTiles + j)] = o[ht][j][c];
        }
      }
    }
    finish_segment<T, kMmaThreads, kMmaMergeBatch>(warp_o, warp_ml, p, part, batch_kv);
    seg_begin = seg_end;
  }
}

// ---------------------------------------------------------------------------------------------
// Launch plan.

using DecodeKernel = void (*)(DecodeParams);

struct DecodeKernels {
  DecodeKernel split;
  int split_threads;
};

// g = 1: the CUDA-core kernel with one head per block (v4). g ≥ 2: the tensor-core kernel with
// 8 (g ≤ 8) or 16 query heads per block (v5). Each for a contiguous or a paged KV cache.
template <class T, int kHeadDim, KvLayout kLayout>
DecodeKernels kernels_for_layout(int64_t heads_per_block) {
  switch (heads_per_block) {
    case 1:
      return {&decode_split_kv_kernel<T, kHeadDim, 1, kLayout>, kDecodeThreads};
    case 8:
      return {&decode_split_kv_mma_kernel<T, kHeadDim, 1, kLayout>, kMmaThreads};
    default:
      return {&decode_split_kv_mma_kernel<T, kHeadDim, 2, kLayout>, kMmaThreads};
  }
}

template <class T, int kHeadDim>
DecodeKernels kernels_for_dim(KvLayout layout, int64_t heads_per_block) {
  return layout == KvLayout::kPaged
             ? kernels_for_layout<T, kHeadDim, KvLayout::kPaged>(heads_per_block)
             : kernels_for_layout<T, kHeadDim, KvLayout::kContiguous>(heads_per_block);
}

template <class T>
DecodeKernels kernels_for_type(int64_t head_dim, KvLayout layout, int64_t heads_per_block) {
  return head_dim == 64 ? kernels_for_dim<T, 64>(layout, heads_per_block)
                        : kernels_for_dim<T, 128>(layout, heads_per_block);
}

/// Everything the launches of one shape need; the same plan sizes the workspace.
struct DecodePlan {
  DecodeKernels kernels;
  int64_t heads_per_block = 1;  ///< decode_heads_per_block(g): 1, 8 or 16
  int64_t head_chunks = 1;      ///< blocks per part along the GQA group (gridDim.y)
  int64_t parts = 1;
  int64_t keys_per_part = 1;
  int64_t slots = 1;
};

/// Part count: one wave of resident blocks (sm_count × resident_blocks_per_sm, shared among the
/// head chunks), so that every block streams the same number of bytes at once; fewer when the
/// cache is too small for kDecodeMinKeysPerPart keys per part. Pure function; ≥ 1.
int64_t choose_num_parts(int64_t total_keys, int64_t head_chunks, int sm_count,
                         int resident_blocks_per_sm) {
  const int64_t wave = int64_t{sm_count} * std::max(resident_blocks_per_sm, 1);
  const int64_t per_chunk = std::max<int64_t>(1, wave / head_chunks);
  const int64_t by_size = (total_keys + kDecodeMinKeysPerPart - 1) / kDecodeMinKeysPerPart;
  return std::max<int64_t>(1, std::min(per_chunk, by_size));
}

// Queries the current device (SM count, occupancy of the chosen kernel).
DecodePlan make_decode_plan(const Shape& s) {
  DecodePlan plan;
  const int64_t group = s.group_size();
  plan.heads_per_block = decode_heads_per_block(group);
  plan.head_chunks = decode_head_chunks(group);
  plan.kernels =
      s.dtype == Dtype::kBf16
          ? kernels_for_type<__nv_bfloat16>(s.head_dim, s.kv_layout, plan.heads_per_block)
          : kernels_for_type<__half>(s.head_dim, s.kv_layout, plan.heads_per_block);
  if (plan.head_chunks > 65535) {
    throw bad_input(fmt::format(
        "decode_attention: heads {} / kv-heads {} needs {} head chunks, over the grid limit 65535",
        s.heads, s.kv_heads, plan.head_chunks));
  }
  int device = 0;
  int sm_count = 0;
  int resident = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  // Sized by the contiguous kernel for either layout, so that a paged cache is split into the
  // same parts and summed in the same order (both kernels carry the same launch bounds).
  const DecodeKernels contiguous =
      s.dtype == Dtype::kBf16
          ? kernels_for_type<__nv_bfloat16>(s.head_dim, KvLayout::kContiguous, plan.heads_per_block)
          : kernels_for_type<__half>(s.head_dim, KvLayout::kContiguous, plan.heads_per_block);
  RFL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &resident, reinterpret_cast<const void*>(contiguous.split), contiguous.split_threads, 0));
  const int64_t total_keys = s.batch * s.kv_heads * s.seq_len;
  const int64_t parts = choose_num_parts(total_keys, plan.head_chunks, sm_count, resident);
  plan.keys_per_part = (total_keys + parts - 1) / parts;
  plan.parts = (total_keys + plan.keys_per_part - 1) / plan.keys_per_part;
  // A range of n keys meets at most floor((n - 1) / L) + 2 KV heads of L keys.
  plan.slots = std::min(s.batch * s.kv_heads, (plan.keys_per_part - 1) / s.seq_len + 2);
  // The ticket protocol counts a KV head's parts in 16-bit fields (kTicketMask).
  if (plan.parts > static_cast<int64_t>(decode::kTicketMask)) {
    throw bad_input(fmt::format("decode_attention: {} parts, over the {} the merge counts",
                                plan.parts, decode::kTicketMask));
  }
  return plan;
}

/// Elements of K (and of V): [batch, kv_heads, seq_len, head_dim] contiguous; paged, the pool of
/// batch·kv_pages_per_sequence() pages of [kv_heads, page_size, head_dim] (the last page of each
/// sequence padded when page_size does not divide seq_len; the padding is never read).
int64_t kv_elements(const Shape& s) {
  if (s.kv_layout == KvLayout::kPaged) {
    return s.batch * s.kv_pages_per_sequence() * s.kv_heads * s.page_size * s.head_dim;
  }
  return s.batch * s.kv_heads * s.seq_len * s.head_dim;
}

/// Block-table entries (int32): batch × kv_pages_per_sequence(); 0 when contiguous.
int64_t block_table_entries(const Shape& s) { return s.batch * s.kv_pages_per_sequence(); }

/// Seed of the page shuffle: the block table is the same for every point of one shape, whatever
/// the data seed.
constexpr uint64_t kPageShuffleSeed = 0x9e3779b97f4a7c15ull;

/// The block table of a paged cache, row-major [batch, pages per sequence]: a random permutation
/// (std::mt19937_64 seeded with kPageShuffleSeed, std::shuffle) of the pool's pages 0 ..
/// batch·pages − 1, so that consecutive pages of a sequence lie far apart in memory, as a serving
/// engine's allocator leaves them after many sequences came and went.
std::vector<int32_t> scattered_block_table(const Shape& s) {
  std::vector<int32_t> table(static_cast<size_t>(block_table_entries(s)));
  std::iota(table.begin(), table.end(), 0);
  std::mt19937_64 rng(kPageShuffleSeed);
  std::shuffle(table.begin(), table.end(), rng);
  return table;
}

/// Which way copy_pages_kernel copies.
enum class PageCopy { kToPages, kFromPages };

// Copies K or V between the contiguous layout [batch, kv_heads, seq_len, head_dim] and the paged
// pool (DecodeParams), one 16-byte vector per thread and grid-stride step. Not timed: fill_random
// writes the paged cache through it and validate reads it back for the reference.
template <PageCopy kDirection>
__global__ void copy_pages_kernel(const uint4* __restrict__ from, uint4* __restrict__ to,
                                  const int32_t* __restrict__ block_table, int64_t kv_len,
                                  int64_t kv_heads, int64_t pages_per_seq, int page_shift,
                                  int64_t vecs_per_row, int64_t total_vecs) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total_vecs;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t row = i / vecs_per_row;  // contiguous row: (b·kv_heads + kv_head)·kv_len + pos
    const int64_t batch_kv = row / kv_len;
    const int64_t paged =
        decode::paged_kv_row(block_table + (batch_kv / kv_heads) * pages_per_seq, kv_heads,
                             batch_kv % kv_heads, page_shift, row % kv_len);
    const int64_t paged_i = paged * vecs_per_row + i % vecs_per_row;
    if constexpr (kDirection == PageCopy::kToPages) {
      to[paged_i] = from[i];
    } else {
      to[i] = from[paged_i];
    }
  }
}

int64_t workspace_stats(const Shape& s, const DecodePlan& plan) {
  return plan.parts * plan.slots * s.group_size();
}

int64_t workspace_floats(const Shape& s, const DecodePlan& plan) {
  return workspace_stats(s, plan) * s.head_dim;
}

int64_t workspace_counters(const Shape& s, const DecodePlan& plan) {
  return s.batch * s.kv_heads * plan.head_chunks;
}

/// The versions `--kernel decode_attention=KEY` names.
const std::vector<KernelVersion>& decode_attention_versions() {
  static const std::vector<KernelVersion> versions = {
      {"v4", "decode_attention_v4_flat_fused_merge", "kv_heads = heads (g = 1)", "v5"},
      {"v5", "decode_attention_v5_mma_gqa_fused_merge", "kv_heads < heads (GQA, g >= 2)", "v4"}};
  return versions;
}

/// Decode attention at one shape, over a contiguous or a paged KV cache (Shape::kv_layout). A
/// paged run holds K and V as page pools and the scattered block table (scattered_block_table);
/// given the same seed, it holds the same K and V values as a contiguous run, page by page.
class DecodeAttentionRun final : public OperatorRun {
 public:
  explicit DecodeAttentionRun(const Shape& shape)
      : shape_(shape),
        plan_(make_decode_plan(shape)),
        q_(shape.batch * shape.heads * shape.head_dim),
        k_(kv_elements(shape)),
        v_(k_.count()),
        o_(q_.count()),
        partial_o_(workspace_floats(shape, plan_)),
        partial_ml_(workspace_stats(shape, plan_)),
        arrivals_(workspace_counters(shape, plan_)),
        block_table_(block_table_entries(shape)) {
    if (paged()) {
      const std::vector<int32_t> table = scattered_block_table(shape_);
      RFL_CUDA_CHECK(cudaMemcpy(block_table_.get(), table.data(),
                                static_cast<size_t>(block_table_.bytes()), cudaMemcpyHostToDevice));
    }
    // Zeroed once: each launch leaves every counter at zero again (arrive_ticket). Synchronized
    // because launches may come on a non-blocking stream, unordered with this memset.
    RFL_CUDA_CHECK(cudaMemset(arrivals_.get(), 0, static_cast<size_t>(arrivals_.bytes())));
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void fill_random(uint64_t seed) override {
    // q twice as wide as k so the softmax is not nearly flat (score std ≈ 0.67 at any head_dim).
    fill_uniform(q_.get(), q_.count(), shape_.dtype, seed, -2.0f, 2.0f);
    fill_kv(k_, seed + 1);
    fill_kv(v_, seed + 2);
  }

  Validation validate() override {
    launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    // The reference reads contiguous K and V: a paged cache is gathered back for it.
    const int64_t contiguous_count = paged() ? contiguous_kv_elements() : 0;
    DeviceBuffer<uint16_t> k_gathered(contiguous_count);
    DeviceBuffer<uint16_t> v_gathered(contiguous_count);
    if (paged()) {
      copy_pages<PageCopy::kFromPages>(k_.get(), k_gathered.get());
      copy_pages<PageCopy::kFromPages>(v_.get(), v_gathered.get());
      RFL_CUDA_CHECK(cudaDeviceSynchronize());
    }
    AttentionProblem problem;
    problem.q = q_.get();
    problem.k = paged() ? k_gathered.get() : k_.get();
    problem.v = paged() ? v_gathered.get() : v_.get();
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
    params.arrivals = arrivals_.get();
    params.kv_len = shape_.seq_len;
    params.group = shape_.group_size();
    params.total_keys = shape_.batch * shape_.kv_heads * shape_.seq_len;
    params.keys_per_part = plan_.keys_per_part;
    params.slots = plan_.slots;
    params.q_scale_log2 = static_cast<float>(softmax_scale() * kLog2e);
    params.block_table = block_table_.get();
    params.pages_per_seq = shape_.kv_pages_per_sequence();
    params.kv_heads = shape_.kv_heads;
    params.page_shift = paged() ? page_shift() : 0;
    const dim3 split_grid(static_cast<unsigned>(plan_.parts),
                          static_cast<unsigned>(plan_.head_chunks));
    plan_.kernels
        .split<<<split_grid, static_cast<unsigned>(plan_.kernels.split_threads), 0, stream>>>(
            params);
    RFL_CHECK_LAUNCH();
  }

  std::vector<std::string> kernel_names() const override { return {"decode_split_kv"}; }

  std::string version() const override {
    // v4 at g = 1, v5 for GQA, whichever was asked for (decode_attention_versions).
    return decode_attention_versions()[shape_.group_size() == 1 ? 0 : 1].name;
  }
  /// q and o; k and v in the layout Shape documents (paged: the page pools, "k_pages" and
  /// "v_pages", whose rows the block table orders).
  std::vector<DeviceTensorView> tensors() override {
    return {{"q", q_.get(), q_.count()},
            {paged() ? "k_pages" : "k", k_.get(), k_.count()},
            {paged() ? "v_pages" : "v", v_.get(), v_.count()},
            {"o", o_.get(), o_.count()}};
  }

 private:
  double softmax_scale() const { return 1.0 / std::sqrt(static_cast<double>(shape_.head_dim)); }
  bool paged() const { return shape_.kv_layout == KvLayout::kPaged; }
  int page_shift() const { return __builtin_ctzll(static_cast<uint64_t>(shape_.page_size)); }
  int64_t contiguous_kv_elements() const {
    return shape_.batch * shape_.kv_heads * shape_.seq_len * shape_.head_dim;
  }

  // Contiguous: K or V filled in place. Paged: filled contiguous in a scratch buffer, then
  // scattered into the pages, so the values match a contiguous run of the same seed.
  void fill_kv(DeviceBuffer<uint16_t>& kv, uint64_t seed) {
    if (!paged()) {
      fill_uniform(kv.get(), kv.count(), shape_.dtype, seed, -1.0f, 1.0f);
      return;
    }
    DeviceBuffer<uint16_t> contiguous(contiguous_kv_elements());
    fill_uniform(contiguous.get(), contiguous.count(), shape_.dtype, seed, -1.0f, 1.0f);
    copy_pages<PageCopy::kToPages>(contiguous.get(), kv.get());
    RFL_CUDA_CHECK(cudaDeviceSynchronize());  // before `contiguous` is freed
  }

  // kToPages: `contiguous` → `pages`; kFromPages: `pages` → `contiguous`.
  template <PageCopy kDirection>
  void copy_pages(const uint16_t* from, uint16_t* to) {
    const int64_t vecs_per_row = shape_.head_dim / kElemsPerVec;
    const int64_t total_vecs = contiguous_kv_elements() / kElemsPerVec;
    constexpr int kThreads = 256;
    const int64_t blocks = std::min<int64_t>((total_vecs + kThreads - 1) / kThreads, 65535);
    copy_pages_kernel<kDirection><<<static_cast<unsigned>(blocks), kThreads>>>(
        reinterpret_cast<const uint4*>(from), reinterpret_cast<uint4*>(to), block_table_.get(),
        shape_.seq_len, shape_.kv_heads, shape_.kv_pages_per_sequence(), page_shift(), vecs_per_row,
        total_vecs);
    RFL_CHECK_LAUNCH();
  }

  Shape shape_;
  DecodePlan plan_;
  DeviceBuffer<uint16_t> q_;
  DeviceBuffer<uint16_t> k_;
  DeviceBuffer<uint16_t> v_;
  DeviceBuffer<uint16_t> o_;
  DeviceBuffer<float> partial_o_;
  DeviceBuffer<float2> partial_ml_;
  DeviceBuffer<unsigned int> arrivals_;
  DeviceBuffer<int32_t> block_table_;  ///< paged only: [batch, pages per sequence]
};

void check_decode_shape(const Shape& shape) {
  validate_common_shape(shape);
  if (shape.head_dim != 64 && shape.head_dim != 128) {
    throw bad_input(fmt::format("decode_attention: head-dim {} is not supported: allowed 64, 128",
                                shape.head_dim));
  }
  if (shape.kv_layout == KvLayout::kPaged && shape.seq_len > std::numeric_limits<int32_t>::max()) {
    throw bad_input(fmt::format(
        "decode_attention: seq_len {} over a paged KV cache: positions are 32-bit (allowed up to "
        "{})",
        shape.seq_len, std::numeric_limits<int32_t>::max()));
  }
  if (block_table_entries(shape) > std::numeric_limits<int32_t>::max()) {
    throw bad_input(fmt::format(
        "decode_attention: {} pages (batch {} × ceil({} / page size {})) do not fit the int32 "
        "block table: lower batch or seq_len, or raise --page-size",
        block_table_entries(shape), shape.batch, shape.seq_len, shape.page_size));
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Registration.

// Analytic model (src/model/operator_model.cpp), e = 2:
//   FLOPs = 4·B·H·L·d: q·k (2·d per key) and p·v (2·d per key) per query head. The fp32 counters
//   of v4 also see the softmax and the 16-lane shuffle reductions, ~15–20% above the formula
//   (docs/perf-notes.md, decode_attention_v2_flat_split); exp2 runs on the MUFU pipe and is
//   counted nowhere.
//   v5 (g ≥ 2) does these products on the tensor pipe, padded: per key 2·16·d (S, M = 16 rows)
//   + 2·8·d (P·V, N = 8 heads) per 8-head block, i.e. 48·d against the formula's 4·g·d (3× at
//   g = 4, 1.5× at g = 8; exact at g = 16, where 16 heads fill M and two N tiles).
//   Bytes = 2·B·H_kv·L·d·e (K and V read once) + 2·B·H·d·e (Q read, O written). Not counted: the
//   workspace, parts·slots·g·(d + 2)·4 bytes written by the split kernel and read back by the
//   merging blocks (parts = resident blocks, ~264–1056 on an H200; ≤ 1 MB for the benchmark
//   shapes, far below the K/V bytes, and it mostly stays in L2), nor the arrival counters.
//   Paged: + 4·B·ceil(L/P) minimum (each block-table entry once); as implemented, every block
//   reads the entries of its own keys, so a sequence's entries are read by each of its H_kv KV
//   heads and decode_head_chunks(g) head chunks: + 4·B·H_kv·chunks·ceil(L/P) (the ≤ parts
//   entries of pages cut by a part boundary, read by both parts, are not counted).
OperatorSpec decode_attention_spec() {
  OperatorSpec spec;
  spec.name = kDecodeAttentionOp;
  spec.summary =
      "one query token per sequence over a KV cache of L positions (GQA, split-KV; contiguous or "
      "paged)";
  spec.pipe = Pipe::kFp32;
  spec.check_shape = check_decode_shape;
  // Q and O [B, H, d], K and V (kv_elements) in dtype; fp32 workspace [parts, slots, g, d + 2]
  // and the arrival counters [B·H_kv, head chunks]. Paged: the int32 block table and, while
  // validate gathers the pages back for the reference, contiguous copies of K and V.
  // The part count depends on the current device (SM count, occupancy), hence the plan.
  spec.device_bytes = [](const Shape& shape) {
    const DecodePlan plan = make_decode_plan(shape);
    const int64_t e = dtype_size_bytes(shape.dtype);
    const int64_t gathered =
        shape.kv_layout == KvLayout::kPaged
            ? 2 * shape.batch * shape.kv_heads * shape.seq_len * shape.head_dim * e
            : 0;
    return 2 * shape.batch * shape.heads * shape.head_dim * e + 2 * kv_elements(shape) * e +
           block_table_entries(shape) * int64_t{sizeof(int32_t)} + gathered +
           workspace_floats(shape, plan) * int64_t{sizeof(float)} +
           workspace_stats(shape, plan) * int64_t{sizeof(float2)} +
           workspace_counters(shape, plan) * int64_t{sizeof(unsigned int)};
  };
  spec.versions = decode_attention_versions();
  spec.default_version = decode_attention_versions().front().key;
  spec.create = [](const Shape& shape,
                   const std::string& version_key) -> std::unique_ptr<OperatorRun> {
    // The key is checked, not chosen: the shape decides between the versions.
    find_kernel_version("decode_attention", decode_attention_versions(),
                        decode_attention_versions().front().key, version_key);
    return std::make_unique<DecodeAttentionRun>(shape);
  };
  return spec;
}

}  // namespace rooflinectl
