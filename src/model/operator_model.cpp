#include "model/operator_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/operator_names.hpp"

namespace rooflinectl {

double attention_pairs(int64_t q_len, int64_t kv_len, bool causal) {
  const double q = static_cast<double>(q_len), k = static_cast<double>(kv_len);
  if (!causal) return q * k;
  return q <= k ? q * k - q * (q - 1.0) / 2.0 : k * (k + 1.0) / 2.0;
}

AnalyticResult gemm_analytic(int64_t m, int64_t n, int64_t k, Dtype dtype,
                             const std::string& dims_text) {
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  const double kd = static_cast<double>(k);
  const double e = dtype_size_bytes(dtype);
  AnalyticResult r;
  r.flop = 2.0 * md * nd * kd;
  r.min_dram_bytes = (md * kd + kd * nd + md * nd) * e;
  r.implemented_dram_bytes = r.min_dram_bytes;
  r.flop_formula = "2*M*N*K, " + dims_text;
  r.bytes_formula = "(M*K + K*N + M*N)*e";
  return r;
}

double gemm_fp8_min_dram_bytes(int64_t m, int64_t n, int64_t k, Dtype out_dtype) {
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  const double kd = static_cast<double>(k);
  return md * kd + nd * kd + md * nd * dtype_size_bytes(out_dtype) + 8.0;
}

double gemm_skinny_partial_bytes(const std::string& version, int64_t m, int64_t n, int64_t k) {
  if (m > kGemmSkinnyMaxRows) return 0;
  const bool v6 = version == kGemmSkinnyWgmmaVersionName;
  if (!v6 && version != kGemmSkinnyVersionName) return 0;
  const GemmSplitK split = v6 ? gemm_skinny_wgmma_split(m, n, k) : gemm_skinny_split(m, n, k);
  if (split.splits == 1) return 0;  // one split writes C directly
  return 2.0 * static_cast<double>(split.splits) * static_cast<double>(m) * static_cast<double>(n) *
         4.0;
}

double gemm_skinny_partial_bytes(int64_t m, int64_t n, int64_t k) {
  return std::max(gemm_skinny_partial_bytes(kGemmSkinnyVersionName, m, n, k),
                  gemm_skinny_partial_bytes(kGemmSkinnyWgmmaVersionName, m, n, k));
}

BlockTableBytes decode_block_table_bytes(const Shape& s) {
  if (s.kv_layout != KvLayout::kPaged) return {};
  const double entries =
      static_cast<double>(s.batch) * static_cast<double>(s.kv_pages_per_sequence()) * 4.0;
  const double readers = static_cast<double>(s.kv_heads) *
                         static_cast<double>(decode_head_chunks(s.group_size(), s.head_dim));
  return {entries, entries * readers};
}

KvScaleBytes decode_kv_scale_bytes(const Shape& s) {
  if (s.kv_dtype != KvDtype::kFp8E4m3) return {};
  const double scales = 2.0 * static_cast<double>(s.kv_heads) * 4.0;
  const double readers = static_cast<double>(s.batch) *
                         static_cast<double>(decode_head_chunks(s.group_size(), s.head_dim));
  return {scales, scales * readers};
}

namespace {

AnalyticResult naive_attention_model(const Shape& s) {
  const double b = s.batch, h = s.heads, hkv = s.kv_heads, l = s.seq_len, d = s.head_dim;
  const double lq = static_cast<double>(s.query_len());
  const double e = dtype_size_bytes(s.dtype);
  AnalyticResult r;
  r.flop = 4.0 * b * h * lq * l * d;
  r.min_dram_bytes = (2.0 * b * h * lq + 2.0 * b * hkv * l) * d * e;
  r.implemented_dram_bytes = r.min_dram_bytes + 4.0 * b * h * lq * l * e;
  if (s.q_len == 0) {
    r.flop_formula = "4*B*H*L^2*d (all pairs: cuBLAS computes masked entries too)";
    r.bytes_formula =
        "min (2*B*H + 2*B*H_kv)*L*d*e; implemented + 4*B*H*L^2*e (S and P written and read once)";
    return r;
  }
  r.flop_formula = "4*B*H*L_q*L*d (all pairs: cuBLAS computes masked entries too)";
  r.bytes_formula =
      "min (2*B*H*L_q + 2*B*H_kv*L)*d*e; implemented + 4*B*H*L_q*L*e (S and P, L_q x L, written "
      "and read once)";
  return r;
}

AnalyticResult flash_attention_model(const Shape& s) {
  const double b = s.batch, h = s.heads, hkv = s.kv_heads, l = s.seq_len, d = s.head_dim;
  const double lq = static_cast<double>(s.query_len());
  const double e = dtype_size_bytes(s.dtype);
  const double pairs = attention_pairs(s.query_len(), s.seq_len, s.causal);
  AnalyticResult r;
  r.flop = 4.0 * b * h * d * pairs;
  const double lse_bytes = 4.0 * b * h * lq;
  r.min_dram_bytes = (2.0 * b * h * lq + 2.0 * b * hkv * l) * d * e + lse_bytes;
  // Each query tile of a query head streams K and V of its KV head up to the tile's last key.
  // Br is flash_attention_v2_mma_sync's, the version that runs everywhere (this model does not
  // know the device). flash_attention_v3_wgmma_tma (compute capability 9.0, every head_dim)
  // streams K and V once per kFlashWgmmaQueryTileRows = 128 rows: the same count at d = 64, 96
  // and 128, and half of v2's re-reads at d = 256 (v2's Br is 64 there), so these bytes stay an
  // upper bound for v3, looser by those re-reads.
  const int64_t br = flash_query_tile_rows(s.head_dim);
  r.implemented_dram_bytes =
      2.0 * b * h * lq * d * e + lse_bytes +
      2.0 * b * h * d * e * flash_streamed_keys(s.query_len(), s.seq_len, s.causal, br);
  // Said where the two versions' tiles differ (d = 256), so a reader of the formula sees it.
  const std::string v3_note =
      br != kFlashWgmmaQueryTileRows && s.head_dim == 256
          ? fmt::format(
                "; Br = {} is flash_attention_v2_mma_sync's: v3 (compute capability 9.0) "
                "streams K and V once per {} rows, half these re-reads",
                br, kFlashWgmmaQueryTileRows)
          : std::string();
  if (s.q_len == 0) {
    r.flop_formula =
        s.causal ? "4*B*H*d*L*(L+1)/2 (visible pairs, bottom-right causal mask)" : "4*B*H*L^2*d";
    r.bytes_formula = fmt::format(
        "min (2*B*H + 2*B*H_kv)*L*d*e + 4*B*H*L (LSE); implemented without L2 reuse "
        "2*B*H*L*d*e + 4*B*H*L + 2*B*H*d*e*sum_t key_end_t over query tiles of {} rows "
        "(key_end_t = {})",
        br,
        s.causal ? fmt::format("min(L, (t+1)*{})", br)
                 : fmt::format("L, i.e. ceil(L/{})*L keys", br));
    r.bytes_formula += v3_note;
    return r;
  }
  r.flop_formula = s.causal ? "4*B*H*d*(L_q*L - L_q*(L_q-1)/2) (visible pairs, bottom-right "
                              "causal mask: query i sees keys up to i + L - L_q)"
                            : "4*B*H*L_q*L*d";
  r.bytes_formula = fmt::format(
      "min (2*B*H*L_q + 2*B*H_kv*L)*d*e + 4*B*H*L_q (LSE); implemented without L2 reuse "
      "2*B*H*L_q*d*e + 4*B*H*L_q + 2*B*H*d*e*sum_t key_end_t over query tiles of {} rows "
      "(key_end_t = {})",
      br,
      s.causal ? fmt::format("min((t+1)*{}, L_q) + L - L_q", br)
               : fmt::format("L, i.e. ceil(L_q/{})*L keys", br));
  r.bytes_formula += v3_note;
  return r;
}

// The FFN width as the formulas name it: "4*d_model" at the sweep kernels' default widths, else
// "ffn_dim" (a preset's, or the shape's --ffn-dim; the two differ for every published model with a
// gated FFN).
std::string ffn_width_name(const Shape& s, const LayerWidths& w) {
  return s.ffn_dim == 0 && w.ffn_dim == 4 * w.d_model && w.d_model == s.d_model() ? "4*d_model"
                                                                                  : "ffn_dim";
}

// Explicit dims (--gemm-n, --gemm-k) beat the widths; the default is the FFN up projection.
AnalyticResult gemm_model(const Shape& s, const LayerWidths& w) {
  const int64_t m = s.tokens();
  const int64_t n = s.gemm_n != 0 ? s.gemm_n : w.ffn_dim;
  const int64_t k = s.gemm_k != 0 ? s.gemm_k : w.d_model;
  AnalyticResult r =
      gemm_analytic(m, n, k, s.dtype,
                    fmt::format("M = B*L, K = {}, N = {}", s.gemm_k != 0 ? "gemm_k" : "d_model",
                                s.gemm_n != 0 ? "gemm_n" : ffn_width_name(s, w)));
  if (s.gemm_dtype == GemmDtype::kFp8E4m3) {
    // gemm_fp8_v1_wgmma (every M): one-byte X and W, C in the dtype, the two fp32 scales.
    r.min_dram_bytes = gemm_fp8_min_dram_bytes(m, n, k, s.dtype);
    r.implemented_dram_bytes = r.min_dram_bytes;
    r.bytes_formula = "M*K*1 + N*K*1 + M*N*e + 8 (E4M3 X and W, fp32 scale_x and scale_w)";
    return r;
  }
  if (const double partials = gemm_skinny_partial_bytes(m, n, k); partials > 0) {
    const int64_t v4 = gemm_skinny_split(m, n, k).splits;
    const int64_t v6 = gemm_skinny_wgmma_split(m, n, k).splits;
    r.implemented_dram_bytes += partials;
    r.bytes_formula += fmt::format(
        "; implemented at M <= {} + 2*S*M*N*4 (fp32 partials of S K splits written and read "
        "back; S = {}, the larger of the default's split on sm_90, gemm_v6_skinny_wgmma: {}, and "
        "elsewhere, gemm_v4_skinny_splitk: {})",
        kGemmSkinnyMaxRows, std::max(v4, v6), v6, v4);
  }
  return r;
}

AnalyticResult gelu_model(const Shape& s, const LayerWidths& w) {
  const double n = static_cast<double>(s.tokens()) * static_cast<double>(w.ffn_dim);
  const double e = dtype_size_bytes(s.dtype);
  const bool erf_form = s.gelu_form == GeluForm::kErf;
  AnalyticResult r;
  r.flop = (erf_form ? 4.0 : 8.0) * n;
  r.min_dram_bytes = 2.0 * n * e;
  r.implemented_dram_bytes = r.min_dram_bytes;
  r.flop_formula = fmt::format("{}*N, N = B*L*{} ({} itself not counted)", erf_form ? 4 : 8,
                               ffn_width_name(s, w), erf_form ? "erf" : "tanh");
  r.bytes_formula = "2*N*e";
  return r;
}

AnalyticResult layernorm_model(const Shape& s, const LayerWidths& w) {
  const double n = static_cast<double>(s.tokens()) * static_cast<double>(w.d_model);
  const double e = dtype_size_bytes(s.dtype);
  AnalyticResult r;
  r.flop = 8.0 * n;
  r.min_dram_bytes = 2.0 * n * e + 2.0 * static_cast<double>(w.d_model) * e;
  r.implemented_dram_bytes = r.min_dram_bytes;
  r.flop_formula = "8*N, N = B*L*d_model";
  r.bytes_formula = "2*N*e + 2*d_model*e (x, y, gamma, beta)";
  return r;
}

// RMSNorm (Zhang & Sennrich 2019, "Root Mean Square Layer Normalization", eq. 4: y = x / RMS(x)
// · g, RMS(x) = sqrt(mean(x²) + ε)), counted as layernorm_model counts LayerNorm: square-accumulate
// 2, normalize 1, scale by g 1 → 4 FLOP per element (the per-row rsqrt not counted); x read and y
// written once, g read once.
AnalyticResult rmsnorm_model(const Shape& s, const LayerWidths& w) {
  const double n = static_cast<double>(s.tokens()) * static_cast<double>(w.d_model);
  const double e = dtype_size_bytes(s.dtype);
  AnalyticResult r;
  r.flop = 4.0 * n;
  r.min_dram_bytes = 2.0 * n * e + static_cast<double>(w.d_model) * e;
  r.implemented_dram_bytes = r.min_dram_bytes;
  r.flop_formula = "4*N, N = B*L*d_model (square-accumulate 2, normalize 1, scale by gamma 1)";
  r.bytes_formula = "2*N*e + d_model*e (x, y, gamma)";
  return r;
}

// FLOPs per output element of the gated step act(gate)·up (Shazeer 2020, "GLU Variants Improve
// Transformer", eqs. 5-6: FFN_SwiGLU and FFN_GEGLU before the down projection), counted as
// gelu_model counts GELU (the arithmetic around the special function, not the function): SiLU
// x·σ(x) = x / (1 + exp(−x)) is 1 add, 1 divide and 1 multiply, so SwiGLU = 3 + 1 (the product)
// = 4; GeGLU = GELU's 4 (erf form) or 8 (tanh form) + 1 = 5 or 9.
int gated_flop_per_element(const std::string& op, GeluForm form) {
  if (op == kSwigluOp) return 4;
  return form == GeluForm::kErf ? 5 : 9;
}

// SwiGLU or GeGLU (`op`) over N = B·L·ffn_dim outputs: gate and up read (2·N), the output written
// (N), 3·N·e bytes.
AnalyticResult gated_activation_model(const std::string& op, const Shape& s, const LayerWidths& w) {
  const double n = static_cast<double>(s.tokens()) * static_cast<double>(w.ffn_dim);
  const double e = dtype_size_bytes(s.dtype);
  const int per_element = gated_flop_per_element(op, s.gelu_form);
  const bool swiglu = op == kSwigluOp;
  AnalyticResult r;
  r.flop = per_element * n;
  r.min_dram_bytes = 3.0 * n * e;
  r.implemented_dram_bytes = r.min_dram_bytes;
  r.flop_formula = fmt::format("{}*N, N = B*L*{} ({} then the product; {} itself not counted)",
                               per_element, ffn_width_name(s, w), swiglu ? "SiLU" : "GELU",
                               swiglu ? "exp" : (s.gelu_form == GeluForm::kErf ? "erf" : "tanh"));
  r.bytes_formula = "3*N*e (gate and up read, output written)";
  return r;
}

AnalyticResult decode_attention_model(const Shape& s) {
  const double b = s.batch, h = s.heads, hkv = s.kv_heads, l = s.seq_len, d = s.head_dim;
  const double e = dtype_size_bytes(s.dtype);
  const double e_kv = kv_element_bytes(s);
  const BlockTableBytes table = decode_block_table_bytes(s);
  const KvScaleBytes scales = decode_kv_scale_bytes(s);
  AnalyticResult r;
  r.flop = 4.0 * b * h * l * d;
  const double kv_and_qo = 2.0 * b * hkv * l * d * e_kv + 2.0 * b * h * d * e;
  r.min_dram_bytes = kv_and_qo + table.min_bytes + scales.min_bytes;
  r.implemented_dram_bytes = kv_and_qo + table.implemented_bytes + scales.implemented_bytes;
  r.flop_formula = s.kv_dtype == KvDtype::kFp8E4m3
                       ? "4*B*H*L*d (dequantizing the fp8 KV cache not counted)"
                       : "4*B*H*L*d";
  const std::string chunks = std::to_string(decode_head_chunks(s.group_size(), s.head_dim));
  const std::string kv = s.kv_dtype == KvDtype::kFp8E4m3
                             ? "2*B*H_kv*L*d*1 (fp8_e4m3 KV cache) + 2*B*H*d*e (q, o) + K and V "
                               "scales min 8*H_kv, implemented 8*B*H_kv*" +
                                   chunks + " (once per sequence, KV head and head chunk)"
                             : "2*B*H_kv*L*d*e (KV cache) + 2*B*H*d*e (q, o)";
  if (s.kv_layout == KvLayout::kPaged) {
    r.bytes_formula = fmt::format(
        "paged KV cache, {}-position pages: {} + block table min 4*B*ceil(L/{}), implemented "
        "4*B*H_kv*{}*ceil(L/{}) (once per KV head and head chunk)",
        s.page_size, kv, s.page_size, chunks, s.page_size);
  } else {
    r.bytes_formula = "contiguous KV cache: " + kv;
  }
  return r;
}

}  // namespace

AnalyticResult analytic_model(const std::string& op, const Shape& shape) {
  return analytic_model(op, shape, kernel_layer_widths(shape));
}

AnalyticResult analytic_model(const std::string& op, const Shape& shape,
                              const LayerWidths& widths) {
  if (op == kNaiveAttentionOp) return naive_attention_model(shape);
  if (op == kFlashAttentionOp) return flash_attention_model(shape);
  if (op == kGemmOp) return gemm_model(shape, widths);
  if (op == kGeluOp) return gelu_model(shape, widths);
  if (op == kLayernormOp) return layernorm_model(shape, widths);
  if (op == kDecodeAttentionOp) return decode_attention_model(shape);
  if (op == kRmsnormOp) return rmsnorm_model(shape, widths);
  if (op == kSwigluOp || op == kGegluOp) return gated_activation_model(op, shape, widths);
  throw bad_input(fmt::format("no analytic model for operator '{}'", op));
}

double min_dram_write_bytes(const std::string& op, const Shape& s) {
  const double e = dtype_size_bytes(s.dtype);
  const double b = s.batch, h = s.heads, d = s.head_dim;
  const double tokens = static_cast<double>(s.tokens());
  const double d_model = static_cast<double>(s.d_model());
  const double lq = static_cast<double>(s.query_len());  // O (and the LSE) have L_q rows
  if (op == kNaiveAttentionOp) return b * h * lq * d * e;
  if (op == kFlashAttentionOp) return b * h * lq * d * e + 4.0 * b * h * lq;
  if (op == kGemmOp) return tokens * static_cast<double>(s.gemm_dims().n) * e;
  const double ffn = static_cast<double>(s.ffn_width());
  if (op == kGeluOp) return tokens * ffn * e;
  if (op == kLayernormOp) return tokens * d_model * e;
  if (op == kDecodeAttentionOp) return b * h * d * e;
  if (op == kRmsnormOp) return tokens * d_model * e;
  if (op == kSwigluOp || op == kGegluOp) return tokens * ffn * e;
  throw bad_input(fmt::format("no analytic model for operator '{}'", op));
}

namespace {

/// The last key (exclusive) that query rows [0, row_end) see under the bottom-right causal mask:
/// row i sees keys up to i + L_k − L_q, clamped to [0, L_k] (the kernels' key_end).
int64_t causal_key_end(int64_t row_end, int64_t q_len, int64_t kv_len) {
  return std::clamp<int64_t>(std::min(row_end, q_len) + kv_len - q_len, 0, kv_len);
}

}  // namespace

double flash_streamed_keys(int64_t q_len, int64_t kv_len, bool causal, int64_t query_tile_rows) {
  if (q_len <= 0 || kv_len <= 0 || query_tile_rows <= 0) {
    throw bad_input(
        fmt::format("invalid flash tiling: L_q = {}, L_k = {}, Br = {} (all must be > 0)", q_len,
                    kv_len, query_tile_rows));
  }
  const int64_t tiles = (q_len + query_tile_rows - 1) / query_tile_rows;
  if (!causal) return static_cast<double>(tiles) * static_cast<double>(kv_len);
  double keys = 0;
  for (int64_t t = 0; t < tiles; ++t) {
    keys += static_cast<double>(causal_key_end((t + 1) * query_tile_rows, q_len, kv_len));
  }
  return keys;
}

double flash_computed_pairs(int64_t q_len, int64_t kv_len, int64_t head_dim, bool causal) {
  const int64_t cols = flash_key_tile_cols(head_dim);
  const int64_t br = flash_query_tile_rows(head_dim);
  const int64_t warp_rows = flash_warp_rows(head_dim);
  const int64_t warps = (q_len + br - 1) / br * kFlashWarps;
  double pairs = 0;
  for (int64_t w = 0; w < warps; ++w) {
    const int64_t key_end = causal ? causal_key_end((w + 1) * warp_rows, q_len, kv_len) : kv_len;
    const int64_t key_tiles = (key_end + cols - 1) / cols;
    pairs += static_cast<double>(warp_rows * key_tiles * cols);
  }
  return pairs;
}

double flash_wgmma_computed_pairs(int64_t q_len, int64_t kv_len, int64_t head_dim, bool causal) {
  const int64_t rows = kFlashWgmmaQueryTileRows, cols = flash_wgmma_key_tile_cols(head_dim);
  const int64_t tiles = (q_len + rows - 1) / rows;
  double pairs = 0;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t key_end = causal ? causal_key_end((t + 1) * rows, q_len, kv_len) : kv_len;
    pairs += static_cast<double>(rows * ((key_end + cols - 1) / cols) * cols);
  }
  return pairs;
}

