// gemm_v3_wgmma_multicast and gemm_v2_wgmma_tma: the Hopper (sm_90a) path of the FFN
// up-projection GEMM C[M, N] = X[M, K] · W[K, N], every matrix row-major, bf16 or fp16 in and
// out, fp32 accumulate. The contract is gemm_v1_mma_sync's (kernels/gemm.cu); that file selects
// this one on compute capability 9.0 and keeps v1 elsewhere.
// gemm_fp8_v1_wgmma: the same kernel over FP8 E4M3 inputs (--gemm-dtype fp8_e4m3): X [M, K] and
// W stored [N, K] (K-major: wgmma reads 8-bit operands K-major only), one fp32 scale each,
// C = scale_x·scale_w·(X·W) in bf16 or fp16, K tiles of 128 bytes as the 16-bit kernel's, each
// tile's half-width partial sums (m64n128k32 wgmma) promoted into fp32 registers every 128
// elements of K, the scales applied in the epilogue.
// One kernel, gemm_wgmma_tma_kernel: a persistent grid walks the 128×256 output tiles in a
// grouped raster; a producer warpgroup issues the TMA loads of a 4-stage ring, two consumer
// warpgroups run wgmma.mma_async m64n256k16 from 128-byte-swizzled shared memory and store C
// through stmatrix and TMA stores. v3 (kClusterM = 2) launches it in clusters of 2 blocks on
// vertically adjacent tiles that multicast W; v2 (kClusterM = 1) is the fallback where no such
// cluster can be resident, and stays selectable (`--kernel gemm=v2`) for comparisons. The design
// is written at the kernel, the shared-memory layouts at WgmmaTraits, the measurements in
// docs/perf-notes.md.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/error.hpp"
#include "core/kernel_dispatch.hpp"
#include "core/kernel_tiles.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/common/hopper_ptx.hpp"
#include "kernels/common/pack_pair.hpp"
#include "kernels/common/sm90_host.hpp"
#include "kernels/gemm_wgmma.hpp"

namespace rooflinectl {
namespace {

/// Compile-time tiling of gemm_wgmma_tma_kernel over input elements `In` (__nv_bfloat16 or
/// __half: the 16-bit kernels; __nv_fp8_e4m3: gemm_fp8_v1_wgmma); derives the stage sizes and
/// checks limits. Every stage holds 128 bytes of K per row, so both variants have the same stage
/// bytes, shared memory and wgmma count per stage.
///
/// Shared-memory layouts (128-byte swizzle; X and W written by TMA and read through wgmma
/// descriptors, C written by stmatrix and read by the TMA store):
///   X stage: [128 rows (m)][kBlockK k] = 128 B per row, K-major for wgmma (transpose-A = 0);
///   W stage, 16-bit: 4 boxes, box j = [64 rows (k)][64 n of columns 64j..64j+63], 8 KiB each;
///            N-major ("MN-major") for wgmma, transpose-B = 1 (legal for 16-bit types);
///   W stage, FP8: 4 boxes, box j = [64 rows (n 64j..64j+63)][128 k] of W [N, K], 8 KiB each,
///            together [256 rows (n)][128 B] K-major (wgmma: 8-bit operands have no transpose);
///   C chunk: [16 rows (m)][64 n] = 2 KiB, two per math warp.
template <class In, int kTileCols = kGemmWgmmaTile.cols>
struct WgmmaTraits {
  static constexpr bool kFp8 = std::is_same_v<In, __nv_fp8_e4m3>;
  static_assert(kFp8 || std::is_same_v<In, __nv_bfloat16> || std::is_same_v<In, __half>,
                "16-bit inputs, or E4M3");
  static constexpr int kBlockM = kGemmWgmmaTile.rows;  // the model's tile (core/kernel_tiles.hpp)
  // 256 (v2, v3, FP8), 192 (gemm_v8_wgmma_n192) or 128 (gemm_v7_wgmma_n128).
  static constexpr int kBlockN = kTileCols;
  static constexpr int kElemBytes = static_cast<int>(sizeof(In));
  static constexpr int kSwizzleBytes = 128;
  // 128 B of K per row and stage: 64 16-bit or 128 E4M3 elements, one swizzle row of X.
  static constexpr int kBlockK = kSwizzleBytes / kElemBytes;
  // As many stages as fit a 192 KiB ring: 4 of 48 KiB at 256 columns, 4 of 40 KiB at 192, 6 of
  // 32 KiB at 128 (each stage: 16 KiB of X and 8 KiB per 64 columns of W).
  static constexpr int kStages = 192 * 1024 / ((128 + kBlockN) * kSwizzleBytes);
  static constexpr int kConsumers = 2;  // math warpgroups, 64 rows each
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kWgmmaM = 64;
  // One wgmma reads 32 bytes of K per row: m64n256k16 (16-bit) or m64n128k32 (E4M3, two per
  // k step: one per half of the tile's columns).
  static constexpr int kWgmmaK = 32 / kElemBytes;
  static constexpr int kAccumulators = kWgmmaM * kBlockN / 128;  // per consumer thread
  // Tile rows of one raster group: 16 × 128 rows of X (8 MiB at K = 2048) plus the W tiles the
  // ~132 concurrent blocks touch (about 8 tile columns, 8 MiB) stay well inside H200's 50 MB L2.
  static constexpr int kGroupM = 16;

