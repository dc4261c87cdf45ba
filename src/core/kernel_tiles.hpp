// Tile facts of the operator kernels that the analytic models need, defined once: the kernels'
// compile-time traits take their values from here (kernels/flash_attention.cu FlashTraits,
// kernels/gemm.cu GemmTraits, kernels/gemm_wgmma.cu GemmWgmmaTraits, kernels/decode_attention.cu)
// and src/model reads the same constants. Plain constexpr values: host and device code alike.
#pragma once

#include <cstdint>

namespace rooflinectl {

/// Query tile height Br of flash_attention_v2_mma_sync (FlashTraits::kBlockM): K and V are
/// streamed once per query tile, which bounds the as-implemented DRAM bytes when L2 absorbs no
/// re-read.
inline constexpr int64_t kFlashQueryTileRows = 128;

/// Query rows per warp of flash_attention_v2_mma_sync (FlashTraits::kRowsPerWarp): under a causal
/// mask each warp computes key tiles only up to its own last row's diagonal.
inline constexpr int64_t kFlashWarpRows = 32;

/// Key tile width Bc of flash_attention_v2_mma_sync (FlashTraits::kBlockN) at `head_dim`: 64 keys
/// at head_dim 128, 128 keys at head_dim 64 (the only other one it runs). The tensor cores compute
/// whole kFlashWarpRows × Bc score tiles per warp, masked or not.
constexpr int64_t flash_key_tile_cols(int64_t head_dim) { return head_dim == 128 ? 64 : 128; }

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

/// Fewest keys one part of the decode attention split takes: the flat range of B·H_kv·L keys is
/// cut into at most ceil(B·H_kv·L / 64) parts, and each part writes a fp32 partial (d values, max,
/// sum) per query head of every KV head it touches. Below this the per-part work (q load, merges,
/// workspace round trip) would outweigh the streaming, so tiny caches use fewer blocks than the
/// chip holds.
inline constexpr int64_t kDecodeMinKeysPerPart = 64;

/// Query heads one decode attention block computes for GQA group g = heads / kv_heads: 1 at
/// g = 1 (the CUDA-core kernel), 8 at 2 ≤ g ≤ 8 and 16 above (the tensor-core kernel's one or two
/// m16 row tiles of 8 heads).
constexpr int64_t decode_heads_per_block(int64_t group) {
  return group == 1 ? 1 : group <= 8 ? 8 : 16;
}

/// Blocks that share one part of the decode split along the GQA group (the grid's y extent):
/// ceil(g / decode_heads_per_block(g)). Each of them reads the part's keys and, for a paged KV
/// cache, their block-table entries.
constexpr int64_t decode_head_chunks(int64_t group) {
  const int64_t per_block = decode_heads_per_block(group);
  return (group + per_block - 1) / per_block;
}

}  // namespace rooflinectl