std::optional<double> shared_memory_per_sm_bytes(int cc_major, int cc_minor) {
  constexpr double kKiB = 1024.0;
  if (cc_major == 8 && cc_minor == 0) return 164 * kKiB;
  if (cc_major == 8 && (cc_minor == 6 || cc_minor == 9)) return 100 * kKiB;
  if (cc_major == 9 && cc_minor == 0) return 228 * kKiB;
  if (cc_major == 10 && cc_minor == 0) return 228 * kKiB;
  if (cc_major == 12 && cc_minor == 0) return 100 * kKiB;
  return std::nullopt;
}

FlashIoBound flash_io_bound(const Shape& s, double sram_bytes) {
  if (!(sram_bytes > 0)) {
    throw bad_input(fmt::format("invalid SRAM size {} bytes: must be > 0", sram_bytes));
  }
  const double b = s.batch, h = s.heads, l = s.seq_len, d = s.head_dim;
  const double lq = static_cast<double>(s.query_len());
  const double e = dtype_size_bytes(s.dtype);
  const double q_o_lse = 2.0 * b * h * lq * d * e + 4.0 * b * h * lq;
  const double sram_elements = sram_bytes / e;
  FlashIoBound r;
  r.sram_bytes = sram_bytes;
  // FlashAttention Algorithm 1, line 1: Bc = ceil(M/4d), Br = min(ceil(M/4d), d).
  r.paper_query_tile_rows =
      std::min(static_cast<int64_t>(std::ceil(sram_elements / (4.0 * d))), s.head_dim);
  r.paper_io_bytes = q_o_lse + 2.0 * b * h * d * e *
                                   flash_streamed_keys(s.query_len(), s.seq_len, s.causal,
                                                       r.paper_query_tile_rows);
  r.kernel_query_tile_rows = flash_query_tile_rows(s.head_dim);
  r.kernel_key_tile_cols = flash_key_tile_cols(s.head_dim);
  r.kernel_io_bytes = q_o_lse + 2.0 * b * h * d * e *
                                    flash_streamed_keys(s.query_len(), s.seq_len, s.causal,
                                                        r.kernel_query_tile_rows);
  r.theta_bytes = b * h * lq * l * d * d / sram_elements * e;
  return r;
}