  static constexpr int kBoxN = 64;                 // n (columns of W, or rows of FP8's [N, K])
  static constexpr int kBoxesN = kBlockN / kBoxN;  // 4 W boxes per stage
  static constexpr int kStageBytesA = kBlockM * kBlockK * kElemBytes;  // 16 KiB
  static constexpr int kBoxBytesB = kBlockK * kBoxN * kElemBytes;      // 8 KiB
  static constexpr int kStageBytesB = kBoxesN * kBoxBytesB;            // 32 KiB
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;
  // Swizzle atoms are 8 rows × 128 B = 1024 B and must start 1024-aligned; dynamic shared memory
  // is only guaranteed 16-byte alignment, so 1 KiB of slack is requested and the base rounded up.
  static constexpr int kAtomBytes = 8 * kSwizzleBytes;
  // Epilogue: each math warp stages 16 rows × 64 columns of C at a time in one of its two 2 KiB
  // buffers after the stages (128-byte swizzle, the layout the TMA store reads).
  static constexpr int kEpilogueRows = 16;  // one warp's rows of the m64 accumulator slab
  static constexpr int kEpilogueCols = kSwizzleBytes / 2;  // 64 columns of the 16-bit C
  static constexpr int kEpilogueChunkBytes = kEpilogueRows * kSwizzleBytes;
  static constexpr int kEpilogueChunks = kBlockN / kEpilogueCols;  // chunks per tile row
  static constexpr int kEpilogueBytes = kConsumers * 4 * 2 * kEpilogueChunkBytes;  // 32 KiB
  static constexpr int kSmemBytes = kStages * kStageBytes + kEpilogueBytes + kAtomBytes;

  static constexpr int kProducerRegisters = 40;
  static constexpr int kConsumerRegisters = 232;

  static_assert(kBlockK * kElemBytes == kSwizzleBytes, "one X row per stage = one swizzle row");
  static_assert(kBlockM == kConsumers * kWgmmaM, "each consumer owns one m64 slab");
  static_assert(kBlockN == 256 || kBlockN == 192 || kBlockN == 128,
                "m64n256, m64n192 or m64n128 wgmma per consumer");
  static_assert(!kFp8 || kBlockN == 256, "FP8's promotion splits a 256-column tile in halves");
  static_assert(kFp8 || kBoxN * kElemBytes == kSwizzleBytes,
                "a 16-bit W box row = one swizzle row");
  static_assert(kBlockK % kWgmmaK == 0 && kBlockK / kWgmmaK == 4, "4 wgmma per stage");
  static_assert(kStageBytesA % kAtomBytes == 0 && kBoxBytesB % kAtomBytes == 0,
                "every box starts on a swizzle atom");
  static_assert(kSmemBytes + 2 * kStages * 8 <= 227 * 1024,
                "sm_90 opt-in shared memory per block (and the static mbarriers, 2 per stage)");
  static_assert(kProducerRegisters * 128 + kConsumerRegisters * 128 * kConsumers <= 65536,
                "register file of one SM");
  static_assert(kProducerRegisters % 8 == 0 && kConsumerRegisters % 8 == 0,
                "setmaxnreg takes multiples of 8");
};

/// Origin (m0, n0) of block `rank`'s tile in work unit `unit` of the grouped raster. A unit is
/// kClusterM vertically adjacent output tiles, one per block of a cluster (one tile when
/// kClusterM = 1); units_m = ceil(tile rows / kClusterM). Units are numbered kGroupM tile rows
/// at a time, down a column of the group before moving right, so that consecutive units share W
/// tiles. m0 may lie past M (the second tile of a unit when the tile rows are odd).
template <class Tr, int kClusterM>
__device__ __forceinline__ void unit_origin(int unit, int units_m, int tiles_n, int rank, int& m0,
                                            int& n0) {
  constexpr int kGroupUnits = Tr::kGroupM / kClusterM;
  const int per_group = kGroupUnits * tiles_n;
  const int group = unit / per_group;
  const int first_unit_row = group * kGroupUnits;
  const int rows = min(units_m - first_unit_row, kGroupUnits);
  const int local = unit - group * per_group;
  m0 = ((first_unit_row + local % rows) * kClusterM + rank) * Tr::kBlockM;
  n0 = (local / rows) * Tr::kBlockN;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

#define RFL_ACC8(d, i)                                                                        \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define RFL_ACC32(d, i) RFL_ACC8(d, i), RFL_ACC8(d, i + 8), RFL_ACC8(d, i + 16), RFL_ACC8(d, i + 24)
#define RFL_ACC64(d, i) RFL_ACC32(d, i), RFL_ACC32(d, i + 32)

// The accumulator operands of a wgmma in PTX inline-asm form: %0 to %63, %64 to %95 and %96 to
// %127, strung together for N = 128 (64 fp32 registers per thread), 192 (96) and 256 (128).
#define RFL_REGS_0_63                                                                \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"            \
  " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  " %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  " %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define RFL_REGS_64_95                                                               \
  " %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79," \
  " %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define RFL_REGS_96_127                                                                          \
  " %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111," \
  " %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, "  \
  "%127"

// One wgmma.mma_async with A and B from shared memory. SHAPE_TYPES: "m64n256k16.f32.bf16.bf16",
// "m64n192k16.f32.f16.f16", "m64n128k32.f32.e4m3.e4m3" and the like; REGS: the accumulator
// operand list above; DESC_A, DESC_B, SCALE_D: the operand numbers after it ("%128", "%129",
// "%130" at N = 256); TAIL: the immediates after scale-d, "1, 1, 0, 1" for 16-bit inputs
// (imm-scale-a 1, imm-scale-b 1, A K-major: imm-trans-a 0, B N-major: imm-trans-b 1) and "1, 1"
// for E4M3 (both K-major, no transpose operands); the variadic rest: the matching "+f"
// constraints. `accumulate` selects D = A·B + D (1) or D = A·B (0).
#define RFL_WGMMA_SS(SHAPE_TYPES, REGS, DESC_A, DESC_B, SCALE_D, TAIL, desc_a, desc_b, accumulate, \
                     ...)                                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE_D                                         \
               ", 0;\n"                                                                            \
               "wgmma.mma_async.sync.aligned." SHAPE_TYPES " {" REGS "}, " DESC_A ", " DESC_B      \
               ", p, " TAIL ";\n}\n"                                                               \
               : __VA_ARGS__                                                                       \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))

