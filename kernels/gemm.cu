// A GEMM C[M, N] = X[M, K] · W[K, N] at any (M, N, K) of a transformer layer (Shape::gemm_dims:
// by default the FFN up projection M = batch·seq_len, K = d_model, N = d_ff), every matrix
// row-major in bf16 or fp16, fp32 accumulation, C in the input dtype.
//   gemm_v6_skinny_wgmma     kernels/gemm_skinny_wgmma.cu (sm_90a), the default at M ≤ 64
//                            (decode's M = batch) on compute capability 9.0: Cᵀ = Wᵀ·Xᵀ with wgmma
//                            m64nM_padk16, W streamed by TMA through a deep ring, 64-column
//                            strips, K split to fill one wave, v4's split-K reduction.
//   gemm_v4_skinny_splitk    this file, the default at M ≤ 64 on every other device: the weight
//                            stream is memory-bound there, so one row of 16·ceil(M/16) × 128
//                            tiles, K split over ~512 blocks (mma.sync, cp.async), fp32 partials
//                            summed in split order by the last block of each column
//                            (kernels/common/split_k.hpp).
//   gemm_v3_wgmma_multicast  kernels/gemm_wgmma.cu (sm_90a), above 64 rows on compute capability
//                            9.0: wgmma, TMA loads and stores, persistent 2-block clusters
//                            multicasting W.
//   gemm_v8_wgmma_n192,      the same kernel with 128 × 192 or 128 × 128 block tiles (m64n192k16,
//   gemm_v7_wgmma_n128       m64n128k16), the default above 64 rows where those tiles should
//                            finish their waves sooner than v3's 128 × 256 (M = 512 at N = 4096
//                            leaves half of 132 SMs idle with 256 columns; gemm_wgmma_tile_cols).
//   gemm_v2_wgmma_tma        the same kernel without clusters, where none can be resident.
//   gemm_v1_mma_sync         this file, above 64 rows everywhere else: mma.sync m16n8k16,
//                            128×128×32 block tiles, 8 warps, a 4-stage cp.async pipeline.
//   gemm_fp8_v1_wgmma        kernels/gemm_wgmma.cu (sm_90a): the v3 kernel over E4M3 X and W
//                            [N, K] with one fp32 scale each (--gemm-dtype fp8_e4m3), every M; the
//                            only version of FP8 points, refused off compute capability 9.0.
// Selection: `--kernel gemm=KEY` names a version; one the device or M cannot run falls back
// v6 → v4 → v3 (or v7, v8) → v2 → v1 (gemm_versions, gemm_version_for in core/kernel_dispatch).
// File order: CPU reference, device helpers and kernels, launchers, OperatorRun, registration.
// The measurements: docs/perf-notes.md.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/fp8_e4m3.hpp"
#include "core/kernel_tiles.hpp"
#include "core/kernel_version.hpp"
#include "core/parallel_for.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/cp_async.hpp"
#include "kernels/common/cublas_handle.hpp"
#include "kernels/common/device_compare.hpp"
#include "kernels/common/e4m3_quantize.hpp"
#include "kernels/common/pack_pair.hpp"
#include "kernels/common/sm90_host.hpp"
#include "kernels/common/split_k.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/gemm_skinny_wgmma.hpp"
#include "kernels/gemm_wgmma.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

// cuBLAS's recommended workspace on Hopper (cuBLAS API reference, cublasSetWorkspace: 32 MiB on
// sm_90, 4 MiB before). Owned by the run so that device_bytes() can count it.
constexpr int64_t kCublasWorkspaceBytes = int64_t{32} << 20;
// Rows of C that the CPU float64 reference recomputes (spread over M, first and last included);
// the cost is rows·K·N multiply-adds on the host, independent of M.
constexpr int64_t kCpuSampleRows = 8;

// ---------------------------------------------------------------------------------------------
// CPU reference

/// C rows = x_rows · W in float64. x_rows: [rows, k], w: [k, n], result [rows, n], row-major.
/// Exact products of the 16-bit inputs, summed in double: the error is far below the output's
/// own rounding, so any mismatch is the kernel's.
std::vector<double> gemm_reference_rows(const std::vector<double>& x_rows,
                                        const std::vector<double>& w, int64_t rows, int64_t k,
                                        int64_t n) {
  std::vector<double> c(static_cast<size_t>(rows * n), 0.0);
  // Columns split over host threads; every element sums over k in the same order whatever the
  // thread count.
  parallel_for(n, 256, [&](int64_t first_column, int64_t end_column) {
    for (int64_t r = 0; r < rows; ++r) {
      double* c_row = c.data() + r * n;
      for (int64_t kk = 0; kk < k; ++kk) {
        const double x = x_rows[static_cast<size_t>(r * k + kk)];
        const double* w_row = w.data() + kk * n;
        for (int64_t j = first_column; j < end_column; ++j) c_row[j] += x * w_row[j];
      }
    }
  });
  return c;
}

/// The rows of an M-row C that the CPU reference recomputes: min(kCpuSampleRows, m) rows spread
/// over M, the first and the last included.
std::vector<int64_t> sampled_rows(int64_t m) {
  const int64_t rows = std::min(kCpuSampleRows, m);
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < rows; ++i) ids.push_back(rows == 1 ? 0 : i * (m - 1) / (rows - 1));
  return ids;
}

/// Compares the sampled rows `row_ids` of C, `out_rows` [rows, n] as the kernel wrote them, with
/// x_rows [rows, k] · w [k, n] in float64 (gemm_reference_rows); a failure's detail names the rows.
Validation compare_sampled_rows(const std::vector<double>& out_rows,
                                const std::vector<double>& x_rows, const std::vector<double>& w,
                                const std::vector<int64_t>& row_ids, int64_t k, int64_t n,
                                Tolerance tol) {
  const int64_t rows = static_cast<int64_t>(row_ids.size());
  const std::vector<double> ref = gemm_reference_rows(x_rows, w, rows, k, n);
  Validation v = compare_arrays(out_rows.data(), ref.data(), rows * n, tol, "");
  if (v.failed_elements > 0) {
    v.detail = fmt::format("sampled rows [{}], n = {}: {}", fmt::join(row_ids, ", "), n, v.detail);
  }
  return v;
}

/// Accumulates `part` into `total` (counts summed, maxima kept, first failure detail kept with
/// `where` prefixed so a chunk-relative index can be located).
void merge_validation(Validation& total, const Validation& part, const std::string& where) {
  total.checked_elements += part.checked_elements;
  total.failed_elements += part.failed_elements;
  total.non_finite_elements += part.non_finite_elements;
  total.max_abs_error = std::max(total.max_abs_error, part.max_abs_error);
  total.worst_ratio = std::max(total.worst_ratio, part.worst_ratio);
  if (total.detail.empty() && part.failed_elements > 0) {
    total.detail = fmt::format("{}: {}", where, part.detail);
  }
}

