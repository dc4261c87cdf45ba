// gemm_v6_skinny_wgmma: the Hopper (sm_90a) path of the GEMM C[M, N] = X[M, K] · W[K, N] at
// decode's M ≤ kGemmSkinnyMaxRows (core/kernel_tiles.hpp), every matrix row-major, bf16 or fp16
// in and out, fp32 accumulate. The contract is gemm_v4_skinny_splitk's (kernels/gemm.cu); that
// file selects this one on compute capability 9.0 and keeps v4 elsewhere. One kernel,
// gemm_skinny_wgmma_kernel; the design is written at the kernel, the shared-memory layouts at
// SkinnyWgmmaTraits, the measurements in docs/perf-notes.md.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <cstdint>
#include <type_traits>

#include "core/error.hpp"
#include "core/kernel_tiles.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/common/hopper_ptx.hpp"
#include "kernels/common/sm90_host.hpp"
#include "kernels/common/split_k.hpp"
#include "kernels/gemm_skinny_wgmma.hpp"

namespace rooflinectl {
namespace {

/// Compile-time tiling of gemm_skinny_wgmma_kernel at kRows = gemm_skinny_wgmma_rows(M) rows of
/// X (8, 16, 32 or 64: the wgmma N extent), two blocks per SM, or one with a ring twice as deep
/// when kDeepRing (gemm_skinny_wgmma_deep_ring, core/kernel_tiles.hpp).
///
/// Shared-memory layouts (128-byte swizzle, written by TMA, read through wgmma descriptors):
///   W box: [64 rows (k)][64 n] = 8 KiB, as row-major W holds it: MN-major for the wgmma A
///          operand (transpose-A = 1, legal for 16-bit types);
///   X box: [kRows rows (m)][64 k] = kRows · 128 B, K-major for the B operand (transpose-B = 0).
/// A stage is one W box followed by one X box; kStages of them, an even count so that stage s is
/// always consumed by warpgroup s % 2.
template <int kRows_, bool kDeepRing = false>
struct SkinnyWgmmaTraits {
  static constexpr int kRows = kRows_;
  static constexpr int kStripCols = static_cast<int>(kGemmSkinnyWgmmaStripCols);
  static constexpr int kSliceK = static_cast<int>(kGemmSkinnyWgmmaSliceK);
  static constexpr int kConsumers = 2;  // math warpgroups, alternate slices of K
  static constexpr int kConsumerThreads = 128 * kConsumers;
  static constexpr int kThreads = kConsumerThreads + 32;  // + one producer warp
  static constexpr int kProducerWarp = kConsumerThreads / 32;
  static constexpr int kBlocksPerSm = kDeepRing ? 1 : 2;
  static constexpr int kWgmmaK = 16;
  static constexpr int kAccumulators = kRows / 2;  // m64 × kRows fp32 over 128 threads

  static constexpr int kElemBytes = 2;
  static constexpr int kSwizzleBytes = 128;
  static constexpr int kAtomBytes = 8 * kSwizzleBytes;  // 8 rows × 128 B, the swizzle period
  static constexpr int kBoxBytesW = kSliceK * kStripCols * kElemBytes;  // 8 KiB
  static constexpr int kBoxBytesX = kRows * kSliceK * kElemBytes;       // 1-8 KiB
  static constexpr int kStageBytes = kBoxBytesW + kBoxBytesX;
  // About 104 KiB of ring per block, so that two blocks share an SM's 228 KiB: 10 stages at 8
  // and 16 rows, 8 at 32, 6 at 64 (90-100 KiB in flight per block, ~180 KiB per SM); 200 KiB
  // for the one block of the deep ring (12 stages at 64 rows).
  static constexpr int kRingBudgetBytes = (kDeepRing ? 200 : 104) * 1024;
  static constexpr int kStages = kRingBudgetBytes / kStageBytes / 2 * 2;
  // Dynamic shared memory is only guaranteed 16-byte alignment; swizzle atoms need 1024.
  static constexpr int kSmemBytes = kStages * kStageBytes + kAtomBytes;