// m64n256, m64n192 (16-bit inputs) and m64n128 (TAIL as above) over `d`'s 128, 96 or 64 floats.
#define RFL_WGMMA_M64N256_SS(SHAPE_TYPES, d, desc_a, desc_b, accumulate)                          \
  RFL_WGMMA_SS(SHAPE_TYPES, RFL_REGS_0_63 "," RFL_REGS_64_95 "," RFL_REGS_96_127, "%128", "%129", \
               "%130", "1, 1, 0, 1", desc_a, desc_b, accumulate, RFL_ACC64(d, 0),                 \
               RFL_ACC64(d, 64))
#define RFL_WGMMA_M64N192_SS(SHAPE_TYPES, d, desc_a, desc_b, accumulate)                         \
  RFL_WGMMA_SS(SHAPE_TYPES, RFL_REGS_0_63 "," RFL_REGS_64_95, "%96", "%97", "%98", "1, 1, 0, 1", \
               desc_a, desc_b, accumulate, RFL_ACC64(d, 0), RFL_ACC32(d, 64))
#define RFL_WGMMA_M64N128_SS(SHAPE_TYPES, TAIL, d, desc_a, desc_b, accumulate)                    \
  RFL_WGMMA_SS(SHAPE_TYPES, RFL_REGS_0_63, "%64", "%65", "%66", TAIL, desc_a, desc_b, accumulate, \
               RFL_ACC64(d, 0))

/// One k16 wgmma step of the 16-bit kernels (`In` bf16 or fp16) over the whole block tile's
/// kTileCols columns (m64n256k16, m64n192k16 or m64n128k16), fp32 D.
template <class In, int kTileCols>
__device__ __forceinline__ void wgmma_16bit(float (&d)[WgmmaTraits<In, kTileCols>::kAccumulators],
                                            uint64_t desc_a, uint64_t desc_b, int accumulate) {
  constexpr bool kBf16 = std::is_same_v<In, __nv_bfloat16>;
  static_assert(kBf16 || std::is_same_v<In, __half>, "FP8 runs wgmma_m64n128_e4m3");
  if constexpr (kTileCols == 256 && kBf16) {
    RFL_WGMMA_M64N256_SS("m64n256k16.f32.bf16.bf16", d, desc_a, desc_b, accumulate);
  } else if constexpr (kTileCols == 256) {
    RFL_WGMMA_M64N256_SS("m64n256k16.f32.f16.f16", d, desc_a, desc_b, accumulate);
  } else if constexpr (kTileCols == 192 && kBf16) {
    RFL_WGMMA_M64N192_SS("m64n192k16.f32.bf16.bf16", d, desc_a, desc_b, accumulate);
  } else if constexpr (kTileCols == 192) {
    RFL_WGMMA_M64N192_SS("m64n192k16.f32.f16.f16", d, desc_a, desc_b, accumulate);
  } else if constexpr (kBf16) {
    RFL_WGMMA_M64N128_SS("m64n128k16.f32.bf16.bf16", "1, 1, 0, 1", d, desc_a, desc_b, accumulate);
  } else {
    RFL_WGMMA_M64N128_SS("m64n128k16.f32.f16.f16", "1, 1, 0, 1", d, desc_a, desc_b, accumulate);
  }
}

/// One m64n128k32 E4M3 wgmma step into `d` (64 fp32 per thread: columns 8j..8j+7 of the 128 are
/// d[4j..4j+3], the m64n256 fragment's layout restricted to 16 column groups).
__device__ __forceinline__ void wgmma_m64n128_e4m3(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                   int accumulate) {
  RFL_WGMMA_M64N128_SS("m64n128k32.f32.e4m3.e4m3", "1, 1", d, desc_a, desc_b, accumulate);
}

#endif

