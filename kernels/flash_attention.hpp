// Direct entry to the FlashAttention-2 forward launcher, for callers that need q_len != kv_len
// (the GPU tests); the sweep goes through flash_attention_spec() in kernels/registry.cpp.
#pragma once

#include <cuda_runtime.h>

#include "kernels/reference_attention.hpp"

namespace rooflinectl {

/// Enqueues the FlashAttention-2 forward kernel on `stream`. `out`: same layout and dtype as Q;
/// `lse`: fp32 [batch, heads, q_len], natural-log log-sum-exp of the scaled scores of each row
/// (-inf for a row that sees no key, whose output is 0). Throws a bad-input Error for head_dim
/// other than 64 or 128, a scale that is not positive and finite, or sizes past the grid limits
/// (q_len, kv_len <= 2^30; batch, heads <= 65535); CUDA errors as environment Errors. Runs
/// flash_attention_v2_mma_sync (128-row query tiles; kernels/flash_attention.cu).
void launch_flash_attention(const AttentionProblem& p, void* out, float* lse, cudaStream_t stream);

}  // namespace rooflinectl