/// The validation both GEMM operators share: C [m, n] of `dtype` poisoned with NaN (0xFFFF in bf16
/// and fp16, so an element the kernel fails to write fails both comparisons; it is also the
/// host-visible write compute-sanitizer's initcheck sees, since the wgmma kernels write C only
/// through TMA stores, which it does not track: it reported C as uninitialized on the H200,
/// 2026-11-30), one launch of the kernel, then the comparisons with cuBLAS over every element and
/// with float64 on the CPU over sampled rows, at default_tolerance(dtype); `reference` describes
/// the two references for the report.
template <typename Launch, typename CompareCublas, typename CompareCpu>
Validation validate_gemm_output(void* c, int64_t c_bytes, Dtype dtype, Launch launch,
                                CompareCublas compare_with_cublas, CompareCpu compare_with_cpu,
                                std::string reference) {
  RFL_CUDA_CHECK(cudaMemset(c, 0xFF, static_cast<size_t>(c_bytes)));
  launch();
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  const Tolerance tol = default_tolerance(dtype);
  Validation result;
  result.tolerance = tol;
  merge_validation(result, compare_with_cublas(tol), "cublas");
  merge_validation(result, compare_with_cpu(tol), "cpu-float64");
  result.reference = std::move(reference);
  result.passed = result.failed_elements == 0 && result.checked_elements > 0;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Kernel

/// Compile-time tiling of the mma.sync kernels (gemm_mma_sync_kernel, gemm_skinny_splitk_kernel).
/// A block computes a kBlockM × kBlockN tile of C, stepping over K in kBlockK slices; its warps
/// form a kWarpsM × kWarpsN grid, each owning a kWarpTileM × kWarpTileN sub-tile made of
/// m16n8k16 MMA tiles. Shared memory holds kStages slices of X and W.
template <int kBlockM_, int kBlockN_, int kBlockK_, int kWarpsM_, int kMinBlocksPerSm_>
struct MmaSyncTraits {
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kBlockK = kBlockK_;
  static constexpr int kWarpsM = kWarpsM_;
  static constexpr int kWarpsN = 4;
  static constexpr int kWarps = kWarpsM * kWarpsN;
  static constexpr int kThreads = 32 * kWarps;
  // 4 stages: with kBlockK = 32 each slice is only two MMA k-steps, so more slices in flight are
  // needed to cover DRAM latency.
  static constexpr int kStages = 4;
  static constexpr int kMinBlocksPerSm = kMinBlocksPerSm_;

  static constexpr int kMmaM = 16;
  static constexpr int kMmaN = 8;
  static constexpr int kMmaK = 16;
  static constexpr int kWarpTileM = kBlockM / kWarpsM;
  static constexpr int kWarpTileN = kBlockN / kWarpsN;
  static constexpr int kMmaTilesM = kWarpTileM / kMmaM;
  static constexpr int kMmaTilesN = kWarpTileN / kMmaN;

  static constexpr int kElemBytes = 2;
  static constexpr int kChunkElems = 16 / kElemBytes;  // one cp.async / ldmatrix row = 16 bytes
  // Rows padded by 16 bytes: the 8 row addresses of one ldmatrix phase then fall into 8 distinct
  // 16-byte bank groups (row stride an odd multiple of 16 bytes), so it is conflict-free.
  static constexpr int kPadElems = kChunkElems;
  static constexpr int kSmemRowA = kBlockK + kPadElems;  // X slice [kBlockM][kSmemRowA]
  static constexpr int kSmemRowB = kBlockN + kPadElems;  // W slice [kBlockK][kSmemRowB]
  static constexpr int kStageElemsA = kBlockM * kSmemRowA;
  static constexpr int kStageElemsB = kBlockK * kSmemRowB;
  static constexpr int kSmemBytes = kStages * (kStageElemsA + kStageElemsB) * kElemBytes;

  static constexpr int kChunksPerRowA = kBlockK / kChunkElems;
  static constexpr int kChunksPerRowB = kBlockN / kChunkElems;
  static constexpr int kChunksA = kBlockM * kChunksPerRowA;
  static constexpr int kChunksB = kBlockK * kChunksPerRowB;
  // A slice of X may have fewer chunks than the block has threads, or not a multiple of them
  // (the skinny tiles of 16 and 48 rows): the last round is guarded.
  static constexpr int kChunksPerThreadA = (kChunksA + kThreads - 1) / kThreads;
  static constexpr int kChunksPerThreadB = kChunksB / kThreads;

  static_assert(kWarpTileM * kWarpsM == kBlockM && kWarpTileN * kWarpsN == kBlockN);
  static_assert(kWarpTileM % kMmaM == 0, "warp tile rows must be whole MMA tiles");
  static_assert(kWarpTileN % (2 * kMmaN) == 0, "one ldmatrix.x4.trans feeds two n8 tiles");
  static_assert(kBlockK % kMmaK == 0, "a K slice must be whole MMA k-steps");
  static_assert(kChunksB % kThreads == 0, "W slice must split evenly");
  static_assert((kSmemRowA * kElemBytes / 16) % 2 == 1, "X rows: odd multiple of 16 bytes");
  static_assert((kSmemRowB * kElemBytes / 16) % 2 == 1, "W rows: odd multiple of 16 bytes");
  static_assert(kStages >= 2, "cp.async pipeline needs at least double buffering");
  static_assert(kSmemBytes * kMinBlocksPerSm <= 227 * 1024, "sm_90 opt-in shared memory");
  static_assert(kMmaTilesM * kMmaTilesN * 4 <= 64,
                "more than 64 fp32 accumulators per thread would not leave kMinBlocksPerSm "
                "blocks/SM within the register file");
};

/// gemm_v1_mma_sync: 128×128 tiles (the model's, core/kernel_tiles.hpp), 2 × 4 warps of 64×32;
/// 2 blocks/SM fit (2 × 74 KiB of 227 KiB).
using GemmTraits = MmaSyncTraits<static_cast<int>(kGemmMmaSyncTile.rows),
                                 static_cast<int>(kGemmMmaSyncTile.cols), 32, 2, 2>;

/// gemm_v4_skinny_splitk at kRowTiles = ceil(M/16) (1 to 4): one row of 16·kRowTiles × 128
/// tiles, 1 × 4 warps of 16·kRowTiles × 32, 4 blocks/SM (≤ 49 KiB each), so that each SM keeps
/// 4 × 3 slices of W (24 KiB per block) in flight; 3 at 4 row tiles, whose 64 accumulators per
/// thread spilled within the 128 registers of 4 blocks (ptxas, sm_80).
template <int kRowTiles>
using SkinnyTraits = MmaSyncTraits<16 * kRowTiles, static_cast<int>(kGemmSkinnyTileCols),
                                   static_cast<int>(kGemmSkinnySliceK), 1, kRowTiles == 4 ? 3 : 4>;

static_assert(SkinnyTraits<1>::kMmaTilesM == 1 && SkinnyTraits<4>::kMmaTilesM == 4);
static_assert(4 * 16 == kGemmSkinnyMaxRows, "kRowTiles 1..4 cover M up to kGemmSkinnyMaxRows");

/// Pointers and sizes of one GEMM. Row-major: x [m, k], w [k, n], c [m, n], all in one 16-bit
/// dtype. Requires k % 8 == 0 and n % 8 == 0 (16-byte rows for cp.async) and 16-byte aligned
/// base pointers; m and n need not be multiples of the tile.
struct GemmParams {
  const void* x;
  const void* w;
  void* c;
  int64_t m;
  int64_t n;
  int64_t k;
};

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

/// c += a · b for one m16n8k16 tile (PTX ISA, "Matrix Fragments for mma.m16n8k16").
template <class T>
__device__ __forceinline__ void mma_m16n8k16(float (&c)[4], const uint32_t (&a)[4],
                                             const uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

/// Issues the cp.async copies of K slice [k0, k0 + kBlockK) of the block's X rows and W columns
/// into one pipeline stage. Out-of-range chunks (M, N or K edge) are zero-filled, so they add
/// nothing to the accumulators.
template <class Tr, class T>
__device__ __forceinline__ void load_slice(const GemmParams& p, T* stage_a, T* stage_b,
                                           int64_t block_m, int64_t block_n, int64_t k0) {
  const T* x = static_cast<const T*>(p.x);
  const T* w = static_cast<const T*>(p.w);
#pragma unroll
  for (int i = 0; i < Tr::kChunksPerThreadA; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * Tr::kThreads;
    if constexpr (Tr::kChunksA % Tr::kThreads != 0) {
      if (chunk >= Tr::kChunksA) break;
    }
    const int row = chunk / Tr::kChunksPerRowA;
    const int col = (chunk % Tr::kChunksPerRowA) * Tr::kChunkElems;
    const int64_t global_row = block_m + row;
    const int64_t global_k = k0 + col;
    const bool valid = global_row < p.m && global_k < p.k;
    const T* src = valid ? x + global_row * p.k + global_k : x;
    cp_async_16(stage_a + row * Tr::kSmemRowA + col, src, valid ? 16 : 0);
  }
#pragma unroll
  for (int i = 0; i < Tr::kChunksPerThreadB; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * Tr::kThreads;
    const int row = chunk / Tr::kChunksPerRowB;
    const int col = (chunk % Tr::kChunksPerRowB) * Tr::kChunkElems;
    const int64_t global_k = k0 + row;
    const int64_t global_col = block_n + col;
    const bool valid = global_k < p.k && global_col < p.n;
    const T* src = valid ? w + global_k * p.n + global_col : w;
    cp_async_16(stage_b + row * Tr::kSmemRowB + col, src, valid ? 16 : 0);
  }
}

/// The fp32 accumulators of one thread: its MMA tiles of its warp's sub-tile.
template <class Tr>
using Accumulators = float[Tr::kMmaTilesM][Tr::kMmaTilesN][4];

/// acc += X[block_m.., k_begin .. k_begin + k_slices·kBlockK) · W[.., block_n..] for the block's
/// tile, through the kStages-deep cp.async pipeline in `smem_raw` (Tr::kSmemBytes). K beyond
/// p.k is zero-filled, so the last slice may be partial.
template <class Tr, class T>
__device__ __forceinline__ void mma_sync_block_tile(const GemmParams& p, unsigned char* smem_raw,
                                                    int64_t block_m, int64_t block_n,
                                                    int64_t k_begin, int64_t k_slices,
                                                    Accumulators<Tr>& acc) {
  T* smem_a = reinterpret_cast<T*>(smem_raw);
  T* smem_b = smem_a + Tr::kStages * Tr::kStageElemsA;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int warp_m = warp / Tr::kWarpsN;
  const int warp_n = warp % Tr::kWarpsN;

  // Prologue: slices 0 .. kStages-2 in flight, one commit group each (empty past the end, so the
  // group count per iteration stays fixed and wait_group<kStages-2> always means "slice kt ready").
#pragma unroll
  for (int s = 0; s < Tr::kStages - 1; ++s) {
    if (s < k_slices) {
      load_slice<Tr, T>(p, smem_a + s * Tr::kStageElemsA, smem_b + s * Tr::kStageElemsB, block_m,
                        block_n, k_begin + static_cast<int64_t>(s) * Tr::kBlockK);
    }
    cp_async_commit();
  }

  // ldmatrix.x4 row addresses: lanes 0-15 give rows 0-15 of the left 8 columns, lanes 16-31 the
  // same rows of the right 8 columns. For X this yields the A fragment registers a0..a3; for W
  // (rows = k) with .trans it yields b0, b1 of two adjacent n8 tiles.
  const int ld_row = lane % 16;
  const int ld_col = (lane / 16) * 8;

  for (int64_t kt = 0; kt < k_slices; ++kt) {
    cp_async_wait<Tr::kStages - 2>();
    // Makes slice kt visible to all warps, and guarantees every warp has finished computing on
    // the stage that the load below overwrites (the one read in iteration kt - 1).
    __syncthreads();
    const int64_t next = kt + Tr::kStages - 1;
    if (next < k_slices) {
      const int stage = static_cast<int>(next % Tr::kStages);
      load_slice<Tr, T>(p, smem_a + stage * Tr::kStageElemsA, smem_b + stage * Tr::kStageElemsB,
                        block_m, block_n, k_begin + next * Tr::kBlockK);
    }
    cp_async_commit();

    const int stage = static_cast<int>(kt % Tr::kStages);
    const T* stage_a = smem_a + stage * Tr::kStageElemsA;
    const T* stage_b = smem_b + stage * Tr::kStageElemsB;
#pragma unroll
    for (int kk = 0; kk < Tr::kBlockK; kk += Tr::kMmaK) {
      uint32_t a[Tr::kMmaTilesM][4];
      uint32_t b[Tr::kMmaTilesN][2];
#pragma unroll
      for (int mt = 0; mt < Tr::kMmaTilesM; ++mt) {
        const int row = warp_m * Tr::kWarpTileM + mt * Tr::kMmaM + ld_row;
        ldmatrix_x4(a[mt], smem_address(stage_a + row * Tr::kSmemRowA + kk + ld_col));
      }
#pragma unroll
      for (int nt = 0; nt < Tr::kMmaTilesN; nt += 2) {
        const int col = warp_n * Tr::kWarpTileN + nt * Tr::kMmaN + ld_col;
        uint32_t r[4];
        ldmatrix_x4_trans(r, smem_address(stage_b + (kk + ld_row) * Tr::kSmemRowB + col));
        b[nt][0] = r[0];
        b[nt][1] = r[1];
        b[nt + 1][0] = r[2];
        b[nt + 1][1] = r[3];
      }
#pragma unroll
      for (int mt = 0; mt < Tr::kMmaTilesM; ++mt) {
#pragma unroll
        for (int nt = 0; nt < Tr::kMmaTilesN; ++nt) mma_m16n8k16<T>(acc[mt][nt], a[mt], b[nt]);
      }
    }
  }
}

/// Calls `visit(mt, nt, half, row, col)` for each pair of adjacent accumulators this thread holds
/// that lies inside C: accumulator c0,c1 is (row g, cols 2t, 2t+1) of the MMA tile and c2,c3 the
/// same columns of row g + 8 (g = lane / 4, t = lane % 4; PTX ISA, "Matrix Fragments for
/// mma.m16n8k16"). n is even, so a pair is either wholly inside C or wholly outside.
template <class Tr, class Visit>
__device__ __forceinline__ void for_each_pair(const GemmParams& p, int64_t block_m, int64_t block_n,
                                              Visit visit) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int warp_m = warp / Tr::kWarpsN;
  const int warp_n = warp % Tr::kWarpsN;
  const int g = lane / 4;
  const int t = lane % 4;
#pragma unroll
  for (int mt = 0; mt < Tr::kMmaTilesM; ++mt) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int64_t row = block_m + warp_m * Tr::kWarpTileM + mt * Tr::kMmaM + g + half * 8;
      if (row >= p.m) continue;
#pragma unroll
      for (int nt = 0; nt < Tr::kMmaTilesN; ++nt) {
        const int64_t col = block_n + warp_n * Tr::kWarpTileN + nt * Tr::kMmaN + 2 * t;
        if (col < p.n) visit(mt, nt, half, row, col);
      }
    }
  }
}