/// Persistent GEMM: cluster c (block c when kClusterM = 1) computes work units c, c + clusters,
/// ... in the grouped raster, block `rank` of the cluster tile `rank` of each unit.
/// x_map / w_map / c_map: tensor maps of X [m, k], W [k, n] (FP8: [n, k]) and C [m, n] (see
/// GemmWgmmaLaunch); C is written only through TMA stores. T: C's element type; In: X's and W's
/// (T, or __nv_fp8_e4m3 for gemm_fp8_v1_wgmma, whose `scales` [2] hold scale_x and scale_w, read
/// once per consumer thread and applied to each accumulator before conversion; unused, and not
/// read, by the 16-bit kernels). kClusterM: 1 (gemm_v2_wgmma_tma,
/// plain launch) or 2 (gemm_v3_wgmma_multicast, launched with cluster dimensions (2, 1, 1) and
/// an even grid).
///
/// Why it is faster than v1: wgmma.mma_async reads both operands straight from shared memory
/// (no ldmatrix, no register fragments of A or B), so a 64×256×16 step costs one instruction per
/// warpgroup instead of 64 mma.sync per warp group of four; TMA moves whole tiles with one
/// instruction from one thread and signals an mbarrier, so the math warps never issue loads; a
/// persistent grid with a grouped raster keeps a band of W tiles L2-resident (v1 read W about
/// three times over from DRAM).
///
/// Structure (PTX ISA 8.x: "Asynchronous Warpgroup Level Matrix Multiply-Accumulate",
/// "cp.async.bulk.tensor", "mbarrier"; CUDA driver API: cuTensorMapEncodeTiled):
///   - block tile 128 (M) × 256 (N) × 64 (K), 4-stage ring of 48 KiB stages in shared memory,
///     then 32 KiB of epilogue buffers (225 KiB dynamic in all, one block per SM);
///   - warpgroup 0 is the producer: one thread issues the TMA loads of each stage (1 box of X,
///     4 boxes of W) against the stage's "full" mbarrier (expect_tx = stage bytes);
///   - warpgroups 1 and 2 are consumers: each owns 64 rows of the block tile (128 fp32
///     accumulators per thread), issues four m64n256k16 wgmma per stage and releases the stage
///     through its "empty" mbarrier once those wgmma have completed;
///   - setmaxnreg moves registers from the producer (40) to the consumers (232);
///   - persistent blocks walk the output tiles in a grouped order (kGroupM tile rows at a time);
///     the producer runs ahead into the next tile while the consumers store the current one;
///   - epilogue: each math warp converts its 16 × 256 accumulator slab to T, writes it 64 columns
///     at a time with stmatrix into two 2 KiB shared buffers and sends each chunk with one TMA
///     store, so the global writes drain while the next tile's wgmma run (on the H200 this took
///     the tensor pipe from 70% to 86% active at M = 4096; docs/perf-notes.md).
///
/// v3 (kClusterM = 2) launches the same kernel in clusters of 2 blocks that own vertically
/// adjacent tiles, i.e. the same 256 columns of W: each block TMA-loads its own X box and 2 of the
/// 4 W boxes of a stage, the latter multicast into both blocks (PTX ISA, "cp.async.bulk.tensor"
/// .multicast::cluster; CUDA Programming Guide, "Thread Block Clusters"), so L2 → SM traffic per
/// block and stage falls from 48 to 32 KiB (on the H200 at M = 4096: L2 bytes −11%, time
/// unchanged with the old direct-store epilogue; with this one 0.3–2.4% faster than v2). A stage is
/// free only when the math warps of both blocks have released it: each warp arrives on the
/// "empty" barrier of both blocks (mapa + remote mbarrier.arrive), and each producer waits on its
/// own. No cluster-wide barrier runs per stage or per tile: one after barrier init (remote
/// arrives need initialized peers), and at the end each producer drains its empty barriers, so no
/// block exits while the peer can still arrive on or multicast into it.
/// v2 (kClusterM = 1: no cluster, no multicast, the same epilogue) is the fallback when no 2-block
/// cluster can be resident, and stays selectable (`--kernel gemm=v2`) for comparisons.
template <class T, class In, int kClusterM, int kTileCols>
__global__ void __launch_bounds__(WgmmaTraits<In, kTileCols>::kThreads, 1)
    gemm_wgmma_tma_kernel(const __grid_constant__ CUtensorMap x_map,
                          const __grid_constant__ CUtensorMap w_map,
                          const __grid_constant__ CUtensorMap c_map, int m, int n, int k,
                          const float* __restrict__ scales) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Tr = WgmmaTraits<In, kTileCols>;
  static_assert(kClusterM == 1 || kClusterM == 2, "one block, or a pair sharing W");
  // W boxes go to the cluster's blocks round-robin (box j from block j % kClusterM): 2 and 2 of
  // 4, 2 and 1 of 3 (192 columns), 1 and 1 of 2; each block's full barrier expects every box.
  static_assert(Tr::kGroupM % kClusterM == 0, "units split evenly over the cluster");
  constexpr bool kCluster = kClusterM > 1;
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[Tr::kStages];
  __shared__ __align__(8) uint64_t empty_bar[Tr::kStages];
  // The dynamic shared window starts at the same offset in every block of the cluster, so the
  // rounded-up base (and every stage) has the same offset in both: multicast relies on it.
  const uint32_t smem_base = (smem_u32(smem_raw) + Tr::kAtomBytes - 1) & ~(Tr::kAtomBytes - 1);
  const auto stage_a = [&](int s) { return smem_base + s * Tr::kStageBytes; };
  const auto stage_b = [&](int s) { return smem_base + s * Tr::kStageBytes + Tr::kStageBytesA; };

  if (threadIdx.x == 0) {
    for (int s = 0; s < Tr::kStages; ++s) {
      mbarrier_init(smem_u32(&full_bar[s]), 1);  // the producer's arrive; TMA adds the bytes
      // One arrive per math warp of every block whose W boxes land in this block's stages.
      mbarrier_init(smem_u32(&empty_bar[s]), kClusterM * Tr::kConsumers * 4);
    }
    // Makes the initialized barriers visible to the async proxy (TMA complete_tx) and, through
    // the cluster barrier below, to the other block of the cluster.
    mbarrier_init_fence();
  }
  if constexpr (kCluster) {
    cluster_sync();
  } else {
    __syncthreads();
  }

  const int tiles_m = (m + Tr::kBlockM - 1) / Tr::kBlockM;
  const int tiles_n = (n + Tr::kBlockN - 1) / Tr::kBlockN;
  const int units_m = (tiles_m + kClusterM - 1) / kClusterM;
  const int units = units_m * tiles_n;
  const int k_blocks = (k + Tr::kBlockK - 1) / Tr::kBlockK;
  const int warpgroup = static_cast<int>(threadIdx.x) / 128;
  const int rank = kCluster ? static_cast<int>(cluster_rank()) : 0;
  const int first_unit = static_cast<int>(blockIdx.x) / kClusterM;
  const int unit_step = static_cast<int>(gridDim.x) / kClusterM;

  if (warpgroup == 0) {
    setmaxnreg_dec<Tr::kProducerRegisters>();
    if (threadIdx.x != 0) return;
    int stage = 0;
    uint32_t phase = 0;
    for (int unit = first_unit; unit < units; unit += unit_step) {
      int m0 = 0;
      int n0 = 0;
      unit_origin<Tr, kClusterM>(unit, units_m, tiles_n, rank, m0, n0);
      // A unit's spare tile (wholly past M) loads the last real tile's rows of X rather than a
      // box wholly outside the tensor; its epilogue stores nothing. Both blocks of a cluster run
      // the same number of k blocks, so every multicast has a consumer on each side.
      const int x_row = min(m0, (tiles_m - 1) * Tr::kBlockM);
      for (int kb = 0; kb < k_blocks; ++kb) {
        mbarrier_wait(smem_u32(&empty_bar[stage]), phase ^ 1);
        const uint32_t full = smem_u32(&full_bar[stage]);
        // Out-of-bounds parts of a box are zero-filled and still count their full bytes; with
        // multicast, half of the W bytes arrive from the other block's loads.
        mbarrier_arrive_expect_tx(full, Tr::kStageBytes);
        const int k0 = kb * Tr::kBlockK;
        tma_load_2d(stage_a(stage), &x_map, full, k0, x_row);
#pragma unroll
        for (int j = 0; j < Tr::kBoxesN; ++j) {
          const uint32_t dst = stage_b(stage) + j * Tr::kBoxBytesB;
          // Box coordinates, innermost first: (n, k) of the 16-bit W [K, N], (k, n) of FP8's
          // [N, K].
          const int c0 = Tr::kFp8 ? k0 : n0 + j * Tr::kBoxN;
          const int c1 = Tr::kFp8 ? n0 + j * Tr::kBoxN : k0;
          if constexpr (kCluster) {
            if (j % kClusterM == rank) {
              tma_load_2d_multicast(dst, &w_map, full, c0, c1,
                                    static_cast<uint16_t>((1u << kClusterM) - 1));
            }
          } else {
            tma_load_2d(dst, &w_map, full, c0, c1);
          }
        }
        if (++stage == Tr::kStages) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
    if constexpr (kCluster) {
      // Drain: wait until both blocks' math warps have released every stage this producer
      // filled, i.e. the peer's last remote arrive has landed here and the peer has consumed
      // everything multicast into it, before this block may exit.
      for (int s = 0; s < Tr::kStages; ++s) {
        mbarrier_wait(smem_u32(&empty_bar[stage]), phase ^ 1);
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
  // Hands stage s back to every producer that writes into it (this block's, and with multicast
  // the other block's too); one arrive per warp.
  const auto release = [&](int s) {
    if (lane != 0) return;
    if constexpr (kCluster) {
#pragma unroll
      for (int r = 0; r < kClusterM; ++r) {
        mbarrier_arrive_cluster(smem_u32(&empty_bar[s]), static_cast<uint32_t>(r));
      }
    } else {
      mbarrier_arrive(smem_u32(&empty_bar[s]));
    }
  };
  int stage = 0;
  uint32_t phase = 0;
  // The first wgmma of every tile overwrites the accumulators (scale-d = 0); zeroing them once
  // only keeps the compiler from reading undefined registers.
  float acc[Tr::kAccumulators];
#pragma unroll
  for (int i = 0; i < Tr::kAccumulators; ++i) acc[i] = 0.0f;
  // FP8 only: one k-block's partial sums of half the tile's columns (see the promotion below).
  float partial[Tr::kFp8 ? 64 : 1];
#pragma unroll
  for (int i = 0; i < (Tr::kFp8 ? 64 : 1); ++i) partial[i] = 0.0f;
  // This warp's two epilogue buffers (after the stages, 1 KiB aligned) and the count of TMA
  // stores it issued (all from lane 0, so lane 0's bulk async-groups track them).
  const auto epilogue_buffer = [&](int b) {
    return smem_base + Tr::kStages * Tr::kStageBytes +
           ((consumer * 4 + warp) * 2 + b) * Tr::kEpilogueChunkBytes;
  };
  uint32_t stores = 0;
  // The dequantization factor of every FP8 accumulator (one fp32 multiply each in the epilogue).
  float scale = 1.0f;
  if constexpr (Tr::kFp8) scale = __ldg(scales) * __ldg(scales + 1);

  for (int unit = first_unit; unit < units; unit += unit_step) {
    int m0 = 0;
    int n0 = 0;
    unit_origin<Tr, kClusterM>(unit, units_m, tiles_n, rank, m0, n0);
    if constexpr (Tr::kFp8) {
#pragma unroll
      for (int i = 0; i < Tr::kAccumulators; ++i) acc[i] = 0.0f;
    }
    int previous_stage = -1;
    for (int kb = 0; kb < k_blocks; ++kb) {
      mbarrier_wait(smem_u32(&full_bar[stage]), phase);
      // X: this consumer's 64 rows (64 × 128 B); within a swizzle row a k16 step is +32 B.
      // Stride byte offset = 1024 (next 8-row group); the leading offset is unused for
      // swizzled K-major layouts.
      const uint32_t a_base = stage_a(stage) + consumer * Tr::kWgmmaM * Tr::kSwizzleBytes;
      // W, 16-bit: leading byte offset = one box (next 64 columns of N), stride byte offset =
      // 1024 (next 8 rows of K); a k16 step is 16 rows = 2048 B. W, FP8: K-major as X (256 rows
      // of n, 128 B each, the 4 boxes back to back), a k32 step is +32 B within the swizzle row.
      const uint32_t b_base = stage_b(stage);
      if constexpr (Tr::kFp8) {
        // Promotion (DeepSeek-V3, arXiv 2412.19437, section 3.3.2: Hopper's FP8 wgmma keeps about
        // 14 bits of its running sum, so partial sums are moved to fp32 registers every 128
        // elements of K): each half of the tile's 256 columns takes this stage's 128 k (four
        // m64n128k32) into `partial` from zero, then adds it into `acc` with fp32 FADDs. The W
        // rows of half h are boxes 2h and 2h + 1 of the stage.
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          wgmma_fence();
#pragma unroll
          for (int kk = 0; kk < Tr::kBlockK / Tr::kWgmmaK; ++kk) {
            const uint32_t k_bytes = kk * Tr::kWgmmaK * Tr::kElemBytes;
            wgmma_m64n128_e4m3(
                partial,
                swizzled_descriptor<Tr::kSwizzleBytes>(a_base + k_bytes, 16, Tr::kAtomBytes),
                swizzled_descriptor<Tr::kSwizzleBytes>(b_base + 2 * h * Tr::kBoxBytesB + k_bytes,
                                                       16, Tr::kAtomBytes),
                kk > 0 ? 1 : 0);
          }
          wgmma_commit();
          wgmma_wait<0>();
#pragma unroll
          for (int i = 0; i < 64; ++i) acc[64 * h + i] += partial[i];
        }
        release(stage);
      } else {
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < Tr::kBlockK / Tr::kWgmmaK; ++kk) {
          const uint64_t desc_a = swizzled_descriptor<Tr::kSwizzleBytes>(
              a_base + kk * Tr::kWgmmaK * Tr::kElemBytes, 16, Tr::kAtomBytes);
          const uint64_t desc_b = swizzled_descriptor<Tr::kSwizzleBytes>(
              b_base + kk * Tr::kWgmmaK * Tr::kSwizzleBytes, Tr::kBoxBytesB, Tr::kAtomBytes);
          wgmma_16bit<In, kTileCols>(acc, desc_a, desc_b, (kb > 0 || kk > 0) ? 1 : 0);
        }
        wgmma_commit();
        // Keeps one group in flight: once the previous stage's wgmma are done, hand it back.
        wgmma_wait<1>();
        if (previous_stage >= 0) release(previous_stage);
        previous_stage = stage;
      }
      if (++stage == Tr::kStages) {
        stage = 0;
        phase ^= 1;
      }
    }
    if constexpr (!Tr::kFp8) {
      wgmma_wait<0>();
      release(previous_stage);
    }

    // FP8: C = scale_x·scale_w·(X·W), one multiply per accumulator before the conversion.
    if constexpr (Tr::kFp8) {
#pragma unroll
      for (int i = 0; i < Tr::kAccumulators; ++i) acc[i] *= scale;
    }
    // Epilogue through shared memory. The accumulator fragment of a warp's 16 rows is, per 8
    // columns j, two 8×8 matrices in stmatrix's register layout (rows 0-7: d[4j], d[4j+1];
    // rows 8-15: d[4j+2], d[4j+3]); one stmatrix.x4 stores 16 rows × 16 columns. A chunk of 64
    // columns (16 rows × 128 B, 128-byte swizzle: 16-byte unit u of row r at u ^ (r % 8)) goes
    // out as one TMA store, which clips rows past M and columns past N. Two buffers per warp:
    // a buffer is rewritten only after the store issued from it two stores ago has read it.
    const int row0 = m0 + consumer * Tr::kWgmmaM + warp * Tr::kEpilogueRows;
    const int matrix = lane / 8;
    const int matrix_row = lane % 8;
    const uint32_t row_offset = (8 * (matrix % 2) + matrix_row) * Tr::kSwizzleBytes;
#pragma unroll
    for (int chunk = 0; chunk < Tr::kEpilogueChunks; ++chunk) {
      const int col0 = n0 + chunk * Tr::kEpilogueCols;
      if (row0 >= m || col0 >= n) continue;  // warp-uniform: nothing of this chunk is in C
      const uint32_t buffer = epilogue_buffer(stores & 1);
      if (lane == 0) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
      __syncwarp();
#pragma unroll
      for (int t = 0; t < Tr::kEpilogueCols / 16; ++t) {  // 16 columns per stmatrix.x4
        const int j = chunk * 8 + 2 * t;
        const uint32_t slot = static_cast<uint32_t>((2 * t + matrix / 2) ^ matrix_row);
        stmatrix_x4(buffer + row_offset + slot * 16, pack_pair<T>(acc[4 * j], acc[4 * j + 1]),
                    pack_pair<T>(acc[4 * j + 2], acc[4 * j + 3]),
                    pack_pair<T>(acc[4 * j + 4], acc[4 * j + 5]),
                    pack_pair<T>(acc[4 * j + 6], acc[4 * j + 7]));
      }
      // The generic-proxy writes above must be visible to the TMA (async proxy) read.
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      __syncwarp();
      if (lane == 0) tma_store_2d(&c_map, buffer, col0, row0);
      ++stores;
    }
  }
  // Shared memory must outlive the last TMA stores' reads of it.
  if (lane == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
  // Never launched: the host checks compute capability 9.0, the only target this file builds.
  __trap();
#endif
}

// ---------------------------------------------------------------------------------------------
// Host side

/// Tensor map of a row-major [rows, cols] matrix of `element`s read in boxes of box_cols ×
/// box_rows with the 128-byte swizzle; loads outside the matrix are zero-filled.
CUtensorMap encode_matrix(const void* base, int64_t rows, int64_t cols, int box_cols, int box_rows,
                          TensorMapElement element, const char* what) {
  const uint64_t elem_bytes = element == TensorMapElement::kE4m3 ? 1 : 2;
  const uint64_t dims[2] = {static_cast<uint64_t>(cols), static_cast<uint64_t>(rows)};
  const uint64_t strides[1] = {static_cast<uint64_t>(cols) * elem_bytes};
  const uint32_t box[2] = {static_cast<uint32_t>(box_cols), static_cast<uint32_t>(box_rows)};
  return encode_tensor_map_swizzled(base, 2, dims, strides, box, 128, element, "gemm_wgmma_tma",
                                    what);
}

/// Launch configuration of gemm_wgmma_tma_kernel<T, In, kClusterM, kTileCols>: `blocks` blocks
/// of kThreads in clusters of (kClusterM, 1, 1) (no cluster attribute for kClusterM = 1, v2's
/// plain launch), the kernel's dynamic shared memory, on `stream`. `attribute` must outlive the
/// configuration.
template <class In, int kClusterM, int kTileCols>
cudaLaunchConfig_t launch_config(int blocks, cudaStream_t stream, cudaLaunchAttribute& attribute) {
  using Tr = WgmmaTraits<In, kTileCols>;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(blocks));
  config.blockDim = dim3(Tr::kThreads);
  config.dynamicSmemBytes = Tr::kSmemBytes;
  config.stream = stream;
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = kClusterM;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = kClusterM > 1 ? 1 : 0;
  return config;
}

/// Raises the dynamic shared-memory limit of gemm_wgmma_tma_kernel<T, In, kClusterM, kTileCols>
/// and returns how many of its clusters (blocks when kClusterM = 1) can be resident at once: the
/// SM count for kClusterM = 1; cudaOccupancyMaxActiveClusters otherwise (a cluster's blocks must
/// share a GPC), 0 when no cluster fits (e.g. a partitioned GPU).
template <class T, class In, int kClusterM, int kTileCols>
int resident_clusters(int sm_count) {
  const auto kernel = gemm_wgmma_tma_kernel<T, In, kClusterM, kTileCols>;
  RFL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      WgmmaTraits<In, kTileCols>::kSmemBytes));
  if constexpr (kClusterM == 1) {
    return sm_count;
  } else {
    cudaLaunchAttribute attribute{};
    const cudaLaunchConfig_t config =
        launch_config<In, kClusterM, kTileCols>(kClusterM, nullptr, attribute);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky; the caller falls back to v2
      return 0;
    }
    return clusters;
  }
}

