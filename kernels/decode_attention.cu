// Decode attention: one query token per sequence against a KV cache of L = seq_len positions.
// Q, O: [batch, heads, head_dim]; K, V: [batch, kv_heads, L, head_dim]; 16-bit, or E4M3 with an
// fp32 scale per KV head for K and for V (--kv-dtype fp8_e4m3, quantized by fill_kv); fp32 math.
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
//     (Milakov & Gimelshein 2018) in base 2 per group of d/8 lanes (16 at d = 96, 4 of them idle).
//   decode_attention_v5_mma_gqa_fused_merge (g ≥ 2; any g over FP8, E4M3 → fp16 in registers):
//     the dot products on tensor cores (mma.sync m16n8k16), the block's 8 or 16 query heads as M
//     (8 at most at d = 256).
// head_dim 64, 96, 128 or 256 (is_decode_head_dim), in every layout and KV dtype.
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

#include "core/decode_attention_pipe.hpp"
#include "core/error.hpp"
#include "core/kernel_tiles.hpp"
#include "core/kernel_version.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/e4m3_quantize.hpp"
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

/// The head dims the decode kernels are instantiated for (check_decode_shape refuses the others).
constexpr bool is_decode_head_dim(int64_t d) { return d == 64 || d == 96 || d == 128 || d == 256; }

