// Direct entry to the FlashAttention forward launcher (v3 on sm_90, v2 elsewhere), for callers
// that need q_len != kv_len (the GPU tests); the sweep goes through flash_attention_spec() in
// kernels/registry.cpp.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "kernels/reference_attention.hpp"

namespace rooflinectl {

/// Enqueues the FlashAttention forward kernel on `stream`. `out`: same layout and dtype as Q;
/// `lse`: fp32 [batch, heads, q_len], natural-log log-sum-exp of the scaled scores of each row
/// (-inf for a row that sees no key, whose output is 0). Throws a bad-input Error for head_dim
/// other than 64 or 128, a scale that is not positive and finite, or sizes past the grid limits
/// (q_len, kv_len <= 2^30; batch, heads <= 65535), RFL_FLASH_VERSION other than unset, "2" or
/// "3"; CUDA errors as environment Errors. Runs the version flash_attention_version(p) names:
/// flash_attention_v3_wgmma_tma on compute capability 9.0 at head_dim 128 (the tensor maps are
/// encoded and a 2-counter work queue is allocated stream-ordered on every call),
/// flash_attention_v2_mma_sync otherwise (kernels/flash_attention.cu).
void launch_flash_attention(const AttentionProblem& p, void* out, float* lse, cudaStream_t stream);

/// The version launch_flash_attention runs for `p` on the current device now, as
/// OperatorRun::version() reports it: "flash_attention_v3_wgmma_tma" or
/// "flash_attention_v2_mma_sync". Reads RFL_FLASH_VERSION (throws bad_input for a bad value).
std::string flash_attention_version(const AttentionProblem& p);

}  // namespace rooflinectl
