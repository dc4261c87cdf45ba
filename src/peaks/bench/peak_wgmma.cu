// The sm_90a tensor-core benchmark of `rooflinectl peaks`: wgmma.mma_async m64n256k16 with
// fp32 accumulators, the instruction cuBLAS's Hopper GEMMs use (HGMMA in SASS), and its FP8 form
// m64n256k32.f32.e4m3.e4m3 (QGMMA), both operands K-major. Built for
// sm_90a only (-gencode=arch=compute_90a,code=sm_90a, a separate CMake target): wgmma does not
// exist in plain sm_90. Callers check compute capability 9.0 at run time before launching.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstdint>

#include "gpu/cuda_check.hpp"
#include "peaks/bench/peak_plan.hpp"
#include "peaks/bench/peak_wgmma.hpp"

namespace rooflinectl {
namespace {

constexpr int kTileM = 64;
constexpr int kTileN = 256;
constexpr int kTileK = 16;  ///< 16-bit elements; 32 E4M3 elements in the same 32 bytes per row
constexpr int kAccumulators = kTileM * kTileN / kPeakWgmmaThreads;  // 128 fp32 per thread
// Non-swizzled K-major layout: 8-row × 16-byte "core matrices" stored contiguously (128 B each).
// Leading byte offset = 128 B (next core matrix along K), stride byte offset = 256 B (next group
// of 8 rows). Every address a descriptor can reach stays inside its tile; the values do not
// matter for the rate, only that the tensor cores read real shared memory.
constexpr uint32_t kCoreMatrixBytes = 128;
constexpr uint32_t kRowGroupBytes = 2 * kCoreMatrixBytes;

__device__ float g_wgmma_sink;

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

// PTX ISA "Matrix Descriptor Format" (wgmma): bits 0-13 start address >> 4, 16-29 leading
// dimension byte offset >> 4, 32-45 stride dimension byte offset >> 4, 62-63 swizzle (0 = none).
__device__ uint64_t shared_matrix_descriptor(const void* tile) {
  const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  uint64_t desc = (address & 0x3FFFF) >> 4;
  desc |= static_cast<uint64_t>(kCoreMatrixBytes >> 4) << 16;
  desc |= static_cast<uint64_t>(kRowGroupBytes >> 4) << 32;
  return desc;
}

// SHAPE "m64n256k16" or "m64n256k32"; IMMS the operands after scale-d: "1, 1, 0, 0" (scale-a,
// scale-b, no transposes) for 16-bit types, "1, 1" for E4M3, which has no transpose operands
// (both K-major).
#define RFL_WGMMA_M64N256(SHAPE, TYPE, IMMS, d, desc_a, desc_b)                                    \
  asm volatile(                                                                                    \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                                \
      "wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPE "." TYPE                                  \
      " {"                                                                                         \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                     \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "           \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "           \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "           \
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "           \
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "           \
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "     \
      "%111, "                                                                                     \
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, " \
      "%127 "                                                                                      \
      "}, %128, %129, p, " IMMS ";\n}\n"                                                           \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),        \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), \
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), \
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), \
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), \
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),          \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),        \
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),        \
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),        \
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])         \
      : "l"(desc_a), "l"(desc_b), "r"(1))

template <WgmmaInput kInput>
__device__ __forceinline__ void wgmma_step(float (&d)[kAccumulators], uint64_t desc_a,
                                           uint64_t desc_b) {
  if constexpr (kInput == WgmmaInput::kBf16) {
    RFL_WGMMA_M64N256("m64n256k16", "bf16", "1, 1, 0, 0", d, desc_a, desc_b);
  } else if constexpr (kInput == WgmmaInput::kFp16) {
    RFL_WGMMA_M64N256("m64n256k16", "f16", "1, 1, 0, 0", d, desc_a, desc_b);
  } else {
    RFL_WGMMA_M64N256("m64n256k32", "e4m3", "1, 1", d, desc_a, desc_b);
  }
}

#endif

