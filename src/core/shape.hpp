// The problem shape of one sweep point and the enums it uses. Plain data, no CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rooflinectl {

/// Element type of every operator input and output (accumulation is always fp32).
enum class Dtype { kBf16, kFp16 };

/// GELU variant: exact erf form (PyTorch's default) or the tanh approximation
/// (Hendrycks & Gimpel 2016, eq. in §2).
enum class GeluForm { kErf, kTanh };

/// Layout of decode attention's KV cache: one contiguous [batch, kv_heads, seq_len, head_dim]
/// tensor each for K and V, or fixed-size pages of `page_size` positions reached through a
/// per-sequence block table (PagedAttention, Kwon et al. 2023, "Efficient Memory Management for
/// Large Language Model Serving with PagedAttention"). Other operators are contiguous only.
enum class KvLayout { kContiguous, kPaged };

/// Page sizes (KV positions per page) the paged layout allows: powers of two from 16 to 128.
inline constexpr int64_t kKvPageSizes[] = {16, 32, 64, 128};
/// Page size of `--kv-layout paged` without `--page-size`.
inline constexpr int64_t kDefaultKvPageSize = 16;

/// Element type of decode attention's KV cache. kAuto: the point's dtype (as vLLM's
/// `--kv-cache-dtype auto` means the model's dtype). kFp8E4m3: FP8 E4M3 (OCP "8-bit Floating
/// Point Specification (OFP8)" 2023: 1 sign, 4 exponent bits with bias 7, 3 mantissa bits, largest
/// finite 448, no infinities) with one fp32 scale per KV head for K and one for V, value = scale ×
/// e4m3; Q and O stay in the point's dtype. Other operators have no KV cache: kAuto only.
enum class KvDtype { kAuto, kFp8E4m3 };

/// Element type of the gemm operator's inputs X and W. kAuto: the point's dtype (bf16 or fp16, as
/// before this axis). kFp8E4m3: OCP FP8 E4M3 (as KvDtype) with one fp32 scale per tensor for X
/// and one for W (per-tensor scaling, as torch._scaled_mm and cuBLASLt's A/B scale pointers),
/// fp32 accumulation, C = scale_x·scale_w·(X·W) in the point's dtype; W is then stored [N, K]
/// row-major (K-major, nn.Linear's weight layout), which wgmma needs for 8-bit inputs. Other
/// operators have no GEMM inputs: kAuto only.
enum class GemmDtype { kAuto, kFp8E4m3 };

/// Size of one element in bytes (2 for both bf16 and fp16).
constexpr int64_t dtype_size_bytes(Dtype) { return 2; }
std::string to_string(Dtype dtype);
std::string to_string(GeluForm form);
std::string to_string(KvLayout layout);
/// "auto" | "fp8_e4m3".
std::string to_string(KvDtype kv_dtype);
/// Parses "bf16" | "fp16"; throws a bad-input Error naming the token otherwise.
Dtype parse_dtype(std::string_view text);
/// Parses "erf" | "tanh"; throws a bad-input Error naming the token otherwise.
GeluForm parse_gelu_form(std::string_view text);
/// Parses "contiguous" | "paged"; throws a bad-input Error naming the token otherwise.
KvLayout parse_kv_layout(std::string_view text);
/// Parses "auto" | "fp8_e4m3"; throws a bad-input Error naming the token and --kv-dtype otherwise.
KvDtype parse_kv_dtype(std::string_view text);
/// "auto" | "fp8_e4m3".
std::string to_string(GemmDtype gemm_dtype);
/// Parses "auto" | "fp8_e4m3"; throws a bad-input Error naming the token and --gemm-dtype
/// otherwise: "invalid gemm dtype 'fp8' (--gemm-dtype): allowed auto (the --dtype), fp8_e4m3".
GemmDtype parse_gemm_dtype(std::string_view text);

/// The (M, N, K) of a GEMM, element counts: C[M, N] = X[M, K] · W[K, N].
struct GemmDims {
  int64_t m = 0, n = 0, k = 0;
};

