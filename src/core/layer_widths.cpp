#include "core/layer_widths.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/operator_names.hpp"

namespace rooflinectl {

std::string to_string(FfnKind kind) {
  switch (kind) {
    case FfnKind::kGeluMlp:
      return "gelu_mlp";
    case FfnKind::kSwiglu:
      return "swiglu";
    case FfnKind::kGeglu:
      return "geglu";
  }
  return "gelu_mlp";
}

std::string to_string(NormKind kind) {
  return kind == NormKind::kLayerNorm ? "layernorm" : "rmsnorm";
}

FfnKind parse_ffn_kind(std::string_view text) {
  if (text == "gelu_mlp") return FfnKind::kGeluMlp;
  if (text == "swiglu") return FfnKind::kSwiglu;
  if (text == "geglu") return FfnKind::kGeglu;
  throw bad_input(fmt::format("invalid FFN kind '{}': allowed gelu_mlp, swiglu, geglu", text));
}

NormKind parse_norm_kind(std::string_view text) {
  if (text == "layernorm") return NormKind::kLayerNorm;
  if (text == "rmsnorm") return NormKind::kRmsNorm;
  throw bad_input(fmt::format("invalid norm '{}': allowed layernorm, rmsnorm", text));
}

LayerWidths kernel_layer_widths(const Shape& shape) {
  return LayerWidths{shape.d_model(), shape.ffn_width(), FfnKind::kGeluMlp, NormKind::kLayerNorm};
}

bool operator_uses_layer_widths(std::string_view op) {
  return op != kNaiveAttentionOp && op != kFlashAttentionOp && op != kDecodeAttentionOp;
}

}  // namespace rooflinectl