  static_assert(kRows == 8 || kRows == 16 || kRows == 32 || kRows == 64, "wgmma N extent");
  static_assert(kStripCols == 64, "one m64 wgmma slab per strip");
  static_assert(kSliceK * kElemBytes == kSwizzleBytes && kStripCols * kElemBytes == kSwizzleBytes,
                "one swizzle row per box row");
  static_assert(kBoxBytesW % kAtomBytes == 0 && kBoxBytesX % kAtomBytes == 0,
                "every box starts on a swizzle atom");
  static_assert(kStages >= 4 && kStages % kConsumers == 0, "even ring of at least 4 stages");
  static_assert(kAccumulators * 128 * 4 <= kStageBytes * kStages,
                "the consumers' exchange fits in the ring");
  static_assert(kBlocksPerSm * (kSmemBytes + 1024 + 128) <= 228 * 1024,
                "kBlocksPerSm blocks per SM (sm_90: 228 KiB, 1 KiB reserved per block)");
};

/// gemm_skinny_wgmma_kernel's arguments beside the tensor maps (see GemmSkinnyWgmmaLaunch).
struct SkinnyWgmmaArgs {
  void* c;
  float* partials;
  int* strip_counters;
  int m;
  int n;
  int k;
  int splits;
  int k_per_split;
};

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

// wgmma.mma_async m64nNk16, A (W) and B (X) from shared memory, A MN-major (imm-trans-a 1), B
// K-major (imm-trans-b 0); D = A·B + D (scale-d true: the accumulators start at zero).
#define RFL_SKINNY_WGMMA_ASM(SHAPE, TYPE, REGS, DESCS, ...)                           \
  asm volatile(                                                                       \
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                                      \
      "wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPE "." TYPE " " REGS ", " DESCS \
      ", p, 1, 1, 1, 0;\n}\n"                                                         \
      : __VA_ARGS__                                                                   \
      : "l"(desc_a), "l"(desc_b))

#define RFL_F4(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define RFL_F8(d, i) RFL_F4(d, i), RFL_F4(d, i + 4)
#define RFL_F16(d, i) RFL_F8(d, i), RFL_F8(d, i + 8)

/// The wgmma instruction of kRows (N) for T, bf16 or fp16 (TYPE "bf16" / "f16").
#define RFL_SKINNY_WGMMA_ALL(TYPE)                                                                 \
  if constexpr (kRows == 8) {                                                                      \
    RFL_SKINNY_WGMMA_ASM("m64n8k16", TYPE, "{%0, %1, %2, %3}", "%4, %5", RFL_F4(d, 0));            \
  } else if constexpr (kRows == 16) {                                                              \
    RFL_SKINNY_WGMMA_ASM("m64n16k16", TYPE, "{%0, %1, %2, %3, %4, %5, %6, %7}", "%8, %9",          \
                         RFL_F8(d, 0));                                                            \
  } else if constexpr (kRows == 32) {                                                              \
    RFL_SKINNY_WGMMA_ASM("m64n32k16", TYPE,                                                        \
                         "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}", \
                         "%16, %17", RFL_F16(d, 0));                                               \
  } else {                                                                                         \
    RFL_SKINNY_WGMMA_ASM("m64n64k16", TYPE,                                                        \
                         "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
                         "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "  \
                         "%30, %31}",                                                              \
                         "%32, %33", RFL_F16(d, 0), RFL_F16(d, 16));                               \
  }

/// d += A·B for one m64 × kRows × k16 step, A and B given by their shared-memory descriptors.
template <class T, int kRows>
__device__ __forceinline__ void wgmma_skinny(float (&d)[kRows / 2], uint64_t desc_a,
                                             uint64_t desc_b) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    RFL_SKINNY_WGMMA_ALL("bf16")
  } else {
    RFL_SKINNY_WGMMA_ALL("f16")
  }
}