GemmBlockTile gemm_block_tile(const std::string& version, int64_t m) {
  // gemm_fp8_v1_wgmma is v3's kernel over E4M3 inputs: the same 128 × 256 block tile.
  if (version == "gemm_v2_wgmma_tma" || version == "gemm_v3_wgmma_multicast" ||
      version == "gemm_fp8_v1_wgmma") {
    return kGemmWgmmaTile;
  }
  if (version == kGemmWgmmaN128VersionName) return kGemmWgmmaN128Tile;
  if (version == kGemmWgmmaN192VersionName) return kGemmWgmmaN192Tile;
  if (version == kGemmSkinnyVersionName) return gemm_skinny_tile(m);
  if (version == kGemmSkinnyWgmmaVersionName) return gemm_skinny_wgmma_tile(m);
  return kGemmMmaSyncTile;
}

double gemm_no_reuse_read_bytes(const Shape& s, const GemmBlockTile& tile) {
  const auto [m, n, k] = s.gemm_dims();
  const double col_blocks = static_cast<double>((n + tile.cols - 1) / tile.cols);
  const double row_blocks = static_cast<double>((m + tile.rows - 1) / tile.rows);
  const double e = gemm_input_element_bytes(s);  // X and W: 1 byte each for FP8 inputs
  return (col_blocks * static_cast<double>(m * k) + row_blocks * static_cast<double>(k * n)) * e;
}

}  // namespace rooflinectl
