// gemm_v2_wgmma_tma: the Hopper (sm_90a) path of the FFN up-projection GEMM
// C[M, N] = X[M, K] · W[K, N], every matrix row-major, bf16 or fp16 in and out, fp32 accumulate.
// The contract is gemm_v1_mma_sync's (kernels/gemm.cu); that file selects this one on compute
// capability 9.0 and keeps v1 elsewhere.
//
// Why it is faster than v1: wgmma.mma_async reads both operands straight from shared memory
// (no ldmatrix, no register fragments of A or B), so a 64×256×16 step costs one instruction per
// warpgroup instead of 64 mma.sync per warp group of four; TMA moves whole tiles with one
// instruction from one thread and signals an mbarrier, so the math warps never issue loads; a
// persistent grid with a grouped raster keeps a band of W tiles L2-resident (v1 read W about
// three times over from DRAM).
//
// Structure (PTX ISA 8.x: "Asynchronous Warpgroup Level Matrix Multiply-Accumulate",
// "cp.async.bulk.tensor", "mbarrier"; CUDA driver API: cuTensorMapEncodeTiled):
//   - block tile 128 (M) × 256 (N) × 64 (K), 4-stage ring of 48 KiB stages in shared memory;
//   - warpgroup 0 is the producer: one thread issues the TMA loads of each stage (1 box of X,
//     4 boxes of W) against the stage's "full" mbarrier (expect_tx = stage bytes);
//   - warpgroups 1 and 2 are consumers: each owns 64 rows of the block tile (128 fp32
//     accumulators per thread), issues four m64n256k16 wgmma per stage and releases the stage
//     through its "empty" mbarrier once those wgmma have completed;
//   - setmaxnreg moves registers from the producer (40) to the consumers (232);
//   - persistent blocks walk the output tiles in a grouped order (kGroupM tile rows at a time);
//     the producer runs ahead into the next tile while the consumers store the current one.
//
// Shared-memory layouts (128-byte swizzle; both produced by TMA and read through descriptors):
//   X stage: [128 rows (m)][64 k] = 128 B per row, K-major for wgmma (transpose-A = 0);
//   W stage: 4 boxes, box j = [64 rows (k)][64 n of columns 64j..64j+63], 8 KiB each;
//            N-major ("MN-major") for wgmma, transpose-B = 1 (legal for 16-bit types).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/error.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/hopper_ptx.hpp"
#include "kernels/common/pack_pair.hpp"
#include "kernels/common/sm90_host.hpp"
#include "kernels/gemm_wgmma.hpp"

namespace rooflinectl {
namespace {

/// Compile-time tiling of gemm_wgmma_tma_kernel; derives the stage sizes and checks limits.
struct WgmmaTraits {
  static constexpr int kBlockM = 128;
  static constexpr int kBlockN = 256;
  static constexpr int kBlockK = 64;  // 64 × 2 B = 128 B: one swizzle row of X per stage
  static constexpr int kStages = 4;
  static constexpr int kConsumers = 2;  // math warpgroups, 64 rows each
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kWgmmaM = 64;
  static constexpr int kWgmmaK = 16;
  static constexpr int kAccumulators = kWgmmaM * kBlockN / 128;  // per consumer thread
  // Tile rows of one raster group: 16 × 128 rows of X (8 MiB at K = 2048) plus the W tiles the
  // ~132 concurrent blocks touch (about 8 tile columns, 8 MiB) stay well inside H200's 50 MB L2.
  static constexpr int kGroupM = 16;

  static constexpr int kElemBytes = 2;
  static constexpr int kSwizzleBytes = 128;
  static constexpr int kBoxN = kSwizzleBytes / kElemBytes;  // 64 columns of W per TMA box
  static constexpr int kBoxesN = kBlockN / kBoxN;           // 4
  static constexpr int kStageBytesA = kBlockM * kBlockK * kElemBytes;  // 16 KiB
  static constexpr int kBoxBytesB = kBlockK * kBoxN * kElemBytes;      // 8 KiB
  static constexpr int kStageBytesB = kBoxesN * kBoxBytesB;            // 32 KiB
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;
  // Swizzle atoms are 8 rows × 128 B = 1024 B and must start 1024-aligned; dynamic shared memory
  // is only guaranteed 16-byte alignment, so 1 KiB of slack is requested and the base rounded up.
  static constexpr int kAtomBytes = 8 * kSwizzleBytes;
  static constexpr int kSmemBytes = kStages * kStageBytes + kAtomBytes;

  static constexpr int kProducerRegisters = 40;
  static constexpr int kConsumerRegisters = 232;

