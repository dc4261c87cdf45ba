// flash_attention: FlashAttention-2 forward (Dao 2023, "FlashAttention-2: Faster Attention with
// Better Parallelism and Work Partitioning", arXiv 2307.08691, Algorithm 1), bf16/fp16 in, fp32
// accumulation, O in the input dtype plus the row log-sum-exp in fp32.
//   flash_attention_v3_wgmma_tma (kernels/flash_attention_wgmma.cu, sm_90a): FlashAttention-3's
//     structure at every head_dim (64, 96, 128, 256), the default on compute capability 9.0
//     wherever it applies (flash_wgmma_supports).
//   flash_attention_v2_mma_sync (flash_attention_fwd below): everywhere else (other
//     architectures, any head_dim under `--kernel flash_attention=v2`). 4 warps
//     over query tiles of 128 rows (64 at head_dim 256), K/V tiles streamed through shared memory
//     (XOR-swizzled, or padded rows at head_dim 96) by cp.async, mma.sync m16n8k16; S and P never
//     leave registers.
// Selection: `--kernel flash_attention=v2` runs v2 on any device (for comparisons); "v3", the
// default, runs v3 where it applies (flash_versions, use_wgmma). The references it is validated
// against (CPU float64 and a GPU fp32 one that shares no code with this file) are in
// kernels/reference_attention.cu; the measurements and the earlier v1 in docs/perf-notes.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/kernel_tiles.hpp"
#include "core/kernel_version.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/cp_async.hpp"
#include "kernels/common/pack_pair.hpp"
#include "kernels/common/sm90_host.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/flash_attention.hpp"
#include "kernels/flash_attention_wgmma.hpp"
#include "kernels/operator.hpp"
#include "kernels/reference_attention.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kVersionV2 = "flash_attention_v2_mma_sync";
constexpr const char* kVersionV3 = kFlashWgmmaVersionName;

// ---------------------------------------------------------------------------------------------
// Parameters and compile-time tiles

/// Kernel arguments. Q, O: [batch, heads, q_len, head_dim]; K, V: [batch, kv_heads, kv_len,
/// head_dim]; contiguous, 16-byte aligned. lse: fp32 [batch, heads, q_len].
struct FlashParams {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;
  int64_t heads, kv_heads, q_len, kv_len;
  float scale;       ///< softmax scale (natural base), for the log-sum-exp
  float scale_log2;  ///< scale·log2(e): each probability is one FFMA and one exp2 (MUFU.EX2)
  bool causal;
};

/// Tile shape for one head dimension, FA2's forward choices on sm_80+ (Dao 2023, arXiv 2307.08691;
/// the public kernel traits of its flash_fwd_launch_template.h): 4 warps; Br = 128 rows, 32 per
/// warp, at d = 64, 96 and 128 with Bc = 128 keys at d = 64 and 64 at d = 96 and 128; at d = 256
/// Br = 64, 16 rows per warp, Bc = 32. Per thread that keeps the O accumulator (rows per warp ·
/// d / 32 fp32: 64, 96, 128 and 128) beside the S accumulator (rows per warp · Bc / 32: 128, 64,
/// 64 and 16) and the P fragments (half the S registers) under 255 registers, and the Q tile plus
/// double-buffered K/V tiles at 80, 78, 96 and 96 KB, so two 128-thread blocks share an sm_90 SM
/// (one on sm_80's 164 KB at d = 128 and 256). At d = 256, 32 rows per warp would need 256 fp32
/// registers of O alone; FA2 runs Br = 64 there on H100 for the same two blocks per SM (its
/// single-buffered 64 × 64 tile also takes 96 KB). Br, the rows per warp and Bc are the ones the
/// analytic model reads (core/kernel_tiles.hpp).
template <int kHeadDim_>
struct FlashTraits {
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = flash_query_tile_rows(kHeadDim);  ///< query rows per block (Br)
  static constexpr int kBlockN = flash_key_tile_cols(kHeadDim);    ///< keys per K/V tile (Bc)
  static constexpr int kWarps = kFlashWarps;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kRowsPerWarp = flash_warp_rows(kHeadDim);
  static constexpr int kMTiles = kRowsPerWarp / 16;  ///< 16-row mma M tiles per warp
  static constexpr int kMinBlocksPerSm = 2;
  static constexpr int kStages = 2;                   ///< K/V double buffering
  static constexpr int kChunksPerRow = kHeadDim / 8;  ///< 16-byte chunks of data per row
  /// Shared layout (see smem_offset): XOR-swizzled unpadded rows when a row is whole groups of 8
  /// chunks (d = 64, 128, 256); otherwise (d = 96) rows padded by one chunk to an odd count.
  static constexpr bool kSwizzled = kChunksPerRow % 8 == 0;
  static constexpr int kRowStride = kSwizzled ? kHeadDim : kHeadDim + 8;  ///< elements per row
  /// Rows one pass of load_tile covers: kThreads / kChunksPerRow where that is whole (16, 8, 4
  /// at d = 64, 128, 256), else 8 (d = 96: 8 rows of 12 chunks, 96 of the 128 threads copy).
  static constexpr int kLoadRowStep = kThreads % kChunksPerRow == 0 ? kThreads / kChunksPerRow : 8;
  static constexpr int kLoadThreads = kLoadRowStep * kChunksPerRow;  ///< threads that copy
  static constexpr int kQTileElems = kBlockM * kRowStride;
  static constexpr int kKvTileElems = kBlockN * kRowStride;
  static constexpr size_t kSmemBytes =
      sizeof(uint16_t) * (kQTileElems + 2 * kStages * kKvTileElems);  // Q + K, V stages

