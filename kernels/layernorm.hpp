// LayerNorm launcher, shared by the operator run (kernels/layernorm.cu) and the GPU tests that
// feed it hand-written rows (e.g. fp16 rows of ±20000 whose variance overflows a naive E[x²]).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/shape.hpp"

namespace rooflinectl {

/// ε added to the variance: PyTorch's torch.nn.LayerNorm default.
inline constexpr float kLayerNormEpsilon = 1e-5f;
/// Widest row supported: the 1024-thread configuration holds 64 elements per thread in registers.
inline constexpr int64_t kLayerNormMaxWidth = 65536;

/// Throws a bad-input Error (exit 2) unless 8 ≤ d_model ≤ kLayerNormMaxWidth and d_model is a
/// multiple of 8 (rows are read as 16-byte vectors of eight 16-bit elements).
void check_layernorm_width(int64_t d_model);

/// Enqueues y = (x - μ) / sqrt(σ² + kLayerNormEpsilon) · γ + β on `stream`, per row of x.
/// x, y: [rows, d_model] row-major, gamma, beta: [d_model], all `dtype` (bf16 or fp16) in device
/// memory with 16-byte aligned starts. μ and σ² (biased, as PyTorch) are computed in fp32 from the
/// row held in registers: mean first, then Σ(x - μ)², so rows of large magnitude (fp16 ±20000)
/// neither overflow nor cancel. Throws bad-input for an unsupported d_model (check_layernorm_width)
/// or rows < 1, and an environment Error if the launch fails. Does not synchronize.
void launch_layernorm(const void* x, const void* gamma, const void* beta, void* y, int64_t rows,
                      int64_t d_model, Dtype dtype, cudaStream_t stream);

}  // namespace rooflinectl
