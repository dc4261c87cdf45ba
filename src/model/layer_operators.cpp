#include "model/layer_operators.hpp"

#include <fmt/format.h>

#include "core/decode_attention_pipe.hpp"
#include "core/error.hpp"
#include "core/operator_names.hpp"
#include "model/operator_model.hpp"

namespace rooflinectl {

std::string to_string(LayerPhase phase) {
  return phase == LayerPhase::kPrefill ? "prefill" : "decode";
}

LayerPhase parse_layer_phase(std::string_view text) {
  if (text == "prefill") return LayerPhase::kPrefill;
  if (text == "decode") return LayerPhase::kDecode;
  throw bad_input(fmt::format("invalid --phase '{}': allowed prefill, decode", text));
}

namespace {

constexpr Dtype kDtype = Dtype::kBf16;
constexpr double kE = static_cast<double>(dtype_size_bytes(kDtype));

// Rows M the projections and element-wise steps see: every prompt token in prefill, one token
// per sequence in decode.
int64_t layer_rows(const LayerPoint& p) {
  return p.phase == LayerPhase::kPrefill ? p.batch * p.seq_len : p.batch;
}

// The attention shape of the preset at the point (seq_len = L or the context).
Shape attention_shape(const ModelPreset& preset, const LayerPoint& p) {
  Shape s;
  s.batch = p.batch;
  s.heads = preset.heads;
  s.kv_heads = preset.kv_heads;
  s.head_dim = preset.head_dim;
  s.seq_len = p.seq_len;
  s.causal = p.phase == LayerPhase::kPrefill;
  s.dtype = kDtype;
  s.gelu_form = preset.gelu_form.value_or(GeluForm::kErf);
  if (p.phase == LayerPhase::kDecode) s.kv_dtype = p.kv_dtype;
  return s;
}

// A Shape whose tokens() is `rows` (batch rows, seq_len 1), for the element-wise models of
// operator_model that count B·L rows.
Shape rows_shape(const ModelPreset& preset, int64_t rows) {
  Shape s;
  s.batch = rows;
  s.seq_len = 1;
  s.dtype = kDtype;
  s.gelu_form = preset.gelu_form.value_or(GeluForm::kErf);
  return s;
}

// operator_model's model of an element-wise or norm operator `op` over `rows` rows, its FLOP
// formula naming the rows M as the layer's GEMMs do ("N = M*ffn_dim": B*L in prefill, B in
// decode) rather than operator_model's B*L.
AnalyticResult rows_model(const std::string& op, const ModelPreset& preset, int64_t rows) {
  AnalyticResult a = analytic_model(op, rows_shape(preset, rows), preset.widths);
  const std::string sweep_rows = "N = B*L*";
  const size_t at = a.flop_formula.find(sweep_rows);
  if (at != std::string::npos) a.flop_formula.replace(at, sweep_rows.size(), "N = M*");
  return a;
}

LayerOperator gemm_op(const std::string& name, GemmDims dims, const std::string& dims_text) {
  const AnalyticResult a = gemm_analytic(dims.m, dims.n, dims.k, kDtype, dims_text);
  LayerOperator op;
  op.name = name;
  op.kind = "gemm";
  op.pipe = Pipe::kTensor;
  op.gemm = dims;
  op.flop = a.flop;
  op.weight_bytes = static_cast<double>(dims.k) * static_cast<double>(dims.n) * kE;
  op.activation_bytes = a.min_dram_bytes - op.weight_bytes;
  op.flop_formula = a.flop_formula;
  op.bytes_formula = a.bytes_formula + " (W = K*N*e are the weights)";
  return op;
}

// The norm of the preset: operator_model's layernorm (8·N FLOPs; x, y, γ, β) or rmsnorm (4·N
// FLOPs; x, y, γ), N = M·d_model. The weights are γ (and β), d_model elements each.
LayerOperator norm_op(const std::string& name, const ModelPreset& preset, int64_t rows) {
  const LayerWidths& w = preset.widths;
  const bool layernorm = w.norm == NormKind::kLayerNorm;
  const AnalyticResult a = rows_model(layernorm ? kLayernormOp : kRmsnormOp, preset, rows);
  LayerOperator op;
  op.name = name;
  op.kind = layernorm ? kLayernormOp : kRmsnormOp;
  op.pipe = Pipe::kFp32;
  op.flop = a.flop;
  op.weight_bytes = (layernorm ? 2.0 : 1.0) * static_cast<double>(w.d_model) * kE;
  op.activation_bytes = a.min_dram_bytes - op.weight_bytes;
  op.flop_formula = a.flop_formula;
  op.bytes_formula = a.bytes_formula;
  return op;
}

LayerOperator attention_op(const ModelPreset& preset, const LayerPoint& p) {
  const Shape s = attention_shape(preset, p);
  const bool prefill = p.phase == LayerPhase::kPrefill;
  const AnalyticResult a = analytic_model(prefill ? kFlashAttentionOp : kDecodeAttentionOp, s);
  LayerOperator op;
  op.name = "attention";
  op.kind = prefill ? kFlashAttentionOp : kDecodeAttentionOp;
  op.pipe = prefill ? Pipe::kTensor : decode_attention_pipe(s);
  op.flop = a.flop;
  op.kv_cache_bytes = layer_kv_cache_bytes(preset, p.batch, p.seq_len, s.kv_dtype);
  op.activation_bytes = a.min_dram_bytes - op.kv_cache_bytes;
  op.flop_formula = a.flop_formula;
  op.bytes_formula = a.bytes_formula.substr(0, a.bytes_formula.find(';'));
  return op;
}

// GELU of a GELU MLP: operator_model's gelu over N = M·ffn_dim (4·N erf form, 8·N tanh form;
// 2·N·e bytes).
LayerOperator gelu_op(const ModelPreset& preset, int64_t rows) {
  const AnalyticResult a = rows_model(kGeluOp, preset, rows);
  LayerOperator op;
  op.name = "ffn_act";
  op.kind = "gelu";
  op.pipe = Pipe::kFp32;
  op.flop = a.flop;
  op.activation_bytes = a.min_dram_bytes;
  op.flop_formula = a.flop_formula;
  op.bytes_formula = a.bytes_formula;
  return op;
}

// The gated step act(gate) ⊙ up of SwiGLU or GeGLU: operator_model's swiglu or geglu over N =
// M·ffn_dim outputs (4·N, or 5·N / 9·N for the erf / tanh GELU; gate and up read, output written,
// 3·N·e bytes).
LayerOperator gated_op(const ModelPreset& preset, int64_t rows) {
  const bool swiglu = preset.widths.ffn_kind == FfnKind::kSwiglu;
  const AnalyticResult a = rows_model(swiglu ? kSwigluOp : kGegluOp, preset, rows);
  LayerOperator op;
  op.name = "ffn_gated_act";
  op.kind = swiglu ? kSwigluOp : kGegluOp;
  op.pipe = Pipe::kFp32;
  op.flop = a.flop;
  op.activation_bytes = a.min_dram_bytes;
  op.flop_formula = a.flop_formula;
  op.bytes_formula = a.bytes_formula;
  return op;
}

}  // namespace

std::vector<LayerOperator> layer_operators(const ModelPreset& preset, const LayerPoint& p) {
  if (p.batch < 1 || p.seq_len < 1) {
    throw bad_input(fmt::format("invalid layer point: batch {}, length {} (both must be >= 1)",
                                p.batch, p.seq_len));
  }
  const int64_t m = layer_rows(p);
  const int64_t d_model = preset.widths.d_model;
  const int64_t ffn = preset.widths.ffn_dim;
  const int64_t attn_width = preset.heads * preset.head_dim;
  const int64_t qkv_width = (preset.heads + 2 * preset.kv_heads) * preset.head_dim;
  const std::string rows_text = p.phase == LayerPhase::kPrefill ? "M = B*L" : "M = B";

  std::vector<LayerOperator> ops;
  ops.push_back(norm_op("input_norm", preset, m));
  ops.push_back(gemm_op("qkv_proj", {m, qkv_width, d_model},
                        rows_text + ", K = d_model, N = (H + 2*H_kv)*head_dim"));
  ops.push_back(attention_op(preset, p));
  ops.push_back(
      gemm_op("o_proj", {m, d_model, attn_width}, rows_text + ", K = H*head_dim, N = d_model"));
  ops.push_back(norm_op("post_attention_norm", preset, m));
  if (is_gated(preset.widths.ffn_kind)) {
    ops.push_back(gemm_op("ffn_gate", {m, ffn, d_model}, rows_text + ", K = d_model, N = ffn_dim"));
    ops.push_back(gemm_op("ffn_up", {m, ffn, d_model}, rows_text + ", K = d_model, N = ffn_dim"));
    ops.push_back(gated_op(preset, m));
  } else {
    ops.push_back(gemm_op("ffn_up", {m, ffn, d_model}, rows_text + ", K = d_model, N = ffn_dim"));
    ops.push_back(gelu_op(preset, m));
  }
  ops.push_back(gemm_op("ffn_down", {m, d_model, ffn}, rows_text + ", K = ffn_dim, N = d_model"));
  return ops;
}

double layer_weight_bytes(const ModelPreset& preset) {
  double bytes = 0;
  for (const LayerOperator& op : layer_operators(preset, LayerPoint{})) bytes += op.weight_bytes;
  return bytes;
}

double layer_kv_cache_bytes(const ModelPreset& preset, int64_t batch, int64_t positions,
                            KvDtype kv_dtype) {
  Shape s;
  s.dtype = kDtype;
  s.kv_dtype = kv_dtype;
  return 2.0 * static_cast<double>(batch) * static_cast<double>(preset.kv_heads) *
         static_cast<double>(positions) * static_cast<double>(preset.head_dim) *
         static_cast<double>(kv_element_bytes(s));
}

}  // namespace rooflinectl