// FLOP per launch = blocks × iterations × kPeakWgmmaPerTrip × 2·64·256·16 (kWgmmaFlop): every
// wgmma multiplies a 64×16 A tile by a 16×256 B tile into the warpgroup's 64×256 accumulators;
// E4M3: 2·64·256·32 (kWgmmaFp8Flop), a 64×32 by 32×256 product from the same 32-byte rows, so
// the tiles, descriptors and core-matrix layout are the 16-bit ones.
template <WgmmaInput kInput>
__global__ void __launch_bounds__(kPeakWgmmaThreads) wgmma_kernel(int iterations, float key) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ __align__(1024) uint16_t a_tile[kTileM * kTileK];
  __shared__ __align__(1024) uint16_t b_tile[kTileN * kTileK];
  if constexpr (kInput == WgmmaInput::kE4m3) {
    // 1/16 plus a small per-element variation as E4M3 bytes (0x18 = 2^-4; +0..7 in the
    // mantissa), two elements per 16-bit word.
    const auto pair = [](int i) {
      return static_cast<uint16_t>((0x18 + ((2 * i) & 7)) | ((0x18 + ((2 * i + 1) & 7)) << 8));
    };
    for (int i = threadIdx.x; i < kTileM * kTileK; i += blockDim.x) a_tile[i] = pair(i);
    for (int i = threadIdx.x; i < kTileN * kTileK; i += blockDim.x) b_tile[i] = pair(i);
  } else {
    // 1/16 plus a small per-element variation, as bf16 (0x3D80) or fp16 (0x2C00) bits: finite
    // products, and not all-zero inputs, which would draw less power than real data.
    const uint16_t base = kInput == WgmmaInput::kBf16 ? 0x3D80 : 0x2C00;
    for (int i = threadIdx.x; i < kTileM * kTileK; i += blockDim.x) a_tile[i] = base + (i & 7);
    for (int i = threadIdx.x; i < kTileN * kTileK; i += blockDim.x) b_tile[i] = base + (i & 7);
  }
  // The tensor cores read shared memory through the async proxy: order the generic stores first.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const uint64_t desc_a = shared_matrix_descriptor(a_tile);
  const uint64_t desc_b = shared_matrix_descriptor(b_tile);

  float d[kAccumulators];
#pragma unroll
  for (int i = 0; i < kAccumulators; ++i) d[i] = 0.0f;
    // Not unrolled: a remainder copy of the loop would make the compiler shuffle the accumulators
    // between register sets.
#pragma unroll 1
  for (int it = 0; it < iterations; ++it) {
    // Orders the register accesses before this trip's wgmma, as a CUTLASS main loop does per
    // k-tile; without it ptxas injects the same fence itself (C7519).
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < kPeakWgmmaPerTrip; ++s) wgmma_step<kInput>(d, desc_a, desc_b);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    // One group in flight while the next is issued, as a GEMM main loop keeps it.
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < kAccumulators; ++i) {
    // Keeps the reads of d after the wait above (the compiler cannot see that wgmma writes d late).
    asm volatile("" : "+f"(d[i])::"memory");
    sum += d[i];
  }
  if (sum == key) g_wgmma_sink = sum;
#else
  // Never launched: the host checks compute capability 9.0, the only target this file builds.
  __trap();
#endif
}

}  // namespace

void launch_wgmma_benchmark(WgmmaInput input, int blocks, int iterations, cudaStream_t stream) {
  // key < 0 is never the sum of positive products, so the sink store never runs.
  constexpr float kNeverMatches = -1.0f;
  switch (input) {
    case WgmmaInput::kBf16:
      wgmma_kernel<WgmmaInput::kBf16>
          <<<blocks, kPeakWgmmaThreads, 0, stream>>>(iterations, kNeverMatches);
      break;
    case WgmmaInput::kFp16:
      wgmma_kernel<WgmmaInput::kFp16>
          <<<blocks, kPeakWgmmaThreads, 0, stream>>>(iterations, kNeverMatches);
      break;
    case WgmmaInput::kE4m3:
      wgmma_kernel<WgmmaInput::kE4m3>
          <<<blocks, kPeakWgmmaThreads, 0, stream>>>(iterations, kNeverMatches);
      break;
  }
  RFL_CHECK_LAUNCH();
}

}  // namespace rooflinectl
