// CLI11 validators for integer, number and named-choice flags. CLI11's own conversion saturates an
// out-of-range integer
// (--batch 99999999999999999999 becomes INT64_MAX, silently) and its own message for "1.5" names
// the whole int64 range; this check runs on the token before conversion, refuses anything that is
// not a base-10 integer of the flag's type, and names what the flag allows.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

namespace rooflinectl {

/// Validator accepting exactly the tokens std::from_chars reads completely into an `Int`.
/// `allowed` describes the flag's real range ("integers 1..1000000"); CLI11 prefixes the flag, so
/// a bad token reads "--batch: '1.5' is not a whole number (allowed: integers 1..2^50)". The range
/// itself is enforced later by the config validation, which names the value and the axis. Attach
/// it with `->transform(...)` to an integer-typed option: it rewrites the token in decimal, so
/// "010" reads as 10, not as CLI11's octal 8 (`->check` would discard the rewrite).
template <class Int>
CLI::Validator strict_integer(const std::string& allowed) {
  return CLI::Validator(
      [allowed](std::string& token) -> std::string {
        Int value{};
        const char* last = token.data() + token.size();
        const auto [ptr, ec] = std::from_chars(token.data(), last, value);
        // A negative whole number for an unsigned flag is out of its range, not malformed.
        const bool negative_for_unsigned =
            std::is_unsigned_v<Int> && token.size() > 1 && token[0] == '-' &&
            token.find_first_not_of("0123456789", 1) == std::string::npos;
        if ((ec == std::errc::result_out_of_range && ptr == last) || negative_for_unsigned) {
          return fmt::format("'{}' is out of range (allowed: {})", token, allowed);
        }
        if (token.empty() || ec != std::errc() || ptr != last) {
          return fmt::format("'{}' is not a whole number (allowed: {})", token, allowed);
        }
        // Decimal from here on: CLI11's own conversion reads a leading 0 as octal ("010" -> 8).
        token = std::to_string(value);
        return "";
      },
      "");  // no ":INTEGER" after the type in --help: CLI11's INT already says it
}

/// Validator for a number flag in [`low`, `high`] (above `low` when `low_inclusive` is false):
/// the whole token must be a finite decimal number (strtod: "1e-3" and "0.5" read, "abc", "1s",
/// "nan" and "inf" do not). `allowed` describes the range in words ("seconds 0..3600"); CLI11
/// prefixes the flag: "--max-time: 'abc' is not a number (allowed: seconds above 0 up to 3600)".
inline CLI::Validator strict_number(double low, bool low_inclusive, double high,
                                    const std::string& allowed) {
  return CLI::Validator(
      [=](std::string& token) -> std::string {
        char* end = nullptr;
        const double value = token.empty() ? NAN : std::strtod(token.c_str(), &end);
        if (token.empty() || end != token.c_str() + token.size() || !std::isfinite(value)) {
          return fmt::format("'{}' is not a number (allowed: {})", token, allowed);
        }
        if (value > high || value < low || (!low_inclusive && value == low)) {
          return fmt::format("'{}' is out of range (allowed: {})", token, allowed);
        }
        return "";
      },
      "");  // the type (FLOAT) says it
}

/// Validator for a flag that takes one of `names` (for --ops: each comma-separated item when
/// `list` is true): "--dtype: 'fp8' is not allowed (allowed: bf16, fp16)".
inline CLI::Validator one_of(const std::vector<std::string>& names, bool list = false) {
  return CLI::Validator(
      [=](std::string& token) -> std::string {
        const auto known = [&](const std::string& item) {
          for (const std::string& name : names) {
            if (item == name) return true;
          }
          return false;
        };
        size_t start = 0;
        while (true) {
          const size_t comma = list ? token.find(',', start) : std::string::npos;
          const std::string item =
              token.substr(start, comma == std::string::npos ? comma : comma - start);
          // An empty list item is split_list's error, which names the whole list.
          if ((!list || !item.empty()) && !known(item)) {
            return fmt::format("'{}' is not allowed (allowed: {})", item, fmt::join(names, ", "));
          }
          if (comma == std::string::npos) return "";
          start = comma + 1;
        }
      },
      "");
}

/// strict_integer for a --device flag: the number of devices is known only at run time, where
/// query_device checks the index against it.
inline CLI::Validator device_index() {
  return strict_integer<int>(
      "integers 0, 1, ...: a CUDA device index as `rooflinectl devices` lists them");
}

}  // namespace rooflinectl
