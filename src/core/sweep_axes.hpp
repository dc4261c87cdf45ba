// The shape axes a sweep may take as lists (nvbench's axes), which operators use which axis, and
// the label that names a point's values of the axes that vary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.hpp"

namespace rooflinectl {

/// A shape axis that takes a list. Product order (core/sweep_plan.hpp): dtype outermost, then the
/// operator, then batch, heads, kv_heads, head_dim, causal, gelu_form, kv_dtype, gemm_dtype, q_len,
/// and seq_len innermost (so that the 16-bit and FP8 KV caches, and 16-bit and FP8 GEMM inputs, of
/// one shape run side by side).
enum class SweepAxis {
  kBatch,
  kHeads,
  kKvHeads,
  kHeadDim,
  kDtype,
  kCausal,
  kGeluForm,
  kKvDtype,
  kGemmDtype,
  kQLen
};

/// Every SweepAxis, in the product order of the axes after the operator (dtype first: it is the
/// outermost loop of the plan, before the operator).
inline constexpr SweepAxis kSweepAxes[] = {
    SweepAxis::kDtype,     SweepAxis::kBatch,  SweepAxis::kHeads,    SweepAxis::kKvHeads,
    SweepAxis::kHeadDim,   SweepAxis::kCausal, SweepAxis::kGeluForm, SweepAxis::kKvDtype,
    SweepAxis::kGemmDtype, SweepAxis::kQLen};

/// The config-file key and --filter name of `axis`: "batch", "heads", "kv_heads", "head_dim",
/// "dtype", "causal", "gelu_form", "kv_dtype", "gemm_dtype", "q_len".
std::string axis_name(SweepAxis axis);

/// The CLI flag of `axis`: "--batch", "--kv-heads", ...
std::string axis_flag(SweepAxis axis);

/// Whether operator `op` reads `axis`; an axis it does not read does not multiply its points (the
/// point takes the axis's first value). Attention operators read every axis but gelu_form;
/// decode_attention ignores causal (its one query sees every key); gemm, gelu, layernorm, rmsnorm,
/// swiglu and geglu read batch, heads and head_dim (through d_model = heads × head_dim) and dtype,
/// gelu and geglu the GELU form too; kv_dtype is decode_attention's only (the others have no KV
/// cache, and their points keep KvDtype::kAuto, see plan_all_points); gemm_dtype is gemm's only
/// (the others' points keep GemmDtype::kAuto); q_len is naive_attention's
/// and flash_attention's only (decode's one query is its own case; the others have no queries,
/// and their points keep 0). An unknown name reads every axis (names are checked elsewhere).
bool operator_uses_axis(std::string_view op, SweepAxis axis);

/// The lists of a sweep's shape axes. An empty list means the axis is fixed at the value of the
/// config's base shape (every sweep before lists, and any axis given one value); otherwise it
/// holds two or more distinct values in the order given, the first equal to the base shape's
/// value. Change them through set_axis_values, which keeps that invariant.
struct SweepAxes {
  std::vector<int64_t> batch;
  std::vector<int64_t> heads;
  std::vector<int64_t> kv_heads;
  std::vector<int64_t> head_dim;
  std::vector<Dtype> dtype;
  std::vector<bool> causal;
  std::vector<GeluForm> gelu_form;
  std::vector<KvDtype> kv_dtype;
  std::vector<GemmDtype> gemm_dtype;
  std::vector<int64_t> q_len;  ///< 0 stands for L (L_q = L, Shape::q_len's default)

  /// True when no axis has a list (a sweep as before lists: operators × seq_lens).
  bool none() const {
    return batch.empty() && heads.empty() && kv_heads.empty() && head_dim.empty() &&
           dtype.empty() && causal.empty() && gelu_form.empty() && kv_dtype.empty() &&
           gemm_dtype.empty() && q_len.empty();
  }
  /// True when `axis` has a list of two or more values.
  bool varies(SweepAxis axis) const;
};

/// Sets one axis to `values` (non-empty, distinct: the parsers check): `base_value` (the base
/// shape's field) takes the first, `list` all of them when there are two or more, else none.
template <typename T>
void set_axis_values(std::vector<T>& list, T& base_value, const std::vector<T>& values) {
  base_value = values.front();
  list = values.size() > 1 ? values : std::vector<T>{};
}

/// The values an axis takes: its list, or the base shape's one value.
template <typename T>
std::vector<T> axis_values(const std::vector<T>& list, const T& base_value) {
  return list.empty() ? std::vector<T>{base_value} : list;
}

/// The value of `axis` in `shape` as text: "8", "bf16", "on" (causal), "tanh", "fp8_e4m3", "L"
/// (q_len 0).
std::string axis_value_text(SweepAxis axis, const Shape& shape);

/// The values of the axes that vary in `axes` and that `op` uses, for a point label:
/// "fp16 B=8 H_kv=8 d=64 causal" (in product order: the dtype, batch B, heads H, kv_heads H_kv,
/// head_dim d, causal or non-causal, the GELU form, the KV-cache element type as "kv=bf16" or
/// "kv=fp8_e4m3", auto written as the point's dtype, the GEMM input type as "in=bf16" or
/// "in=fp8_e4m3", auto written the same way, the query length as "q=512" or "q=L");
/// empty when none varies (a sweep as before lists).
std::string swept_axes_label(const SweepAxes& axes, std::string_view op, const Shape& shape);

/// How a summary line (Markdown, chart titles) shows `axis`: its value in `base` ("8", "bf16",
/// "causal" or "non-causal", "erf"), or, when it varies, its values in braces ("{1, 8}",
/// "{non-causal, causal}").
std::string axis_summary(const SweepAxes& axes, const Shape& base, SweepAxis axis);

/// Parses the comma list of an integer axis flag ("1,8,32"): each item a 64-bit integer (the range,
/// 1..2^50, is validate_common_shape's to check, naming the axis). Throws a bad-input Error naming
/// `flag` and the item otherwise.
std::vector<int64_t> parse_int_axis_list(const std::string& text, const std::string& flag);

/// Parses a --q-len list ("512,L"): each item "L" (stored as 0: L_q = L) or an integer, none
/// twice (0 and L are the same value). The range, 1..L, is validate_query_len's to check. Throws
/// a bad-input Error naming --q-len and the item otherwise.
std::vector<int64_t> parse_q_len_list(const std::string& text);

/// Parses a --causal list: each item "on" or "off". Throws a bad-input Error naming the item.
std::vector<bool> parse_causal_list(const std::string& text);

/// Parses a --kv-dtype list: each item "auto" or "fp8_e4m3" (parse_kv_dtype), none twice. Throws a
/// bad-input Error naming the item.
std::vector<KvDtype> parse_kv_dtype_list(const std::string& text);

/// Parses a --gemm-dtype list: each item "auto" or "fp8_e4m3" (parse_gemm_dtype), none twice.
/// Throws a bad-input Error naming the item.
std::vector<GemmDtype> parse_gemm_dtype_list(const std::string& text);

/// Splits `text` at commas; an empty item or one listed more than once is a bad-input Error naming
/// `flag` and the text: "invalid --batch '1,8,1': 1 is listed more than once".
std::vector<std::string> split_axis_list(const std::string& text, const std::string& flag);

}  // namespace rooflinectl
