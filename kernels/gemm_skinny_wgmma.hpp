// Host entry to gemm_v6_skinny_wgmma (kernels/gemm_skinny_wgmma.cu), the Hopper path of the GEMM
// C[M, N] = X[M, K] · W[K, N] at decode's M ≤ kGemmSkinnyMaxRows (core/kernel_tiles.hpp). That
// file is compiled for sm_90a only, in its own CMake target; kernels/gemm.cu calls it only on
// compute capability 9.0.
#pragma once

#include <cuda.h>  // CUtensorMap (a plain struct; no libcuda symbol is linked)
#include <cuda_runtime.h>

#include <cstdint>

namespace rooflinectl {

/// Everything one launch of gemm_skinny_wgmma needs: the TMA descriptors of X and W (encoded on
/// the host once per buffer set), C, the split-K scratch and the split (gemm_skinny_wgmma_split).
struct GemmSkinnyWgmmaLaunch {
  CUtensorMap x_map;  ///< X [m, k] row-major, boxes of 64 (k) × rows (m), 128-byte swizzle
  CUtensorMap w_map;  ///< W [k, n] row-major, boxes of 64 (n) × 64 (k), 128-byte swizzle
  void* c = nullptr;  ///< C [m, n] row-major, X's dtype
  /// fp32 partials [splits][m][n] (unused when splits = 1) and one arrival counter per 64-column
  /// strip, all 0 before the first launch (each reduction re-arms its own).
  float* partials = nullptr;
  int* strip_counters = nullptr;
  int m = 0;
  int n = 0;
  int k = 0;
  int splits = 1;
  int k_per_split = 0;
  int rows = 8;  ///< gemm_skinny_wgmma_rows(m): the wgmma N extent, 8, 16, 32 or 64
  /// gemm_skinny_wgmma_deep_ring(m, n, k): one block per SM with a ~200 KiB ring, not two
  bool deep_ring = false;
  bool bf16 = true;  ///< bf16 when true, fp16 otherwise
};

/// Prepares C = X·W at 1 ≤ m ≤ kGemmSkinnyMaxRows for the current device: encodes both tensor
/// maps, raises the kernel's dynamic shared-memory limit and takes the split of K from
/// gemm_skinny_wgmma_split(m, n, k). `partials` must hold splits·m·n floats when splits > 1 and
/// `strip_counters` ceil(n/64) ints, zeroed once by the caller. Requirements: 16-byte aligned
/// base pointers, k % 8 == 0 and n % 8 == 0 (TMA global strides are multiples of 16 bytes), n, k <
/// 2^31; m, n and k need not be multiples of the tile (TMA zero-fills outside X and W, the
/// epilogue stores only inside C). The device must be compute capability 9.0; the caller checks.
/// Throws bad_input for sizes outside those limits, environment_error when the driver entry
/// point is missing or refuses a tensor map, the device lacks the shared memory, or a CUDA call
/// fails.
GemmSkinnyWgmmaLaunch prepare_gemm_skinny_wgmma(const void* x, const void* w, void* c,
                                                float* partials, int* strip_counters, int64_t m,
                                                int64_t n, int64_t k, bool bf16);

/// Enqueues the kernel "gemm_skinny_wgmma" on `stream` (one launch) and checks the launch.
void launch_gemm_skinny_wgmma(const GemmSkinnyWgmmaLaunch& launch, cudaStream_t stream);

}  // namespace rooflinectl