  static_assert(kBlockK * kElemBytes == kSwizzleBytes, "one X row per stage = one swizzle row");
  static_assert(kBlockM == kConsumers * kWgmmaM, "each consumer owns one m64 slab");
  static_assert(kBlockN % kBoxN == 0 && kBlockN <= 256, "wgmma N is at most 256");
  static_assert(kStageBytesA % kAtomBytes == 0 && kBoxBytesB % kAtomBytes == 0,
                "every box starts on a swizzle atom");
  static_assert(kSmemBytes <= 227 * 1024, "sm_90 opt-in shared memory per block");
  static_assert(kProducerRegisters * 128 + kConsumerRegisters * 128 * kConsumers <= 65536,
                "register file of one SM");
  static_assert(kProducerRegisters % 8 == 0 && kConsumerRegisters % 8 == 0,
                "setmaxnreg takes multiples of 8");
};

/// Output tile `tile` in the grouped raster: tiles are numbered kGroupM tile rows at a time,
/// down a column of the group before moving right, so that consecutive blocks share W tiles.
__device__ __forceinline__ void tile_origin(int tile, int tiles_m, int tiles_n, int& m0, int& n0) {
  using Tr = WgmmaTraits;
  const int per_group = Tr::kGroupM * tiles_n;
  const int group = tile / per_group;
  const int first_m = group * Tr::kGroupM;
  const int rows = min(tiles_m - first_m, Tr::kGroupM);
  const int local = tile - group * per_group;
  m0 = (first_m + local % rows) * Tr::kBlockM;
  n0 = (local / rows) * Tr::kBlockN;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

#define RFL_ACC8(d, i)                                                                        \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])

// m64n256k16, A and B from shared memory, A K-major (imm-trans-a 0), B N-major (imm-trans-b 1);
// %128 / %129 are the descriptors, %130 selects D = A·B + D (1) or D = A·B (0).
#define RFL_WGMMA_M64N256K16_SS(TYPE, d, desc_a, desc_b, accumulate)                           \
  asm volatile(                                                                                \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                            \
      "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE                             \
      " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"                \
      " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"       \
      " %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"       \
      " %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"       \
      " %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"       \
      " %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"       \
      " %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109,"       \
      " %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123,"   \
      " %124, %125, %126, %127},"                                                              \
      " %128, %129, p, 1, 1, 0, 1;\n}\n"                                                       \
      : RFL_ACC8(d, 0), RFL_ACC8(d, 8), RFL_ACC8(d, 16), RFL_ACC8(d, 24), RFL_ACC8(d, 32),     \
        RFL_ACC8(d, 40), RFL_ACC8(d, 48), RFL_ACC8(d, 56), RFL_ACC8(d, 64), RFL_ACC8(d, 72),   \
        RFL_ACC8(d, 80), RFL_ACC8(d, 88), RFL_ACC8(d, 96), RFL_ACC8(d, 104), RFL_ACC8(d, 112), \
        RFL_ACC8(d, 120)                                                                       \
      : "l"(desc_a), "l"(desc_b), "r"(accumulate))

template <class T>
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[WgmmaTraits::kAccumulators],
                                                 uint64_t desc_a, uint64_t desc_b, int accumulate) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    RFL_WGMMA_M64N256K16_SS("bf16", d, desc_a, desc_b, accumulate);
  } else {
    RFL_WGMMA_M64N256K16_SS("f16", d, desc_a, desc_b, accumulate);
  }
}

#endif

