// The operators one transformer layer of a model preset runs, each at its real shape, with its
// analytic FLOPs and minimum DRAM bytes split into weights, KV cache and activations: the input of
// `rooflinectl layer --analytic` (no GPU needed). Pure host code, no CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model_preset.hpp"
#include "core/pipe.hpp"
#include "core/shape.hpp"

namespace rooflinectl {

/// Prefill runs a whole prompt of L tokens per sequence through the layer at once (M = B·L);
/// decode produces one token per sequence over a KV cache of `context` positions (M = B).
enum class LayerPhase { kPrefill, kDecode };

/// "prefill" | "decode".
std::string to_string(LayerPhase phase);
/// Parses "prefill" | "decode"; throws a bad-input Error "invalid --phase 'X': allowed prefill,
/// decode" otherwise.
LayerPhase parse_layer_phase(std::string_view text);

/// One point of the layer view: a phase, a batch and a length.
struct LayerPoint {
  LayerPhase phase = LayerPhase::kPrefill;
  int64_t batch = 1;  ///< B: sequences processed together
  /// Prefill: prompt tokens L per sequence (flash attention at q_len = kv_len = L). Decode: KV
  /// cache positions per sequence the new token attends to (`--context`).
  int64_t seq_len = 512;
  /// Element type of the stored KV cache: kAuto keeps bf16 (2 bytes), kFp8E4m3 stores K and V as
  /// E4M3 (1 byte, with one fp32 scale per KV head for each) — decode attention reads it, and peak
  /// memory holds it. Prefill's attention reads the prompt's K and V in bf16 either way.
  KvDtype kv_dtype = KvDtype::kAuto;
};

/// One operator of the layer at one point. Bytes are the minimum DRAM traffic (each input read
/// once, each output written once), bf16 (e = 2 bytes), split by what they are.
struct LayerOperator {
  /// Role in the layer: "input_norm", "qkv_proj", "attention", "o_proj", "post_attention_norm",
  /// "ffn_up", "ffn_act" (GELU MLP), or "ffn_gate", "ffn_up", "ffn_gated_act" (SwiGLU, GeGLU),
  /// then "ffn_down".
  std::string name;
  /// What it computes: "rmsnorm" | "layernorm" | "gemm" | "flash_attention" | "decode_attention"
  /// | "gelu" | "swiglu" | "geglu".
  std::string kind;
  Pipe pipe = Pipe::kTensor;     ///< whose roof applies: tensor (GEMMs, attention) or FP32
  std::optional<GemmDims> gemm;  ///< GEMMs only (core/shape.hpp)
  double flop = 0;
  double weight_bytes = 0;  ///< parameters read: W of a GEMM, γ (and β) of a norm
  /// K and V read: the decode KV cache of `context` positions, or the prompt's K and V that flash
  /// attention reads in prefill (the layer's KV cache). 2·B·H_kv·len·head_dim·e.
  double kv_cache_bytes = 0;
  double activation_bytes = 0;  ///< activations read and written (X, Y, Q, O, LSE)
  std::string flop_formula;
  std::string bytes_formula;
  /// weight_bytes + kv_cache_bytes + activation_bytes.
  double min_dram_bytes() const { return weight_bytes + kv_cache_bytes + activation_bytes; }
};

/// The operators of one layer of `preset` at `point`, in execution order, bf16:
///   input_norm, post_attention_norm: RMSNorm or LayerNorm over B·L·d_model elements;
///   qkv_proj: GEMM M = B·L (decode: B), K = d_model, N = (H + 2·H_kv)·head_dim;
///   attention: prefill flash attention at q_len = kv_len = L with the bottom-right causal mask
///     (every preset is a decoder-only LM); decode attention over `context` cached positions,
///     H_kv KV heads (GQA), a contiguous cache of point.kv_dtype elements;
///   o_proj: GEMM K = H·head_dim, N = d_model;
///   FFN: GELU MLP (ffn_up N = ffn_dim, ffn_act GELU over M·ffn_dim, ffn_down) or SwiGLU/GeGLU
///     (ffn_gate and ffn_up N = ffn_dim, ffn_gated_act reading 2·M·ffn_dim and writing
///     M·ffn_dim, ffn_down K = ffn_dim, N = d_model).
/// Formulas: analytic_model's (model/operator_model.hpp, sources there) for the attention, GEMM,
/// GELU, LayerNorm, RMSNorm, SwiGLU and GeGLU operators, one definition each. Residual adds, rotary
/// embedding, the KV-cache write and any bias are not operators of this list. Throws a bad-input
/// Error when batch or seq_len < 1.
std::vector<LayerOperator> layer_operators(const ModelPreset& preset, const LayerPoint& point);

/// Bytes of one layer's parameters in bf16: the four projections and the norms' γ (and β), the
/// sum of weight_bytes over layer_operators (the same at every point).
double layer_weight_bytes(const ModelPreset& preset);

/// KV-cache bytes of one layer holding `positions` cached positions for `batch` sequences:
/// 2 (K and V)·B·H_kv·positions·head_dim·e, e = 2 (bf16) or 1 (`kv_dtype` kFp8E4m3; the
/// per-KV-head scales, 8·H_kv bytes, are not counted here).
double layer_kv_cache_bytes(const ModelPreset& preset, int64_t batch, int64_t positions,
                            KvDtype kv_dtype = KvDtype::kAuto);

}  // namespace rooflinectl
