// A CLI11 validator for integer flags. CLI11's own conversion saturates an out-of-range integer
// (--batch 99999999999999999999 becomes INT64_MAX, silently); this check runs on the token
// before conversion and refuses anything that is not a base-10 integer within the type's range.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <limits>
#include <string>

namespace rooflinectl {

/// Validator accepting exactly the tokens std::from_chars reads completely into an `Int`;
/// the message names the token and the range. Range limits of the value itself (positive,
/// at most ...) are checked later by the config validation, which knows what each axis allows.
template <class Int>
CLI::Validator strict_integer() {
  return CLI::Validator(
      [](std::string& token) -> std::string {
        Int value{};
        const char* last = token.data() + token.size();
        const auto [ptr, ec] = std::from_chars(token.data(), last, value);
        if (token.empty() || ec != std::errc() || ptr != last) {
          return fmt::format("'{}' is not an integer (allowed: whole numbers from {} to {})", token,
                             std::numeric_limits<Int>::min(), std::numeric_limits<Int>::max());
        }
        return "";
      },
      "INTEGER");
}

}  // namespace rooflinectl