  static constexpr int kDSteps = kHeadDim / 16;  ///< k-steps of S = QKᵀ
  static constexpr int kDTiles = kHeadDim / 8;   ///< n-tiles of the O accumulator
  static constexpr int kNTiles = kBlockN / 8;    ///< n-tiles of the S accumulator
  static constexpr int kNSteps = kBlockN / 16;   ///< k-steps of O += P·V

  static_assert(kHeadDim % 16 == 0, "whole mma k-steps of S = QKᵀ, whole pairs of O n-tiles");
  static_assert(kRowsPerWarp % 16 == 0, "a warp owns whole 16-row mma M tiles");
  static_assert(kBlockM == kRowsPerWarp * kWarps, "warps split the query tile evenly");
  static_assert(kBlockN % 16 == 0, "whole 16-key k-steps of O += P·V");
  static_assert(kSwizzled || (kRowStride / 8) % 2 == 1, "a padded row is an odd number of chunks");
  static_assert(kLoadThreads <= kThreads, "a load pass fits the block");
  static_assert(kLoadRowStep % 8 == 0 || 8 % kLoadRowStep == 0, "row phases repeat every 8 rows");
  static_assert(kBlockM % kLoadRowStep == 0 && kBlockN % kLoadRowStep == 0,
                "Q and K/V tiles are whole load passes");
  static_assert((kRowsPerWarp * kChunksPerRow) % 32 == 0, "O rows of a warp split over its lanes");
  // sm_90: 228 KB of shared memory per SM, 1 KB of it reserved per resident block.
  static_assert(kMinBlocksPerSm * (kSmemBytes + 1024) <= 228 * 1024,
                "two blocks must fit one SM's shared memory");
};

constexpr size_t kDefaultSmemLimit = 48 * 1024;  // above this, opt in per kernel
constexpr double kLog2e = 1.4426950408889634;    // log2(e): exp(x) = exp2(x·log2 e)

// ---------------------------------------------------------------------------------------------
// PTX wrappers (PTX ISA: ldmatrix, mma.sync.aligned.m16n8k16; cp.async in kernels/common)

/// Four 8×8 b16 matrices; lanes 8m..8m+7 give the row addresses of matrix m, and each lane
/// receives (row lane/4, columns 2·(lane%4), +1) of every matrix.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(smem_row)));
}

/// As ldmatrix_x4, transposed: each lane receives (rows 2·(lane%4), +1, column lane/4).
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(smem_row)));
}

/// d += a·b for a 16×16 A (row-major fragment), 16×8 B (column-major), fp32 16×8 accumulator.
template <class T>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                             uint32_t b1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// ---------------------------------------------------------------------------------------------
// Kernel

/// Element offset of (row, col) in a shared tile of Traits::kHeadDim-element rows.
/// Swizzled (d = 64, 128, 256): unpadded rows whose 16-byte chunks are XOR-swizzled, chunk c of
/// row r stored at chunk c ^ (r % 8). A row is 128, 256 or 512 bytes, a multiple of the 128-byte
/// bank period, so without the swizzle the 8 rows one ldmatrix phase reads (same column, 8
/// consecutive rows from a multiple of 8) would share 4 banks; with it they land in 8 distinct
/// chunks mod 8, which covers the 32 banks once.
/// Padded (d = 96): a row is 12 chunks, 192 bytes = 1.5 bank periods, so unpadded rows r and r + 2
/// start 3 periods apart and the 8 rows of a phase fall on 2 distinct 16-byte bank groups (4-way
/// conflicts); an XOR over groups of 8 chunks does not cover a 12-chunk row. Each row is padded
/// by one chunk to 13 (208 bytes): chunk c of row r starts at bank group (13·r + c) mod 8 =
/// (5·r + c) mod 8, distinct over any 8 consecutive rows because 5 is odd, so every ldmatrix phase
/// is conflict-free and addressing stays linear; it costs 8% more shared memory (78 KB per block
/// instead of 72). The padding chunk is never read or written.
template <class Traits>
__device__ __forceinline__ int smem_offset(int row, int col) {
  if constexpr (Traits::kSwizzled) {
    return row * Traits::kRowStride + (((col / 8) ^ (row % 8)) * 8) + col % 8;
  } else {
    return row * Traits::kRowStride + col;
  }
}

/// smem_offset(row, col + cols) from `offset` = smem_offset(row, col), for the ldmatrix loops:
/// they walk 16 columns (two chunks) per k-step from a lane's own starting chunk chunk0 ∈ {0, 1},
/// so col = 8·chunk0 and cols = 16·step. Padded: plain addition. Swizzled: since 2·step and chunk0
/// share no bits, chunk0 + 2·step = chunk0 ^ 2·step, so smem_offset(row, 16·step + 8·chunk0) =
/// smem_offset(row, 8·chunk0) ^ 16·step: the row part is a multiple of kHeadDim (a power of two)
/// and the chunk part and 16·step are both below it. Each loop then needs one base register per
/// operand and an XOR (or add) with a constant per step, and rows 16 further down are a constant
/// added on top (ldmatrix's immediate offset).
template <class Traits>
__device__ __forceinline__ int smem_step(int offset, int cols) {
  if constexpr (Traits::kSwizzled) {
    return offset ^ cols;
  } else {
    return offset + cols;
  }
}