template <class T, class In, int kClusterM, int kTileCols>
void launch_typed(const GemmWgmmaLaunch& l, cudaStream_t stream) {
  cudaLaunchAttribute attribute{};
  const cudaLaunchConfig_t config =
      launch_config<In, kClusterM, kTileCols>(l.grid_blocks, stream, attribute);
  RFL_CUDA_CHECK(cudaLaunchKernelEx(&config, gemm_wgmma_tma_kernel<T, In, kClusterM, kTileCols>,
                                    l.x_map, l.w_map, l.c_map, l.m, l.n, l.k, l.scales));
}

constexpr int kCols256 = static_cast<int>(kGemmWgmmaTile.cols);
constexpr int kCols192 = static_cast<int>(kGemmWgmmaN192Tile.cols);
constexpr int kCols128 = static_cast<int>(kGemmWgmmaN128Tile.cols);

template <class T, class In, int kTileCols>
void launch_for_width(const GemmWgmmaLaunch& l, cudaStream_t stream) {
  l.cluster_m == 2 ? launch_typed<T, In, 2, kTileCols>(l, stream)
                   : launch_typed<T, In, 1, kTileCols>(l, stream);
}

template <class T, class In>
void launch_for_type(const GemmWgmmaLaunch& l, cudaStream_t stream) {
  if constexpr (std::is_same_v<In, __nv_fp8_e4m3>) {
    launch_for_width<T, In, kCols256>(l, stream);
  } else if (l.block_n == kCols128) {
    launch_for_width<T, In, kCols128>(l, stream);
  } else if (l.block_n == kCols192) {
    launch_for_width<T, In, kCols192>(l, stream);
  } else {
    launch_for_width<T, In, kCols256>(l, stream);
  }
}