/// Persistent GEMM: block b computes output tiles b, b + gridDim.x, ... in the grouped raster.
/// x_map / w_map: tensor maps of X [m, k] and W [k, n] (see GemmWgmmaLaunch); c: C [m, n].
template <class T>
__global__ void __launch_bounds__(WgmmaTraits::kThreads, 1)
    gemm_wgmma_tma_kernel(const __grid_constant__ CUtensorMap x_map,
                          const __grid_constant__ CUtensorMap w_map, T* __restrict__ c, int m,
                          int n, int k) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Tr = WgmmaTraits;
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[Tr::kStages];
  __shared__ __align__(8) uint64_t empty_bar[Tr::kStages];
  const uint32_t smem_base = (smem_u32(smem_raw) + Tr::kAtomBytes - 1) & ~(Tr::kAtomBytes - 1);
  const auto stage_a = [&](int s) { return smem_base + s * Tr::kStageBytes; };
  const auto stage_b = [&](int s) { return smem_base + s * Tr::kStageBytes + Tr::kStageBytesA; };

  if (threadIdx.x == 0) {
    for (int s = 0; s < Tr::kStages; ++s) {
      mbarrier_init(smem_u32(&full_bar[s]), 1);  // the producer's arrive; TMA adds the bytes
      mbarrier_init(smem_u32(&empty_bar[s]), Tr::kConsumers * 4);  // one arrive per math warp
    }
    // Makes the initialized barriers visible to the async proxy (TMA complete_tx).
    mbarrier_init_fence();
  }
  __syncthreads();

  const int tiles_m = (m + Tr::kBlockM - 1) / Tr::kBlockM;
  const int tiles_n = (n + Tr::kBlockN - 1) / Tr::kBlockN;
  const int tiles = tiles_m * tiles_n;
  const int k_blocks = (k + Tr::kBlockK - 1) / Tr::kBlockK;
  const int warpgroup = static_cast<int>(threadIdx.x) / 128;

  if (warpgroup == 0) {
    setmaxnreg_dec<Tr::kProducerRegisters>();
    if (threadIdx.x != 0) return;
    int stage = 0;
    uint32_t phase = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      int m0 = 0;
      int n0 = 0;
      tile_origin(tile, tiles_m, tiles_n, m0, n0);
      for (int kb = 0; kb < k_blocks; ++kb) {
        mbarrier_wait(smem_u32(&empty_bar[stage]), phase ^ 1);
        const uint32_t full = smem_u32(&full_bar[stage]);
        // Out-of-bounds parts of a box are zero-filled and still count their full bytes.
        mbarrier_arrive_expect_tx(full, Tr::kStageBytes);
        const int k0 = kb * Tr::kBlockK;
        tma_load_2d(stage_a(stage), &x_map, full, k0, m0);
#pragma unroll
        for (int j = 0; j < Tr::kBoxesN; ++j) {
          tma_load_2d(stage_b(stage) + j * Tr::kBoxBytesB, &w_map, full, n0 + j * Tr::kBoxN, k0);
        }
        if (++stage == Tr::kStages) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
    return;
  }

  setmaxnreg_inc<Tr::kConsumerRegisters>();
  const int consumer = warpgroup - 1;
  const int thread = static_cast<int>(threadIdx.x) % 128;
  const int lane = thread % 32;
  const int warp = thread / 32;
  int stage = 0;
  uint32_t phase = 0;
  // The first wgmma of every tile overwrites the accumulators (scale-d = 0); zeroing them once
  // only keeps the compiler from reading undefined registers.
  float acc[Tr::kAccumulators];
#pragma unroll
  for (int i = 0; i < Tr::kAccumulators; ++i) acc[i] = 0.0f;

  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int m0 = 0;
    int n0 = 0;
    tile_origin(tile, tiles_m, tiles_n, m0, n0);
    int previous_stage = -1;
    for (int kb = 0; kb < k_blocks; ++kb) {
      mbarrier_wait(smem_u32(&full_bar[stage]), phase);
      // X: this consumer's 64 rows (64 × 128 B); within a swizzle row a k16 step is +32 B.
      // Stride byte offset = 1024 (next 8-row group); the leading offset is unused for
      // swizzled K-major layouts.
      const uint32_t a_base = stage_a(stage) + consumer * Tr::kWgmmaM * Tr::kSwizzleBytes;
      // W: leading byte offset = one box (next 64 columns of N), stride byte offset = 1024
      // (next 8 rows of K); a k16 step is 16 rows = 2048 B.
      const uint32_t b_base = stage_b(stage);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < Tr::kBlockK / Tr::kWgmmaK; ++kk) {
        const uint64_t desc_a =
            sw128_descriptor(a_base + kk * Tr::kWgmmaK * Tr::kElemBytes, 16, Tr::kAtomBytes);
        const uint64_t desc_b = sw128_descriptor(b_base + kk * Tr::kWgmmaK * Tr::kSwizzleBytes,
                                                 Tr::kBoxBytesB, Tr::kAtomBytes);
        wgmma_m64n256k16<T>(acc, desc_a, desc_b, (kb > 0 || kk > 0) ? 1 : 0);
      }
      wgmma_commit();
      // Keeps one group in flight: once the previous stage's wgmma are done, hand it back.
      wgmma_wait<1>();
      if (previous_stage >= 0 && lane == 0) mbarrier_arrive(smem_u32(&empty_bar[previous_stage]));
      previous_stage = stage;
      if (++stage == Tr::kStages) {
        stage = 0;
        phase ^= 1;
      }
    }
    wgmma_wait<0>();
    if (lane == 0) mbarrier_arrive(smem_u32(&empty_bar[previous_stage]));

    // Epilogue, straight from the accumulators (PTX ISA, wgmma "Matrix D" fragment layout):
    // d[4j .. 4j+1] are row lane/4, columns 8j + 2·(lane%4) + {0, 1} of the warp's 16 rows,
    // d[4j+2 .. 4j+3] the same columns 8 rows further down. n is a multiple of 8, so a pair is
    // wholly inside C or wholly outside.
    const int row = m0 + consumer * Tr::kWgmmaM + warp * 16 + lane / 4;
    const int col0 = n0 + 2 * (lane % 4);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = row + half * 8;
      if (r >= m) continue;
      T* c_row = c + static_cast<int64_t>(r) * n;