/// Writes the block's accumulators to C in the dtype, one 4-byte store per pair.
template <class Tr, class T>
__device__ __forceinline__ void store_tile(const GemmParams& p, const Accumulators<Tr>& acc,
                                           int64_t block_m, int64_t block_n) {
  T* c = static_cast<T*>(p.c);
  for_each_pair<Tr>(p, block_m, block_n, [&](int mt, int nt, int half, int64_t row, int64_t col) {
    *reinterpret_cast<uint32_t*>(c + row * p.n + col) =
        pack_pair<T>(acc[mt][nt][2 * half], acc[mt][nt][2 * half + 1]);
  });
}

/// gemm_v1_mma_sync: one block per kBlockM × kBlockN tile of C, tiles numbered row-major over a
/// 1-D grid (no 65535 limit on M; consecutive blocks share X rows). Shared memory:
/// GemmTraits::kSmemBytes.
template <class T>
__global__ void __launch_bounds__(GemmTraits::kThreads, GemmTraits::kMinBlocksPerSm)
    gemm_mma_sync_kernel(const GemmParams p) {
  using Tr = GemmTraits;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int64_t n_tiles = (p.n + Tr::kBlockN - 1) / Tr::kBlockN;
  const int64_t block_m = static_cast<int64_t>(blockIdx.x) / n_tiles * Tr::kBlockM;
  const int64_t block_n = static_cast<int64_t>(blockIdx.x) % n_tiles * Tr::kBlockN;
  Accumulators<Tr> acc = {};
  mma_sync_block_tile<Tr, T>(p, smem_raw, block_m, block_n, 0,
                             (p.k + Tr::kBlockK - 1) / Tr::kBlockK, acc);
  store_tile<Tr, T>(p, acc, block_m, block_n);
}