/// Starts the async copy of rows [row_begin, row_begin + kRows) of a [row_count, head_dim]
/// matrix into a shared tile laid out as smem_offset says. Rows past row_count are zero-filled:
/// padded K rows are masked anyway, but padded V rows meet P = 0 in P·V and must not hold NaN
/// garbage. Each of the first kLoadThreads threads keeps one chunk column and one row phase, so
/// a single base offset per row phase serves every pass (the swizzle repeats every 8 rows: one
/// phase when a pass is a multiple of 8 rows, two at d = 256, where a pass is 4 rows).
template <class Traits, int kRows>
__device__ __forceinline__ void load_tile(uint16_t* s_tile, const uint16_t* g, int row_begin,
                                          int row_count) {
  constexpr int kChunks = Traits::kChunksPerRow;
  constexpr int kRowStep = Traits::kLoadRowStep;
  constexpr int kPhases = kRowStep % 8 == 0 ? 1 : 8 / kRowStep;
  static_assert(kRows % kRowStep == 0, "whole passes over the rows");
  if constexpr (Traits::kLoadThreads < Traits::kThreads) {
    if (static_cast<int>(threadIdx.x) >= Traits::kLoadThreads) return;  // d = 96: the last warp
  }
  const int r0 = static_cast<int>(threadIdx.x) / kChunks;
  const int chunk = static_cast<int>(threadIdx.x) % kChunks;
  int s_off[kPhases];
#pragma unroll
  for (int j = 0; j < kPhases; ++j) s_off[j] = smem_offset<Traits>(r0 + j * kRowStep, chunk * 8);
#pragma unroll
  for (int i = 0; i < kRows / kRowStep; ++i) {
    const int row = row_begin + r0 + i * kRowStep;
    const bool in_range = row < row_count;
    const uint16_t* src =
        g + static_cast<int64_t>(in_range ? row : 0) * Traits::kHeadDim + chunk * 8;
    cp_async_16(
        s_tile + s_off[i % kPhases] + (i / kPhases) * kPhases * kRowStep * Traits::kRowStride, src,
        in_range ? 16 : 0);
  }
}