/// Shape of one point. Tensor layouts used by every operator:
///   Q, O: [batch, heads, query_len(), head_dim]; K, V: [batch, kv_heads, seq_len, head_dim]
///   (query_len() = seq_len unless q_len is set: a chunk of q_len queries over seq_len keys)
///   (decode: Q, O are [batch, heads, head_dim] and K, V the KV cache of seq_len positions;
///   paged, K and V are pools of [pages, kv_heads, page_size, head_dim] and the block table is
///   int32 [batch, kv_pages_per_sequence()], see kernels/decode_attention.cu);
///   GEMM X: [batch·seq_len, K], W: [K, N], C: [batch·seq_len, N] with N, K = gemm_dims()
///   (gemm_dtype fp8_e4m3: X and W in E4M3, W stored [N, K], C in dtype);
///   GELU: [batch·seq_len, d_ff]; LayerNorm, RMSNorm: [batch·seq_len, d_model];
///   SwiGLU, GeGLU: input [batch·seq_len, 2·d_ff] (gate in columns 0..d_ff−1, up in
///   d_ff..2·d_ff−1), output [batch·seq_len, d_ff]; d_model = d_model() (hidden, else
///   heads·head_dim) and d_ff = ffn_width() (ffn_dim, else 4·d_model), kernel_layer_widths in
///   core/layer_widths.hpp.
struct Shape {
  int64_t batch = 1;
  int64_t heads = 16;     ///< query heads H
  int64_t kv_heads = 16;  ///< KV heads H_kv (GQA group g = heads / kv_heads)
  int64_t head_dim = 128;
  int64_t seq_len = 512;  ///< L: the swept axis (the key length of attention)
  /// naive_attention and flash_attention only: the query length L_q when it differs from L, a
  /// chunk of q_len new tokens attending to a cache of L keys that ends with them (chunked
  /// prefill, prefill over an existing KV cache; the causal mask is bottom-right aligned,
  /// kCausalMaskAlignment). 0 (the default) is L_q = L; otherwise 1 ≤ q_len < L
  /// (validate_query_len). Other operators' points carry 0 (core/sweep_plan.cpp).
  int64_t q_len = 0;
  bool causal = false;  ///< bottom-right aligned mask, as FlashAttention-2
  Dtype dtype = Dtype::kBf16;
  GeluForm gelu_form = GeluForm::kErf;
  KvLayout kv_layout = KvLayout::kContiguous;  ///< decode_attention only
  /// KV positions per page when kv_layout is kPaged (one of kKvPageSizes); 0 when contiguous.
  int64_t page_size = 0;
  /// gemm only: the GEMM's N and K (any projection of a layer: QKV, output, FFN up/gate/down);
  /// 0 takes the FFN up projection's N = 4·d_model, K = d_model. M is always tokens(), so
  /// decode's M = batch is `--seq 1`. Other operators' points carry 0 (core/sweep_plan.cpp).
  int64_t gemm_n = 0;
  int64_t gemm_k = 0;
  KvDtype kv_dtype = KvDtype::kAuto;        ///< decode_attention only
  GemmDtype gemm_dtype = GemmDtype::kAuto;  ///< gemm only: the element type of X and W
  /// The hidden size d_model of the norms, gemm's default K and the FFN (a model's hidden_size,
  /// which differs from heads·head_dim in e.g. Gemma 2); 0 takes heads·head_dim. Read by gemm,
  /// gelu, layernorm, rmsnorm, swiglu and geglu (operator_uses_layer_widths); the attention
  /// operators' points carry 0 (core/sweep_plan.cpp).
  int64_t hidden = 0;
  /// The FFN intermediate size d_ff of gelu, swiglu, geglu and gemm's default N (a model's
  /// intermediate_size, e.g. 14336 for Llama-3.1-8B); 0 takes 4·d_model(). Carried as hidden.
  int64_t ffn_dim = 0;

