#include "core/sweep_axes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "core/operator_names.hpp"

namespace rooflinectl {

std::string axis_name(SweepAxis axis) {
  switch (axis) {
    case SweepAxis::kBatch:
      return "batch";
    case SweepAxis::kHeads:
      return "heads";
    case SweepAxis::kKvHeads:
      return "kv_heads";
    case SweepAxis::kHeadDim:
      return "head_dim";
    case SweepAxis::kDtype:
      return "dtype";
    case SweepAxis::kCausal:
      return "causal";
    case SweepAxis::kGeluForm:
      return "gelu_form";
    case SweepAxis::kKvDtype:
      return "kv_dtype";
    case SweepAxis::kGemmDtype:
      return "gemm_dtype";
    case SweepAxis::kQLen:
      return "q_len";
  }
  return "";
}

std::string axis_flag(SweepAxis axis) {
  std::string flag = "--" + axis_name(axis);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

bool operator_uses_axis(std::string_view op, SweepAxis axis) {
  const bool attention =
      op == kNaiveAttentionOp || op == kFlashAttentionOp || op == kDecodeAttentionOp;
  switch (axis) {
    case SweepAxis::kBatch:
    case SweepAxis::kHeads:
    case SweepAxis::kHeadDim:
    case SweepAxis::kDtype:
      return true;
    case SweepAxis::kKvHeads:
      return attention || !is_operator_name(op);
    case SweepAxis::kCausal:
      return op == kNaiveAttentionOp || op == kFlashAttentionOp || !is_operator_name(op);
    case SweepAxis::kGeluForm:
      return op == kGeluOp || op == kGegluOp || !is_operator_name(op);
    case SweepAxis::kKvDtype:
      return op == kDecodeAttentionOp || !is_operator_name(op);
    case SweepAxis::kGemmDtype:
      return op == kGemmOp || !is_operator_name(op);
    case SweepAxis::kQLen:
      return op == kNaiveAttentionOp || op == kFlashAttentionOp || !is_operator_name(op);
  }
  return true;
}

bool SweepAxes::varies(SweepAxis axis) const {
  switch (axis) {
    case SweepAxis::kBatch:
      return !batch.empty();
    case SweepAxis::kHeads:
      return !heads.empty();
    case SweepAxis::kKvHeads:
      return !kv_heads.empty();
    case SweepAxis::kHeadDim:
      return !head_dim.empty();
    case SweepAxis::kDtype:
      return !dtype.empty();
    case SweepAxis::kCausal:
      return !causal.empty();
    case SweepAxis::kGeluForm:
      return !gelu_form.empty();
    case SweepAxis::kKvDtype:
      return !kv_dtype.empty();
    case SweepAxis::kGemmDtype:
      return !gemm_dtype.empty();
    case SweepAxis::kQLen:
      return !q_len.empty();
  }
  return false;
}

std::string axis_value_text(SweepAxis axis, const Shape& s) {
  switch (axis) {
    case SweepAxis::kBatch:
      return std::to_string(s.batch);
    case SweepAxis::kHeads:
      return std::to_string(s.heads);
    case SweepAxis::kKvHeads:
      return std::to_string(s.kv_heads);
    case SweepAxis::kHeadDim:
      return std::to_string(s.head_dim);
    case SweepAxis::kDtype:
      return to_string(s.dtype);
    case SweepAxis::kCausal:
      return s.causal ? "on" : "off";
    case SweepAxis::kGeluForm:
      return to_string(s.gelu_form);
    case SweepAxis::kKvDtype:
      return to_string(s.kv_dtype);
    case SweepAxis::kGemmDtype:
      return to_string(s.gemm_dtype);
    case SweepAxis::kQLen:
      return s.q_len != 0 ? std::to_string(s.q_len) : "L";
  }
  return "";
}

std::string swept_axes_label(const SweepAxes& axes, std::string_view op, const Shape& s) {
  std::vector<std::string> parts;
  for (const SweepAxis axis : kSweepAxes) {
    if (!axes.varies(axis) || !operator_uses_axis(op, axis)) continue;
    switch (axis) {
      case SweepAxis::kBatch:
        parts.push_back(fmt::format("B={}", s.batch));
        break;
      case SweepAxis::kHeads:
        parts.push_back(fmt::format("H={}", s.heads));
        break;
      case SweepAxis::kKvHeads:
        parts.push_back(fmt::format("H_kv={}", s.kv_heads));
        break;
      case SweepAxis::kHeadDim:
        parts.push_back(fmt::format("d={}", s.head_dim));
        break;
      case SweepAxis::kDtype:
        parts.push_back(to_string(s.dtype));
        break;
      case SweepAxis::kCausal:
        parts.push_back(s.causal ? "causal" : "non-causal");
        break;
      case SweepAxis::kGeluForm:
        parts.push_back(to_string(s.gelu_form));
        break;
      case SweepAxis::kKvDtype:
        parts.push_back(
            "kv=" + (s.kv_dtype == KvDtype::kAuto ? to_string(s.dtype) : to_string(s.kv_dtype)));
        break;
      case SweepAxis::kGemmDtype:
        parts.push_back("in=" + (s.gemm_dtype == GemmDtype::kAuto ? to_string(s.dtype)
                                                                  : to_string(s.gemm_dtype)));
        break;
      case SweepAxis::kQLen:
        parts.push_back("q=" + axis_value_text(axis, s));
        break;
    }
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string axis_summary(const SweepAxes& axes, const Shape& base, SweepAxis axis) {
  const auto text = [axis](const Shape& s) {
    if (axis == SweepAxis::kCausal) return std::string(s.causal ? "causal" : "non-causal");
    return axis_value_text(axis, s);
  };
  if (!axes.varies(axis)) return text(base);
  std::vector<std::string> values;
  Shape s = base;
  const auto add = [&](auto& field, const auto& list) {
    for (const auto& value : list) {
      field = value;
      values.push_back(text(s));
    }
  };
  switch (axis) {
    case SweepAxis::kBatch:
      add(s.batch, axes.batch);
      break;
    case SweepAxis::kHeads:
      add(s.heads, axes.heads);
      break;
    case SweepAxis::kKvHeads:
      add(s.kv_heads, axes.kv_heads);
      break;
    case SweepAxis::kHeadDim:
      add(s.head_dim, axes.head_dim);
      break;
    case SweepAxis::kDtype:
      add(s.dtype, axes.dtype);
      break;
    case SweepAxis::kCausal:
      add(s.causal, axes.causal);
      break;
    case SweepAxis::kGeluForm:
      add(s.gelu_form, axes.gelu_form);
      break;
    case SweepAxis::kKvDtype:
      add(s.kv_dtype, axes.kv_dtype);
      break;
    case SweepAxis::kGemmDtype:
      add(s.gemm_dtype, axes.gemm_dtype);
      break;
    case SweepAxis::kQLen:
      add(s.q_len, axes.q_len);
      break;
  }
  return fmt::format("{{{}}}", fmt::join(values, ", "));
}

std::vector<std::string> split_axis_list(const std::string& text, const std::string& flag) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) {
      throw bad_input(fmt::format(
          "invalid {} '{}': empty item (give a comma-separated list of values, none empty)", flag,
          text));
    }
    if (std::find(items.begin(), items.end(), item) != items.end()) {
      throw bad_input(
          fmt::format("invalid {} '{}': {} is listed more than once", flag, text, item));
    }
    items.push_back(std::move(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::vector<int64_t> parse_int_axis_list(const std::string& text, const std::string& flag) {
  std::vector<int64_t> values;
  for (const std::string& item : split_axis_list(text, flag)) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (error != std::errc() || end != item.data() + item.size()) {
      throw bad_input(fmt::format("invalid {} '{}': '{}' is not an integer", flag, text, item));
    }
    values.push_back(value);
  }
  return values;
}

std::vector<int64_t> parse_q_len_list(const std::string& text) {
  std::vector<int64_t> values;
  for (const std::string& item : split_axis_list(text, "--q-len")) {
    int64_t value = 0;
    if (item != "L") {
      const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
      if (error == std::errc::result_out_of_range) {
        throw bad_input(fmt::format(
            "invalid --q-len '{}': {} is out of range (allowed 1 to L, or L)", text, item));
      }
      if (error != std::errc() || end != item.data() + item.size()) {
        throw bad_input(fmt::format(
            "invalid --q-len '{}': '{}' is neither an integer nor L (L_q = L, the full prefill)",
            text, item));
      }
    }
    if (std::find(values.begin(), values.end(), value) != values.end()) {
      throw bad_input(fmt::format(
          "invalid --q-len '{}': {} is listed more than once (0 and L both mean L_q = L)", text,
          item));
    }
    values.push_back(value);
  }
  return values;
}

std::vector<bool> parse_causal_list(const std::string& text) {
  std::vector<bool> values;
  for (const std::string& item : split_axis_list(text, "--causal")) {
    if (item != "on" && item != "off") {
      throw bad_input(fmt::format("invalid --causal '{}': '{}' is not on or off (allowed on, off)",
                                  text, item));
    }
    values.push_back(item == "on");
  }
  return values;
}

std::vector<KvDtype> parse_kv_dtype_list(const std::string& text) {
  std::vector<KvDtype> values;
  for (const std::string& item : split_axis_list(text, "--kv-dtype")) {
    values.push_back(parse_kv_dtype(item));
  }
  return values;
}

std::vector<GemmDtype> parse_gemm_dtype_list(const std::string& text) {
  std::vector<GemmDtype> values;
  for (const std::string& item : split_axis_list(text, "--gemm-dtype")) {
    values.push_back(parse_gemm_dtype(item));
  }
  return values;
}

}  // namespace rooflinectl