/// flash_attention_v2_mma_sync, over grid (query tiles, heads, batch): the FA2 structure on the
/// warp-level tensor-core instructions (mma.sync m16n8k16, ldmatrix, cp.async) that sm_80 through
/// sm_90 all run, with FA2's own tile shapes for these head dims (FlashTraits). One block per
/// (Br-row query tile, head, batch); 4 warps, each owning Br/4 query rows (two mma M tiles at
/// d ≤ 128, one at d = 256) for the whole key loop, so the softmax statistics of a row never leave
/// its warp. K and V tiles of Bc keys are streamed through shared memory by cp.async,
/// double-buffered, K and V in separate commit groups so S = QKᵀ of tile n starts while V of tile
/// n is still arriving and tile n+1 is already on its way. Every K or V fragment that ldmatrix
/// brings from shared memory feeds every M tile of a warp (4 MMAs at d ≤ 128), and each K/V tile
/// copied into shared memory serves Br rows. S and P stay in registers (P is re-packed in place
/// as the A operand of P·V), so the L² score matrix never touches HBM: that is where FA beats the
/// naive three-launch path (I/O Θ(L·d) instead of Θ(L²) per head). The online softmax keeps a
/// running max and sum per row in fp32 and normalises O only once, after the last tile (FA2's
/// change over FA1 that removes most non-matmul FLOPs). A warp's rows of Q do not fit in
/// registers beside its O accumulator (d fp32 per thread at 32 rows per warp, d/2 at 16), so Q
/// fragments are re-read from shared memory per k-step. Shared tiles are XOR-swizzled, or padded at
/// d = 96 (smem_offset; conflict-free ldmatrix either way), causal blocks stop at the diagonal and
/// each warp skips the key tiles its own rows cannot see, and only tiles that cross the diagonal or
/// the end of K pay for masking. At most 96 KB of shared memory and 255 registers per thread let
/// two blocks share an sm_90 SM. The Hopper path (wgmma, TMA, warp specialisation: FA3) is v3, in
/// kernels/flash_attention_wgmma.cu.
template <class T, class Traits>
__global__ void __launch_bounds__(Traits::kThreads, Traits::kMinBlocksPerSm)
    flash_attention_fwd(const FlashParams p) {
  constexpr int kD = Traits::kHeadDim;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kMTiles = Traits::kMTiles;
  constexpr int kRowsPerWarp = Traits::kRowsPerWarp;

  extern __shared__ __align__(128) unsigned char smem_raw[];
  uint16_t* s_q = reinterpret_cast<uint16_t*>(smem_raw);
  uint16_t* s_k = s_q + Traits::kQTileElems;                     // kStages K tiles
  uint16_t* s_v = s_k + Traits::kStages * Traits::kKvTileElems;  // kStages V tiles

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  // Highest query tile first: under a causal mask it sees the most keys, and starting the
  // longest blocks early shortens the grid's tail.
  const int m0 = static_cast<int>(gridDim.x - 1 - blockIdx.x) * kBlockM;
  const int q_len = static_cast<int>(p.q_len);  // < 2^30 (check_flash_sizes)
  const int kv_len = static_cast<int>(p.kv_len);
  const int64_t bh = static_cast<int64_t>(blockIdx.z) * p.heads + blockIdx.y;
  const int64_t kv_bh = static_cast<int64_t>(blockIdx.z) * p.kv_heads +
                        blockIdx.y / (p.heads / p.kv_heads);  // GQA: group of heads per KV head
  const uint16_t* q = static_cast<const uint16_t*>(p.q) + bh * p.q_len * kD;
  const uint16_t* k = static_cast<const uint16_t*>(p.k) + kv_bh * p.kv_len * kD;
  const uint16_t* v = static_cast<const uint16_t*>(p.v) + kv_bh * p.kv_len * kD;
  uint16_t* o = static_cast<uint16_t*>(p.o) + bh * p.q_len * kD;
  float* lse = p.lse + bh * p.q_len;

  // Bottom-right aligned causal mask: row i sees key j iff j <= i + diag. The block loads the
  // key tiles its last row sees; a warp computes only those its own last row sees.
  const int diag = kv_len - q_len;
  const int warp_row0 = m0 + warp * kRowsPerWarp;
  int key_end = kv_len;
  int warp_key_end = kv_len;
  if (p.causal) {
    key_end = min(kv_len, min(m0 + kBlockM, q_len) + diag);
    warp_key_end = min(kv_len, min(warp_row0 + kRowsPerWarp, q_len) + diag);
  }
  const int n_tiles = key_end > 0 ? (key_end + kBlockN - 1) / kBlockN : 0;

  if (n_tiles > 0) {
    load_tile<Traits, kBlockM>(s_q, q, m0, q_len);
    load_tile<Traits, kBlockN>(s_k, k, 0, kv_len);
    cp_async_commit();
    load_tile<Traits, kBlockN>(s_v, v, 0, kv_len);
    cp_async_commit();
  }

  // Shared offsets at k-step 0 of this lane's ldmatrix rows (smem_offset; later k-steps by
  // smem_step): Q rows warp·kRowsPerWarp + lane%16 (+16 per M tile), chunk lane/16; K rows
  // lane%8 + 8·(lane/16) (+16 per key pair), chunk (lane/8)%2; V rows lane%8 + 8·((lane/8)%2)
  // (+16 per k-step), chunk lane/16.
  constexpr int kStride = Traits::kRowStride;
  const int q_off0 = smem_offset<Traits>(warp * kRowsPerWarp + lane % 16, (lane / 16) * 8);
  const int k_off0 = smem_offset<Traits>((lane / 16) * 8 + lane % 8, ((lane / 8) % 2) * 8);
  const int v_off0 = smem_offset<Traits>(((lane / 8) % 2) * 8 + lane % 8, (lane / 16) * 8);

  float acc_o[kMTiles][Traits::kDTiles][4] = {};
  // Thread rows: warp_row0 + 16·mt + lane/4 + 8·r (mma C layout), for mt < kMTiles, r < 2.
  float row_max[kMTiles][2];
  float row_sum[kMTiles][2];
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
    row_max[mt][0] = row_max[mt][1] = -INFINITY;
    row_sum[mt][0] = row_sum[mt][1] = 0.f;
  }
  uint32_t p_frag[kMTiles][Traits::kNSteps][4];

  for (int n = 0; n < n_tiles; ++n) {
    const int stage = n % 2;
    const uint16_t* s_k_cur = s_k + stage * Traits::kKvTileElems;
    const uint16_t* s_v_cur = s_v + stage * Traits::kKvTileElems;
    const int n0 = n * kBlockN;
    const bool has_next = n + 1 < n_tiles;
    const bool warp_active = n0 < warp_key_end;  // warp-uniform

    cp_async_wait<1>();  // Q and K(n) have landed; V(n) may still be in flight
    __syncthreads();     // ... for every thread, and everyone is done with K(n-1)
    if (has_next) {
      load_tile<Traits, kBlockN>(s_k + (stage ^ 1) * Traits::kKvTileElems, k, n0 + kBlockN, kv_len);
    }
    cp_async_commit();  // empty on the last tile: keeps the wait counts above uniform

    if (warp_active) {
      // S = Q·Kᵀ. K is stored [key][dim], i.e. column-major for B = Kᵀ: plain ldmatrix. Matrix
      // m of the x4 covers keys +8·(m/2) and dims +8·(m%2): b0, b1 of two adjacent 8-key
      // n-tiles. Each K fragment serves every M tile of the warp.
      float acc_s[kMTiles][Traits::kNTiles][4] = {};
#pragma unroll
      for (int ks = 0; ks < Traits::kDSteps; ++ks) {
        uint32_t qa[kMTiles][4];
        const uint16_t* s_q_step = s_q + smem_step<Traits>(q_off0, ks * 16);
        const uint16_t* s_k_step = s_k_cur + smem_step<Traits>(k_off0, ks * 16);
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) ldmatrix_x4(qa[mt], s_q_step + mt * 16 * kStride);
#pragma unroll
        for (int np = 0; np < Traits::kNTiles / 2; ++np) {
          uint32_t kb[4];
          ldmatrix_x4(kb, s_k_step + np * 16 * kStride);
#pragma unroll
          for (int mt = 0; mt < kMTiles; ++mt) {
            mma_m16n8k16<T>(acc_s[mt][2 * np], qa[mt], kb[0], kb[1]);
            mma_m16n8k16<T>(acc_s[mt][2 * np + 1], qa[mt], kb[2], kb[3]);
          }
        }
      }

      // Per-element mask only where the tile runs past K or crosses this warp's diagonal.
      const bool needs_mask =
          n0 + kBlockN > kv_len || (p.causal && n0 + kBlockN - 1 > warp_row0 + diag);
      if (needs_mask) {
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
          for (int nt = 0; nt < Traits::kNTiles; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int key = n0 + nt * 8 + (lane % 4) * 2 + e % 2;
              const int row = warp_row0 + mt * 16 + lane / 4 + (e / 2) * 8;
              if (key >= kv_len || (p.causal && key > row + diag)) {
                acc_s[mt][nt][e] = -INFINITY;
              }
            }
          }
        }
      }

      // Online softmax (FA2 Algorithm 1, lines 8-10), per row r of each M tile; the 4 lanes
      // of a quad share a row. A row that has seen no visible key yet has max -inf: subtract 0
      // instead, so its masked scores give exp2(-inf) = 0 rather than exp2(-inf + inf) = NaN;
      // its O and sum stay 0. Then P is packed: the C layout of two adjacent S n-tiles is
      // exactly the A layout of one 16-key k-step.
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          float tile_max = row_max[mt][r];
#pragma unroll
          for (int nt = 0; nt < Traits::kNTiles; ++nt) {
            tile_max = fmaxf(tile_max, fmaxf(acc_s[mt][nt][2 * r], acc_s[mt][nt][2 * r + 1]));
          }
          tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
          tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
          const float max_scaled = tile_max == -INFINITY ? 0.f : tile_max * p.scale_log2;
          const float correction =
              row_max[mt][r] == -INFINITY ? 0.f : exp2f(row_max[mt][r] * p.scale_log2 - max_scaled);
          row_max[mt][r] = tile_max;
          float tile_sum = 0.f;
