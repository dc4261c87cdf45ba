// Host entry to gemm_v3_wgmma_multicast and gemm_v2_wgmma_tma (kernels/gemm_wgmma.cu), the
// Hopper path of the FFN up-projection GEMM C[M, N] = X[M, K] · W[K, N], and to
// gemm_fp8_v1_wgmma, the same kernel over E4M3 inputs (W stored [N, K]). That file is compiled for
// sm_90a only, in its own CMake target; kernels/gemm.cu calls it only on compute capability 9.0.
#pragma once

#include <cuda.h>  // CUtensorMap (a plain struct; no libcuda symbol is linked)
#include <cuda_runtime.h>

#include <cstdint>

namespace rooflinectl {

/// Column width of gemm_wgmma_tma's 128-row block tile (16-bit inputs; FP8 is always 256).
enum class GemmWgmmaTileWidth {
  kCols256,           ///< kGemmWgmmaTile: v2, v3
  kCols192,           ///< kGemmWgmmaN192Tile: gemm_v8_wgmma_n192
  kCols128,           ///< kGemmWgmmaN128Tile: gemm_v7_wgmma_n128
  kFewestWaveColumns  ///< whichever should finish soonest (gemm_wgmma_tile_cols)
};

/// Everything one launch of gemm_wgmma_tma needs: the TMA descriptors of X, W and C (C has X's
/// dtype; encoded on the host once per buffer set), the sizes and the persistent grid size.
struct GemmWgmmaLaunch {
  /// X [m, k] row-major, boxes of 128 bytes of k × 128 (m), 128-byte swizzle
  CUtensorMap x_map;
  /// W [k, n] row-major, boxes of 64 (n) × 64 (k); FP8: W [n, k] row-major, boxes of 128 (k) ×
  /// 64 (n); 128-byte swizzle
  CUtensorMap w_map;
  CUtensorMap c_map;  ///< C [m, n] row-major, boxes of 64 (n) × 16 (m), 128-byte swizzle (stores)
  int m = 0;
  int n = 0;
  int k = 0;
  int grid_blocks = 0;  ///< persistent grid: at most one block per SM, whole clusters
  int cluster_m = 1;    ///< 2: v3 (2-block clusters multicasting W); 1: v2 (plain launch)
  int block_n = 256;    ///< block tile columns: 256, 192 (gemm_v8_wgmma_n192), 128 (v7_wgmma_n128)
  bool bf16 = true;     ///< C (and 16-bit X, W) bf16 when true, fp16 otherwise
  bool fp8 = false;     ///< X and W in E4M3 (gemm_fp8_v1_wgmma)
  const float* scales = nullptr;  ///< FP8: device [2] = {scale_x, scale_w}; else unused
};

/// Prepares C = X·W for the current device: encodes both tensor maps (cuTensorMapEncodeTiled,
/// reached through cudaGetDriverEntryPointByVersion so that nothing links libcuda), raises the
/// kernel's dynamic shared-memory limit and sizes the grid. multicast_w asks for v3 (clusters
/// of 2 blocks sharing W through TMA multicast); when no such cluster can be resident on the
/// device the result is v2 (cluster_m = 1) instead. `width` picks the block tile's columns
/// (launch.block_n says which ran: 128 is gemm_v7_wgmma_n128 and 192 gemm_v8_wgmma_n192, with or
/// without clusters).
/// Requirements: 16-byte aligned base pointers, k % 8 == 0 and n % 8 == 0 (TMA global strides are
/// multiples of 16 bytes), 1 <= m, n, k < 2^31; m, n and k need not be multiples of the tile (TMA
/// zero-fills outside the tensor, the epilogue stores only inside C). The device must be compute
/// capability 9.0; the caller checks. Throws bad_input for sizes outside those limits,
/// environment_error when the driver entry point is missing or refuses a tensor map, or a CUDA call
/// fails.
GemmWgmmaLaunch prepare_gemm_wgmma(const void* x, const void* w, void* c, int64_t m, int64_t n,
                                   int64_t k, bool bf16, bool multicast_w,
                                   GemmWgmmaTileWidth width);

/// Prepares gemm_fp8_v1_wgmma, C = scale_x·scale_w·(X·W) on the current device: X [m, k] and W
/// [n, k] row-major in E4M3 (one byte each; W K-major as nn.Linear's weight), `scales` a device
/// array {scale_x, scale_w} of fp32 read by every launch, C [m, n] bf16 when `bf16_out`, else
/// fp16; fp32 accumulation. Always asks for 2-block clusters multicasting W (v2's plain launch
/// where none can be resident). Requirements as prepare_gemm_wgmma's but k % 16 == 0 (16-byte
/// rows of one-byte X and W); compute capability 9.0, checked by the caller. Throws as
/// prepare_gemm_wgmma, and bad_input when `scales` is null.
GemmWgmmaLaunch prepare_gemm_fp8_wgmma(const void* x, const void* w, const float* scales, void* c,
                                       int64_t m, int64_t n, int64_t k, bool bf16_out);

/// Enqueues the kernel "gemm_wgmma_tma" on `stream` (one launch) and checks the launch.
void launch_gemm_wgmma(const GemmWgmmaLaunch& launch, cudaStream_t stream);

}  // namespace rooflinectl
