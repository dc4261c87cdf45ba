#include "model/operator_model.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace rooflinectl {

double attention_pairs(int64_t seq_len, bool causal) {
  const double l = static_cast<double>(seq_len);
  return causal ? l * (l + 1.0) / 2.0 : l * l;
}

namespace {

AnalyticResult naive_attention_model(const Shape& s) {
  const double b = s.batch, h = s.heads, hkv = s.kv_heads, l = s.seq_len, d = s.head_dim;
  const double e = dtype_size_bytes(s.dtype);
  AnalyticResult r;
  r.flop = 4.0 * b * h * l * l * d;
  r.min_dram_bytes = (2.0 * b * h + 2.0 * b * hkv) * l * d * e;
  r.implemented_dram_bytes = r.min_dram_bytes + 4.0 * b * h * l * l * e;
  r.flop_formula = "4*B*H*L^2*d (all pairs: cuBLAS computes masked entries too)";
  r.bytes_formula = "min (2*B*H + 2*B*H_kv)*L*d*e; implemented + 4*B*H*L^2*e (S and P written and read once)";
  return r;
}

AnalyticResult flash_attention_model(const Shape& s) {
  const double b = s.batch, h = s.heads, hkv = s.kv_heads, l = s.seq_len, d = s.head_dim;
  const double e = dtype_size_bytes(s.dtype);
  const double pairs = attention_pairs(s.seq_len, s.causal);
  const double q_tiles =
      static_cast<double>((s.seq_len + kFlashQueryTileRows - 1) / kFlashQueryTileRows);
  AnalyticResult r;
  r.flop = 4.0 * b * h * d * pairs;
  const double lse_bytes = 4.0 * b * h * l;
  r.min_dram_bytes = (2.0 * b * h + 2.0 * b * hkv) * l * d * e + lse_bytes;
  // Each query tile of a query head streams all of K and V of its KV head.
  r.implemented_dram_bytes = 2.0 * b * h * l * d * e + lse_bytes + q_tiles * 2.0 * b * h * l * d * e;
  r.flop_formula = s.causal ? "4*B*H*d*L*(L+1)/2 (visible pairs, bottom-right causal mask)"
                            : "4*B*H*L^2*d";
  r.bytes_formula = fmt::format(
      "min (2*B*H + 2*B*H_kv)*L*d*e + 4*B*H*L (LSE); implemented without L2 reuse "
      "2*B*H*L*d*e + 4*B*H*L + ceil(L/{})*2*B*H*L*d*e",
      kFlashQueryTileRows);
  return r;
}

AnalyticResult gemm_model(const Shape& s) {
  const double m = static_cast<double>(s.tokens());
  const double k = static_cast<double>(s.d_model());
  const double n = 4.0 * k;
  const double e = dtype_size_bytes(s.dtype);
  AnalyticResult r;
  r.flop = 2.0 * m * n * k;
  r.min_dram_bytes = (m * k + k * n + m * n) * e;
  r.implemented_dram_bytes = r.min_dram_bytes;
  r.flop_formula = "2*M*N*K, M = B*L, K = d_model, N = 4*d_model";
  r.bytes_formula = "(M*K + K*N + M*N)*e";
  return r;
}

AnalyticResult gelu_model(const Shape& s) {
  const double n = static_cast<double>(s.tokens()) * 4.0 * static_cast<double>(s.d_model());
  const double e = dtype_size_bytes(s.dtype);
  const bool erf_form = s.gelu_form == GeluForm::kErf;
  AnalyticResult r;
  r.flop = (erf_form ? 4.0 : 8.0) * n;
  r.min_dram_bytes = 2.0 * n * e;
  r.implemented_dram_bytes = r.min_dram_bytes;
  r.flop_formula = erf_form ? "4*N, N = B*L*4*d_model (erf itself not counted)"
                            : "8*N, N = B*L*4*d_model (tanh itself not counted)";
  r.bytes_formula = "2*N*e";
  return r;
}

AnalyticResult layernorm_model(const Shape& s) {
  const double n = static_cast<double>(s.tokens()) * static_cast<double>(s.d_model());
  const double e = dtype_size_bytes(s.dtype);
  AnalyticResult r;
  r.flop = 8.0 * n;
  r.min_dram_bytes = 2.0 * n * e + 2.0 * static_cast<double>(s.d_model()) * e;
  r.implemented_dram_bytes = r.min_dram_bytes;
  r.flop_formula = "8*N, N = B*L*d_model";
  r.bytes_formula = "2*N*e + 2*d_model*e (x, y, gamma, beta)";
  return r;
}

AnalyticResult decode_attention_model(const Shape& s) {
  const double b = s.batch, h = s.heads, hkv = s.kv_heads, l = s.seq_len, d = s.head_dim;
  const double e = dtype_size_bytes(s.dtype);
  AnalyticResult r;
  r.flop = 4.0 * b * h * l * d;
  r.min_dram_bytes = 2.0 * b * hkv * l * d * e + 2.0 * b * h * d * e;
  r.implemented_dram_bytes = r.min_dram_bytes;
  r.flop_formula = "4*B*H*L*d";
  r.bytes_formula = "2*B*H_kv*L*d*e (KV cache) + 2*B*H*d*e (q, o)";
  return r;
}

}  // namespace

AnalyticResult analytic_model(const std::string& op, const Shape& shape) {
  if (op == "naive_attention") return naive_attention_model(shape);
  if (op == "flash_attention") return flash_attention_model(shape);
  if (op == "gemm") return gemm_model(shape);
  if (op == "gelu") return gelu_model(shape);
  if (op == "layernorm") return layernorm_model(shape);
  if (op == "decode_attention") return decode_attention_model(shape);
  throw bad_input(fmt::format("no analytic model for operator '{}'", op));
}

double tokens_per_second(const std::string& op, const Shape& shape, double time_s) {
  if (!(time_s > 0)) throw bad_input(fmt::format("invalid time {} s: must be > 0", time_s));
  const double tokens = op == "decode_attention" ? static_cast<double>(shape.batch)
                                                 : static_cast<double>(shape.tokens());
  return tokens / time_s;
}

}  // namespace rooflinectl