#undef RFL_SKINNY_WGMMA_ALL
#undef RFL_F16
#undef RFL_F8
#undef RFL_F4
#undef RFL_SKINNY_WGMMA_ASM

#endif

/// gemm_v6_skinny_wgmma: block (x, y) computes the 64-column strip x of Cᵀ = Wᵀ·Xᵀ (rows n of
/// Cᵀ are columns of C) over K split y, [y·k_per_split, min(K, (y+1)·k_per_split)).
///
/// Why swap A and B: at M ≤ 64 a GEMM is the stream of W (intensity ≈ M FLOP/byte), and a wgmma's
/// M side is 64 rows while its N side may be as small as 8. With W's columns on the M side, the
/// batch's M_pad = kRows rows of X fill the N side (8 to 64), so no tensor-core work is padding
/// beyond kRows/M, and W goes from TMA into shared memory and straight into the tensor cores (no
/// ldmatrix, no register fragments: v4's issue cost, which grew with M; docs/perf-notes.md).
///
/// Structure (PTX ISA 8.x: "Asynchronous Warpgroup Level Matrix Multiply-Accumulate",
/// "cp.async.bulk.tensor", "mbarrier"):
///   - warp 8 is the producer: one thread issues, per 64-deep slice of K, one TMA box of W (64 k
///     × 64 n, 8 KiB) and one of X (kRows × 64 k) into a kStages-deep ring (~100 KiB), against
///     the stage's "full" mbarrier (expect_tx = stage bytes); two blocks per SM, so each SM keeps
///     about 180 KiB requested (the ≥ 25 KiB per SM that ~3.3 TB/s × ~1 µs latency needs over
///     132 SMs, several times over), or, in the deep-ring mode at 64 rows, one block with a
///     ~200 KiB ring, where X's boxes take half of every stage;
///   - warpgroups 0 and 1 are consumers of alternate slices (slice kb goes to warpgroup kb % 2):
///     four m64nkRowsk16 wgmma per slice into kRows/2 fp32 accumulators, the stage released
///     through its "empty" mbarrier as soon as they have completed;
///   - end: warpgroup 1 hands its accumulators to warpgroup 0 through shared memory (the ring,
///     idle by then), which adds them (own + other: a fixed order);
///   - epilogue (warpgroup 0): accumulator (row n, column m) is C[m][n]; with one split C is
///     written directly (rows < M, columns < N), otherwise the fp32 partial [split][m][n] is
///     stored and the last split of the strip to arrive sums them in split order
///     (kernels/common/split_k.hpp, v4's protocol) and writes C.
/// Ragged edges: TMA zero-fills W past N and K and X past M and K, so they add nothing; the
/// epilogue masks rows and columns.
template <class T, int kRows, bool kDeepRing>
__global__ void __launch_bounds__(SkinnyWgmmaTraits<kRows, kDeepRing>::kThreads,
                                  SkinnyWgmmaTraits<kRows, kDeepRing>::kBlocksPerSm)
    gemm_skinny_wgmma_kernel(const __grid_constant__ CUtensorMap x_map,
                             const __grid_constant__ CUtensorMap w_map, const SkinnyWgmmaArgs a) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Tr = SkinnyWgmmaTraits<kRows, kDeepRing>;
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[Tr::kStages];
  __shared__ __align__(8) uint64_t empty_bar[Tr::kStages];
  __shared__ bool last_split;
  const uint32_t smem_base = (smem_u32(smem_raw) + Tr::kAtomBytes - 1) & ~(Tr::kAtomBytes - 1);
  const auto stage_w = [&](int s) { return smem_base + s * Tr::kStageBytes; };
  const auto stage_x = [&](int s) { return stage_w(s) + Tr::kBoxBytesW; };

  const int strip = static_cast<int>(blockIdx.x);
  const int split = static_cast<int>(blockIdx.y);
  const int n0 = strip * Tr::kStripCols;
  const int k_begin = split * a.k_per_split;
  // > 0: gemm_skinny_wgmma_split leaves no split empty; the last one ends at K.
  const int k_len = min(a.k - k_begin, a.k_per_split);
  const int k_blocks = (k_len + Tr::kSliceK - 1) / Tr::kSliceK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Tr::kStages; ++s) {
      mbarrier_init(smem_u32(&full_bar[s]), 1);   // the producer's arrive; TMA adds the bytes
      mbarrier_init(smem_u32(&empty_bar[s]), 4);  // one arrive per warp of the consumer
    }
    mbarrier_init_fence();
  }
  __syncthreads();

  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  if (warp == Tr::kProducerWarp) {
    if (lane != 0) return;
    for (int kb = 0; kb < k_blocks; ++kb) {
      const int s = kb % Tr::kStages;
      // Round r of stage s waits for the consumers' release of round r - 1 (parity of round
      // r - 1; the first round's wait returns at once).
      mbarrier_wait(smem_u32(&empty_bar[s]), ((kb / Tr::kStages) & 1) ^ 1);
      const uint32_t full = smem_u32(&full_bar[s]);
      // Out-of-bounds parts of a box are zero-filled and still count their full bytes.
      mbarrier_arrive_expect_tx(full, Tr::kStageBytes);
      const int k0 = k_begin + kb * Tr::kSliceK;
      tma_load_2d(stage_w(s), &w_map, full, n0, k0);
      tma_load_2d(stage_x(s), &x_map, full, k0, 0);
    }
    return;
  }

  const int consumer = warp / 4;
  const int thread = static_cast<int>(threadIdx.x) % 128;
  float acc[Tr::kAccumulators];
