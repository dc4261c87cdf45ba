// The six operator names rooflinectl knows, in the sweep's default run order. Header-only so that
// host code without the kernels (report reading, configs) can check a name.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace rooflinectl {

/// Every operator name, in the default sweep order (kernels/registry.cpp registers the same six).
inline const std::vector<std::string>& operator_names() {
  static const std::vector<std::string> names = {
      "naive_attention", "flash_attention", "gemm", "gelu", "layernorm", "decode_attention"};
  return names;
}

/// Returns `text` when it is one of operator_names(); throws a bad-input Error naming the token and
/// the allowed names otherwise (case-sensitive: "GEMM" is refused).
inline std::string parse_operator_name(std::string_view text) {
  std::string allowed;
  for (const auto& name : operator_names()) {
    if (text == name) return name;
    allowed += (allowed.empty() ? "" : ", ") + name;
  }
  throw bad_input(fmt::format("invalid operator '{}': allowed {}", text, allowed));
}

}  // namespace rooflinectl
