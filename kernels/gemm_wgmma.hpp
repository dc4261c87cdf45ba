// Host entry to gemm_v3_wgmma_multicast and gemm_v2_wgmma_tma (kernels/gemm_wgmma.cu), the
// Hopper path of the FFN up-projection GEMM C[M, N] = X[M, K] · W[K, N]. That file is compiled for
// sm_90a only, in its own CMake target; kernels/gemm.cu calls it only on compute capability 9.0.
#pragma once

#include <cuda.h>  // CUtensorMap (a plain struct; no libcuda symbol is linked)
#include <cuda_runtime.h>

#include <cstdint>

namespace rooflinectl {

/// Everything one launch of gemm_wgmma_tma needs: the TMA descriptors of X, W and C (C has X's
/// dtype; encoded on the host once per buffer set), the sizes and the persistent grid size.
struct GemmWgmmaLaunch {
  CUtensorMap x_map;  ///< X [m, k] row-major, boxes of 64 (k) × 128 (m), 128-byte swizzle
  CUtensorMap w_map;  ///< W [k, n] row-major, boxes of 64 (n) × 64 (k), 128-byte swizzle
  CUtensorMap c_map;  ///< C [m, n] row-major, boxes of 64 (n) × 16 (m), 128-byte swizzle (stores)
  int m = 0;
  int n = 0;
  int k = 0;
  int grid_blocks = 0;  ///< persistent grid: at most one block per SM, whole clusters
  int cluster_m = 1;    ///< 2: v3 (2-block clusters multicasting W); 1: v2 (plain launch)
  bool bf16 = true;     ///< bf16 when true, fp16 otherwise
};

/// Prepares C = X·W for the current device: encodes both tensor maps (cuTensorMapEncodeTiled,
/// reached through cudaGetDriverEntryPointByVersion so that nothing links libcuda), raises the
/// kernel's dynamic shared-memory limit and sizes the grid. multicast_w asks for v3 (clusters
/// of 2 blocks sharing W through TMA multicast); when no such cluster can be resident on the
/// device the result is v2 (cluster_m = 1) instead. Requirements: 16-byte aligned base
/// pointers, k % 8 == 0 and n % 8 == 0 (TMA global strides are multiples of 16 bytes), 1 <= m,
/// n, k < 2^31; m, n and k need not be multiples of the tile (TMA zero-fills outside the
/// tensor, the epilogue stores only inside C). The device must be compute capability 9.0; the
/// caller checks. Throws bad_input for sizes outside those limits, environment_error when the
/// driver entry point is missing or refuses a tensor map, or a CUDA call fails.
GemmWgmmaLaunch prepare_gemm_wgmma(const void* x, const void* w, void* c, int64_t m, int64_t n,
                                   int64_t k, bool bf16, bool multicast_w);

/// Enqueues the kernel "gemm_wgmma_tma" on `stream` (one launch) and checks the launch.
void launch_gemm_wgmma(const GemmWgmmaLaunch& launch, cudaStream_t stream);

}  // namespace rooflinectl