#pragma unroll
  for (int i = 0; i < Tr::kAccumulators; ++i) acc[i] = 0.0f;
  for (int kb = consumer; kb < k_blocks; kb += Tr::kConsumers) {
    const int s = kb % Tr::kStages;
    mbarrier_wait(smem_u32(&full_bar[s]), (kb / Tr::kStages) & 1);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < Tr::kSliceK / Tr::kWgmmaK; ++kk) {
      // A (W, MN-major): a k16 step is 16 rows = 2048 B; leading byte offset = one box (the next
      // 64 columns, unused at m64), stride byte offset = 1024 (the next 8 rows of K): gemm v2's
      // W descriptor. B (X, K-major): a k16 step is +32 B within the swizzle row; stride byte
      // offset = 1024 (the next 8 rows of M), the leading offset unused for swizzled K-major.
      const uint64_t desc_a = swizzled_descriptor<Tr::kSwizzleBytes>(
          stage_w(s) + kk * Tr::kWgmmaK * Tr::kSwizzleBytes, Tr::kBoxBytesW, Tr::kAtomBytes);
      const uint64_t desc_b = swizzled_descriptor<Tr::kSwizzleBytes>(
          stage_x(s) + kk * Tr::kWgmmaK * Tr::kElemBytes, 16, Tr::kAtomBytes);
      wgmma_skinny<T, kRows>(acc, desc_a, desc_b);
    }
    wgmma_commit();
    // Hand the stage back as soon as its wgmma are done: the tensor cores are far from busy
    // here, so waiting costs nothing and the producer gets the stage one slice earlier.
    wgmma_wait<0>();
    if (lane == 0) mbarrier_arrive(smem_u32(&empty_bar[s]));
  }
