// Launcher of the sm_90a wgmma tensor-core benchmark (peak_wgmma.cu, built for sm_90a only).
#pragma once

#include <cuda_runtime.h>

namespace rooflinectl {

/// FLOP of one wgmma.mma_async m64n256k16: 2 · 64 · 256 · 16.
inline constexpr double kWgmmaFlop = 2.0 * 64 * 256 * 16;
/// FLOP of one wgmma.mma_async m64n256k32 with E4M3 inputs: 2 · 64 · 256 · 32 (the same 32-byte
/// K slice per row as k16 of a 16-bit type, twice the elements).
inline constexpr double kWgmmaFp8Flop = 2.0 * 64 * 256 * 32;

/// The input type of the wgmma benchmark: bf16 or fp16 (m64n256k16), or OCP FP8 E4M3
/// (m64n256k32, both operands K-major, as 8-bit wgmma requires).
enum class WgmmaInput { kBf16, kFp16, kE4m3 };

/// Enqueues the wgmma benchmark on `stream`: `blocks` blocks of one warpgroup (128 threads), each
/// issuing iterations × kPeakWgmmaPerTrip wgmma m64n256k16 (bf16 or fp16 inputs from shared
/// memory, fp32 accumulators in registers), or m64n256k32 for kE4m3. FLOP = blocks · iterations ·
/// kPeakWgmmaPerTrip · kWgmmaFlop (kWgmmaFp8Flop for kE4m3). Only for devices of compute
/// capability 9.0 (the kernel is sm_90a code; the caller checks). Throws an environment Error
/// when the launch fails.
void launch_wgmma_benchmark(WgmmaInput input, int blocks, int iterations, cudaStream_t stream);

}  // namespace rooflinectl
