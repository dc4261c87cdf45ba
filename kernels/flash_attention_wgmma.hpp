// Host entry to flash_attention_v3_wgmma_tma (kernels/flash_attention_wgmma.cu), the Hopper
// path of the attention forward. That file is compiled for sm_90a only, in its own CMake target;
// kernels/flash_attention.cu calls it only on compute capability 9.0 and only for problems that
// flash_wgmma_supports() accepts, and keeps flash_attention_v2_mma_sync for everything else.
#pragma once

#include <cuda.h>  // CUtensorMap (a plain struct; no libcuda symbol is linked)
#include <cuda_runtime.h>

#include "kernels/reference_attention.hpp"

namespace rooflinectl {

/// Everything one launch of flash_attention_wgmma_fwd needs: the TMA descriptors of Q, K and V
/// (encoded on the host once per buffer set), the outputs, the sizes and the persistent grid.
struct FlashWgmmaLaunch {
  CUtensorMap q_map;  ///< Q as [batch·heads, q_len, d], boxes of 64 (d; 32 at d 96) × 128 rows
  CUtensorMap k_map;  ///< K as [batch·kv_heads, kv_len, d], boxes of 64 (d; 32 at d 96) × Bc keys
  CUtensorMap v_map;  ///< V, as K
  void* o = nullptr;  ///< O [batch, heads, q_len, d], dtype of Q
  float* lse = nullptr;  ///< fp32 [batch, heads, q_len]
  /// The work queue: 2 counters, 0 before the first launch; every launch leaves them at 0.
  unsigned int* queue = nullptr;
  /// d: 64, 96 or 128 (key tiles Bc = 128) or 256 (Bc = 80); core/kernel_tiles.hpp
  /// flash_wgmma_key_tile_cols.
  int head_dim = 128;
  int heads = 0;
  int group = 0;  ///< heads / kv_heads: query heads per KV head (GQA)
  int q_len = 0;
  int kv_len = 0;
  int q_tiles = 0;  ///< ⌈q_len / 128⌉
  int tiles = 0;    ///< q_tiles · batch · heads: work items of the persistent grid
  /// Work items come in sections of consecutive heads (K/V L2 reuse): the first wide_sections
  /// sections have section_heads + 1 heads, the others section_heads.
  int section_heads = 0;
  int wide_sections = 0;
  float scale = 0.f;       ///< softmax scale (natural base), for the log-sum-exp
  float scale_log2 = 0.f;  ///< scale·log2(e)
  bool causal = false;
  bool bf16 = true;     ///< bf16 when true, fp16 otherwise
  int grid_blocks = 0;  ///< min(tiles, SM count)
};

/// True when flash_attention_v3_wgmma_tma covers `p`: head_dim 64, 96, 128 or 256 (bf16 or fp16),
/// and batch·heads, batch·kv_heads and the tile count below 2^31 (TMA coordinates and the tile
/// index are 32-bit); flash_attention_v2_mma_sync runs the rest. Sizes
/// already checked by the caller (launch_flash_attention); no CUDA call.
bool flash_wgmma_supports(const AttentionProblem& p);

/// Prepares one forward pass for the current device (which must be compute capability 9.0; the
/// caller checks): encodes the three tensor maps (kernels/common/sm90_host.hpp), raises the
/// kernel's dynamic shared-memory limit and sizes the grid. `out`, `lse`: as
/// launch_flash_attention. Pointers must be 16-byte aligned. `queue`: 2 unsigned ints of device
/// memory, zero before the first launch (each launch resets them when it ends); launches that
/// share it must run one after the other (one stream), never concurrently. Throws
/// environment_error when the driver refuses a tensor map, the device has too little shared
/// memory or a CUDA call fails.
FlashWgmmaLaunch prepare_flash_wgmma(const AttentionProblem& p, void* out, float* lse,
                                     unsigned int* queue);

/// Enqueues the kernel "flash_attention_wgmma_fwd" on `stream` (one launch) and checks the launch.
void launch_flash_wgmma(const FlashWgmmaLaunch& launch, cudaStream_t stream);

}  // namespace rooflinectl