#pragma unroll
  for (int i = 0; i < Tr::kAccumulators; ++i) register_fence(acc[i]);

  // Warpgroup 1's sums to warpgroup 0 through the ring: every wgmma of both has completed (their
  // wait_group 0 above) and every TMA write has landed (each was waited for), so it is idle.
  float* exchange = reinterpret_cast<float*>(smem_raw + (smem_base - smem_u32(smem_raw)));
  named_barrier_sync(1, Tr::kConsumerThreads);
  if (consumer == 1) {
#pragma unroll
    for (int i = 0; i < Tr::kAccumulators; ++i) exchange[i * 128 + thread] = acc[i];
  }
  named_barrier_sync(1, Tr::kConsumerThreads);
  if (consumer == 1) return;
#pragma unroll
  for (int i = 0; i < Tr::kAccumulators; ++i) acc[i] += exchange[i * 128 + thread];

  // Accumulator i of this thread (PTX ISA, "Register Fragments and Shared Memory Matrix Layouts"
  // of wgmma .m64nNk16 with an fp32 D): row 16·warp + lane/4 + 8·((i/2) % 2), column 8·(i/4) +
  // 2·(lane % 4) + i % 2, i.e. n and m of C[m][n].
  const int n_base = n0 + 16 * warp + lane / 4;
  const int m_base = 2 * (lane % 4);
  T* c = static_cast<T*>(a.c);
  const auto visit = [&](auto&& f) {
#pragma unroll
    for (int i = 0; i < Tr::kAccumulators; ++i) {
      const int n = n_base + 8 * ((i / 2) % 2);
      const int m = m_base + 8 * (i / 4) + i % 2;
      if (m < a.m && n < a.n) f(i, static_cast<int64_t>(m) * a.n + n);
    }
  };
  if (a.splits == 1) {
    visit([&](int i, int64_t at) { c[at] = T(acc[i]); });
    return;
  }
  const int64_t plane = static_cast<int64_t>(a.m) * a.n;
  float* mine = a.partials + split * plane;
  visit([&](int i, int64_t at) { mine[at] = acc[i]; });
  if (!split_k_last_arrival(a.strip_counters + strip, a.splits, &last_split, thread == 0,
                            [] { named_barrier_sync(2, 128); })) {
    return;
  }
  visit([&](int, int64_t at) { c[at] = T(split_k_sum(a.partials, plane, a.splits, at)); });
  if (thread == 0) a.strip_counters[strip] = 0;  // re-armed for the next launch
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
  const uint64_t strides[1] = {static_cast<uint64_t>(cols) * 2};
  const uint32_t box[2] = {static_cast<uint32_t>(box_cols), static_cast<uint32_t>(box_rows)};
  return encode_tensor_map_swizzled(base, 2, dims, strides, box, 128,
                                    tensor_map_element_16bit(bf16), "gemm_skinny_wgmma", what);
}

/// Calls `f(std::integral_constant<int, R>{}, std::bool_constant<D>{})` with R = `rows` (8, 16,
/// 32 or 64) and D = `deep_ring` (gemm_skinny_wgmma_deep_ring).
template <class F>
void with_tile(int rows, bool deep_ring, F&& f) {
  const auto with_ring = [&](auto tile_rows) {
    if (deep_ring) {
      f(tile_rows, std::true_type{});
    } else {
      f(tile_rows, std::false_type{});
    }
  };
  switch (rows) {
    case 8:
      with_ring(std::integral_constant<int, 8>{});
      return;
    case 16:
      with_ring(std::integral_constant<int, 16>{});
      return;
    case 32:
      with_ring(std::integral_constant<int, 32>{});
      return;
    default:
      with_ring(std::integral_constant<int, 64>{});
      return;
  }
}