  /// The hidden size: hidden when set, else heads·head_dim.
  int64_t d_model() const { return hidden != 0 ? hidden : heads * head_dim; }
  /// The FFN intermediate size: ffn_dim when set, else 4·d_model().
  int64_t ffn_width() const { return ffn_dim != 0 ? ffn_dim : 4 * d_model(); }
  /// The gemm operator's M = batch·seq_len, N (gemm_n, else ffn_width()), K (gemm_k, else
  /// d_model()).
  GemmDims gemm_dims() const {
    return {tokens(), gemm_n != 0 ? gemm_n : ffn_width(), gemm_k != 0 ? gemm_k : d_model()};
  }
  int64_t tokens() const { return batch * seq_len; }
  /// Attention's query length L_q: q_len when set, else seq_len.
  int64_t query_len() const { return q_len != 0 ? q_len : seq_len; }
  int64_t group_size() const { return heads / kv_heads; }
  /// Pages of one sequence's KV cache, ceil(seq_len / page_size); 0 when contiguous.
  int64_t kv_pages_per_sequence() const {
    return kv_layout == KvLayout::kPaged ? (seq_len + page_size - 1) / page_size : 0;
  }
};

/// Bytes of one K or V element of decode attention's KV cache: 1 for kFp8E4m3, else
/// dtype_size_bytes(dtype) (2). The per-KV-head scales are not elements (operator_model.hpp counts
/// them).
constexpr int64_t kv_element_bytes(const Shape& shape) {
  return shape.kv_dtype == KvDtype::kFp8E4m3 ? 1 : dtype_size_bytes(shape.dtype);
}

/// Bytes of one element of the gemm operator's X or W: 1 for GemmDtype::kFp8E4m3, else
/// dtype_size_bytes(dtype) (2). C is always in the dtype; the two fp32 scales are not elements.
constexpr int64_t gemm_input_element_bytes(const Shape& shape) {
  return shape.gemm_dtype == GemmDtype::kFp8E4m3 ? 1 : dtype_size_bytes(shape.dtype);
}

/// Short label of FP8 GEMM inputs for tables and point labels, "in=fp8_e4m3"; empty for kAuto
/// (the only gemm inputs reports had before FP8 GEMM).
std::string gemm_dtype_label(const Shape& shape);

/// Short label of an FP8 KV cache for tables and point labels, "kv=fp8_e4m3"; empty for kAuto (the
/// only KV dtype reports had before FP8).
std::string kv_dtype_label(const Shape& shape);

/// Short label of a paged KV cache for tables and point labels, "paged/16" (layout/page size);
/// empty for a contiguous one (the only layout reports had before paging).
std::string kv_layout_label(const Shape& shape);

/// Short label of explicit GEMM dims for tables and point labels, "N=6144 K=4096" (the
/// effective values of both); empty when gemm_n and gemm_k are 0 (the default up projection).
std::string gemm_dims_label(const Shape& shape);

/// Short label of a query length that differs from L for tables and point labels, "q=512";
/// empty when q_len is 0 (L_q = L, the only case reports had before --q-len).
std::string q_len_label(const Shape& shape);

/// Short label of explicit layer widths for tables and point labels, "hidden=4096 ffn=14336"
/// (each part only when its field is set); empty when hidden and ffn_dim are 0.
std::string layer_widths_label(const Shape& shape);

/// Upper bound on the element count of any tensor a shape implies (2^50 ≈ 1.1e15, i.e. 2 PiB
/// of bf16: far beyond any GPU). It exists so that byte counts derived from element counts
/// (× dtype size, × a few tensors, × decode's ≤ 256 splits × 4 bytes) cannot overflow int64.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 50;

/// How a causal mask lines up when the query and key lengths differ: query i (0-based, of L_q)
/// sees keys 0 .. i + L_kv − L_q (FlashAttention-2's convention), so the last query sees every
/// key. Recorded in each report's config.
inline constexpr const char* kCausalMaskAlignment = "bottom-right";