/// gemm_v4_skinny_splitk's arguments beyond the GEMM's: the split of K (gemm_skinny_split), the
/// fp32 partials [splits][m][n] (unused when splits = 1) and one arrival counter per column tile,
/// 0 before every launch (the run zeroes them once; each reduction re-arms its own).
struct SkinnyParams {
  GemmParams gemm;
  float* partials;
  int* tile_counters;
  int64_t splits;
  int64_t k_per_split;
};

/// gemm_v4_skinny_splitk: block (x, y) computes column tile x of the one row of tiles (M ≤
/// 16·kRowTiles) over K split y, [y·k_per_split, min(K, (y+1)·k_per_split)). With one split it
/// stores C directly; otherwise it stores its fp32 partial, and the last of the tile's splits to
/// arrive (an atomic counter, after a fence that publishes the partial) sums all partials in split
/// order (so the result does not depend on arrival order), stores C and re-arms the counter.
/// Shared memory: SkinnyTraits<kRowTiles>::kSmemBytes.
template <class T, int kRowTiles>
__global__ void __launch_bounds__(SkinnyTraits<kRowTiles>::kThreads,
                                  SkinnyTraits<kRowTiles>::kMinBlocksPerSm)
    gemm_skinny_splitk_kernel(const SkinnyParams sp) {
  using Tr = SkinnyTraits<kRowTiles>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ bool last_split;
  const GemmParams& p = sp.gemm;
  const int64_t tile = blockIdx.x;
  const int64_t split = blockIdx.y;
  const int64_t block_n = tile * Tr::kBlockN;
  const int64_t k_begin = split * sp.k_per_split;
  // > 0: gemm_skinny_split leaves no split empty; the last one ends at K.
  const int64_t k_len = p.k - k_begin < sp.k_per_split ? p.k - k_begin : sp.k_per_split;
  Accumulators<Tr> acc = {};
  mma_sync_block_tile<Tr, T>(p, smem_raw, 0, block_n, k_begin,
                             (k_len + Tr::kBlockK - 1) / Tr::kBlockK, acc);
  if (sp.splits == 1) {
    store_tile<Tr, T>(p, acc, 0, block_n);
    return;
  }

  const int64_t plane = p.m * p.n;  // one split's partial [m][n]
  float* mine = sp.partials + split * plane;
  for_each_pair<Tr>(p, 0, block_n, [&](int mt, int nt, int half, int64_t row, int64_t col) {
    *reinterpret_cast<float2*>(mine + row * p.n + col) =
        make_float2(acc[mt][nt][2 * half], acc[mt][nt][2 * half + 1]);
  });
  if (!split_k_last_arrival(sp.tile_counters + tile, sp.splits, &last_split, threadIdx.x == 0,
                            [] { __syncthreads(); })) {
    return;
  }
  for_each_pair<Tr>(p, 0, block_n, [&](int mt, int nt, int half, int64_t row, int64_t col) {
    const float2 sum = split_k_sum(reinterpret_cast<const float2*>(sp.partials), plane / 2,
                                   sp.splits, (row * p.n + col) / 2);
    acc[mt][nt][2 * half] = sum.x;
    acc[mt][nt][2 * half + 1] = sum.y;
  });
  store_tile<Tr, T>(p, acc, 0, block_n);
  if (threadIdx.x == 0) sp.tile_counters[tile] = 0;  // re-armed for the next launch
}

// ---------------------------------------------------------------------------------------------
// Launcher

