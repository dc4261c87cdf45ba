#include "core/shape.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <optional>

#include "core/error.hpp"

namespace rooflinectl {

std::string to_string(Dtype dtype) { return dtype == Dtype::kBf16 ? "bf16" : "fp16"; }

std::string to_string(GeluForm form) { return form == GeluForm::kErf ? "erf" : "tanh"; }

std::string to_string(KvLayout layout) {
  return layout == KvLayout::kContiguous ? "contiguous" : "paged";
}

std::string to_string(KvDtype kv_dtype) { return kv_dtype == KvDtype::kAuto ? "auto" : "fp8_e4m3"; }

std::string kv_dtype_label(const Shape& s) {
  return s.kv_dtype == KvDtype::kFp8E4m3 ? "kv=" + to_string(s.kv_dtype) : std::string();
}

std::string to_string(GemmDtype gemm_dtype) {
  return gemm_dtype == GemmDtype::kAuto ? "auto" : "fp8_e4m3";
}

std::string gemm_dtype_label(const Shape& s) {
  return s.gemm_dtype == GemmDtype::kFp8E4m3 ? "in=" + to_string(s.gemm_dtype) : std::string();
}

std::string kv_layout_label(const Shape& s) {
  return s.kv_layout == KvLayout::kPaged ? fmt::format("paged/{}", s.page_size) : std::string();
}

std::string gemm_dims_label(const Shape& s) {
  if (s.gemm_n == 0 && s.gemm_k == 0) return std::string();
  const GemmDims d = s.gemm_dims();
  return fmt::format("N={} K={}", d.n, d.k);
}

std::string q_len_label(const Shape& s) {
  return s.q_len != 0 ? fmt::format("q={}", s.q_len) : std::string();
}

std::string layer_widths_label(const Shape& s) {
  std::string out;
  if (s.hidden != 0) out = fmt::format("hidden={}", s.hidden);
  if (s.ffn_dim != 0) out += fmt::format("{}ffn={}", out.empty() ? "" : " ", s.ffn_dim);
  return out;
}

Dtype parse_dtype(std::string_view text) {
  if (text == "bf16") return Dtype::kBf16;
  if (text == "fp16") return Dtype::kFp16;
  throw bad_input(fmt::format("invalid dtype '{}': allowed bf16, fp16", text));
}

GeluForm parse_gelu_form(std::string_view text) {
  if (text == "erf") return GeluForm::kErf;
  if (text == "tanh") return GeluForm::kTanh;
  throw bad_input(fmt::format("invalid GELU form '{}': allowed erf, tanh", text));
}

KvLayout parse_kv_layout(std::string_view text) {
  if (text == "contiguous") return KvLayout::kContiguous;
  if (text == "paged") return KvLayout::kPaged;
  throw bad_input(
      fmt::format("invalid KV layout '{}' (--kv-layout): allowed contiguous, paged", text));
}

KvDtype parse_kv_dtype(std::string_view text) {
  if (text == "auto") return KvDtype::kAuto;
  if (text == "fp8_e4m3") return KvDtype::kFp8E4m3;
  throw bad_input(fmt::format(
      "invalid KV dtype '{}' (--kv-dtype): allowed auto (the --dtype), fp8_e4m3", text));
}

GemmDtype parse_gemm_dtype(std::string_view text) {
  if (text == "auto") return GemmDtype::kAuto;
  if (text == "fp8_e4m3") return GemmDtype::kFp8E4m3;
  throw bad_input(fmt::format(
      "invalid gemm dtype '{}' (--gemm-dtype): allowed auto (the --dtype), fp8_e4m3", text));
}

void validate_kv_layout(const Shape& s) {
  if (s.kv_layout == KvLayout::kContiguous) {
    if (s.page_size != 0) {
      throw bad_input(
          fmt::format("invalid page size {} (--page-size): needs --kv-layout paged (the KV cache "
                      "is contiguous)",
                      s.page_size));
    }
    return;
  }
  if (std::find(std::begin(kKvPageSizes), std::end(kKvPageSizes), s.page_size) ==
      std::end(kKvPageSizes)) {
    throw bad_input(fmt::format("invalid page size {} (--page-size): allowed {}", s.page_size,
                                fmt::join(kKvPageSizes, ", ")));
  }
}

namespace {

/// Product of positive `factors`, or nullopt when it exceeds kMaxTensorElements (checked factor
/// by factor, so the product itself never overflows).
std::optional<int64_t> bounded_product(std::initializer_list<int64_t> factors) {
  int64_t product = 1;
  for (const int64_t factor : factors) {
    if (__builtin_mul_overflow(product, factor, &product) || product > kMaxTensorElements) {
      return std::nullopt;
    }
  }
  return product;
}

void check_tensor_size(const char* formula, const std::string& values,
                       std::initializer_list<int64_t> factors,
                       const char* remedy = "lower batch, heads, head-dim or seq_len") {
  if (!bounded_product(factors)) {
    throw bad_input(fmt::format(
        "invalid shape: {} = {} exceeds {} elements (2^50; sizes are computed in 64-bit "
        "integers): {}",
        formula, values, kMaxTensorElements, remedy));
  }
}

}  // namespace

void validate_gemm_dims(const Shape& s) {
  const auto check = [](const char* name, int64_t v, const char* default_text) {
    if (v < 0 || v % 8 != 0) {
      throw bad_input(fmt::format(
          "invalid {} {} (--{}): allowed 0 ({}) or a positive multiple of 8 (16-byte rows of W "
          "and C for cp.async and TMA)",
          name, v, name, default_text));
    }
  };
  check("gemm-n", s.gemm_n, "N = d_ff, the FFN width");
  check("gemm-k", s.gemm_k, "K = d_model");
  if (s.gemm_n == 0 && s.gemm_k == 0) return;  // the FFN shapes validate_common_shape bounds
  const GemmDims d = s.gemm_dims();
  check_tensor_size("K × N (GEMM W)", fmt::format("{} × {}", d.k, d.n), {d.k, d.n},
                    "lower --gemm-k or --gemm-n");
  check_tensor_size("M × K (GEMM X, M = batch × seq_len)",
                    fmt::format("{} × {} × {}", s.batch, s.seq_len, d.k), {s.batch, s.seq_len, d.k},
                    "lower batch, seq_len or --gemm-k");
  check_tensor_size("M × N (GEMM C, M = batch × seq_len)",
                    fmt::format("{} × {} × {}", s.batch, s.seq_len, d.n), {s.batch, s.seq_len, d.n},
                    "lower batch, seq_len or --gemm-n");
}

void validate_layer_widths(const Shape& s) {
  const auto check = [](const char* name, const char* flag, int64_t v, const char* default_text) {
    if (v < 0) {
      throw bad_input(fmt::format("invalid {} {} ({}): allowed 0 ({}) or a positive integer", name,
                                  v, flag, default_text));
    }
  };
  check("hidden", "--hidden", s.hidden, "d_model = heads·head_dim");
  check("ffn-dim", "--ffn-dim", s.ffn_dim, "ffn_dim = 4·d_model");
}

void validate_query_len(const Shape& s) {
  if (s.q_len < 0 || s.q_len > s.seq_len) {
    throw bad_input(fmt::format(
        "invalid q-len {} (--q-len): allowed L (or 0) or 1 to L = {} (the query chunk is part of "
        "the L keys it attends to)",
        s.q_len, s.seq_len));
  }
}

bool settle_query_len(Shape& s, int64_t seq_len) {
  s.seq_len = seq_len;
  if (s.q_len > seq_len) return false;
  if (s.q_len == seq_len) s.q_len = 0;
  return true;
}

void check_positive_axis(const char* name, const char* flag, int64_t v) {
  // `flag` is where the value comes from on the command line (the config file uses the name).
  if (v <= 0) {
    throw bad_input(
        fmt::format("invalid {} {} ({}): must be a positive integer (1 and up)", name, v, flag));
  }
}

void check_head_dim_axis(int64_t head_dim) {
  if (head_dim <= 0) {
    throw bad_input(fmt::format(
        "invalid head-dim {} (--head-dim): must be a positive integer; flash_attention and "
        "decode_attention run 64, 96, 128 or 256, naive_attention any multiple of 8",
        head_dim));
  }
}

void validate_common_shape(const Shape& s) {
  check_positive_axis("batch", "--batch", s.batch);
  check_positive_axis("heads", "--heads", s.heads);
  check_positive_axis("kv-heads", "--kv-heads", s.kv_heads);
  check_head_dim_axis(s.head_dim);
  check_positive_axis("seq_len", "--seq", s.seq_len);
  validate_query_len(s);
  validate_kv_layout(s);
  if (s.heads % s.kv_heads != 0) {
    throw bad_input(fmt::format(
        "invalid kv-heads {} (--kv-heads): heads ({}) must be a multiple of kv-heads (GQA group "
        "size H/H_kv)",
        s.kv_heads, s.heads));
  }
  // Every element count an operator derives (kernels/*.cu device_bytes and launch sizes) is one
  // of these products or smaller, or S/P (validate_score_matrix_size); K and V are bounded by Q
  // because kv-heads divides heads.
  const std::string b_h_l = fmt::format("{} × {} × {}", s.batch, s.heads, s.seq_len);
  check_tensor_size("batch × heads × seq_len × head-dim (Q, O)",
                    fmt::format("{} × {}", b_h_l, s.head_dim),
                    {s.batch, s.heads, s.seq_len, s.head_dim});
  validate_layer_widths(s);
  // Norm rows first: they bound d_model by 2^50, so ffn_width()'s 4·d_model cannot overflow. The
  // messages name the values given: heads × head-dim where hidden is not set, 4 × d_model where
  // ffn_dim is not.
  const std::string d_model =
      s.hidden != 0 ? std::to_string(s.hidden) : fmt::format("({} × {})", s.heads, s.head_dim);
  const std::string ffn =
      s.ffn_dim != 0 ? std::to_string(s.ffn_dim) : fmt::format("4 × {}", d_model);
  check_tensor_size("batch × seq_len × d_model (norm rows)",
                    fmt::format("{} × {} × {}", s.batch, s.seq_len, d_model),
                    {s.batch, s.seq_len, s.d_model()});
  check_tensor_size("d_model × ffn_dim (FFN weight)", fmt::format("{} × {}", d_model, ffn),
                    {s.d_model(), s.ffn_width()});
  check_tensor_size("batch × seq_len × ffn_dim (FFN activation)",
                    fmt::format("{} × {} × {}", s.batch, s.seq_len, ffn),
                    {s.batch, s.seq_len, s.ffn_width()});
  validate_gemm_dims(s);  // after the checks that bound d_model and d_ff, its default K and N
}

void validate_gated_ffn_size(const Shape& s) {
  const std::string ffn = s.ffn_dim != 0  ? std::to_string(s.ffn_dim)
                          : s.hidden != 0 ? fmt::format("4 × {}", s.hidden)
                                          : fmt::format("4 × {} × {}", s.heads, s.head_dim);
  check_tensor_size("batch × seq_len × 2 × ffn_dim (gated FFN input: gate and up)",
                    fmt::format("{} × {} × 2 × {}", s.batch, s.seq_len, ffn),
                    {s.batch, s.seq_len, 2, s.ffn_width()});
}

void validate_score_matrix_size(const Shape& s) {
  check_tensor_size(s.q_len != 0 ? "batch × heads × q_len × seq_len (attention scores S, P)"
                                 : "batch × heads × seq_len² (attention scores S, P)",
                    fmt::format("{} × {} × {} × {}", s.batch, s.heads, s.query_len(), s.seq_len),
                    {s.batch, s.heads, s.query_len(), s.seq_len});
}

}  // namespace rooflinectl
