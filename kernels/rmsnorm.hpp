// RMSNorm launcher, shared by the operator run (kernels/rmsnorm.cu) and the GPU tests that feed it
// hand-written rows (e.g. fp16 rows of ±20000 whose Σx² overflows fp16).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/shape.hpp"

namespace rooflinectl {

/// ε added to mean(x²): Llama 3.1's rms_norm_eps (its Hugging Face config.json, 1e-05; Mistral 7B
/// and Phi-3 use the same, Qwen2.5 and Gemma 2 1e-06).
inline constexpr float kRmsNormEpsilon = 1e-5f;
/// Widest row supported: the 1024-thread configuration holds 64 elements per thread in registers.
inline constexpr int64_t kRmsNormMaxWidth = 65536;

/// Throws a bad-input Error (exit 2) unless 8 ≤ d_model ≤ kRmsNormMaxWidth and d_model is a
/// multiple of 8 (rows are read as 16-byte vectors of eight 16-bit elements).
void check_rmsnorm_width(int64_t d_model);

/// Enqueues y = x / sqrt(mean(x²) + kRmsNormEpsilon) · γ on `stream`, per row of x (Zhang &
/// Sennrich 2019, "Root Mean Square Layer Normalization", eq. 4; no mean subtraction, no β).
/// x, y: [rows, d_model] row-major, gamma: [d_model], all `dtype` (bf16 or fp16) in device memory
/// with 16-byte aligned starts. Σx² is accumulated in fp32 from the row held in registers (fp16
/// rows of ±20000 give 2.6e13 at d_model 65536, far below fp32's range). Throws bad-input for an
/// unsupported d_model (check_rmsnorm_width) or rows < 1, and an environment Error if the launch
/// fails. Does not synchronize.
void launch_rmsnorm(const void* x, const void* gamma, void* y, int64_t rows, int64_t d_model,
                    Dtype dtype, cudaStream_t stream);

}  // namespace rooflinectl
