// The six operator names rooflinectl knows, each defined once, and their list in the sweep's
// default run order. Header-only so that host code without the kernels (report reading, configs,
// charts) and the kernels' own registrations (kernels/*.cu) share them.
#pragma once

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace rooflinectl {

inline constexpr const char* kNaiveAttentionOp = "naive_attention";
inline constexpr const char* kFlashAttentionOp = "flash_attention";
inline constexpr const char* kGemmOp = "gemm";
inline constexpr const char* kGeluOp = "gelu";
inline constexpr const char* kLayernormOp = "layernorm";
inline constexpr const char* kDecodeAttentionOp = "decode_attention";

/// Every operator name, in the default sweep order: kernels/registry.cpp registers them in this
/// order, and the charts give each its colour and marker by its index here.
inline constexpr std::array<const char*, 6> kOperatorNames = {
    kNaiveAttentionOp, kFlashAttentionOp, kGemmOp, kGeluOp, kLayernormOp, kDecodeAttentionOp};

/// kOperatorNames as strings.
inline const std::vector<std::string>& operator_names() {
  static const std::vector<std::string> names(kOperatorNames.begin(), kOperatorNames.end());
  return names;
}

/// Returns `text` when it is one of operator_names(); throws a bad-input Error naming the token and
/// the allowed names otherwise (case-sensitive: "GEMM" is refused).
/// Whether `text` is one of kOperatorNames.
inline bool is_operator_name(std::string_view text) {
  for (const char* name : kOperatorNames) {
    if (text == name) return true;
  }
  return false;
}

inline std::string parse_operator_name(std::string_view text) {
  std::string allowed;
  for (const auto& name : operator_names()) {
    if (text == name) return name;
    allowed += (allowed.empty() ? "" : ", ") + name;
  }
  throw bad_input(fmt::format("invalid operator '{}': allowed {}", text, allowed));
}

}  // namespace rooflinectl