#pragma unroll
          for (int nt = 0; nt < Traits::kNTiles; ++nt) {
#pragma unroll
            for (int c = 0; c < 2; ++c) {
              const float prob = exp2f(fmaf(acc_s[mt][nt][2 * r + c], p.scale_log2, -max_scaled));
              acc_s[mt][nt][2 * r + c] = prob;
              tile_sum += prob;
            }
          }
          row_sum[mt][r] = row_sum[mt][r] * correction + tile_sum;
#pragma unroll
          for (int dt = 0; dt < Traits::kDTiles; ++dt) {
            acc_o[mt][dt][2 * r] *= correction;
            acc_o[mt][dt][2 * r + 1] *= correction;
          }
        }
#pragma unroll
        for (int kk = 0; kk < Traits::kNSteps; ++kk) {
          p_frag[mt][kk][0] = pack_pair<T>(acc_s[mt][2 * kk][0], acc_s[mt][2 * kk][1]);
          p_frag[mt][kk][1] = pack_pair<T>(acc_s[mt][2 * kk][2], acc_s[mt][2 * kk][3]);
          p_frag[mt][kk][2] = pack_pair<T>(acc_s[mt][2 * kk + 1][0], acc_s[mt][2 * kk + 1][1]);
          p_frag[mt][kk][3] = pack_pair<T>(acc_s[mt][2 * kk + 1][2], acc_s[mt][2 * kk + 1][3]);
        }
      }
    }

    cp_async_wait<1>();  // V(n) has landed; K(n+1) may still be in flight
    __syncthreads();     // ... for every thread, and everyone is done with V(n-1)
    if (has_next) {
      load_tile<Traits, kBlockN>(s_v + (stage ^ 1) * Traits::kKvTileElems, v, n0 + kBlockN, kv_len);
    }
    cp_async_commit();

    if (warp_active) {
      // O += P·V. V is stored [key][dim], row-major for B = V: ldmatrix.trans. Matrix m of the
      // x4 covers keys +8·(m%2) and dims +8·(m/2): b0, b1 of two adjacent 8-dim n-tiles. Each
      // V fragment serves every M tile of the warp.
#pragma unroll
      for (int kk = 0; kk < Traits::kNSteps; ++kk) {
#pragma unroll
        for (int dp = 0; dp < Traits::kDTiles / 2; ++dp) {
          uint32_t vb[4];
          ldmatrix_x4_trans(vb, s_v_cur + smem_step<Traits>(v_off0, dp * 16) + kk * 16 * kStride);
#pragma unroll
          for (int mt = 0; mt < kMTiles; ++mt) {
            mma_m16n8k16<T>(acc_o[mt][2 * dp], p_frag[mt][kk], vb[0], vb[1]);
            mma_m16n8k16<T>(acc_o[mt][2 * dp + 1], p_frag[mt][kk], vb[2], vb[3]);
          }
        }
      }
    }
  }

  // Epilogue (Algorithm 1, lines 12-13): O /= sum, LSE = max·scale + log(sum). A row that saw a
  // key has sum >= 1 (its max contributes exp2(0)); a row that saw none has sum 0, O 0 and
  // LSE -inf.
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float sum = row_sum[mt][r];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      const float inv_sum = sum > 0.f ? 1.f / sum : 0.f;
#pragma unroll
      for (int dt = 0; dt < Traits::kDTiles; ++dt) {
        acc_o[mt][dt][2 * r] *= inv_sum;
        acc_o[mt][dt][2 * r + 1] *= inv_sum;
      }
      const int row = warp_row0 + mt * 16 + lane / 4 + r * 8;
      if (lane % 4 == 0 && row < q_len) {
        lse[row] = sum > 0.f ? row_max[mt][r] * p.scale + logf(sum) : -INFINITY;
      }
    }
  }

  // O leaves through this warp's own rows of the Q tile: only this warp ever reads them, its
  // last ldmatrix of them has completed, and no cp.async is pending (the last groups were
  // empty), so the global stores are whole 16-byte chunks of contiguous rows.
  const int s_row0 = warp * kRowsPerWarp;
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int dt = 0; dt < Traits::kDTiles; ++dt) {
      const int col = dt * 8 + (lane % 4) * 2;
      const int srow = s_row0 + mt * 16 + lane / 4;
      *reinterpret_cast<uint32_t*>(s_q + smem_offset<Traits>(srow, col)) =
          pack_pair<T>(acc_o[mt][dt][0], acc_o[mt][dt][1]);
      *reinterpret_cast<uint32_t*>(s_q + smem_offset<Traits>(srow + 8, col)) =
          pack_pair<T>(acc_o[mt][dt][2], acc_o[mt][dt][3]);
    }
  }
  __syncwarp();