template <class T>
void launch_typed(const GemmSkinnyWgmmaLaunch& l, cudaStream_t stream) {
  const SkinnyWgmmaArgs args{l.c, l.partials, l.strip_counters, l.m,
                             l.n, l.k,        l.splits,         l.k_per_split};
  const dim3 grid(
      static_cast<unsigned int>((l.n + kGemmSkinnyWgmmaStripCols - 1) / kGemmSkinnyWgmmaStripCols),
      static_cast<unsigned int>(l.splits));
  with_tile(l.rows, l.deep_ring, [&](auto rows, auto deep) {
    constexpr int kRows = decltype(rows)::value;
    constexpr bool kDeep = decltype(deep)::value;
    using Tr = SkinnyWgmmaTraits<kRows, kDeep>;
    gemm_skinny_wgmma_kernel<T, kRows, kDeep>
        <<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(l.x_map, l.w_map, args);
  });
}

template <class T>
void allow_smem(int rows, bool deep_ring, int optin_bytes, int device) {
  with_tile(rows, deep_ring, [&](auto r, auto deep) {
    constexpr int kRows = decltype(r)::value;
    constexpr bool kDeep = decltype(deep)::value;
    using Tr = SkinnyWgmmaTraits<kRows, kDeep>;
    if (optin_bytes < Tr::kSmemBytes) {
      throw environment_error(fmt::format(
          "gemm_skinny_wgmma needs {} bytes of shared memory per block, device {} allows {}",
          Tr::kSmemBytes, device, optin_bytes));
    }
    RFL_CUDA_CHECK(cudaFuncSetAttribute(gemm_skinny_wgmma_kernel<T, kRows, kDeep>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        Tr::kSmemBytes));
  });
}

}  // namespace

GemmSkinnyWgmmaLaunch prepare_gemm_skinny_wgmma(const void* x, const void* w, void* c,
                                                float* partials, int* strip_counters, int64_t m,
                                                int64_t n, int64_t k, bool bf16) {
  constexpr int64_t kIntMax = 0x7FFFFFFF;
  if (m < 1 || m > kGemmSkinnyMaxRows || n < 1 || k < 1 || n > kIntMax || k > kIntMax ||
      n % 8 != 0 || k % 8 != 0) {
    throw bad_input(fmt::format(
        "gemm_skinny_wgmma: M = {}, N = {}, K = {} unsupported (need 1 <= M <= {}, 1 <= N, K < "
        "2^31 and N, K multiples of 8)",
        m, n, k, kGemmSkinnyMaxRows));
  }
  int device = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  int optin_bytes = 0;
  RFL_CUDA_CHECK(
      cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));

  const GemmSplitK split = gemm_skinny_wgmma_split(m, n, k);
  GemmSkinnyWgmmaLaunch launch;
  launch.rows = static_cast<int>(gemm_skinny_wgmma_rows(m));
  launch.deep_ring = gemm_skinny_wgmma_deep_ring(m, n, k);
  launch.x_map =
      encode_matrix(x, m, k, static_cast<int>(kGemmSkinnyWgmmaSliceK), launch.rows, bf16, "X");
  launch.w_map = encode_matrix(w, k, n, static_cast<int>(kGemmSkinnyWgmmaStripCols),
                               static_cast<int>(kGemmSkinnyWgmmaSliceK), bf16, "W");
  launch.c = c;
  launch.partials = partials;
  launch.strip_counters = strip_counters;
  launch.m = static_cast<int>(m);
  launch.n = static_cast<int>(n);
  launch.k = static_cast<int>(k);
  launch.splits = static_cast<int>(split.splits);
  launch.k_per_split = static_cast<int>(split.k_per_split);
  launch.bf16 = bf16;
  if (bf16) {
    allow_smem<__nv_bfloat16>(launch.rows, launch.deep_ring, optin_bytes, device);
  } else {
    allow_smem<__half>(launch.rows, launch.deep_ring, optin_bytes, device);
  }
  return launch;
}

void launch_gemm_skinny_wgmma(const GemmSkinnyWgmmaLaunch& l, cudaStream_t stream) {
  if (l.bf16) {
    launch_typed<__nv_bfloat16>(l, stream);
  } else {
    launch_typed<__half>(l, stream);
  }
  RFL_CHECK_LAUNCH();
}

}  // namespace rooflinectl