#pragma unroll
      for (int j = 0; j < Tr::kBlockN / 8; ++j) {
        const int col = col0 + 8 * j;
        if (col < n) {
          *reinterpret_cast<uint32_t*>(c_row + col) =
              pack_pair<T>(acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
        }
      }
    }
  }
#else
  // Never launched: the host checks compute capability 9.0, the only target this file builds.
  __trap();
#endif
}

// ---------------------------------------------------------------------------------------------
// Host side

/// Tensor map of a row-major [rows, cols] 16-bit matrix read in boxes of box_cols × box_rows
/// with the 128-byte swizzle; loads outside the matrix are zero-filled.
CUtensorMap encode_matrix(const void* base, int64_t rows, int64_t cols, int box_cols, int box_rows,
                          bool bf16, const char* what) {
  const uint64_t dims[2] = {static_cast<uint64_t>(cols), static_cast<uint64_t>(rows)};
  const uint64_t strides[1] = {static_cast<uint64_t>(cols) * WgmmaTraits::kElemBytes};
  const uint32_t box[2] = {static_cast<uint32_t>(box_cols), static_cast<uint32_t>(box_rows)};
  return encode_tensor_map_sw128(base, 2, dims, strides, box, bf16, "gemm_wgmma_tma", what);
}

}  // namespace

GemmWgmmaLaunch prepare_gemm_wgmma(const void* x, const void* w, void* c, int64_t m, int64_t n,
                                   int64_t k, bool bf16) {
  using Tr = WgmmaTraits;
  constexpr int64_t kIntMax = 0x7FFFFFFF;
  if (m < 1 || n < 1 || k < 1 || m > kIntMax || n > kIntMax || k > kIntMax || n % 8 != 0 ||
      k % 8 != 0) {
    throw bad_input(fmt::format(
        "gemm_wgmma_tma: M = {}, N = {}, K = {} unsupported (need 1 <= M, N, K < 2^31 and N, K "
        "multiples of 8)",
        m, n, k));
  }
  const int64_t tiles =
      ((m + Tr::kBlockM - 1) / Tr::kBlockM) * ((n + Tr::kBlockN - 1) / Tr::kBlockN);
  if (tiles > kIntMax) {
    throw bad_input(fmt::format("gemm_wgmma_tma: {} output tiles exceed 2^31 - 1", tiles));
  }
  int device = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  int sm_count = 0;
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  int optin_bytes = 0;
  RFL_CUDA_CHECK(
      cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (optin_bytes < Tr::kSmemBytes) {
    throw environment_error(
        fmt::format("gemm_wgmma_tma needs {} bytes of shared memory per block, device {} allows {}",
                    Tr::kSmemBytes, device, optin_bytes));
  }
  const auto raise_limit = [](const void* kernel) {
    RFL_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes));
  };
  if (bf16) {
    raise_limit(reinterpret_cast<const void*>(gemm_wgmma_tma_kernel<__nv_bfloat16>));
  } else {
    raise_limit(reinterpret_cast<const void*>(gemm_wgmma_tma_kernel<__half>));
  }

  GemmWgmmaLaunch launch;
  launch.x_map = encode_matrix(x, m, k, Tr::kBlockK, Tr::kBlockM, bf16, "X");
  launch.w_map = encode_matrix(w, k, n, Tr::kBoxN, Tr::kBlockK, bf16, "W");
  launch.c = c;
  launch.m = static_cast<int>(m);
  launch.n = static_cast<int>(n);
  launch.k = static_cast<int>(k);
  launch.grid_blocks = static_cast<int>(std::min<int64_t>(tiles, sm_count));
  launch.bf16 = bf16;
  return launch;
}

void launch_gemm_wgmma(const GemmWgmmaLaunch& l, cudaStream_t stream) {
  using Tr = WgmmaTraits;
  const dim3 grid(static_cast<unsigned int>(l.grid_blocks));
  if (l.bf16) {
    gemm_wgmma_tma_kernel<__nv_bfloat16><<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(
        l.x_map, l.w_map, static_cast<__nv_bfloat16*>(l.c), l.m, l.n, l.k);
  } else {
    gemm_wgmma_tma_kernel<__half><<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(
        l.x_map, l.w_map, static_cast<__half*>(l.c), l.m, l.n, l.k);
  }
  RFL_CHECK_LAUNCH();
}

}  // namespace rooflinectl