/// Raises `kernel`'s dynamic shared-memory limit to `smem_bytes` (above the 48 KiB default); once
/// per run, so that launch() stays a bare kernel launch. Throws environment_error naming `name`
/// when the device's opt-in limit is smaller than the tile needs.
template <class Kernel>
void allow_dynamic_smem(Kernel kernel, int smem_bytes, const char* name) {
  int device = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  int optin_bytes = 0;
  RFL_CUDA_CHECK(
      cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (optin_bytes < smem_bytes) {
    throw environment_error(
        fmt::format("{} needs {} bytes of shared memory per block, device {} allows {}", name,
                    smem_bytes, device, optin_bytes));
  }
  RFL_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
}

template <class T>
void prepare_gemm_kernel() {
  allow_dynamic_smem(gemm_mma_sync_kernel<T>, GemmTraits::kSmemBytes, "gemm_mma_sync");
}

int64_t gemm_block_count(int64_t m, int64_t n) {
  return ((m + GemmTraits::kBlockM - 1) / GemmTraits::kBlockM) *
         ((n + GemmTraits::kBlockN - 1) / GemmTraits::kBlockN);
}

template <class T>
void launch_gemm(const GemmParams& p, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned int>(gemm_block_count(p.m, p.n));
  gemm_mma_sync_kernel<T><<<blocks, GemmTraits::kThreads, GemmTraits::kSmemBytes, stream>>>(p);
  RFL_CHECK_LAUNCH();
}

/// Calls `f(std::integral_constant<int, R>{})` with the skinny kernel's row tiles R = ceil(m/16)
/// for 1 ≤ m ≤ kGemmSkinnyMaxRows; throws bad_input for any other m (the version selection never
/// asks for one).
template <class F>
void with_row_tiles(int64_t m, F&& f) {
  switch ((m + 15) / 16) {
    case 1:
      f(std::integral_constant<int, 1>{});
      return;
    case 2:
      f(std::integral_constant<int, 2>{});
      return;
    case 3:
      f(std::integral_constant<int, 3>{});
      return;
    case 4:
      if (m <= kGemmSkinnyMaxRows) {
        f(std::integral_constant<int, 4>{});
        return;
      }
  }
  throw bad_input(fmt::format("gemm_skinny_splitk: M = {} unsupported (allowed 1 to {})", m,
                              kGemmSkinnyMaxRows));
}

template <class T>
void prepare_skinny_kernel(int64_t m) {
  with_row_tiles(m, [](auto rows) {
    constexpr int kRows = decltype(rows)::value;
    allow_dynamic_smem(gemm_skinny_splitk_kernel<T, kRows>, SkinnyTraits<kRows>::kSmemBytes,
                       "gemm_skinny_splitk");
  });
}

/// Grid: ceil(N/128) column tiles × splits (≤ kGemmSkinnyTargetBlocks, well inside gridDim.y).
template <class T>
void launch_skinny(const SkinnyParams& sp, cudaStream_t stream) {
  const int64_t col_tiles = (sp.gemm.n + kGemmSkinnyTileCols - 1) / kGemmSkinnyTileCols;
  const dim3 grid(static_cast<unsigned int>(col_tiles), static_cast<unsigned int>(sp.splits));
  with_row_tiles(sp.gemm.m, [&](auto rows) {
    constexpr int kRows = decltype(rows)::value;
    using Tr = SkinnyTraits<kRows>;
    gemm_skinny_splitk_kernel<T, kRows><<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(sp);
  });
  RFL_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------------
// Version selection

/// `--kernel gemm=fp8` and the name FP8 points report.
constexpr const char* kGemmFp8Key = "fp8";
constexpr const char* kGemmFp8VersionName = "gemm_fp8_v1_wgmma";

/// The versions `--kernel gemm=KEY` chooses from; v6 is the default (v4 off compute capability
/// 9.0, v3 above 64 rows).
const std::vector<KernelVersion>& gemm_versions() {
  static const std::vector<KernelVersion> versions = {
      {"v1", "gemm_v1_mma_sync", "compute capability 8.0+", ""},
      {"v2", "gemm_v2_wgmma_tma", "compute capability 9.0 (sm_90a code)", "v1"},
      {"v3", "gemm_v3_wgmma_multicast",
       "compute capability 9.0 (sm_90a code) and a resident 2-block cluster", "v2"},
      {"v4", kGemmSkinnyVersionName,
       fmt::format("M = batch*seq_len <= {} (compute capability 8.0+)", kGemmSkinnyMaxRows), "v3"},
      {"v6", kGemmSkinnyWgmmaVersionName,
       fmt::format("M = batch*seq_len <= {} and compute capability 9.0 (sm_90a code)",
                   kGemmSkinnyMaxRows),
       "v4"},
      {"v7", kGemmWgmmaN128VersionName,
       "compute capability 9.0 (sm_90a code); the default above 64 rows where 128-column tiles "
       "should finish their waves soonest",
       "v1"},
      {"v8", kGemmWgmmaN192VersionName,
       "compute capability 9.0 (sm_90a code); the default above 64 rows where 192-column tiles "
       "should finish their waves soonest",
       "v1"},
      {kGemmFp8Key, kGemmFp8VersionName,
       "compute capability 9.0 (sm_90a code); --gemm-dtype fp8_e4m3 points, which run it whatever "
       "version is asked for (16-bit points asking for it run v4)",
       "v4"}};
  return versions;
}
constexpr const char* kDefaultGemmVersion = "v6";

/// The version `key` asks for when the device and M = `m` allow it (gemm_version_for: v6 off
/// compute capability 9.0 gives way to v4, v6 and v4 above 64 rows to v3, v2 and v3 off compute
/// capability 9.0 to v1, and version() says so). v3
/// may still become v2 in prepare_gemm_wgmma when no 2-block cluster fits. Throws bad_input for
/// an undeclared key.
std::string select_gemm_version(const std::string& key, int64_t m) {
  const KernelVersion& requested =
      find_kernel_version("gemm", gemm_versions(), kDefaultGemmVersion, key);
  // The FP8 version over 16-bit inputs: its fallback, as `needs` says.
  const std::string& tiled = requested.key == kGemmFp8Key ? requested.fallback : requested.key;
  return gemm_version_for(tiled, m, current_compute_capability());
}

/// The name OperatorRun::version() reports for the declared `key`.
const std::string& gemm_version_name(const std::string& key) {
  return find_kernel_version("gemm", gemm_versions(), kDefaultGemmVersion, key).name;
}

// ---------------------------------------------------------------------------------------------
// OperatorRun

/// Scratch of a skinny version at (M, N, K): the fp32 partials (splits·M·N floats, none with one
/// split) and one int32 arrival counter per column tile (v4, 128 columns) or strip (v6, 64).
struct SkinnyScratch {
  int64_t partial_floats = 0;
  int64_t counters = 0;
};

/// The scratch of "v4" (gemm_skinny_split) or "v6" (gemm_skinny_wgmma_split).
SkinnyScratch skinny_scratch(const GemmDims& d, const std::string& version) {
  const bool v6 = version == "v6";
  const GemmSplitK split =
      v6 ? gemm_skinny_wgmma_split(d.m, d.n, d.k) : gemm_skinny_split(d.m, d.n, d.k);
  const int64_t cols = v6 ? kGemmSkinnyWgmmaStripCols : kGemmSkinnyTileCols;
  return {split.splits > 1 ? split.splits * d.m * d.n : 0, (d.n + cols - 1) / cols};
}

cudaDataType_t cublas_type(Dtype dtype) { return dtype == Dtype::kBf16 ? CUDA_R_16BF : CUDA_R_16F; }

class GemmRun final : public OperatorRun {
 public:
  GemmRun(const Shape& shape, const std::string& version_key)
      : dims_(shape.gemm_dims()),
        dtype_(shape.dtype),
        version_(select_gemm_version(version_key, dims_.m)),
        x_(dims_.m * dims_.k),
        w_(dims_.k * dims_.n),
        c_(dims_.m * dims_.n),
        cublas_workspace_(kCublasWorkspaceBytes),
        cublas_(make_cublas_handle()) {
    if (version_ == "v4" || version_ == "v6") {
      const SkinnyScratch scratch = skinny_scratch(dims_, version_);
      partials_ = DeviceBuffer<float>(scratch.partial_floats);
      tile_counters_ = DeviceBuffer<int>(scratch.counters);
      RFL_CUDA_CHECK(
          cudaMemset(tile_counters_.get(), 0, static_cast<size_t>(tile_counters_.bytes())));
    }
    if (version_ == "v6") {
      skinny_wgmma_ = prepare_gemm_skinny_wgmma(x_.get(), w_.get(), c_.get(), partials_.get(),
                                                tile_counters_.get(), dims_.m, dims_.n, dims_.k,
                                                dtype_ == Dtype::kBf16);
    } else if (version_ == "v4") {
      split_ = gemm_skinny_split(dims_.m, dims_.n, dims_.k);
      if (dtype_ == Dtype::kBf16) {
        prepare_skinny_kernel<__nv_bfloat16>(dims_.m);
      } else {
        prepare_skinny_kernel<__half>(dims_.m);
      }
    } else if (version_ != "v1") {
      // v3 and v2 asked for by name keep their 256-column tile, v7 and v8 their 128 and 192;
      // the default above 64 rows (a skinny key that became v3) takes the width that should
      // finish its waves soonest.
      const bool by_name =
          version_key == "v3" || version_key == "v2" || version_key == "v7" || version_key == "v8";
      const GemmWgmmaTileWidth width = version_ == "v7"   ? GemmWgmmaTileWidth::kCols128
                                       : version_ == "v8" ? GemmWgmmaTileWidth::kCols192
                                       : by_name          ? GemmWgmmaTileWidth::kCols256
                                                          : GemmWgmmaTileWidth::kFewestWaveColumns;
      wgmma_ = prepare_gemm_wgmma(x_.get(), w_.get(), c_.get(), dims_.m, dims_.n, dims_.k,
                                  dtype_ == Dtype::kBf16, version_ != "v2", width);
    } else if (dtype_ == Dtype::kBf16) {
      prepare_gemm_kernel<__nv_bfloat16>();
    } else {
      prepare_gemm_kernel<__half>();
    }
  }

  // X uniform in [-1, 1), W uniform in [-1, 1)/sqrt(K): each output is a sum of K terms of
  // variance 1/(9K), so C has standard deviation 1/3 whatever K is, and the default
  // O(1)-magnitude tolerance applies.
  void fill_random(uint64_t seed) override {
    const float w_bound = 1.0f / std::sqrt(static_cast<float>(dims_.k));
    fill_uniform(x_.get(), x_.count(), dtype_, seed ^ 0x5851F42D4C957F2Dull, -1.0f, 1.0f);
    fill_uniform(w_.get(), w_.count(), dtype_, seed ^ 0x14057B7EF767814Full, -w_bound, w_bound);
  }

  // Two references, neither sharing code with the kernel: cuBLAS (fp32 output) over every
  // element, compared on the GPU (compare_on_device: the host test, in float64), and float64 on
  // the CPU over kCpuSampleRows rows. Tolerance: default_tolerance —
  // the output is O(1) and the kernel's only error beyond fp32 summation order (split-K: fp32
  // partials summed in fp32) is the final rounding to the dtype (relative u = 2^-8 bf16, 2^-11
  // fp16), well inside the default abs = rel = 2u (bf16) / 4u (fp16).
  Validation validate() override {
    return validate_gemm_output(
        c_.get(), c_.bytes(), dtype_, [this] { launch(nullptr); },
        [this](Tolerance tol) { return compare_with_cublas(tol); },
        [this](Tolerance tol) { return compare_with_cpu(tol); },
        fmt::format("gpu-fp32 cublasGemmEx (all {} elements) + cpu-float64 ({} sampled rows)",
                    dims_.m * dims_.n, std::min(kCpuSampleRows, dims_.m)));
  }

  void launch(cudaStream_t stream) override {
    if (skinny_wgmma_) {
      launch_gemm_skinny_wgmma(*skinny_wgmma_, stream);
      return;
    }
    if (wgmma_) {
      launch_gemm_wgmma(*wgmma_, stream);
      return;
    }
    const GemmParams p{x_.get(), w_.get(), c_.get(), dims_.m, dims_.n, dims_.k};
    const bool bf16 = dtype_ == Dtype::kBf16;
    if (version_ == "v4") {
      const SkinnyParams sp{p, partials_.get(), tile_counters_.get(), split_.splits,
                            split_.k_per_split};
      bf16 ? launch_skinny<__nv_bfloat16>(sp, stream) : launch_skinny<__half>(sp, stream);
    } else {
      bf16 ? launch_gemm<__nv_bfloat16>(p, stream) : launch_gemm<__half>(p, stream);
    }
  }

  std::vector<DeviceTensorView> tensors() override {
    return {{"x", x_.get(), x_.count()}, {"w", w_.get(), w_.count()}, {"c", c_.get(), c_.count()}};
  }

  std::vector<std::string> kernel_names() const override {
    if (version_ == "v6") return {"gemm_skinny_wgmma"};
    if (version_ == "v4") return {"gemm_skinny_splitk"};
    return {wgmma_ ? "gemm_wgmma_tma" : "gemm_mma_sync"};
  }
  std::string version() const override {
    if (wgmma_ && wgmma_->block_n == kGemmWgmmaN128Tile.cols) return gemm_version_name("v7");
    if (wgmma_ && wgmma_->block_n == kGemmWgmmaN192Tile.cols) return gemm_version_name("v8");
    if (wgmma_) return gemm_version_name(wgmma_->cluster_m == 2 ? "v3" : "v2");
    return gemm_version_name(version_);
  }

 private:
  // Row-major C = X·W is column-major Cᵀ = Wᵀ·Xᵀ, i.e. cuBLAS's C[n×m] = A[n×k]·B[k×m] with
  // A = W (ld n) and B = X (ld k), no transposes.
  Validation compare_with_cublas(Tolerance tol) {
    DeviceBuffer<float> reference(dims_.m * dims_.n);
    // Poisoned with NaN (all-ones bits) first: an element cuBLAS failed to write fails the
    // comparison. This also gives compute-sanitizer's initcheck a host-visible write: cuBLAS's
    // Hopper kernels store through TMA, which initcheck does not track (it reported every
    // element of this buffer as uninitialized on the H200, 2026-11-29).
    RFL_CUDA_CHECK(cudaMemset(reference.get(), 0xFF, static_cast<size_t>(reference.bytes())));
    RFL_CUBLAS_CHECK(cublas_api().set_stream(cublas_.get(), nullptr));
    // cublasSetStream resets the workspace to cuBLAS's own pool (cuBLAS API reference).
    RFL_CUBLAS_CHECK(cublas_api().set_workspace(cublas_.get(), cublas_workspace_.get(),
                                                static_cast<size_t>(cublas_workspace_.bytes())));
    const float one = 1.0f;
    const float zero = 0.0f;
    const cudaDataType_t type = cublas_type(dtype_);
    RFL_CUBLAS_CHECK(
        cublas_api().gemm_ex(cublas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(dims_.n),
                             static_cast<int>(dims_.m), static_cast<int>(dims_.k), &one, w_.get(),
                             type, static_cast<int>(dims_.n), x_.get(), type,
                             static_cast<int>(dims_.k), &zero, reference.get(), CUDA_R_32F,
                             static_cast<int>(dims_.n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    RFL_CUDA_CHECK(cudaDeviceSynchronize());

    return compare_on_device(c_.get(), dtype_, reference.get(), dims_.m * dims_.n, tol, "");
  }

  Validation compare_with_cpu(Tolerance tol) {
    const std::vector<int64_t> row_ids = sampled_rows(dims_.m);
    std::vector<double> x_rows;
    std::vector<double> out_rows;
    for (const int64_t row : row_ids) {
      const std::vector<double> x = download_as_double(x_.get() + row * dims_.k, dims_.k, dtype_);
      const std::vector<double> c = download_as_double(c_.get() + row * dims_.n, dims_.n, dtype_);
      x_rows.insert(x_rows.end(), x.begin(), x.end());
      out_rows.insert(out_rows.end(), c.begin(), c.end());
    }
    const std::vector<double> w = download_as_double(w_.get(), dims_.k * dims_.n, dtype_);
    return compare_sampled_rows(out_rows, x_rows, w, row_ids, dims_.k, dims_.n, tol);
  }

  GemmDims dims_;
  Dtype dtype_;
  /// the key that runs: "v6", "v4", "v1", or "v2"/"v3"/"v7"/"v8" (wgmma_ says which: its
  /// cluster and tile width)
  std::string version_;
  DeviceBuffer<uint16_t> x_;
  DeviceBuffer<uint16_t> w_;
  DeviceBuffer<uint16_t> c_;
  DeviceBuffer<uint8_t> cublas_workspace_;
  CublasHandle cublas_;
  std::optional<GemmWgmmaLaunch> wgmma_;  ///< set when v2 or v3 runs (tensor maps of x_, w_)
  std::optional<GemmSkinnyWgmmaLaunch> skinny_wgmma_;  ///< set when v6 runs
  GemmSplitK split_;                                   ///< v4 only
  DeviceBuffer<float> partials_;                       ///< v4 and v6, as the counters below
  DeviceBuffer<int> tile_counters_;
};

/// Device bytes of an FP8 point (GemmFp8Run): X and W in E4M3, the two scales, C in the dtype,
/// and, while fill_random and validate() run, the 16-bit copies of X and W (quantization source,
/// then the widened operands of the cuBLAS reference), its fp32 output and workspace.
int64_t gemm_fp8_device_bytes(const GemmDims& d, Dtype dtype) {
  const int64_t e = dtype_size_bytes(dtype);
  return d.m * d.k + d.n * d.k + 8 + d.m * d.n * e + (d.m * d.k + d.n * d.k) * e + d.m * d.n * 4 +
         kCublasWorkspaceBytes;
}

/// gemm_fp8_v1_wgmma: C[M, N] = scale_x·scale_w·(X·Wᵀ) with X [M, K] and W [N, K] in E4M3
/// (kernels/gemm_wgmma.hpp). Compute capability 9.0 only: elsewhere construction throws
/// environment_error, which fails the point with that message.
class GemmFp8Run final : public OperatorRun {
 public:
  explicit GemmFp8Run(const Shape& shape)
      : dims_(shape.gemm_dims()), dtype_(shape.dtype), cublas_(make_cublas_handle()) {
    const ComputeCapability cc = current_compute_capability();
    if (!runs_sm90a_code(cc)) {
      throw environment_error(fmt::format(
          "gemm --gemm-dtype fp8_e4m3 ({}) needs compute capability 9.0 (wgmma over E4M3, sm_90a "
          "code); this GPU is {}.{} (run --gemm-dtype auto here, or use model for the FP8 "
          "prediction)",
          kGemmFp8VersionName, cc.major, cc.minor));
    }
    x_ = DeviceBuffer<uint8_t>(dims_.m * dims_.k);
    w_ = DeviceBuffer<uint8_t>(dims_.n * dims_.k);
    scales_ = DeviceBuffer<float>(2);
    c_ = DeviceBuffer<uint16_t>(dims_.m * dims_.n);
    launch_ = prepare_gemm_fp8_wgmma(x_.get(), w_.get(), scales_.get(), c_.get(), dims_.m, dims_.n,
                                     dims_.k, dtype_ == Dtype::kBf16);
  }

  // X uniform in [-1, 1), W uniform in [-1, 1)/sqrt(K) in the dtype, as the 16-bit point's, then
  // quantized to E4M3 with one scale per tensor (amax / 448): C keeps standard deviation about
  // 1/3 whatever K is, and the default O(1)-magnitude tolerance applies.
  void fill_random(uint64_t seed) override {
    const float w_bound = 1.0f / std::sqrt(static_cast<float>(dims_.k));
    DeviceBuffer<uint16_t> x16(dims_.m * dims_.k);
    DeviceBuffer<uint16_t> w16(dims_.n * dims_.k);
    fill_uniform(x16.get(), x16.count(), dtype_, seed ^ 0x5851F42D4C957F2Dull, -1.0f, 1.0f);
    fill_uniform(w16.get(), w16.count(), dtype_, seed ^ 0x14057B7EF767814Full, -w_bound, w_bound);
    if (dtype_ == Dtype::kBf16) {
      quantize_e4m3_grouped(reinterpret_cast<const __nv_bfloat16*>(x16.get()), 1, x16.count(), 1,
                            x_.get(), scales_.get());
      quantize_e4m3_grouped(reinterpret_cast<const __nv_bfloat16*>(w16.get()), 1, w16.count(), 1,
                            w_.get(), scales_.get() + 1);
    } else {
      quantize_e4m3_grouped(reinterpret_cast<const __half*>(x16.get()), 1, x16.count(), 1, x_.get(),
                            scales_.get());
      quantize_e4m3_grouped(reinterpret_cast<const __half*>(w16.get()), 1, w16.count(), 1, w_.get(),
                            scales_.get() + 1);
    }
  }

  // Two references on the dequantized inputs, neither sharing code with the kernel: cuBLAS over
  // every element (cublasGemmEx on X and W widened to the 16-bit dtype, exact for every E4M3
  // value, alpha = scale_x·scale_w, fp32 output: the same exact products summed in fp32), and
  // float64 on the CPU over kCpuSampleRows rows (e4m3_to_double × scales). Tolerance:
  // default_tolerance, as the 16-bit gemm's: each E4M3 × E4M3 product is exact in fp32 (4 + 4
  // significant bits), so with a true fp32 accumulator the kernel's error against either reference
  // would be summation order plus the final rounding of an O(1) output to the dtype (u = 2^-8 bf16,
  // 2^-11 fp16), well inside the default abs = rel = 2u (bf16) / 4u (fp16); the scales' product
  // is one more fp32 rounding (2^-24 relative). The quantization itself is not an error here: both
  // references read the E4M3 values the kernel reads. The FP8 wgmma accumulator keeps fewer bits
  // than fp32 (DeepSeek-V3 report, arXiv 2412.19437 §3.3.2), which the kernel compensates by
  // promoting its partial sums to fp32 every 128 elements of K: before that it was 3.4× over the
  // tolerance at K = 14336 fp16 on the H100, after it every test shape passes
  // (docs/perf-notes.md, gemm_fp8_v1_wgmma).
  Validation validate() override {
    return validate_gemm_output(
        c_.get(), c_.bytes(), dtype_, [this] { launch(nullptr); },
        [this](Tolerance tol) { return compare_with_cublas(tol); },
        [this](Tolerance tol) { return compare_with_cpu(tol); },
        fmt::format("gpu-fp32 cublasGemmEx on the dequantized E4M3 inputs (all {} elements) + "
                    "cpu-float64 on them ({} sampled rows)",
                    dims_.m * dims_.n, std::min(kCpuSampleRows, dims_.m)));
  }

  void launch(cudaStream_t stream) override { launch_gemm_wgmma(launch_, stream); }

  std::vector<DeviceTensorView> tensors() override { return {{"c", c_.get(), c_.count()}}; }
  std::vector<std::string> kernel_names() const override { return {"gemm_wgmma_tma"}; }
  std::string version() const override { return kGemmFp8VersionName; }

 private:
  /// The two scales {scale_x, scale_w} on the host.
  std::vector<float> host_scales() const {
    std::vector<float> scales(2);
    RFL_CUDA_CHECK(
        cudaMemcpy(scales.data(), scales_.get(), 2 * sizeof(float), cudaMemcpyDeviceToHost));
    return scales;
  }

  // Row-major C = X·Wᵀ with W [N, K] is column-major Cᵀ [n×m] = W'·X' where W' (column-major
  // k×n, ld k) is transposed (OP_T) and X' (column-major k×m, ld k) is not.
  Validation compare_with_cublas(Tolerance tol) {
    DeviceBuffer<uint16_t> x16(dims_.m * dims_.k);
    DeviceBuffer<uint16_t> w16(dims_.n * dims_.k);
    if (dtype_ == Dtype::kBf16) {
      widen_e4m3(x_.get(), x_.count(), reinterpret_cast<__nv_bfloat16*>(x16.get()));
      widen_e4m3(w_.get(), w_.count(), reinterpret_cast<__nv_bfloat16*>(w16.get()));
    } else {
      widen_e4m3(x_.get(), x_.count(), reinterpret_cast<__half*>(x16.get()));
      widen_e4m3(w_.get(), w_.count(), reinterpret_cast<__half*>(w16.get()));
    }
    DeviceBuffer<float> reference(dims_.m * dims_.n);
    // NaN-poisoned first, as the 16-bit gemm's reference (initcheck and unwritten elements).
    RFL_CUDA_CHECK(cudaMemset(reference.get(), 0xFF, static_cast<size_t>(reference.bytes())));
    DeviceBuffer<uint8_t> workspace(kCublasWorkspaceBytes);
    RFL_CUBLAS_CHECK(cublas_api().set_stream(cublas_.get(), nullptr));
    RFL_CUBLAS_CHECK(cublas_api().set_workspace(cublas_.get(), workspace.get(),
                                                static_cast<size_t>(workspace.bytes())));
    const std::vector<float> scales = host_scales();
    const float alpha = scales[0] * scales[1];
    const float zero = 0.0f;
    const cudaDataType_t type = cublas_type(dtype_);
    RFL_CUBLAS_CHECK(
        cublas_api().gemm_ex(cublas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(dims_.n),
                             static_cast<int>(dims_.m), static_cast<int>(dims_.k), &alpha,
                             w16.get(), type, static_cast<int>(dims_.k), x16.get(), type,
                             static_cast<int>(dims_.k), &zero, reference.get(), CUDA_R_32F,
                             static_cast<int>(dims_.n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    return compare_on_device(c_.get(), dtype_, reference.get(), dims_.m * dims_.n, tol, "");
  }

  Validation compare_with_cpu(Tolerance tol) {
    const std::vector<float> scales = host_scales();
    const double scale = static_cast<double>(scales[0]) * static_cast<double>(scales[1]);
    const std::vector<int64_t> row_ids = sampled_rows(dims_.m);
    std::vector<uint8_t> bytes;
    std::vector<double> x_rows;
    std::vector<double> out_rows;
    for (const int64_t row : row_ids) {
      bytes.resize(static_cast<size_t>(dims_.k));
      RFL_CUDA_CHECK(cudaMemcpy(bytes.data(), x_.get() + row * dims_.k,
                                static_cast<size_t>(dims_.k), cudaMemcpyDeviceToHost));
      for (const uint8_t b : bytes) x_rows.push_back(e4m3_to_double(b));
      const std::vector<double> c = download_as_double(c_.get() + row * dims_.n, dims_.n, dtype_);
      out_rows.insert(out_rows.end(), c.begin(), c.end());
    }
    // W [N, K] as gemm_reference_rows's [K, N], with both scales folded in (exact in double:
    // an E4M3 value has 4 significant bits, the scale product 48 at most).
    bytes.resize(static_cast<size_t>(dims_.n * dims_.k));
    RFL_CUDA_CHECK(cudaMemcpy(bytes.data(), w_.get(), bytes.size(), cudaMemcpyDeviceToHost));
    std::vector<double> w(bytes.size());
    parallel_for(dims_.n, 256, [&](int64_t first, int64_t end) {
      for (int64_t j = first; j < end; ++j) {
        for (int64_t kk = 0; kk < dims_.k; ++kk) {
          w[static_cast<size_t>(kk * dims_.n + j)] =
              e4m3_to_double(bytes[static_cast<size_t>(j * dims_.k + kk)]) * scale;
        }
      }
    });
    return compare_sampled_rows(out_rows, x_rows, w, row_ids, dims_.k, dims_.n, tol);
  }

  GemmDims dims_;
  Dtype dtype_;
  CublasHandle cublas_;
  DeviceBuffer<uint8_t> x_;     ///< X [M, K] E4M3
  DeviceBuffer<uint8_t> w_;     ///< W [N, K] E4M3
  DeviceBuffer<float> scales_;  ///< {scale_x, scale_w}
  DeviceBuffer<uint16_t> c_;    ///< C [M, N] in the dtype
  GemmWgmmaLaunch launch_{};
};

void check_gemm_shape(const Shape& s) {
  validate_common_shape(s);  // explicit N and K: validate_gemm_dims (multiples of 8)
  const GemmDims d = s.gemm_dims();
  // K and N taken from the layer widths (gemm_k, gemm_n 0) must be multiples of 8 as explicit
  // ones are: 16-byte rows of X, W and C for cp.async and TMA. The message names where they came
  // from.
  if (d.k % 8 != 0) {
    const std::string from =
        s.hidden != 0 ? "--hidden" : fmt::format("heads {} × head-dim {}", s.heads, s.head_dim);
    throw bad_input(fmt::format(
        "invalid gemm K {} (d_model, from {}): must be a multiple of 8 (16-byte rows for "
        "cp.async), or give --gemm-k",
        d.k, from));
  }
  if (d.n % 8 != 0) {
    const std::string from = s.ffn_dim != 0 ? "--ffn-dim" : "4 × d_model";
    throw bad_input(fmt::format(
        "invalid gemm N {} (the FFN width, from {}): must be a multiple of 8 (16-byte rows for "
        "cp.async), or give --gemm-n",
        d.n, from));
  }
  // FP8 rows of X and W are K bytes: 16-byte TMA strides need K to be a multiple of 16.
  if (s.gemm_dtype == GemmDtype::kFp8E4m3 && d.k % 16 != 0) {
    throw bad_input(fmt::format(
        "invalid gemm K {} with --gemm-dtype fp8_e4m3: must be a multiple of 16 (16-byte rows of "
        "the one-byte X and W for TMA; --gemm-k, or --gemm-dtype auto)",
        d.k));
  }
  // cuBLAS (the reference) takes int dimensions; the kernel's 1-D grid takes an int block count.
  if (d.m > INT_MAX || d.n > INT_MAX || d.k > INT_MAX || gemm_block_count(d.m, d.n) > INT_MAX) {
    throw bad_input(fmt::format(
        "gemm shape M = {} (batch × seq_len), N = {} (--gemm-n), K = {} (--gemm-k) too large: M, "
        "N, K and the number of {}×{} tiles must be at most {}",
        d.m, d.n, d.k, GemmTraits::kBlockM, GemmTraits::kBlockN, INT_MAX));
  }
}

}  // namespace

// Analytic model (src/model): FLOPs = 2·M·N·K (one multiply and one add per term);
// minimum DRAM bytes = (M·K + K·N + M·N)·e (read X and W once, write C once), e = 2 bytes; at
// M ≤ 64 the skinny versions add their fp32 partials, 2·splits·M·N·4 (gemm_skinny_partial_bytes:
// the larger of v4's and v6's, the model not knowing which the device runs).
// FP8 inputs: M·K + N·K (one byte each) + M·N·e + 8 (the two fp32 scales).
OperatorSpec gemm_spec() {
  OperatorSpec spec;
  spec.name = kGemmOp;
  spec.summary =
      "GEMM X[B·L, K] × W[K, N], by default the FFN up projection K = d_model, N = ffn_dim "
      "(--gemm-n, --gemm-k: any projection); at B·L <= 64 split-K wgmma + TMA on sm_90 (split-K "
      "mma.sync elsewhere), wgmma + TMA tensor cores above on sm_90 (mma.sync elsewhere, or with "
      "--kernel gemm=v1)";
  spec.pipe = constant_pipe(Pipe::kTensor);
  // FP8 inputs (--gemm-dtype fp8_e4m3) multiply as e4m3 whatever the output dtype.
  spec.mma_inputs = [](const Shape& s) {
    if (s.gemm_dtype != GemmDtype::kFp8E4m3) return mma_inputs_of(s.dtype);
    MmaInputs in;
    in.fp8 = true;
    return in;
  };
  spec.check_shape = check_gemm_shape;
  // Inputs and output, plus the validation scratch (fp32 cuBLAS result, M·N·4 bytes, allocated
  // only while validate() runs), the cuBLAS workspace and, at M ≤ 64 (where the default runs a
  // skinny version: v6 on compute capability 9.0, v4 elsewhere), the larger of their partials
  // and counters.
  spec.device_bytes = [](const Shape& s) {
    const GemmDims d = s.gemm_dims();
    if (s.gemm_dtype == GemmDtype::kFp8E4m3) return gemm_fp8_device_bytes(d, s.dtype);
    const int64_t e = dtype_size_bytes(s.dtype);
    int64_t bytes = (d.m * d.k + d.k * d.n + d.m * d.n) * e + d.m * d.n * 4 + kCublasWorkspaceBytes;
    if (d.m <= kGemmSkinnyMaxRows) {
      const SkinnyScratch v4 = skinny_scratch(d, "v4");
      const SkinnyScratch v6 = skinny_scratch(d, "v6");
      bytes += std::max(v4.partial_floats, v6.partial_floats) * 4 +
               std::max(v4.counters, v6.counters) * 4;
    }
    return bytes;
  };
  spec.versions = gemm_versions();
  spec.default_version = kDefaultGemmVersion;
  spec.create = [](const Shape& s, const std::string& version_key) -> std::unique_ptr<OperatorRun> {
    if (s.gemm_dtype == GemmDtype::kFp8E4m3) return std::make_unique<GemmFp8Run>(s);
    return std::make_unique<GemmRun>(s, version_key);
  };
  return spec;
}

}  // namespace rooflinectl
