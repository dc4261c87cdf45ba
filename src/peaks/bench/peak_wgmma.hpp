// Launcher of the sm_90a wgmma tensor-core benchmark (peak_wgmma.cu, built for sm_90a only).
#pragma once

#include <cuda_runtime.h>

namespace rooflinectl {

/// FLOP of one wgmma.mma_async m64n256k16: 2 · 64 · 256 · 16.
inline constexpr double kWgmmaFlop = 2.0 * 64 * 256 * 16;

/// Enqueues the wgmma benchmark on `stream`: `blocks` blocks of one warpgroup (128 threads), each
/// issuing iterations × kPeakWgmmaPerTrip wgmma m64n256k16 (bf16 or fp16 inputs from shared
/// memory, fp32 accumulators in registers). FLOP = blocks · iterations · kPeakWgmmaPerTrip ·
/// kWgmmaFlop. Only for devices of compute capability 9.0 (the kernel is sm_90a code; the caller
/// checks). Throws an environment Error when the launch fails.
void launch_wgmma_benchmark(bool bf16, int blocks, int iterations, cudaStream_t stream);

}  // namespace rooflinectl
