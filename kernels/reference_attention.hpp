// References for every attention operator (naive, flash, decode): a CPU float64 reference for
// small problems and a GPU fp32 reference for large ones, plus the row plan and the validation
// that picks between them. Written for clarity and independence from the kernels under test:
// they share no code with any of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "core/validation.hpp"

namespace rooflinectl {

/// Attention problem on device pointers. Q: [batch, heads, q_len, head_dim]; K, V: [batch,
/// kv_heads, kv_len, head_dim]; all contiguous, 16-bit elements of `dtype`, except K and V when
/// k_scale is set: then they are E4M3 bytes, and element x of KV head j stands for x·k_scale[j]
/// (V: x·v_scale[j]), the values the references compute with (dequantized exactly in float64 on
/// the CPU, in fp32 on the GPU). Query head h uses KV
/// head h / (heads / kv_heads) (GQA). Causal masking is bottom-right aligned as in
/// FlashAttention-2: query i sees key j iff j <= i + (kv_len - q_len); a row that sees no key
/// outputs exactly 0.
struct AttentionProblem {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  int64_t batch = 1, heads = 1, kv_heads = 1, head_dim = 128, q_len = 1, kv_len = 1;
  bool causal = false;
  Dtype dtype = Dtype::kBf16;
  float scale = 0.f;               ///< softmax scale, usually 1/sqrt(head_dim)
  const float* k_scale = nullptr;  ///< device [kv_heads]: K and V are E4M3 (both scales set)
  const float* v_scale = nullptr;  ///< device [kv_heads]
};

/// GPU fp32 reference: one warp per query row, two passes over the visible keys (row max, then
/// exp-sum and P·V), everything in fp32. Computes only the query rows listed in `rows`
/// (flattened (b, h, i) indices into [batch*heads*q_len]) and writes out[r*head_dim + c] for the
/// r-th listed row (out is resized). Synchronous. Throws a bad-input Error for head_dim > 256
/// (the per-lane accumulator bound) or a row index out of range; CUDA errors as environment Errors.
void gpu_reference_attention(const AttentionProblem& p, const std::vector<int64_t>& rows,
                             std::vector<double>& out);

/// CPU float64 reference over the given rows, from host copies of Q, K, V (full tensors, layouts
/// as in AttentionProblem) already widened to double. Returns rows.size()*head_dim values, row r
/// of the result for rows[r]. Pure host code.
std::vector<double> cpu_reference_attention(const AttentionProblem& p, const std::vector<double>& q,
                                            const std::vector<double>& k,
                                            const std::vector<double>& v,
                                            const std::vector<int64_t>& rows);

/// Which query rows to check and with which reference.
struct ReferencePlan {
  std::vector<int64_t> rows;  ///< flattened (b, h, i) row indices, ascending, no duplicates
  bool use_cpu = false;       ///< true: CPU float64 reference; false: GPU fp32 reference
};

/// The rows to check for a problem: all rows, CPU float64 reference, when
/// batch*heads*q_len*kv_len*head_dim <= 2^31 (about 2^32 double FLOPs on the host at most).
/// Otherwise the GPU fp32 reference over all rows when there are at most 8192 of them, else a
/// deterministic spread of at most 8192: rows i = 0..63 and the last 64 rows of the first and
/// last (b, h) (every position of a 64-row tile, and the partial tail tile when q_len is not a
/// multiple of 64), plus an odd stride over all rows (an odd stride visits every residue mod 64).
ReferencePlan plan_reference_rows(const AttentionProblem& p);

/// Validates device output O (same layout as Q, 16-bit `dtype`) against the planned reference
/// with tolerance `tol`. Result's reference name: "cpu-float64" or
/// "gpu-fp32 reference_attention (N of M rows)". Copies to the host only the rows checked (all of
/// Q, K, V for the CPU path, which is bounded by the plan's size limit). Synchronous.
Validation validate_attention_output(const AttentionProblem& p, const void* out_device,
                                     Tolerance tol);

/// How far device output O lies from the reference of `p` over the rows validate_attention_output
/// would check (difference_stats), with no verdict: for an O computed from a quantized copy of
/// p's K and V, the quantization error. The reference name is validate_attention_output's plus
/// " on " and `inputs` (e.g. "the bf16 K, V before quantization"). Synchronous.
QuantizationError attention_output_difference(const AttentionProblem& p, const void* out_device,
                                              const std::string& inputs);

}  // namespace rooflinectl