#pragma unroll
  for (int c = lane; c < kRowsPerWarp * Traits::kChunksPerRow; c += 32) {
    const int r = c / Traits::kChunksPerRow;
    const int chunk = c % Traits::kChunksPerRow;
    const int row = warp_row0 + r;
    if (row < q_len) {
      *reinterpret_cast<uint4*>(o + static_cast<int64_t>(row) * kD + chunk * 8) =
          *reinterpret_cast<const uint4*>(s_q + smem_offset<Traits>(s_row0 + r, chunk * 8));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Launchers

/// Size checks shared by check_shape and the launcher (no pointers involved).
void check_flash_sizes(const AttentionProblem& p) {
  if (p.head_dim != 64 && p.head_dim != 96 && p.head_dim != 128 && p.head_dim != 256) {
    throw bad_input(fmt::format(
        "flash_attention: unsupported head-dim {} (supported: 64, 96, 128, 256)", p.head_dim));
  }
  if (p.batch <= 0 || p.heads <= 0 || p.kv_heads <= 0 || p.q_len <= 0 || p.kv_len <= 0 ||
      p.heads % p.kv_heads != 0) {
    throw bad_input(fmt::format(
        "flash_attention: invalid sizes batch {} heads {} kv-heads {} q_len {} kv_len {} "
        "(all positive, heads a multiple of kv-heads)",
        p.batch, p.heads, p.kv_heads, p.q_len, p.kv_len));
  }
  constexpr int64_t kMaxGridYZ = 65535;  // heads → grid.y, batch → grid.z
  // Tile counts, rows and keys are int in the kernels, with room for a tile past the end.
  constexpr int64_t kMaxLen = int64_t{1} << 30;
  if (p.batch > kMaxGridYZ || p.heads > kMaxGridYZ) {
    const bool batch = p.batch > kMaxGridYZ;
    throw bad_input(fmt::format(
        "flash_attention: --{} {} exceeds {} (the launch grid's {} dimension): allowed 1 to {}",
        batch ? "batch" : "heads", batch ? p.batch : p.heads, kMaxGridYZ, batch ? "z" : "y",
        kMaxGridYZ));
  }
  if (p.q_len > kMaxLen || p.kv_len > kMaxLen) {
    const bool keys = p.kv_len > kMaxLen;
    throw bad_input(fmt::format("flash_attention: {} {} exceeds 2^30 = {} (tile indices are int)",
                                keys ? "--seq" : "--q-len", keys ? p.kv_len : p.q_len, kMaxLen));
  }
}

/// Launches `kernel` over (query tiles, heads, batch), raising its shared-memory limit when over
/// the default. The carveout asks for the largest shared-memory split so that as many blocks
/// as the registers allow also fit in shared memory (K/V arrive by cp.async.cg, past L1).
template <class Traits>
void launch_tiles(void (*kernel)(FlashParams), const FlashParams& params, int64_t batch,
                  cudaStream_t stream) {
  if constexpr (Traits::kSmemBytes > kDefaultSmemLimit) {
    RFL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(Traits::kSmemBytes)));
  }
  RFL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared));
  const dim3 grid(static_cast<unsigned>((params.q_len + Traits::kBlockM - 1) / Traits::kBlockM),
                  static_cast<unsigned>(params.heads), static_cast<unsigned>(batch));
  kernel<<<grid, Traits::kThreads, Traits::kSmemBytes, stream>>>(params);
  RFL_CHECK_LAUNCH();
}

template <class T, int kHeadDim>
void launch_flash_typed(const FlashParams& params, int64_t batch, cudaStream_t stream) {
  using Traits = FlashTraits<kHeadDim>;
  launch_tiles<Traits>(flash_attention_fwd<T, Traits>, params, batch, stream);
}

