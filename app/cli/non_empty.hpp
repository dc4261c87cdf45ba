// A CLI11 validator for a flag whose empty value would otherwise read as "not given": an unset
// shell variable in `--baseline "$BASE"` must not turn the regression gate off without a word.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rooflinectl {

/// Refuses an empty (or all-blank) value: "--baseline: empty (<what>)", e.g. what = "give a
/// report file, or leave --baseline out". The flag's parser sees only non-empty values.
inline CLI::Validator non_empty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& token) -> std::string {
        if (token.find_first_not_of(" \t") != std::string::npos) return "";
        return "empty (" + what + ")";
      },
      "");
}

}  // namespace rooflinectl
