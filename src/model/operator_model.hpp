// Analytic FLOP and DRAM-byte models of the six operators (pure host code, no CUDA). These are
// what the algorithm implies; the counters say what the hardware did, and reports show both.
#pragma once

#include <string>

#include "core/shape.hpp"
#include "report/result.hpp"

namespace rooflinectl {

/// Query tile height Br of kernels/flash_attention.cu (its traits struct): K and V are streamed
/// once per query tile, which bounds the as-implemented DRAM bytes when L2 absorbs no re-read.
inline constexpr int64_t kFlashQueryTileRows = 64;

/// Number of (query, key) pairs the attention computes for q_len = kv_len = L: L² without a mask,
/// L·(L+1)/2 with the bottom-right causal mask (query i sees keys 0..i).
double attention_pairs(int64_t seq_len, bool causal);

/// FLOPs and DRAM bytes of operator `op` at `shape` (e = 2 bytes per element; formulas as in
/// the design doc's operator table, FlashAttention-2 paper §4.1 for the attention FLOP count):
///   naive_attention:  flop 4·B·H·L²·d (cuBLAS computes every pair, masked or not);
///                     min bytes (2·B·H + 2·B·H_kv)·L·d·e; implemented adds S and P written once
///                     and read once: + 4·B·H·L²·e
///   flash_attention:  flop 4·B·H·d·pairs (pairs = L² or L(L+1)/2 causal); min bytes Q,K,V,O +
///                     LSE (4·B·H·L); implemented re-reads K,V once per query tile of Br rows
///   gemm:             flop 2·M·N·K with M = B·L, K = d_model, N = 4·d_model; bytes (MK+KN+MN)·e
///   gelu:             N = B·L·4·d_model; flop 4·N (erf form) or 8·N (tanh form), counting the
///                     add/mul/FMA-as-2 arithmetic around the special function, which itself is
///                     not counted (SFU work is invisible to the FLOP counters too); bytes 2·N·e
///   layernorm:        N = B·L·d_model; flop 8·N (sum 1, centre 1, square-accumulate 2,
///                     normalize 2, affine 2); bytes 2·N·e + 2·d_model·e
///   decode_attention: flop 4·B·H·L·d; bytes 2·B·H_kv·L·d·e (KV cache) + 2·B·H·d·e (q, o)
/// Throws a bad-input Error for an unknown operator name.
AnalyticResult analytic_model(const std::string& op, const Shape& shape);

/// Tokens processed per second: B·L / time for prefill operators, B / time for decode (one new
/// token per sequence per step). Throws a bad-input Error when time_s ≤ 0.
double tokens_per_second(const std::string& op, const Shape& shape, double time_s);

}  // namespace rooflinectl