/// The instantiation of element type T for `head_dim`, one that check_flash_sizes accepts.
template <class T>
void launch_flash_head_dim(const FlashParams& params, int64_t head_dim, int64_t batch,
                           cudaStream_t stream) {
  switch (head_dim) {
    case 64:
      launch_flash_typed<T, 64>(params, batch, stream);
      return;
    case 96:
      launch_flash_typed<T, 96>(params, batch, stream);
      return;
    case 128:
      launch_flash_typed<T, 128>(params, batch, stream);
      return;
    default:  // 256
      launch_flash_typed<T, 256>(params, batch, stream);
      return;
  }
}

AttentionProblem problem_for(const Shape& s, const void* q, const void* k, const void* v) {
  AttentionProblem p;
  p.q = q;
  p.k = k;
  p.v = v;
  p.batch = s.batch;
  p.heads = s.heads;
  p.kv_heads = s.kv_heads;
  p.head_dim = s.head_dim;
  p.q_len = s.query_len();
  p.kv_len = s.seq_len;
  p.causal = s.causal;
  p.dtype = s.dtype;
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(s.head_dim)));
  return p;
}

// ---------------------------------------------------------------------------------------------
// Version selection

/// Key of flash_attention_v2_mma_sync, the version that runs everywhere.
constexpr const char* kKeyV2 = "v2";

/// The versions `--kernel flash_attention=KEY` chooses from; v3 is the default.
const std::vector<KernelVersion>& flash_versions() {
  static const std::vector<KernelVersion> versions = {
      {kKeyV2, kVersionV2, "compute capability 8.0+", ""},
      {"v3", kVersionV3, "compute capability 9.0 (sm_90a code), head_dim 64, 96, 128 or 256",
       kKeyV2}};
  return versions;
}
constexpr const char* kDefaultFlashVersion = "v3";

/// True when v3 runs `p` on the current device: asked for by `key` (empty: the default),
/// compute capability 9.0 and a problem v3 covers; otherwise v2 runs. Throws bad_input for an
/// undeclared key.
bool use_wgmma(const AttentionProblem& p, const std::string& key) {
  const KernelVersion& requested =
      find_kernel_version("flash_attention", flash_versions(), kDefaultFlashVersion, key);
  return flash_attention_version_for(requested.key, flash_wgmma_supports(p),
                                     current_compute_capability()) == "v3";
}

// ---------------------------------------------------------------------------------------------
// Operator registration

int64_t q_elements(const Shape& s) { return s.batch * s.heads * s.query_len() * s.head_dim; }
int64_t kv_elements(const Shape& s) { return s.batch * s.kv_heads * s.seq_len * s.head_dim; }
int64_t lse_elements(const Shape& s) { return s.batch * s.heads * s.query_len(); }

/// Distinct fill seeds for Q, K and V from one point seed (golden-ratio increments, as SplitMix64).
uint64_t tensor_seed(uint64_t seed, uint64_t tensor) {
  return seed ^ (0x9E3779B97F4A7C15ull * (tensor + 1));
}

class FlashAttentionRun final : public OperatorRun {
 public:
  FlashAttentionRun(const Shape& shape, const std::string& version_key)
      : shape_(shape),
        q_(q_elements(shape)),
        k_(kv_elements(shape)),
        v_(kv_elements(shape)),
        o_(q_elements(shape)),
        lse_(lse_elements(shape)) {
    if (use_wgmma(problem(), version_key)) {
      queue_ = DeviceBuffer<unsigned int>(2);
      RFL_CUDA_CHECK(cudaMemset(queue_.get(), 0, static_cast<size_t>(queue_.bytes())));
      RFL_CUDA_CHECK(cudaDeviceSynchronize());  // zero before a launch on any stream
      wgmma_ = prepare_flash_wgmma(problem(), o_.get(), lse_.get(), queue_.get());
    }
  }

  void fill_random(uint64_t seed) override {
    fill_uniform(q_.get(), q_.count(), shape_.dtype, tensor_seed(seed, 0), -1.f, 1.f);
    fill_uniform(k_.get(), k_.count(), shape_.dtype, tensor_seed(seed, 1), -1.f, 1.f);
    fill_uniform(v_.get(), v_.count(), shape_.dtype, tensor_seed(seed, 2), -1.f, 1.f);
  }

  // Tolerance: default_tolerance(dtype), not widened. O is a convex combination of V rows in
  // [-1, 1); the kernel's extra rounding is P to the input dtype before P·V (relative 2^-9 bf16,
  // 2^-12 fp16 per weight, plus fp16 subnormal loss under 2^-14 on weights whose sum is >= 1)
  // and O to the dtype (half an ulp), which bounds |ΔO| well under abs = 2^-7 (bf16) / 2^-9
  // (fp16) even if every error had the same sign; the fp32 GPU reference adds ~1e-6.
  Validation validate() override {
    // 0xFFFF is NaN in bf16 and in fp16: an element the kernel fails to write fails the check.
    RFL_CUDA_CHECK(cudaMemset(o_.get(), 0xFF, static_cast<size_t>(o_.bytes())));
    launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    return validate_attention_output(problem(), o_.get(), default_tolerance(shape_.dtype));
  }

  void launch(cudaStream_t stream) override {
    if (wgmma_) {
      launch_flash_wgmma(*wgmma_, stream);
      return;
    }
    launch_flash_attention(problem(), kKeyV2, o_.get(), lse_.get(), stream);
  }

