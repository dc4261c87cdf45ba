// The widths of a transformer layer around its attention: the hidden size the norms and
// projections work on and the FFN's intermediate size and kind. The sweep's kernels derive them
// from the attention shape (kernel_layer_widths); a model preset (core/model_preset.hpp) gives a
// real model's. Plain data, no CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/shape.hpp"

namespace rooflinectl {

/// How the FFN turns its intermediate activations into the input of the down projection:
///   gelu_mlp: act = GELU(x·W_up), one up projection (GPT-2);
///   swiglu:   act = SiLU(x·W_gate) ⊙ (x·W_up), two projections of equal size (Shazeer 2020,
///             "GLU Variants Improve Transformer"; Llama, Mistral, Qwen, Phi-3);
///   geglu:    act = GELU(x·W_gate) ⊙ (x·W_up), as swiglu with GELU (the same paper; Gemma).
enum class FfnKind { kGeluMlp, kSwiglu, kGeglu };

/// The normalization before attention and FFN: LayerNorm (centre, scale, γ and β) or RMSNorm
/// (Zhang & Sennrich 2019: scale by the root mean square, γ only, no centring).
enum class NormKind { kLayerNorm, kRmsNorm };

std::string to_string(FfnKind kind);   ///< "gelu_mlp" | "swiglu" | "geglu"
std::string to_string(NormKind kind);  ///< "layernorm" | "rmsnorm"
/// Parses "gelu_mlp" | "swiglu" | "geglu"; throws a bad-input Error naming the token otherwise.
FfnKind parse_ffn_kind(std::string_view text);
/// Parses "layernorm" | "rmsnorm"; throws a bad-input Error naming the token otherwise.
NormKind parse_norm_kind(std::string_view text);

/// True for the gated kinds (swiglu, geglu): a gate projection as large as the up projection and
/// an element-wise product that reads both.
constexpr bool is_gated(FfnKind kind) { return kind != FfnKind::kGeluMlp; }

/// Widths of the layer's projections, element-wise FFN step and norm (elements, not bytes).
struct LayerWidths {
  int64_t d_model = 0;  ///< hidden size: the norm's row width, the up projection's K
  int64_t ffn_dim = 0;  ///< FFN intermediate size: the up (and gate) projection's N
  FfnKind ffn_kind = FfnKind::kGeluMlp;
  NormKind norm = NormKind::kLayerNorm;
};

/// What the sweep's gemm, gelu, layernorm, rmsnorm, swiglu and geglu kernels run at `shape`:
/// d_model = shape.d_model() (hidden, else heads·head_dim), ffn_dim = shape.ffn_width() (ffn_dim,
/// else 4·d_model, the GPT-2/BERT ratio), a GELU MLP and LayerNorm (the kinds name the sweep's
/// default operators; rmsnorm, swiglu and geglu read the same widths).
LayerWidths kernel_layer_widths(const Shape& shape);

/// Whether operator `op` reads the layer widths (Shape::hidden, Shape::ffn_dim): gemm (its default
/// N and K), gelu, layernorm, rmsnorm, swiglu and geglu; not the attention operators.
bool operator_uses_layer_widths(std::string_view op);

}  // namespace rooflinectl