/// Tiles of `tile` rows (or columns) that cover `extent`.
int64_t tiles_along(int64_t extent, int64_t tile) { return (extent + tile - 1) / tile; }

/// Grid of gemm_wgmma_tma_kernel<T, In, ..., kTileCols>: sets launch.block_n, launch.cluster_m
/// (2 when `multicast_w` and a 2-block cluster can be resident, else 1) and launch.grid_blocks
/// (whole clusters, at most one per work unit, so no cluster is idle). Returns the waves the
/// persistent grid runs: ceil(work units / resident clusters).
template <class T, class In, int kTileCols>
int64_t size_grid(GemmWgmmaLaunch& launch, bool multicast_w, int sm_count) {
  using Tr = WgmmaTraits<In, kTileCols>;
  const int64_t tiles_m = tiles_along(launch.m, Tr::kBlockM);
  const int64_t tiles_n = tiles_along(launch.n, Tr::kBlockN);
  const int pairs = multicast_w ? resident_clusters<T, In, 2, kTileCols>(sm_count) : 0;
  // v2's shared-memory limit, also when it is the fallback.
  resident_clusters<T, In, 1, kTileCols>(sm_count);
  launch.block_n = kTileCols;
  launch.cluster_m = pairs > 0 ? 2 : 1;
  const int64_t units = (tiles_m + launch.cluster_m - 1) / launch.cluster_m * tiles_n;
  const int64_t resident = pairs > 0 ? pairs : sm_count;
  launch.grid_blocks = static_cast<int>(std::min(units, resident) * launch.cluster_m);
  return (units + resident - 1) / resident;
}