  std::vector<std::string> kernel_names() const override {
    return {wgmma_ ? "flash_attention_wgmma_fwd" : "flash_attention_fwd"};
  }
  std::string version() const override { return wgmma_ ? kVersionV3 : kVersionV2; }
  std::vector<DeviceTensorView> tensors() override {
    return {{"q", q_.get(), q_.count()},
            {"k", k_.get(), k_.count()},
            {"v", v_.get(), v_.count()},
            {"o", o_.get(), o_.count()}};
  }

 private:
  AttentionProblem problem() const { return problem_for(shape_, q_.get(), k_.get(), v_.get()); }

  Shape shape_;
  DeviceBuffer<uint16_t> q_, k_, v_, o_;
  DeviceBuffer<float> lse_;
  DeviceBuffer<unsigned int> queue_;       ///< v3's work queue, reset by every launch
  std::optional<FlashWgmmaLaunch> wgmma_;  ///< set when v3 runs (see use_wgmma)
};

}  // namespace

std::string flash_attention_version(const AttentionProblem& p, const std::string& version_key) {
  return use_wgmma(p, version_key) ? kVersionV3 : kVersionV2;
}

void launch_flash_attention(const AttentionProblem& p, const std::string& version_key, void* out,
                            float* lse, cudaStream_t stream) {
  check_flash_sizes(p);
  if (!(p.scale > 0.f) || !std::isfinite(p.scale)) {
    throw bad_input(
        fmt::format("flash_attention: softmax scale {} must be positive and finite", p.scale));
  }
  for (const void* ptr : {p.q, p.k, p.v, static_cast<const void*>(out)}) {
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0) {
      throw bad_input("flash_attention: Q, K, V and O must be 16-byte aligned device pointers");
    }
  }
  if (use_wgmma(p, version_key)) {
    // A work queue of its own, stream-ordered, so direct calls on different streams never share
    // one.
    FlashWgmmaLaunch launch = prepare_flash_wgmma(p, out, lse, nullptr);
    void* queue = nullptr;
    RFL_CUDA_CHECK(cudaMallocAsync(&queue, 2 * sizeof(unsigned int), stream));
    RFL_CUDA_CHECK(cudaMemsetAsync(queue, 0, 2 * sizeof(unsigned int), stream));
    launch.queue = static_cast<unsigned int*>(queue);
    launch_flash_wgmma(launch, stream);
    RFL_CUDA_CHECK(cudaFreeAsync(queue, stream));
    return;
  }
  FlashParams params{};
  params.q = p.q;
  params.k = p.k;
  params.v = p.v;
  params.o = out;
  params.lse = lse;
  params.heads = p.heads;
  params.kv_heads = p.kv_heads;
  params.q_len = p.q_len;
  params.kv_len = p.kv_len;
  params.scale = p.scale;
  params.scale_log2 = static_cast<float>(p.scale * kLog2e);
  params.causal = p.causal;
  if (p.dtype == Dtype::kBf16) {
    launch_flash_head_dim<__nv_bfloat16>(params, p.head_dim, p.batch, stream);
  } else {
    launch_flash_head_dim<__half>(params, p.head_dim, p.batch, stream);
  }
}

// Work per point, as the design doc and the FA2 paper (§4.1) count it, with e = 2 bytes:
//   FLOP  = 4·B·H·Lq·Lk·d: QKᵀ and P·V are each 2·Lq·Lk·d per head (multiply + add). Causal
//           counts only visible (query, key) pairs, Σ_i min(Lk, max(0, i + Lk − Lq + 1)) instead
//           of Lq·Lk: L(L+1)/2 when Lq = Lk = L, about half. exp, max and rescaling are not
//           tensor-pipe work and are not counted.
//   bytes = e·(2·B·H·Lq·d + 2·B·H_kv·Lk·d) + 4·B·H·Lq: Q and O, K and V, and the fp32 LSE, each
//           moved once (the minimum). The kernel re-reads K and V once per query tile, ⌈Lq/Br⌉
//           times per head (v2: Br = flash_query_tile_rows(d), 128, 64 at d = 256; v3: Br = 128
//           at every d, so at d = 256 v3 re-reads half as often as the model's v2 count);
//           the counters show how much L2 absorbs.
//   device_bytes = the same five tensors, allocated once each.
OperatorSpec flash_attention_spec() {
  OperatorSpec spec;
  spec.name = kFlashAttentionOp;
  spec.summary =
      "FlashAttention forward: tiled QK^T, online softmax and PV on tensor cores, only O and "
      "the log-sum-exp written, head-dim 64, 96, 128 or 256; FA3-style wgmma + TMA on sm_90 "
      "(FA2-style mma.sync elsewhere, or with --kernel flash_attention=v2)";
  spec.pipe = constant_pipe(Pipe::kTensor);
  spec.mma_inputs = dtype_mma_inputs;
  spec.check_shape = [](const Shape& s) {
    validate_common_shape(s);
    check_flash_sizes(problem_for(s, nullptr, nullptr, nullptr));
  };
  spec.device_bytes = [](const Shape& s) {
    return dtype_size_bytes(s.dtype) * (2 * q_elements(s) + 2 * kv_elements(s)) +
           static_cast<int64_t>(sizeof(float)) * lse_elements(s);
  };
  spec.versions = flash_versions();
  spec.default_version = kDefaultFlashVersion;
  spec.create = [](const Shape& s, const std::string& version_key) -> std::unique_ptr<OperatorRun> {
    return std::make_unique<FlashAttentionRun>(s, version_key);
  };
  return spec;
}

}  // namespace rooflinectl