/// Compile-time layout of a warp's work for head_dim `kHeadDim` and up to `kHeads` query heads.
template <int kHeadDim, int kHeads>
struct DecodeTraits {
  static_assert(is_decode_head_dim(kHeadDim), "head_dim 64, 96, 128 or 256");
  /// Lanes that read one key row, kElemsPerVec dims each: d/8 rounded up to a power of two (a
  /// row's partial dot products are summed by an xor-shuffle tree over them), so 8, 16, 16 and 32
  /// at d = 64, 96, 128, 256. At d = 96 lanes 12..15 of each 16-lane group hold no dims
  /// (kEveryLaneHasDims is false there): their q is 0 and they write nothing.
  static constexpr int kLanesPerRow = kHeadDim <= 64 ? 8 : kHeadDim <= 128 ? 16 : 32;
  static constexpr bool kEveryLaneHasDims = kLanesPerRow * kElemsPerVec == kHeadDim;
  static constexpr int kRowsPerLoad = 32 / kLanesPerRow;  // keys per warp load instruction
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
// step + i·kRowsPerLoad + r for i < kLoads, and lane c within the group owns dims [8c, 8c + 8)
// of every row and of q and o (none when 8c ≥ d, at d = 96). A key's score is the
// kLanesPerRow-lane sum of the group's partial dot products; each lane group keeps its own online
// softmax, merged across groups (shuffles), then warps (shared memory) at the end of the segment.
// Launch bound: 4 blocks per SM (64 registers), v2's occupancy, which the folded-in merge must not
// lower.
template <class T, int kHeadDim, int kHeads, KvLayout kLayout>
__global__ void __launch_bounds__(kDecodeThreads, 4) decode_split_kv_kernel(const DecodeParams p) {
  using Tr = DecodeTraits<kHeadDim, kHeads>;
  // 16-byte aligned: finish_segment reads and writes it as float4.
  __shared__ __align__(16) float warp_o[kDecodeWarps][kHeads][kHeadDim];
  __shared__ float2 warp_ml[kDecodeWarps][kHeads];

  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int row_in_load = lane / Tr::kLanesPerRow;
  const int lane_col = (lane % Tr::kLanesPerRow) * kElemsPerVec;
  // Constant true unless d/8 is not a power of two (d = 96). A lane without dims of its own reads
  // the row's last kElemsPerVec dims (its group's last real lane's sectors: no extra traffic)
  // with q = 0, and writes nothing: unpredicated loads kept v4 at d = 96 free of spills.
  const bool has_dims = Tr::kEveryLaneHasDims || lane_col < kHeadDim;
  const int col = has_dims ? lane_col : kHeadDim - kElemsPerVec;
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
      if (h < heads_here && has_dims) {
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
        if (row_in_load == 0 && has_dims) {
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

constexpr int kMmaThreads = kDecodeMmaThreads;
constexpr int kMmaWarps = kMmaThreads / 32;
constexpr int kMmaKeys = static_cast<int>(kDecodeMmaKeysPerStep);
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

// ---------------------------------------------------------------------------------------------
// FP8 KV cache (--kv-dtype fp8_e4m3).

/// Tag of an FP8 E4M3 KV cache: one byte per element and one fp32 scale per KV head for K and
/// one for V (DecodeParams::k_scale, v_scale). A 16-bit cache is read as the point's type T.
struct E4m3 {};

/// e4m3x4_to_half2x2 yields an E4M3 value divided by this; the kernel multiplies it back into
/// the scales (one multiply per segment, not per element).
constexpr float kE4m3HalfFactor = 256.0f;

/// Four E4M3 values (the bytes of `w`, lowest first) as two fp16 pairs holding value / 256,
/// exactly: x = bytes 0, 1 and y = bytes 2, 3, the lower byte in the low half (pack_pair's
/// order). The sign goes to bit 15 and the 7 exponent and mantissa bits to bits 13..7: fp16's
/// exponent field then holds E4M3's (bias 15 instead of 7: a factor 2^-8) and the top 3 of its 10
/// mantissa bits E4M3's 3, and an E4M3 subnormal (exponent 0, 2^-6·m/8) becomes the fp16
/// subnormal 2^-14·m/8, the same factor. The NaN pattern S.1111.111 would read as ±480; the fill
/// never writes it (it saturates at 448). Integer operations only: the same code on every
/// architecture, where the E4M3 conversion instruction (cvt.rn.f16x2.e4m3x2) needs sm_89.
__device__ __forceinline__ uint2 e4m3x4_to_half2x2(uint32_t w) {
  const uint32_t lo = __byte_perm(w, 0u, 0x1404);  // byte 0 to bits 15..8, byte 1 to 31..24
  const uint32_t hi = __byte_perm(w, 0u, 0x3424);  // byte 2 to bits 15..8, byte 3 to 31..24
  return make_uint2((lo & 0x80008000u) | ((lo >> 1) & 0x3f803f80u),
                    (hi & 0x80008000u) | ((hi >> 1) & 0x3f803f80u));
}

/// The eight bf16 of `v` as fp16, in order: exact for 0 and magnitudes in [2^-14, 65504] (bf16's 8
/// significant bits fit fp16's 11); smaller ones round to fp16 subnormals (absolute error at most
/// 2^-25), larger ones overflow. The FP8 kernel's Q meets fp16 K and V in the products.
__device__ __forceinline__ uint4 bf16x8_to_half(const uint4& v) {
  const auto convert = [](uint32_t pair) {
    const float2 f = unpack_pair<__nv_bfloat16>(pair);
    return pack_pair<__half>(f.x, f.y);
  };
  return make_uint4(convert(v.x), convert(v.y), convert(v.z), convert(v.w));
}

/// 8-byte variant of load_streaming.
__device__ __forceinline__ uint2 load_streaming_8(const void* src) {
  uint2 r;
  asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];\n"
               : "=r"(r.x), "=r"(r.y)
               : "l"(src));
  return r;
}

/// 4-byte variant of load_streaming.
__device__ __forceinline__ uint32_t load_streaming_4(const void* src) {
  uint32_t r;
  asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];\n" : "=r"(r) : "l"(src));
  return r;
}

/// The unsigned vector of kBytes (16, 8 or 4) a streaming load returns.
template <int kBytes>
using StreamVec =
    std::conditional_t<kBytes == 16, uint4, std::conditional_t<kBytes == 8, uint2, uint32_t>>;

/// load_streaming of the kBytes at `src` (aligned to kBytes).
template <int kBytes>
__device__ __forceinline__ StreamVec<kBytes> load_streaming_vec(const void* src) {
  static_assert(kBytes == 16 || kBytes == 8 || kBytes == 4, "a 16-, 8- or 4-byte vector");
  if constexpr (kBytes == 16) {
    return load_streaming(src);
  } else if constexpr (kBytes == 8) {
    return load_streaming_8(src);
  } else {
    return load_streaming_4(src);
  }
}

/// The widest vector of 16, 8 or 4 bytes that `elems` elements of `elem_bytes` each (a multiple
/// of 4 bytes) split into evenly.
constexpr int widest_vector_bytes(int elems, int elem_bytes) {
  return elems * elem_bytes % 16 == 0 ? 16 : elems * elem_bytes % 8 == 0 ? 8 : 4;
}

/// What decode_split_kv_mma_kernel reads per lane for query type T and KV-cache type KV (T, or
/// E4m3) at head_dim kHeadDim (64, 96, 128 or 256). Both products run on Mma: T, or fp16 over an
/// FP8 cache (E4M3 is exact in fp16; bf16 has too few mantissa bits for it to be converted
/// without a detour through fp32).
template <class T, class KV, int kHeadDim>
struct MmaKvTraits {
  static constexpr bool kFp8 = std::is_same_v<KV, E4m3>;
  static_assert(kFp8 || std::is_same_v<KV, T>, "a 16-bit KV cache is in the point's dtype");
  static_assert(is_decode_head_dim(kHeadDim), "head_dim 64, 96, 128 or 256");
  using Mma = std::conditional_t<kFp8, __half, T>;
  using Stored = std::conditional_t<kFp8, uint8_t, T>;  // element type of K and V in memory
  static constexpr int kKvBytes = kFp8 ? 1 : 2;
  /// 8-element K (and q) chunks per row per lane, two k16 steps each: 2, 3, 4, 8.
  static constexpr int kChunksK = kHeadDim / 32;
  /// K chunks per K load: 1 (16 bytes of a 16-bit cache), or 2 over FP8 (16 bytes), except at an
  /// odd chunk count (FP8 at d = 96), where each chunk is its own 8-byte load.
  static constexpr int kChunksPerLoadK = kFp8 && kChunksK % 2 == 0 ? 2 : 1;
  static constexpr int kLoadsK = kChunksK / kChunksPerLoadK;  // K loads per row per lane
  static constexpr int kElemsPerLoadK = 8 * kChunksPerLoadK;
  static constexpr int kLoadBytesK = kElemsPerLoadK * kKvBytes;  // 16, or 8 (FP8 at d = 96)
  /// M tiles of Oᵀ: 4, 6, 8, 16. A lane holds 2·kDimTiles = d/8 elements of each V row, two per
  /// tile (rows group and group + 8 of the A fragment).
  static constexpr int kDimTiles = kHeadDim / 16;
  static_assert(kDimTiles % 2 == 0, "the A fragment pairs elements j and kDimTiles + j");
  static constexpr int kWordsV = kDimTiles * kKvBytes / 2;  // stored V words per row per lane
  /// V elements per load: the widest vector (16, 8 or 4 bytes) the lane's d/8 elements of a row
  /// split into: 16-bit, 8 elements (d = 64, 128, 256) or 4 (d = 96: 12 per lane); FP8, all 8 or
  /// 16 of them (d = 64, 128), 16 (d = 256) or 4 (d = 96).
  static constexpr int kVecBytesV = widest_vector_bytes(2 * kDimTiles, kKvBytes);
  static constexpr int kVecElemsV = kVecBytesV / kKvBytes;
  static constexpr int kLoadsV = 2 * kDimTiles / kVecElemsV;  // V loads per row per lane
};

/// Where lane tid's K (and q) elements of a key row are: its K load j starts at element
/// j·kLoadStride + tid·kLaneStride of the row (4 lanes side by side, then the next load), and K
/// chunk i (8 elements) is at chunk_offset(i) elements into load i / kChunksPerLoadK (over FP8 at
/// d ≠ 96 a 16-byte load holds chunks 2j and 2j + 1; 16-bit, chunk i is load i: 32·i + 8·tid).
/// Separate terms, so that the 16-bit kernel's addresses are formed as before the FP8 cache
/// existed.
template <class Tr>
struct KLanePlacement {
  static constexpr int kLoadStride = 4 * Tr::kElemsPerLoadK;
  static constexpr int kLaneStride = Tr::kElemsPerLoadK;
  static constexpr int chunk_offset(int i) {
    return (i / Tr::kChunksPerLoadK) * kLoadStride + 8 * (i % Tr::kChunksPerLoadK);
  }
};

/// K chunk i of one key row as 8 Mma elements, from the lane's loads `raw` of that row.
template <class Tr>
__device__ __forceinline__ uint4 k_chunk(const StreamVec<Tr::kLoadBytesK> (&raw)[Tr::kLoadsK],
                                         int i) {
  if constexpr (Tr::kFp8 && Tr::kChunksPerLoadK == 2) {
    const uint4& r = raw[i / 2];
    const uint2 a = e4m3x4_to_half2x2(i % 2 == 0 ? r.x : r.z);
    const uint2 b = e4m3x4_to_half2x2(i % 2 == 0 ? r.y : r.w);
    return make_uint4(a.x, a.y, b.x, b.y);
  } else if constexpr (Tr::kFp8) {
    const uint2 a = e4m3x4_to_half2x2(raw[i].x);
    const uint2 b = e4m3x4_to_half2x2(raw[i].y);
    return make_uint4(a.x, a.y, b.x, b.y);
  } else {
    return raw[i];
  }
}

/// The lane's stored V words of one row `row`, or zeros for a key past the segment: kLoadsV
/// vectors of kVecElemsV elements, load c at elements c·8·kVecElemsV + group·kVecElemsV (the 8
/// lane groups side by side, then the next load), their words in order.
template <class Tr>
__device__ __forceinline__ void load_v_words(uint32_t (&w)[Tr::kWordsV],
                                             const typename Tr::Stored* row, bool valid,
                                             int group) {
#pragma unroll
  for (int c = 0; c < Tr::kLoadsV; ++c) {
    const typename Tr::Stored* src = row + c * (8 * Tr::kVecElemsV) + group * Tr::kVecElemsV;
    if constexpr (Tr::kVecBytesV == 16) {
      const uint4 x = valid ? load_streaming(src) : make_uint4(0, 0, 0, 0);
      w[4 * c] = x.x;
      w[4 * c + 1] = x.y;
      w[4 * c + 2] = x.z;
      w[4 * c + 3] = x.w;
    } else if constexpr (Tr::kVecBytesV == 8) {
      const uint2 x = valid ? load_streaming_8(src) : make_uint2(0, 0);
      w[2 * c] = x.x;
      w[2 * c + 1] = x.y;
    } else {
      w[c] = valid ? load_streaming_4(src) : 0u;
    }
  }
}

/// Blocks per SM decode_split_kv_mma_kernel's launch bound asks for at head_dim `head_dim` with
/// `head_tiles` m16 row tiles of 8 heads (so at most 65536 / (128·n) registers per thread): see
/// the kernel's comment and docs/perf-notes.md (decode attention at head_dim 96 and 256).
constexpr int mma_min_blocks_per_sm(int head_dim, int head_tiles) {
  if (head_dim <= 64) return 4;
  if (head_dim <= 128) return head_tiles == 1 ? 4 : head_dim == 96 ? 3 : 2;
  return 2;
}

// Grid (parts, head chunks), kMmaWarps warps. Same flat split, segments and block merge as
// decode_split_kv_kernel; a warp step is 16 consecutive keys key0 + n and the block's
// kHeadTiles·8 query heads (rows ≥ heads_here are zero queries, computed and never written).
// With lane = 4·group + tid:
//   S = Q·Kᵀ (m16n8k16, M = heads, N = 8 keys, K = d), two key tiles. The d order inside a k16
//     step is permuted (a dot product is order-free): lane loads K row key0 + 8t + group and the
//     query row(s) group (and group + 8) at the 8 dims of chunk i < d/32 (KLanePlacement: 32i +
//     8·tid over a 16-bit cache), one 16-byte vector of q per chunk, and that vector's words
//     (x, y) / (z, w) are the (b0, b1) of k-steps 2i / 2i + 1. Rows group + 8 of Q are heads
//     8..15 (kHeadTiles 2) or zero.
//   The S accumulator (row = head, column = key 2·tid, 2·tid + 1 of tile t) packed to 16 bits
//     is exactly the B fragment (rows = keys, column = head) of Oᵀ = Vᵀ·Pᵀ (M = d, N = 8 heads,
//     K = 16 keys): no shuffle between the two products.
//   Vᵀ as A: lane needs key pairs (2·tid, 2·tid + 1) and (8 + 2·tid, 9 + 2·tid) at one d. It
//     loads those 4 V rows at its d/8 dims (load_v_words: 16-, 8- or 4-byte vectors, the widest
//     that d/8 elements split into) and pairs the two keys' 16-bit elements with one byte permute
//     per register. The M rows of d-tile j are d = dim_of(j) (row group) and dim_of(d/16 + j)
//     (row group + 8), see below.
// Over an FP8 cache (KV = E4m3) K and V are converted to fp16 in registers as they are used
// (e4m3x4_to_half2x2), Q is fp16 and P is packed to fp16; the per-KV-head scales (× 256) go into
// the score scale and, at the end of a segment, into the block's partial O.
// Each lane group of 4 lanes (one head row of S) keeps that head's running max; the P·V rescale
// needs the max of the heads in its accumulator columns (2·tid, 2·tid + 1), fetched by shuffle.
// Launch bound (mma_min_blocks_per_sm): 4 blocks per SM (128 registers) with 8 heads at d ≤ 128
// and with 16 at d = 64; 16 heads at d = 128 take 185-224 registers (2 blocks), at d = 96 159-168
// (3 blocks: with 4, ptxas spilled 40-96 bytes); 8 heads at d = 256 take 209-254 registers (2
// blocks: with 3, 12-168 bytes of spills), and 16 heads do not run there
// (decode_max_heads_per_block). 16 heads at d = 64 fit 128 without spills, and without the bound
// ptxas took 130 once DecodeParams grew by the paged-cache fields, which left 3 blocks per SM.
template <class T, class KV, int kHeadDim, int kHeadTiles, KvLayout kLayout>
__global__ void __launch_bounds__(kMmaThreads, mma_min_blocks_per_sm(kHeadDim, kHeadTiles))
    decode_split_kv_mma_kernel(const DecodeParams p) {
  using Tr = MmaKvTraits<T, KV, kHeadDim>;
  using Mma = typename Tr::Mma;
  using KLane = KLanePlacement<Tr>;
  constexpr int kHeads = kHeadTiles * 8;
  constexpr int kChunksK = Tr::kChunksK;
  constexpr int kDimTiles = Tr::kDimTiles;
  constexpr int kW = Tr::kVecElemsV;
  // 16-byte aligned: finish_segment reads and writes it as float4.
  __shared__ __align__(16) float warp_o[kMmaWarps][kHeads][kHeadDim];
  __shared__ float2 warp_ml[kMmaWarps][kHeads];

  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int group = lane / 4;
  const int tid = lane % 4;
  // Lane's 16-bit element e < 2·kDimTiles of a V row (its loads' elements, in order) is d:
  auto dim_of = [&](int e) { return (e / kW) * (8 * kW) + group * kW + e % kW; };
  const BlockPart part = block_part<kHeads>(p);
  const int heads_here = part.heads_here;
  const auto* k = static_cast<const typename Tr::Stored*>(p.k);
  const auto* v = static_cast<const typename Tr::Stored*>(p.v);

  for (int64_t seg_begin = part.begin; seg_begin < part.end;) {
    const int64_t batch_kv = seg_begin / p.kv_len;
    const int64_t seg_end = min(part.end, (batch_kv + 1) * p.kv_len);
    const int64_t row0 = batch_kv * p.group + part.head_begin;  // first query row of the block
    const KvSegment seg = kv_segment<kLayout>(p, batch_kv);
    float score_scale = p.q_scale_log2;
    float v_scale = 1.0f;
    if constexpr (Tr::kFp8) {
      const int64_t kv_head = batch_kv % p.kv_heads;
      score_scale *= kE4m3HalfFactor * __ldg(p.k_scale + kv_head);
      v_scale = kE4m3HalfFactor * __ldg(p.v_scale + kv_head);
    }

    uint4 q[kHeadTiles][kChunksK];
#pragma unroll
    for (int ht = 0; ht < kHeadTiles; ++ht) {
      const int h = ht * 8 + group;
#pragma unroll
      for (int i = 0; i < kChunksK; ++i) {
        q[ht][i] = h < heads_here ? *reinterpret_cast<const uint4*>(
                                        static_cast<const T*>(p.q) + (row0 + h) * kHeadDim +
                                        KLane::chunk_offset(i) + tid * KLane::kLaneStride)
                                  : make_uint4(0, 0, 0, 0);
        if constexpr (!std::is_same_v<Mma, T>) q[ht][i] = bf16x8_to_half(q[ht][i]);
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
      StreamVec<Tr::kLoadBytesK> k_raw[2][Tr::kLoadsK];
      uint32_t v_raw[4][Tr::kWordsV];
      const StepRows rows = step_rows<kLayout>(p, seg, key0);
#pragma unroll
      for (int t = 0; t < 2; ++t) {
        const int64_t key = key0 + t * 8 + group;
        const int64_t row = step_row<kLayout>(rows, key0, key);
#pragma unroll
        for (int j = 0; j < Tr::kLoadsK; ++j) {
          k_raw[t][j] =
              key < seg_end
                  ? load_streaming_vec<Tr::kLoadBytesK>(
                        k + row * kHeadDim + j * KLane::kLoadStride + tid * KLane::kLaneStride)
                  : StreamVec<Tr::kLoadBytesK>{};
        }
      }
#pragma unroll
      for (int r = 0; r < 4; ++r) {  // keys 2·tid, 2·tid + 1, 8 + 2·tid, 9 + 2·tid
        const int64_t key = key0 + (r / 2) * 8 + tid * 2 + r % 2;
        const int64_t row = step_row<kLayout>(rows, key0, key);
        load_v_words<Tr>(v_raw[r], v + row * kHeadDim, key < seg_end, group);
      }

      float s[2][4] = {};
#pragma unroll
      for (int t = 0; t < 2; ++t) {
#pragma unroll
        for (int i = 0; i < kChunksK; ++i) {
          const uint4 kc = k_chunk<Tr>(k_raw[t], i);
#pragma unroll
          for (int u = 0; u < 2; ++u) {
            const uint32_t q_hi0 = kHeadTiles == 2 ? word(q[kHeadTiles - 1][i], 2 * u) : 0u;
            const uint32_t q_hi1 = kHeadTiles == 2 ? word(q[kHeadTiles - 1][i], 2 * u + 1) : 0u;
            mma_16816<Mma>(s[t], word(q[0][i], 2 * u), q_hi0, word(q[0][i], 2 * u + 1), q_hi1,
                           word(kc, 2 * u), word(kc, 2 * u + 1));
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
            x[t][e] = valid ? s[t][2 * ht + e] * score_scale : -INFINITY;
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
          pt[ht][t] = pack_pair<Mma>(p0, p1);
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
      // The lane's V elements of each row as Mma pairs: word w holds elements 2w, 2w + 1.
      uint32_t v16[4][kDimTiles];
#pragma unroll
      for (int r = 0; r < 4; ++r) {
#pragma unroll
        for (int w = 0; w < Tr::kWordsV; ++w) {
          if constexpr (Tr::kFp8) {
            const uint2 h = e4m3x4_to_half2x2(v_raw[r][w]);
            v16[r][2 * w] = h.x;
            v16[r][2 * w + 1] = h.y;
          } else {
            v16[r][w] = v_raw[r][w];
          }
        }
      }
#pragma unroll
      for (int j = 0; j < kDimTiles; ++j) {
        // Element j of the lane's first kDimTiles V elements is word j / 2, half j % 2.
        const uint32_t sel = j % 2 == 0 ? 0x5410u : 0x7632u;
        const int lo = j / 2;
        const int hi = kDimTiles / 2 + j / 2;
        const uint32_t a0 = __byte_perm(v16[0][lo], v16[1][lo], sel);
        const uint32_t a1 = __byte_perm(v16[0][hi], v16[1][hi], sel);
        const uint32_t a2 = __byte_perm(v16[2][lo], v16[3][lo], sel);
        const uint32_t a3 = __byte_perm(v16[2][hi], v16[3][hi], sel);
#pragma unroll
        for (int ht = 0; ht < kHeadTiles; ++ht) {
          mma_16816<Mma>(o[ht][j], a0, a1, a2, a3, pt[ht][0], pt[ht][1]);
        }
      }
    }

    // Warp state to shared memory: l summed over the 4 lanes of a head row; o[ht][j][c] is head
    // ht·8 + 2·tid + c % 2 at d = dim_of(j) (c < 2) or dim_of(kDimTiles + j), times the V scale
    // over an FP8 cache (1 otherwise: the 16-bit kernel multiplies by nothing).
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
          const float value = Tr::kFp8 ? o[ht][j][c] * v_scale : o[ht][j][c];
          warp_o[warp][ht * 8 + tid * 2 + c % 2][dim_of(c < 2 ? j : kDimTiles + j)] = value;
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
// 8 (g ≤ 8) or 16 query heads per block (v5; 8 at d = 256, decode_max_heads_per_block). Each for
// a contiguous or a paged KV cache. An FP8 cache (KV = E4m3) has the tensor-core kernel only, at
// any g (decode_heads_per_block_for).
template <class T, class KV, int kHeadDim, KvLayout kLayout>
DecodeKernels kernels_for_layout(int64_t heads_per_block) {
  if constexpr (!std::is_same_v<KV, E4m3>) {
    if (heads_per_block == 1) {
      return {&decode_split_kv_kernel<T, kHeadDim, 1, kLayout>, kDecodeThreads};
    }
  }
  // The 16-head instantiation exists only where decode_max_heads_per_block allows it (at d = 256
  // its warp_o alone would be 64 KiB of static shared memory).
  if constexpr (decode_max_heads_per_block(kHeadDim) >= 16) {
    if (heads_per_block == 16) {
      return {&decode_split_kv_mma_kernel<T, KV, kHeadDim, 2, kLayout>, kMmaThreads};
    }
  }
  return {&decode_split_kv_mma_kernel<T, KV, kHeadDim, 1, kLayout>, kMmaThreads};
}

template <class T, class KV, int kHeadDim>
DecodeKernels kernels_for_dim(KvLayout layout, int64_t heads_per_block) {
  return layout == KvLayout::kPaged
             ? kernels_for_layout<T, KV, kHeadDim, KvLayout::kPaged>(heads_per_block)
             : kernels_for_layout<T, KV, kHeadDim, KvLayout::kContiguous>(heads_per_block);
}

/// The kernels of head_dim 64, 96, 128 or 256 (check_decode_shape has refused the others).
template <class T, class KV>
DecodeKernels kernels_for_kv(int64_t head_dim, KvLayout layout, int64_t heads_per_block) {
  switch (head_dim) {
    case 64:
      return kernels_for_dim<T, KV, 64>(layout, heads_per_block);
    case 96:
      return kernels_for_dim<T, KV, 96>(layout, heads_per_block);
    case 128:
      return kernels_for_dim<T, KV, 128>(layout, heads_per_block);
    default:
      return kernels_for_dim<T, KV, 256>(layout, heads_per_block);
  }
}

template <class T>
DecodeKernels kernels_for_type(const Shape& s, KvLayout layout, int64_t heads_per_block) {
  return s.kv_dtype == KvDtype::kFp8E4m3
             ? kernels_for_kv<T, E4m3>(s.head_dim, layout, heads_per_block)
             : kernels_for_kv<T, T>(s.head_dim, layout, heads_per_block);
}

/// The kernel for shape `s` over a KV cache in `layout` with `heads_per_block` query heads.
DecodeKernels kernels_for_shape(const Shape& s, KvLayout layout, int64_t heads_per_block) {
  return s.dtype == Dtype::kBf16 ? kernels_for_type<__nv_bfloat16>(s, layout, heads_per_block)
                                 : kernels_for_type<__half>(s, layout, heads_per_block);
}

/// Query heads per block (decode_block_heads): decode_heads_per_block(g, d), except over an FP8
/// cache at g = 1, which
/// runs the tensor-core kernel with one real head of its 8 rows: the CUDA-core kernel would spend
/// about 3 integer operations per element converting E4M3 to fp32 beside its 2 FMAs, as many
/// instructions as the halved bytes leave time for at full bandwidth; on tensor cores the
/// conversion to fp16 is the only per-element work (docs/perf-notes.md, FP8 KV cache).
int64_t decode_heads_per_block_for(const Shape& s) {
  return decode_block_heads(s.group_size(), s.head_dim, s.kv_dtype == KvDtype::kFp8E4m3);
}

/// Everything the launches of one shape need; the same plan sizes the workspace.
struct DecodePlan {
  DecodeKernels kernels;
  int64_t heads_per_block = 1;  ///< decode_heads_per_block_for(shape): 1, 8 or 16
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
  plan.heads_per_block = decode_heads_per_block_for(s);
  // ceil(g / heads_per_block): the same for an FP8 cache, whose 8 heads per block at g = 1 make
  // one chunk too.
  plan.head_chunks = decode_head_chunks(group, s.head_dim);
  plan.kernels = kernels_for_shape(s, s.kv_layout, plan.heads_per_block);
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
      kernels_for_shape(s, KvLayout::kContiguous, plan.heads_per_block);
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

// ---------------------------------------------------------------------------------------------
// FP8 quantization of the random K and V (not timed).

/// Quantizes the contiguous 16-bit K or V `x` of shape `s` to E4M3 in `out` (same layout, one
/// byte per element) with one scale per KV head into `scales` [kv_heads]: rows of L·d elements,
/// B·H_kv of them, row r in KV head r % H_kv (kernels/common/e4m3_quantize.hpp). One scale per KV
/// head for K and one for V is vLLM's per-attention-head FP8 KV-cache scheme (k_scale and v_scale
/// of [num_kv_heads] floats; vLLM documentation, "Quantized KV Cache"), here over the whole batch.
template <class T>
void quantize_kv_e4m3(const Shape& s, const T* x, uint8_t* out, float* scales) {
  quantize_e4m3_grouped(x, s.batch * s.kv_heads, s.seq_len * s.head_dim, s.kv_heads, out, scales);
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
      {"v5", "decode_attention_v5_mma_gqa_fused_merge",
       "kv_heads < heads (GQA, g >= 2), or --kv-dtype fp8_e4m3 at any g", "v4"}};
  return versions;
}

/// Decode attention at one shape, over a contiguous or a paged KV cache (Shape::kv_layout) of
/// 16-bit or FP8 elements (Shape::kv_dtype). A paged run holds K and V as page pools and the
/// scattered block table (scattered_block_table); given the same seed, it holds the same K and V
/// values as a contiguous run, page by page. An FP8 run holds the E4M3 quantization of the 16-bit
/// K and V a 16-bit run of the same seed holds, and their scales.
class DecodeAttentionRun final : public OperatorRun {
 public:
  explicit DecodeAttentionRun(const Shape& shape)
      : shape_(shape),
        plan_(make_decode_plan(shape)),
        q_(shape.batch * shape.heads * shape.head_dim),
        k_(kv_elements(shape) * kv_element_bytes(shape)),
        v_(k_.count()),
        o_(q_.count()),
        partial_o_(workspace_floats(shape, plan_)),
        partial_ml_(workspace_stats(shape, plan_)),
        arrivals_(workspace_counters(shape, plan_)),
        block_table_(block_table_entries(shape)),
        k_scale_(fp8() ? shape.kv_heads : 0),
        v_scale_(k_scale_.count()) {
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
    seed_ = seed;
    // q twice as wide as k so the softmax is not nearly flat (score std ≈ 0.67 at any head_dim).
    fill_uniform(q_.get(), q_.count(), shape_.dtype, seed, -2.0f, 2.0f);
    fill_kv(k_, k_scale_.get(), seed + 1);
    fill_kv(v_, v_scale_.get(), seed + 2);
  }

  /// Against the reference on the K and V the kernel read (over an FP8 cache: their dequantized
  /// values, E4M3 × scale); over an FP8 cache also, as Validation::quantization, how far O lies
  /// from the reference on the 16-bit K and V they were quantized from.
  Validation validate() override {
    launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    Validation validation = validate_as_read();
    if (fp8()) validation.quantization = quantization_error();
    return validation;
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
    params.k_scale = k_scale_.get();
    params.v_scale = v_scale_.get();
    const dim3 split_grid(static_cast<unsigned>(plan_.parts),
                          static_cast<unsigned>(plan_.head_chunks));
    plan_.kernels
        .split<<<split_grid, static_cast<unsigned>(plan_.kernels.split_threads), 0, stream>>>(
            params);
    RFL_CHECK_LAUNCH();
  }

  std::vector<std::string> kernel_names() const override { return {"decode_split_kv"}; }

  std::string version() const override {
    // v4 at g = 1 over a 16-bit cache, v5 otherwise (decode_heads_per_block_for), whichever was
    // asked for (decode_attention_versions).
    return decode_attention_versions()[plan_.heads_per_block == 1 ? 0 : 1].name;
  }
  /// q and o; k and v in the layout Shape documents (paged: the page pools, "k_pages" and
  /// "v_pages", whose rows the block table orders). Over an FP8 cache k and v hold E4M3 bytes
  /// (count = elements = bytes) and "k_scale", "v_scale" the fp32 scales [kv_heads].
  std::vector<DeviceTensorView> tensors() override {
    const int64_t kv_count = k_.count() / kv_element_bytes(shape_);
    std::vector<DeviceTensorView> views = {{"q", q_.get(), q_.count()},
                                           {paged() ? "k_pages" : "k", k_.get(), kv_count},
                                           {paged() ? "v_pages" : "v", v_.get(), kv_count},
                                           {"o", o_.get(), o_.count()}};
    if (fp8()) {
      views.push_back({"k_scale", k_scale_.get(), k_scale_.count()});
      views.push_back({"v_scale", v_scale_.get(), v_scale_.count()});
    }
    return views;
  }

 private:
  double softmax_scale() const { return 1.0 / std::sqrt(static_cast<double>(shape_.head_dim)); }
  bool paged() const { return shape_.kv_layout == KvLayout::kPaged; }
  bool fp8() const { return shape_.kv_dtype == KvDtype::kFp8E4m3; }
  int page_shift() const { return __builtin_ctzll(static_cast<uint64_t>(shape_.page_size)); }
  int64_t contiguous_kv_elements() const {
    return shape_.batch * shape_.kv_heads * shape_.seq_len * shape_.head_dim;
  }

  AttentionProblem problem(const void* k, const void* v) const {
    AttentionProblem problem;
    problem.q = q_.get();
    problem.k = k;
    problem.v = v;
    problem.batch = shape_.batch;
    problem.heads = shape_.heads;
    problem.kv_heads = shape_.kv_heads;
    problem.head_dim = shape_.head_dim;
    problem.q_len = 1;
    problem.kv_len = shape_.seq_len;
    problem.causal = false;  // the single query sees every key either way
    problem.dtype = shape_.dtype;
    problem.scale = softmax_scale();
    return problem;
  }

  Validation validate_as_read() {
    // The reference reads contiguous K and V: a paged cache is gathered back for it.
    const int64_t contiguous_bytes =
        paged() ? contiguous_kv_elements() * kv_element_bytes(shape_) : 0;
    DeviceBuffer<uint8_t> k_gathered(contiguous_bytes);
    DeviceBuffer<uint8_t> v_gathered(contiguous_bytes);
    if (paged()) {
      copy_pages<PageCopy::kFromPages>(k_.get(), k_gathered.get());
      copy_pages<PageCopy::kFromPages>(v_.get(), v_gathered.get());
      RFL_CUDA_CHECK(cudaDeviceSynchronize());
    }
    AttentionProblem p =
        paged() ? problem(k_gathered.get(), v_gathered.get()) : problem(k_.get(), v_.get());
    if (fp8()) {
      p.k_scale = k_scale_.get();
      p.v_scale = v_scale_.get();
    }
    return validate_attention_output(p, o_.get(), default_tolerance(shape_.dtype));
  }

  // The 16-bit K and V of fill_random's seed, contiguous, as the FP8 cache's were before
  // quantization, against O.
  QuantizationError quantization_error() {
    DeviceBuffer<uint16_t> k(contiguous_kv_elements());
    DeviceBuffer<uint16_t> v(contiguous_kv_elements());
    fill_uniform(k.get(), k.count(), shape_.dtype, seed_ + 1, -1.0f, 1.0f);
    fill_uniform(v.get(), v.count(), shape_.dtype, seed_ + 2, -1.0f, 1.0f);
    return attention_output_difference(
        problem(k.get(), v.get()), o_.get(),
        fmt::format("the {} K, V before quantization", to_string(shape_.dtype)));
  }

  // K or V with fill_random's values for `seed`: 16-bit, or their E4M3 quantization with the
  // scales in `scale` (quantize_kv_e4m3). Contiguous 16-bit: filled in place; otherwise through
  // contiguous scratch buffers, then (paged) scattered into the pages, so that the values match a
  // contiguous 16-bit run of the same seed.
  void fill_kv(DeviceBuffer<uint8_t>& kv, float* scale, uint64_t seed) {
    DeviceBuffer<uint8_t> contiguous(paged() ? contiguous_kv_elements() * kv_element_bytes(shape_)
                                             : 0);
    uint8_t* target = paged() ? contiguous.get() : kv.get();
    if (fp8()) {
      DeviceBuffer<uint16_t> source(contiguous_kv_elements());
      fill_uniform(source.get(), source.count(), shape_.dtype, seed, -1.0f, 1.0f);
      if (shape_.dtype == Dtype::kBf16) {
        quantize_kv_e4m3(shape_, reinterpret_cast<const __nv_bfloat16*>(source.get()), target,
                         scale);
      } else {
        quantize_kv_e4m3(shape_, reinterpret_cast<const __half*>(source.get()), target, scale);
      }
    } else {
      fill_uniform(target, contiguous_kv_elements(), shape_.dtype, seed, -1.0f, 1.0f);
    }
    if (paged()) copy_pages<PageCopy::kToPages>(target, kv.get());
    RFL_CUDA_CHECK(cudaDeviceSynchronize());  // before the scratch buffers are freed
  }

  // kToPages: `contiguous` → `pages`; kFromPages: `pages` → `contiguous`. Rows of head_dim
  // elements of kv_element_bytes each.
  template <PageCopy kDirection>
  void copy_pages(const uint8_t* from, uint8_t* to) {
    const int64_t vecs_per_row = shape_.head_dim * kv_element_bytes(shape_) / 16;
    const int64_t total_vecs = contiguous_kv_elements() / shape_.head_dim * vecs_per_row;
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
  uint64_t seed_ = 0;  ///< of the last fill_random
  DeviceBuffer<uint16_t> q_;
  DeviceBuffer<uint8_t> k_;  ///< kv_elements × kv_element_bytes bytes
  DeviceBuffer<uint8_t> v_;
  DeviceBuffer<uint16_t> o_;
  DeviceBuffer<float> partial_o_;
  DeviceBuffer<float2> partial_ml_;
  DeviceBuffer<unsigned int> arrivals_;
  DeviceBuffer<int32_t> block_table_;  ///< paged only: [batch, pages per sequence]
  DeviceBuffer<float> k_scale_;        ///< FP8 only: [kv_heads]
  DeviceBuffer<float> v_scale_;        ///< FP8 only: [kv_heads]
};

void check_decode_shape(const Shape& shape) {
  validate_common_shape(shape);
  if (!is_decode_head_dim(shape.head_dim)) {
    throw bad_input(
        fmt::format("decode_attention: head-dim {} is not supported: allowed 64, 96, 128, 256",
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
//   of v4 also see the softmax and the shuffle reductions over a row's lanes, ~15–20% above the
//   formula at d = 128 (docs/perf-notes.md, decode_attention_v2_flat_split), and at d = 96 the
//   FMAs of the 4 lanes without dims in each 16-lane group (4/3 of the products); exp2 runs on
//   the MUFU pipe and is counted nowhere.
//   v5 (g ≥ 2) does these products on the tensor pipe, padded: per key 2·16·d (S, M = 16 rows)
//   + 2·8·d (P·V, N = 8 heads) per 8-head block, i.e. 48·d against the formula's 4·g·d (3× at
//   g = 4, 1.5× at g = 8; exact at g = 16, where 16 heads fill M and two N tiles, except at
//   d = 256, whose blocks hold 8 heads: 1.5× there).
//   Bytes = 2·B·H_kv·L·d·e (K and V read once) + 2·B·H·d·e (Q read, O written). Not counted: the
//   workspace, parts·slots·g·(d + 2)·4 bytes written by the split kernel and read back by the
//   merging blocks (parts = resident blocks, ~264–1056 on an H200; ≤ 1 MB for the benchmark
//   shapes, far below the K/V bytes, and it mostly stays in L2), nor the arrival counters.
//   Paged: + 4·B·ceil(L/P) minimum (each block-table entry once); as implemented, every block
//   reads the entries of its own keys, so a sequence's entries are read by each of its H_kv KV
//   heads and decode_head_chunks(g, d) head chunks: + 4·B·H_kv·chunks·ceil(L/P) (the ≤ parts
//   entries of pages cut by a part boundary, read by both parts, are not counted).
//   FP8 KV cache: K and V take 1 byte per element (e_kv = 1 in the KV term), + 8·H_kv minimum
//   (the K and V scales once each); as implemented every segment start reads its KV head's two:
//   + 8·B·H_kv·chunks (the ≤ parts extra segments a part boundary makes are not counted). The
//   FLOPs stay 4·B·H·L·d: the E4M3 → fp16 conversion is integer work, counted nowhere, as the
//   16-bit kernels' widening is; the tensor-pipe padding above applies at g = 1 too (8 rows).
OperatorSpec decode_attention_spec() {
  OperatorSpec spec;
  spec.name = kDecodeAttentionOp;
  spec.summary =
      "one query token per sequence over a KV cache of L positions (GQA, split-KV; contiguous or "
      "paged; 16-bit or fp8_e4m3)";
  spec.pipe = decode_attention_pipe;
  spec.mma_inputs = decode_attention_mma_inputs;
  spec.pipe_rule =
      "tensor under GQA (g >= 2) or an FP8 KV cache (v5's mma.sync), fp32 at g = 1 (v4)";
  spec.check_shape = check_decode_shape;
  // Q and O [B, H, d] in dtype, K and V (kv_elements of kv_element_bytes); fp32 workspace
  // [parts, slots, g, d + 2] and the arrival counters [B·H_kv, head chunks]. Paged: the int32
  // block table. FP8: the K and V scales and, while filling, the amax per KV head [H_kv]. Paged
  // or FP8, the largest scratch: 2·E·e bytes, E = B·H_kv·L·d (paged: validate gathers the pages
  // back for the reference, E·e_kv each for K and V; FP8: validate regenerates the 16-bit K and V;
  // below it, the fill's 16-bit source E·e plus, paged, its contiguous E·e_kv).
  // The part count depends on the current device (SM count, occupancy), hence the plan.
  spec.device_bytes = [](const Shape& shape) {
    const DecodePlan plan = make_decode_plan(shape);
    const int64_t e = dtype_size_bytes(shape.dtype);
    const bool fp8 = shape.kv_dtype == KvDtype::kFp8E4m3;
    const int64_t scratch =
        shape.kv_layout == KvLayout::kPaged || fp8
            ? 2 * shape.batch * shape.kv_heads * shape.seq_len * shape.head_dim * e
            : 0;
    const int64_t scales = fp8 ? 3 * shape.kv_heads * int64_t{sizeof(float)} : 0;
    return 2 * shape.batch * shape.heads * shape.head_dim * e +
           2 * kv_elements(shape) * kv_element_bytes(shape) +
           block_table_entries(shape) * int64_t{sizeof(int32_t)} + scratch + scales +
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