/// size_grid for the 16-bit kernels at `width`: kFewestWaveColumns sizes the grid at all three
/// widths and keeps the one gemm_wgmma_tile_cols picks.
template <class T>
void size_grid_16bit(GemmWgmmaLaunch& launch, bool multicast_w, int sm_count,
                     GemmWgmmaTileWidth width) {
  if (width == GemmWgmmaTileWidth::kCols128) {
    size_grid<T, T, kCols128>(launch, multicast_w, sm_count);
    return;
  }
  if (width == GemmWgmmaTileWidth::kCols192) {
    size_grid<T, T, kCols192>(launch, multicast_w, sm_count);
    return;
  }
  GemmWgmmaLaunch with_192 = launch;
  GemmWgmmaLaunch with_128 = launch;
  const int64_t waves_256 = size_grid<T, T, kCols256>(launch, multicast_w, sm_count);
  if (width != GemmWgmmaTileWidth::kFewestWaveColumns) return;
  const int64_t waves_192 = size_grid<T, T, kCols192>(with_192, multicast_w, sm_count);
  const int64_t waves_128 = size_grid<T, T, kCols128>(with_128, multicast_w, sm_count);
  const int64_t cols = gemm_wgmma_tile_cols(waves_256, waves_192, waves_128);
  if (cols == kCols192) launch = with_192;
  if (cols == kCols128) launch = with_128;
}

