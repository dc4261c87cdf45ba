#include "model/layer_operators.hpp"

#include <fmt/format.h>

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

// LayerNorm: operator_model's layernorm (8·N FLOPs; x, y, γ, β). RMSNorm (Zhang & Sennrich 2019,
// "Root Mean Square Layer Normalization", eq. 4: y = x / RMS(x) · g, RMS(x) = sqrt(mean(x²))),
// counted as layernorm is: square-accumulate 2, normalize 1, scale by g 1 → 4·N FLOPs (the
// rsqrt per row not counted); bytes x read and y written, 2·N·e, plus g, d_model·e.
LayerOperator norm_op(const std::string& name, const ModelPreset& preset, int64_t rows) {
  const LayerWidths& w = preset.widths;
  const double n = static_cast<double>(rows) * static_cast<double>(w.d_model);
  const double d_model = static_cast<double>(w.d_model);
  LayerOperator op;
  op.name = name;
  op.pipe = Pipe::kFp32;
  if (w.norm == NormKind::kLayerNorm) {
    const AnalyticResult a = analytic_model(kLayernormOp, rows_shape(preset, rows), w);
    op.kind = "layernorm";
    op.flop = a.flop;
    op.weight_bytes = 2.0 * d_model * kE;
    op.activation_bytes = a.min_dram_bytes - op.weight_bytes;
    op.flop_formula = a.flop_formula;
    op.bytes_formula = a.bytes_formula;
  } else {
    op.kind = "rmsnorm";
    op.flop = 4.0 * n;
    op.weight_bytes = d_model * kE;
    op.activation_bytes = 2.0 * n * kE;
    op.flop_formula = "4*N, N = M*d_model (square-accumulate 2, normalize 1, scale by gamma 1)";
    op.bytes_formula = "2*N*e + d_model*e (x, y, gamma)";
  }
  return op;
}

LayerOperator attention_op(const ModelPreset& preset, const LayerPoint& p) {
  const Shape s = attention_shape(preset, p);
  const bool prefill = p.phase == LayerPhase::kPrefill;
  const AnalyticResult a = analytic_model(prefill ? kFlashAttentionOp : kDecodeAttentionOp, s);
  LayerOperator op;
  op.name = "attention";
  op.kind = prefill ? kFlashAttentionOp : kDecodeAttentionOp;
  op.pipe = Pipe::kTensor;
  op.flop = a.flop;
  op.kv_cache_bytes = layer_kv_cache_bytes(preset, p.batch, p.seq_len);
  op.activation_bytes = a.min_dram_bytes - op.kv_cache_bytes;
  op.flop_formula = a.flop_formula;
  op.bytes_formula = a.bytes_formula.substr(0, a.bytes_formula.find(';'));
  return op;
}

// GELU of a GELU MLP: operator_model's gelu over N = M·ffn_dim (4·N erf form, 8·N tanh form;
// 2·N·e bytes).
LayerOperator gelu_op(const ModelPreset& preset, int64_t rows) {
  const AnalyticResult a = analytic_model(kGeluOp, rows_shape(preset, rows), preset.widths);
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

// The gated step act(gate) ⊙ up of SwiGLU and GeGLU (Shazeer 2020, "GLU Variants Improve
// Transformer", eqs. 5-6) over N = M·ffn_dim: reads gate and up, writes one output, 3·N·e bytes.
// FLOPs counted as operator_model's gelu counts them (the arithmetic around the special function,
// not the function): SiLU x·σ(x) = x / (1 + exp(−x)) is 1 add, 1 divide and 1 multiply, so
// SwiGLU = 3 + 1 (the product) = 4·N; GeGLU = GELU's 4 (erf) or 8 (tanh) + 1 = 5·N or 9·N.
LayerOperator gated_op(const ModelPreset& preset, int64_t rows) {
  const double n = static_cast<double>(rows) * static_cast<double>(preset.widths.ffn_dim);
  const bool swiglu = preset.widths.ffn_kind == FfnKind::kSwiglu;
  const bool tanh_form = preset.gelu_form == GeluForm::kTanh;
  const int per_element = swiglu ? 4 : (tanh_form ? 9 : 5);
  LayerOperator op;
  op.name = "ffn_gated_act";
  op.kind = to_string(preset.widths.ffn_kind);
  op.pipe = Pipe::kFp32;
  op.flop = per_element * n;
  op.activation_bytes = 3.0 * n * kE;
  op.flop_formula =
      fmt::format("{}*N, N = M*ffn_dim ({} then the product; {} itself not counted)", per_element,
                  swiglu ? "SiLU" : "GELU", swiglu ? "exp" : (tanh_form ? "tanh" : "erf"));
  op.bytes_formula = "3*N*e (gate and up read, output written)";
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

double layer_kv_cache_bytes(const ModelPreset& preset, int64_t batch, int64_t positions) {
  return 2.0 * static_cast<double>(batch) * static_cast<double>(preset.kv_heads) *
         static_cast<double>(positions) * static_cast<double>(preset.head_dim) * kE;
}

}  // namespace rooflinectl
