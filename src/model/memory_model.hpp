// Device-memory footprint of attention as L grows: the score matrix S and probabilities P that
// naive attention materializes (O(L²) per head), the KV cache decode reads every step, and the
// largest L at which naive attention still fits a GPU. Pure host code, no CUDA.
#pragma once

#include <cstdint>

#include "core/shape.hpp"

namespace rooflinectl {

/// Memory of one attention shape, in bytes (e = dtype_size_bytes, 2 for bf16 and fp16).
struct AttentionMemory {
  int64_t seq_len = 0;
  double s_bytes_per_head = 0;        ///< S = QKᵀ of one head: L²·e
  double s_and_p_bytes_per_head = 0;  ///< S and P of one head: 2·L²·e
  /// S and P of every head at once, as naive_attention holds them between its launches: 2·B·H·L²·e
  double s_and_p_bytes_total = 0;
  double qkvo_bytes = 0;  ///< Q, O [B,H,L,d] and K, V [B,H_kv,L,d]: (2·B·H + 2·B·H_kv)·L·d·e
  /// Naive attention's footprint: qkvo_bytes + s_and_p_bytes_total (the 32 MiB cuBLAS workspace
  /// of kernels/naive_attention.cu is not part of the algorithm and is left out).
  double naive_attention_bytes = 0;
  /// KV cache a decode step reads, L cached positions: 2·B·H_kv·L·d·e_kv, e_kv =
  /// kv_element_bytes (2, or 1 for an fp8_e4m3 cache, whose 8·H_kv bytes of scales are left out);
  /// GQA shrinks it by g = H/H_kv.
  double kv_cache_bytes = 0;
};

/// The memory table row of `shape` (all of its axes, seq_len included). Worked example:
/// L = 4096, fp16 → S = 33,554,432 B (33.5 MB) and S + P = 67.1 MB per head; L = 8192 → 268 MB.
AttentionMemory attention_memory(const Shape& shape);

/// Largest L (any integer, not only powers of two) whose naive_attention_bytes fit in
/// `memory_bytes`: the positive root of 2·B·H·e·L² + (2·B·H + 2·B·H_kv)·d·e·L = memory_bytes,
/// rounded down. `shape.seq_len` is ignored. 0 when not even L = 1 fits. Throws a bad-input Error
/// when memory_bytes ≤ 0.
int64_t max_naive_attention_seq_len(const Shape& shape, double memory_bytes);

}  // namespace rooflinectl
