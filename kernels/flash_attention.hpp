// Direct entry to the FlashAttention forward launcher (v3 on sm_90, v2 elsewhere), for callers
// that need q_len != kv_len (the GPU tests); the sweep goes through flash_attention_spec() in
// kernels/registry.cpp.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "kernels/reference_attention.hpp"

namespace rooflinectl {

/// Enqueues the FlashAttention forward kernel on `stream`. `version_key`: the version asked for,
/// "v2" or "v3" (empty: the default, v3), as `--kernel flash_attention=KEY` names it. `out`: same
/// layout and dtype as Q; `lse`: fp32 [batch, heads, q_len], natural-log log-sum-exp of the
/// scaled scores of each row (-inf for a row that sees no key, whose output is 0). Throws a
/// bad-input Error for head_dim other than 64, 96, 128 or 256, a scale that is not positive and
/// finite, sizes past the grid limits (q_len, kv_len <= 2^30; batch, heads <= 65535) or an
/// undeclared version key; CUDA errors as environment Errors. Runs the version
/// flash_attention_version(p, version_key) names: flash_attention_v3_wgmma_tma when v3 is asked
/// for on compute capability 9.0 at head_dim 128 (the tensor maps are encoded and a 2-counter
/// work queue is allocated stream-ordered on every call), flash_attention_v2_mma_sync otherwise,
/// head_dim 64, 96 and 256 included on every device (kernels/flash_attention.cu).
void launch_flash_attention(const AttentionProblem& p, const std::string& version_key, void* out,
                            float* lse, cudaStream_t stream);

/// The version launch_flash_attention runs for `p` and `version_key` on the current device now,
/// as OperatorRun::version() reports it: "flash_attention_v3_wgmma_tma" or
/// "flash_attention_v2_mma_sync". Throws bad_input for an undeclared version key.
std::string flash_attention_version(const AttentionProblem& p, const std::string& version_key);

}  // namespace rooflinectl
