// Tile facts of the operator kernels that the analytic models need, defined once: the kernels'
// compile-time traits take their values from here (kernels/flash_attention.cu FlashTraits,
// kernels/gemm.cu GemmTraits and SkinnyTraits, kernels/gemm_wgmma.cu GemmWgmmaTraits,
// kernels/gemm_skinny_wgmma.cu SkinnyWgmmaTraits,
// kernels/decode_attention.cu) and src/model reads the same constants. Plain constexpr values: host
// and device code alike.
#pragma once

#include <cstdint>

namespace rooflinectl {

/// Warps per block of flash_attention_v2_mma_sync (FlashTraits::kWarps), at every head_dim; each
/// owns flash_warp_rows(head_dim) query rows for the whole key loop.
inline constexpr int64_t kFlashWarps = 4;

/// Query tile height Br of flash_attention_v2_mma_sync (FlashTraits::kBlockM) at `head_dim`: 128
/// rows at head_dim 64, 96 and 128, 64 at 256 (FlashAttention-2's forward tiles on sm_80+;
/// at d = 256 a 32-row warp would need 256 fp32 registers for its O accumulator alone). K and V
/// are streamed once per query tile, which bounds the as-implemented DRAM bytes when L2 absorbs
/// no re-read. A head_dim the kernel refuses (`model` still predicts it) gets the tiles of the
/// next supported one up, or 256's.
constexpr int64_t flash_query_tile_rows(int64_t head_dim) { return head_dim > 128 ? 64 : 128; }

/// Query rows per warp of flash_attention_v2_mma_sync (FlashTraits::kRowsPerWarp) at `head_dim`:
/// Br / kFlashWarps, 32 (two mma M tiles) up to head_dim 128 and 16 (one) at 256. Under a causal
/// mask each warp computes key tiles only up to its own last row's diagonal.
constexpr int64_t flash_warp_rows(int64_t head_dim) {
  return flash_query_tile_rows(head_dim) / kFlashWarps;
}

/// Key tile width Bc of flash_attention_v2_mma_sync (FlashTraits::kBlockN) at `head_dim`: 128 keys
/// at head_dim 64, 64 at 96 and 128, 32 at 256, so that the S accumulator (flash_warp_rows × Bc
/// fp32 per warp) fits beside the O accumulator in 255 registers and the double-buffered K/V tiles
/// beside Q in half of an sm_90 SM's shared memory. The tensor cores compute whole
/// flash_warp_rows × Bc score tiles per warp, masked or not.
constexpr int64_t flash_key_tile_cols(int64_t head_dim) {
  return head_dim <= 64 ? 128 : head_dim <= 128 ? 64 : 32;
}

/// Work-item tile height Br of flash_attention_v3_wgmma_tma (kernels/flash_attention_wgmma.cu,
/// FlashWgmmaTraits::kBlockM), named per point by kFlashWgmmaVersionName, at every head_dim it
/// runs (64, 96, 128 and 256): a 128-row query tile (two 64-row warpgroups) computes whole key
/// tiles of flash_wgmma_key_tile_cols(head_dim) keys up to the tile's last row's diagonal under the
/// causal mask, both warpgroups alike. K and V are streamed once per query tile of 128 rows.
inline constexpr int64_t kFlashWgmmaQueryTileRows = 128;

/// Key tile width Bc of flash_attention_v3_wgmma_tma (FlashWgmmaTraits::kBlockN) at `head_dim`:
/// 128 keys at head_dim 64, 96 and 128, 80 at 256 (FlashAttention-3's forward tile at d = 256, Shah
/// et al. 2024, arXiv 2407.08608: Q 64 KiB plus two stages of K and V at 40 KiB each fill 224 of
/// the 227 KiB of shared memory an sm_90 block may take, and the consumer's S accumulator, 64 × 80
/// per warpgroup = 40 fp32 per thread, fits beside O's 128 under 240 registers). At d = 64 and 96
/// the 128-key tile keeps d = 128's S shape (64 fp32 per thread beside O's 32 / 48; 81 / 121 KiB
/// of shared memory) and computes no padded key at lengths that are multiples of 128. A head_dim v3
/// does not run gets the tile of the next one up (`model` may still ask).
constexpr int64_t flash_wgmma_key_tile_cols(int64_t head_dim) { return head_dim > 128 ? 80 : 128; }
inline constexpr const char* kFlashWgmmaVersionName = "flash_attention_v3_wgmma_tma";

/// Block tile of C of one GEMM kernel version: without L2 reuse, X is read once per column of
/// tiles and W once per row of tiles.
struct GemmBlockTile {
  int64_t rows;
  int64_t cols;
};

/// Block tile of gemm_v1_mma_sync (GemmTraits::kBlockM × kBlockN).
inline constexpr GemmBlockTile kGemmMmaSyncTile{128, 128};

/// Block tile of gemm_v2_wgmma_tma and gemm_v3_wgmma_multicast (GemmWgmmaTraits::kBlockM ×
/// kBlockN).
inline constexpr GemmBlockTile kGemmWgmmaTile{128, 256};

/// Block tiles of gemm_v7_wgmma_n128 and gemm_v8_wgmma_n192: the same kernel with 128 or 192
/// columns (m64n128k16 or m64n192k16 per consumer warpgroup), for shapes whose 256-column tiles
/// leave SMs idle (M = 512, N = 4096: 64 tiles on 132 SMs; N = 6144: 96);
/// gemm_wgmma_tile_cols (core/kernel_dispatch.hpp) picks the width.
inline constexpr GemmBlockTile kGemmWgmmaN128Tile{128, 128};
inline constexpr const char* kGemmWgmmaN128VersionName = "gemm_v7_wgmma_n128";
inline constexpr GemmBlockTile kGemmWgmmaN192Tile{128, 192};
inline constexpr const char* kGemmWgmmaN192VersionName = "gemm_v8_wgmma_n192";

/// gemm_v4_skinny_splitk (kernels/gemm.cu), the default at M ≤ kGemmSkinnyMaxRows: one row of
/// block tiles of 16·ceil(M/16) rows × kGemmSkinnyTileCols columns, K cut into splits of whole
/// kGemmSkinnySliceK slices, fp32 partials reduced by the last block of each column tile.
inline constexpr int64_t kGemmSkinnyMaxRows = 64;
/// Its version name as reported per point (kernels/gemm.cu declares it, src/model reads tiles by
/// it).
inline constexpr const char* kGemmSkinnyVersionName = "gemm_v4_skinny_splitk";
inline constexpr int64_t kGemmSkinnyTileCols = 128;
inline constexpr int64_t kGemmSkinnySliceK = 32;
/// Blocks the split aims at: about 4 resident blocks per SM on 132-SM GPUs (H100, H200), so the
/// weight stream keeps enough bytes in flight; fixed rather than read from the device so that the
/// analytic partial bytes are the kernel's on every GPU (a smaller GPU runs more waves).
inline constexpr int64_t kGemmSkinnyTargetBlocks = 512;

/// Block tile of gemm_v4_skinny_splitk at M rows: 16·ceil(M/16) × kGemmSkinnyTileCols.
constexpr GemmBlockTile gemm_skinny_tile(int64_t m) {
  return {(m + 15) / 16 * 16, kGemmSkinnyTileCols};
}

/// How gemm_v4_skinny_splitk cuts K: `splits` ranges of `k_per_split` (a multiple of
/// kGemmSkinnySliceK; the last range ends at K), none empty.
struct GemmSplitK {
  int64_t splits = 1;
  int64_t k_per_split = 0;
};

/// The split of K at (M, N, K), M, N, K ≥ 1: as many splits as bring the grid (ceil(N/128)
/// column tiles × splits) to kGemmSkinnyTargetBlocks, capped so that the fp32 partials
/// (splits·M·N·4 bytes written and read back) stay within a quarter of W's K·N·2 bytes
/// (splits ≤ K/(8·M)), and at one slice per split; then evened out so that no split is empty.
constexpr GemmSplitK gemm_skinny_split(int64_t m, int64_t n, int64_t k) {
  const int64_t col_tiles = (n + kGemmSkinnyTileCols - 1) / kGemmSkinnyTileCols;
  const int64_t slices = (k + kGemmSkinnySliceK - 1) / kGemmSkinnySliceK;
  int64_t splits = (kGemmSkinnyTargetBlocks + col_tiles - 1) / col_tiles;
  const int64_t partial_cap = k / (8 * m);
  if (splits > partial_cap) splits = partial_cap;
  if (splits > slices) splits = slices;
  if (splits < 1) splits = 1;
  const int64_t slices_per_split = (slices + splits - 1) / splits;
  return {(slices + slices_per_split - 1) / slices_per_split, slices_per_split * kGemmSkinnySliceK};
}

/// gemm_v6_skinny_wgmma (kernels/gemm_skinny_wgmma.cu, sm_90a), the default at M ≤
/// kGemmSkinnyMaxRows on compute capability 9.0: Cᵀ = Wᵀ·Xᵀ with W's columns as the wgmma M side,
/// one block per strip of kGemmSkinnyWgmmaStripCols columns of W and split of K.
inline constexpr const char* kGemmSkinnyWgmmaVersionName = "gemm_v6_skinny_wgmma";
/// Columns of W (and C) per block: one 128-byte-swizzled TMA box, the wgmma M extent of 64.
inline constexpr int64_t kGemmSkinnyWgmmaStripCols = 64;
/// K per pipeline stage: 64 rows of W (one 8 KiB box) and 64 columns of X.
inline constexpr int64_t kGemmSkinnyWgmmaSliceK = 64;
/// Blocks the split aims at: two resident blocks (about 100 KiB of shared memory each) on each
/// of 132 SMs (H100 SXM, H200), so that one wave holds every block; fixed rather than read from
/// the device so that the analytic partial bytes are the kernel's on every GPU.
inline constexpr int64_t kGemmSkinnyWgmmaTargetBlocks = 264;
/// SMs of the H100 SXM and H200 (132): the deep-ring mode's one block per SM fits one wave up to
/// this many strips.
inline constexpr int64_t kGemmSkinnyWgmmaSms = 132;
/// Rows of X that gemm_v6_skinny_wgmma's tile holds at M rows (1 ≤ M ≤ kGemmSkinnyMaxRows): the
/// wgmma N extent, 8, 16, 32 or 64, the smallest that covers M; TMA zero-fills the rows past M.
constexpr int64_t gemm_skinny_wgmma_rows(int64_t m) {
  return m <= 8 ? 8 : m <= 16 ? 16 : m <= 32 ? 32 : 64;
}

/// K up to which the deep-ring mode also applies below 32 rows of X (gemm_skinny_wgmma_deep_ring).
inline constexpr int64_t kGemmSkinnyWgmmaDeepRingMaxK = 4096;

/// Whether gemm_v6_skinny_wgmma runs its deep-ring mode at (M, N, K): one block per SM with a
/// ~200 KiB ring (12 stages) and, in it, no split of K (gemm_skinny_wgmma_split), instead of two
/// blocks per SM with ~100 KiB (6 stages) and K split to fill 264 blocks. Only where the ceil(N/64)
/// strips fit one block per SM on 132 SMs (N ≤ 8448), so that it needs no second wave; then at
/// 32 or 64 rows of X (17 ≤ M ≤ 64), and at 8 or 16 rows when K ≤ kGemmSkinnyWgmmaDeepRingMaxK.
/// Measured on the H100 (docs/perf-notes.md, sessions 19–21), Llama-3.1-8B's projections: at 64
/// rows QKV 34.5 → 23.9 µs, O 27.7 → 16.6, down 61.9 → 43.7; at 8–32 rows with K = 4096 QKV and O
/// faster at every row count (O M = 16 21.7 → 17.2 µs); at K = 14336 (down) faster at 32 rows
/// (52.5 → 45.0 µs) and slower at 8 and 16 (45.8 → 49.3, 47.9 → 48.9), where four splits on 256
/// blocks stream W faster than 64 blocks; gate/up (224 strips) keeps two blocks per SM, where one
/// would take two waves (45.0 → 46.0 µs at 64 rows).
constexpr bool gemm_skinny_wgmma_deep_ring(int64_t m, int64_t n, int64_t k) {
  const int64_t strips = (n + kGemmSkinnyWgmmaStripCols - 1) / kGemmSkinnyWgmmaStripCols;
  return strips <= kGemmSkinnyWgmmaSms &&
         (gemm_skinny_wgmma_rows(m) >= 32 || k <= kGemmSkinnyWgmmaDeepRingMaxK);
}

/// Block tile of gemm_v6_skinny_wgmma at M rows: gemm_skinny_wgmma_rows(M) × 64.
constexpr GemmBlockTile gemm_skinny_wgmma_tile(int64_t m) {
  return {gemm_skinny_wgmma_rows(m), kGemmSkinnyWgmmaStripCols};
}

/// The split of K of gemm_v6_skinny_wgmma at (M, N, K), M, N, K ≥ 1: none in the deep-ring mode
/// (gemm_skinny_wgmma_deep_ring); else as many splits as fit ceil(N/64) strips × splits within
/// kGemmSkinnyWgmmaTargetBlocks (rounded down: one wave), capped so that the fp32 partials
/// (2·splits·M·N·4 bytes written and read back) stay within an eighth of W's K·N·2 bytes
/// (splits ≤ K/(32·M)), and at one 64-deep slice per split; then evened out so that no split is
/// empty. Why none in the deep-ring mode (H100, session 20, docs/perf-notes.md): at M = 64 the
/// 64 strips of Llama-3.1-8B's O (N 4096, K 4096) took 27.7 µs in 2 splits on 128 SMs and
/// 16.6 µs unsplit on 64; down (K 14336) 54.9 and 43.7 µs. At Llama-3.1-8B's projections (N, K =
/// 6144, 4096; 4096, 4096; 14336, 4096; 4096, 14336): M = 1 and 16 none, none, 1, 4 splits; M = 64
/// none.
constexpr GemmSplitK gemm_skinny_wgmma_split(int64_t m, int64_t n, int64_t k) {
  const int64_t strips = (n + kGemmSkinnyWgmmaStripCols - 1) / kGemmSkinnyWgmmaStripCols;
  const int64_t slices = (k + kGemmSkinnyWgmmaSliceK - 1) / kGemmSkinnyWgmmaSliceK;
  if (gemm_skinny_wgmma_deep_ring(m, n, k)) return {1, slices * kGemmSkinnyWgmmaSliceK};
  int64_t splits = kGemmSkinnyWgmmaTargetBlocks / strips;
  const int64_t partial_cap = k / (32 * m);
  if (splits > partial_cap) splits = partial_cap;
  if (splits > slices) splits = slices;
  if (splits < 1) splits = 1;
  const int64_t slices_per_split = (slices + splits - 1) / splits;
  return {(slices + slices_per_split - 1) / slices_per_split,
          slices_per_split * kGemmSkinnyWgmmaSliceK};
}

/// Fewest keys one part of the decode attention split takes: the flat range of B·H_kv·L keys is
/// cut into at most ceil(B·H_kv·L / 64) parts, and each part writes a fp32 partial (d values, max,
/// sum) per query head of every KV head it touches. Below this the per-part work (q load, merges,
/// workspace round trip) would outweigh the streaming, so tiny caches use fewer blocks than the
/// chip holds.
inline constexpr int64_t kDecodeMinKeysPerPart = 64;

/// Keys one warp step of decode attention's tensor-core kernel multiplies: two n8 score tiles and
/// one k16 P·V step. Each key range a part holds (cut at KV-head boundaries) is walked in whole
/// steps, so its last step pads up to 15 keys with masked loads whose products still execute.
inline constexpr int64_t kDecodeMmaKeysPerStep = 16;

/// Threads of one block of decode attention's tensor-core kernel: 4 warps.
inline constexpr int kDecodeMmaThreads = 128;

/// Most threads one SM holds at once on the architectures this tool builds for (CUDA C++
/// Programming Guide, "Technical Specifications per Compute Capability": 2048 on 8.0, 9.0 and
/// 10.0, 1536 on 8.6 and 8.9), so at most kMaxThreadsPerSm / T blocks of T threads are resident
/// on an SM: an upper bound for any occupancy the kernels reach.
inline constexpr int kMaxThreadsPerSm = 2048;

/// Most query heads one block of decode attention's tensor-core kernel computes at `head_dim`:
/// 16 (two m16 row tiles of 8 heads) up to d = 128, 8 above. At d = 256 a 16-head block would need
/// 4 warps × 16 heads × 256 × 4 B = 64 KiB of static shared memory for its warp merge (over the
/// 48 KiB a static allocation may take) and 2·16·4 = 128 fp32 accumulator registers per thread
/// before q, K and V (kernels/decode_attention.cu, decode_split_kv_mma_kernel).
constexpr int64_t decode_max_heads_per_block(int64_t head_dim) { return head_dim > 128 ? 8 : 16; }

/// Query heads one decode attention block computes for GQA group g = heads / kv_heads at
/// `head_dim`: 1 at g = 1 (the CUDA-core kernel), 8 at 2 ≤ g ≤ 8 and
/// decode_max_heads_per_block(head_dim) above (the tensor-core kernel's one or two m16 row tiles
/// of 8 heads: 16 up to d = 128, 8 at d = 256).
constexpr int64_t decode_heads_per_block(int64_t group, int64_t head_dim) {
  return group == 1 ? 1 : group <= 8 ? 8 : decode_max_heads_per_block(head_dim);
}

/// Query heads one decode attention block computes in the kernel that runs for group g, `head_dim`
/// and KV dtype: decode_heads_per_block(g, head_dim), but at least 8 over an FP8 KV cache, whose
/// g = 1 runs the tensor-core kernel too (kernels/decode_attention.cu, decode_heads_per_block_for,
/// says why). 1 is the CUDA-core kernel (decode_attention_v4), whose FLOPs run on the fp32 pipe;
/// 8 or 16 the tensor-core kernel (decode_attention_v5), whose q·k and p·v products run on the
/// tensor pipe (mma.sync m16n8k16) and only the softmax on CUDA cores.
constexpr int64_t decode_block_heads(int64_t group, int64_t head_dim, bool fp8_kv) {
  const int64_t per_block = decode_heads_per_block(group, head_dim);
  return fp8_kv && per_block < 8 ? 8 : per_block;
}

/// Blocks that share one part of the decode split along the GQA group (the grid's y extent):
/// ceil(g / decode_heads_per_block(g, head_dim)). Each of them reads the part's keys and, for a
/// paged KV cache, their block-table entries.
constexpr int64_t decode_head_chunks(int64_t group, int64_t head_dim) {
  const int64_t per_block = decode_heads_per_block(group, head_dim);
  return (group + per_block - 1) / per_block;
}

}  // namespace rooflinectl