/// Checks that the value `v` of the shape axis `name` (given on the command line as `flag`, e.g.
/// "batch", "--batch") is a positive integer; throws a bad-input Error naming both otherwise.
void check_positive_axis(const char* name, const char* flag, int64_t v);

/// check_positive_axis for head_dim, whose error also names what the attention kernels run:
/// flash_attention and decode_attention 64, 96, 128 or 256, naive_attention any multiple of 8.
void check_head_dim_axis(int64_t head_dim);

/// Checks the axes shared by all operators (positive, GQA divisibility, validate_query_len,
/// validate_kv_layout, validate_layer_widths, validate_gemm_dims) and
/// that no tensor every operator's shape implies (Q/O, the FFN activation and weight) exceeds
/// kMaxTensorElements (products computed without overflow: e.g. batch 4000000000 with seq_len
/// 2147483648 is refused naming the product); throws bad-input Error. The L² score matrices are
/// not checked here: only operators that materialize them call validate_score_matrix_size too.
void validate_common_shape(const Shape& shape);

/// Checks the explicit GEMM dims: gemm_n and gemm_k each 0 (the default) or a positive multiple
/// of 8 (16-byte rows of W, X and C for cp.async and TMA), and X, W and C (M·K, K·N, M·N) within
/// kMaxTensorElements. Throws a bad-input Error naming the flag, the value and what is allowed:
/// "invalid gemm-n 100 (--gemm-n): allowed 0 (N = d_ff, the FFN width) or a positive multiple of 8
/// ...".
void validate_gemm_dims(const Shape& shape);

/// Checks the explicit layer widths: hidden and ffn_dim each 0 (the default: heads·head_dim,
/// 4·d_model) or positive. Which widths a kernel runs is its own check (the norms need a multiple
/// of 8 up to 65536). Throws a bad-input Error naming the flag, the value and what is allowed:
/// "invalid hidden -8 (--hidden): allowed 0 (d_model = heads·head_dim) or a positive integer".
void validate_layer_widths(const Shape& shape);

/// Checks the query length: q_len 0 (L_q = L) or 1 ≤ q_len ≤ seq_len (a chunk of queries attends
/// to a cache of L keys that includes it, so it cannot be longer). Throws a bad-input Error naming
/// the flag, the value and what is allowed: "invalid q-len 1024 (--q-len): allowed L (or 0) or
/// 1 to L = 512 (the query chunk is part of the L keys it attends to)".
void validate_query_len(const Shape& shape);

/// Sets `shape.seq_len` to `seq_len` and settles the query length against it, as every planner
/// does (sweep, model): a q_len equal to L becomes 0 (the full prefill: the same point as one
/// without --q-len). Returns false, leaving q_len as it was, when q_len is longer than L (no
/// such point: a query chunk is part of the keys it attends to).
bool settle_query_len(Shape& shape, int64_t seq_len);

/// Checks the KV-cache layout axes: a paged layout needs a page size in kKvPageSizes, a
/// contiguous one none (page_size 0). Throws a bad-input Error naming the flag and the allowed
/// values: "invalid page size 24 (--page-size): allowed 16, 32, 64, 128", "invalid page size 32
/// (--page-size): needs --kv-layout paged".
void validate_kv_layout(const Shape& shape);

/// Checks that the input of the gated FFN step (SwiGLU, GeGLU), batch × seq_len × 2 × d_ff
/// elements (gate and up halves of width d_ff = ffn_width()), stays within
/// kMaxTensorElements; throws a bad-input Error naming the product otherwise. validate_common_shape
/// bounds only the single-width FFN activation, half of it.
void validate_gated_ffn_size(const Shape& shape);

/// Checks that the attention score matrices S and P, batch × heads × L_q × L elements each, stay
/// within kMaxTensorElements; throws a bad-input Error naming the product otherwise. For operators
/// that store S and P in device memory (naive_attention); flash and decode attention never do.
void validate_score_matrix_size(const Shape& shape);

}  // namespace rooflinectl