/// The checks, tensor maps and grid of both entry points: `fp8` selects E4M3 X and W [N, K]
/// (gemm_fp8_v1_wgmma) over 16-bit X and W [K, N]; C is bf16 when `bf16`, else fp16.
GemmWgmmaLaunch prepare(const void* x, const void* w, const float* scales, void* c, int64_t m,
                        int64_t n, int64_t k, bool bf16, bool fp8, bool multicast_w,
                        GemmWgmmaTileWidth width) {
  // Block rows and boxes are the same for every input type and tile width, and no variant needs
  // more shared memory than the 256-column one (static_asserts below); the tile count is bounded
  // with the 128-column tile's.
  using Tr = WgmmaTraits<__nv_bfloat16>;
  using Tr128 = WgmmaTraits<__nv_bfloat16, kCols128>;
  using Tr192 = WgmmaTraits<__nv_bfloat16, kCols192>;
  static_assert(WgmmaTraits<__nv_fp8_e4m3>::kSmemBytes == Tr::kSmemBytes &&
                WgmmaTraits<__nv_fp8_e4m3>::kBlockM == Tr::kBlockM &&
                WgmmaTraits<__nv_fp8_e4m3>::kBlockN == Tr::kBlockN);
  static_assert(Tr128::kSmemBytes <= Tr::kSmemBytes && Tr128::kBlockM == Tr::kBlockM &&
                Tr128::kBoxN == Tr::kBoxN && Tr128::kBlockK == Tr::kBlockK);
  static_assert(Tr192::kSmemBytes <= Tr::kSmemBytes && Tr192::kBlockM == Tr::kBlockM &&
                Tr192::kBoxN == Tr::kBoxN && Tr192::kBlockK == Tr::kBlockK);
  constexpr int64_t kIntMax = 0x7FFFFFFF;
  // TMA global strides are multiples of 16 bytes: N of C (2-byte elements) a multiple of 8, K a
  // multiple of 8 for 16-bit X (and N for W [K, N]), of 16 for E4M3 X and W [N, K].
  const int64_t k_multiple = fp8 ? 16 : 8;
  if (m < 1 || n < 1 || k < 1 || m > kIntMax || n > kIntMax || k > kIntMax || n % 8 != 0 ||
      k % k_multiple != 0) {
    throw bad_input(fmt::format(
        "{}: M = {}, N = {}, K = {} unsupported (need 1 <= M, N, K < 2^31, N a multiple of 8 and "
        "K a multiple of {})",
        fp8 ? "gemm_fp8_wgmma" : "gemm_wgmma_tma", m, n, k, k_multiple));
  }
  // Tile count of v2, and an upper bound on v3's (a spare tile per unit at most).
  const int64_t tiles = (tiles_along(m, Tr::kBlockM) + 1) * tiles_along(n, Tr128::kBlockN);
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

  GemmWgmmaLaunch launch;
  const TensorMapElement out = tensor_map_element_16bit(bf16);
  if (fp8) {
    using Tr8 = WgmmaTraits<__nv_fp8_e4m3>;
    launch.x_map = encode_matrix(x, m, k, Tr8::kBlockK, Tr8::kBlockM, TensorMapElement::kE4m3, "X");
    launch.w_map =
        encode_matrix(w, n, k, Tr8::kBlockK, Tr8::kBoxN, TensorMapElement::kE4m3, "W [N, K]");
  } else {
    launch.x_map = encode_matrix(x, m, k, Tr::kBlockK, Tr::kBlockM, out, "X");
    launch.w_map = encode_matrix(w, k, n, Tr::kBoxN, Tr::kBlockK, out, "W");
  }
  launch.c_map = encode_matrix(c, m, n, Tr::kEpilogueCols, Tr::kEpilogueRows, out, "C");
  launch.m = static_cast<int>(m);
  launch.n = static_cast<int>(n);
  launch.k = static_cast<int>(k);
  launch.bf16 = bf16;
  launch.fp8 = fp8;
  launch.scales = scales;
  if (fp8) {
    bf16 ? size_grid<__nv_bfloat16, __nv_fp8_e4m3, kCols256>(launch, multicast_w, sm_count)
         : size_grid<__half, __nv_fp8_e4m3, kCols256>(launch, multicast_w, sm_count);
  } else if (bf16) {
    size_grid_16bit<__nv_bfloat16>(launch, multicast_w, sm_count, width);
  } else {
    size_grid_16bit<__half>(launch, multicast_w, sm_count, width);
  }
  return launch;
}

}  // namespace

GemmWgmmaLaunch prepare_gemm_wgmma(const void* x, const void* w, void* c, int64_t m, int64_t n,
                                   int64_t k, bool bf16, bool multicast_w,
                                   GemmWgmmaTileWidth width) {
  return prepare(x, w, nullptr, c, m, n, k, bf16, false, multicast_w, width);
}

GemmWgmmaLaunch prepare_gemm_fp8_wgmma(const void* x, const void* w, const float* scales, void* c,
                                       int64_t m, int64_t n, int64_t k, bool bf16_out) {
  if (scales == nullptr) throw bad_input("gemm_fp8_wgmma: no scales (need scale_x, scale_w)");
  return prepare(x, w, scales, c, m, n, k, bf16_out, true, true, GemmWgmmaTileWidth::kCols256);
}

void launch_gemm_wgmma(const GemmWgmmaLaunch& l, cudaStream_t stream) {
  if (l.fp8) {
    l.bf16 ? launch_for_type<__nv_bfloat16, __nv_fp8_e4m3>(l, stream)
           : launch_for_type<__half, __nv_fp8_e4m3>(l, stream);
  } else if (l.bf16) {
    launch_for_type<__nv_bfloat16, __nv_bfloat16>(l, stream);
  } else {
    launch_for_type<__half, __half>(l, stream);
  }
  RFL_CHECK_LAUNCH();
}

}  // namespace rooflinectl
