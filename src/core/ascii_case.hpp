// Case-insensitive comparison of identifiers people type (GPU and model preset ids).
#pragma once

#include <algorithm>
#include <cctype>
#include <string_view>

namespace rooflinectl {

/// True when a and b are the same ASCII text up to letter case ("Llama-3.1-8B" and
/// "llama-3.1-8b"); bytes outside ASCII letters must match exactly.
inline bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace rooflinectl
