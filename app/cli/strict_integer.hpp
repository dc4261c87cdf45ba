// A CLI11 validator for integer flags. CLI11's own conversion saturates an out-of-range integer
// (--batch 99999999999999999999 becomes INT64_MAX, silently) and its own message for "1.5" names
// the whole int64 range; this check runs on the token before conversion, refuses anything that is
// not a base-10 integer of the flag's type, and names what the flag allows.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <string>

namespace rooflinectl {

/// Validator accepting exactly the tokens std::from_chars reads completely into an `Int`.
/// `allowed` describes the flag's real range ("integers 1..1000000"); CLI11 prefixes the flag, so
/// a bad token reads "--batch: '1.5' is not a whole number (allowed: integers 1..2^50)". The range
/// itself is enforced later by the config validation, which names the value and the axis.
template <class Int>
CLI::Validator strict_integer(const std::string& allowed) {
  return CLI::Validator(
      [allowed](std::string& token) -> std::string {
        Int value{};
        const char* last = token.data() + token.size();
        const auto [ptr, ec] = std::from_chars(token.data(), last, value);
        if (ec == std::errc::result_out_of_range && ptr == last) {
          return fmt::format("'{}' is out of range (allowed: {})", token, allowed);
        }
        if (token.empty() || ec != std::errc() || ptr != last) {
          return fmt::format("'{}' is not a whole number (allowed: {})", token, allowed);
        }
        return "";
      },
      "INTEGER");
}

/// strict_integer for a --device flag: the number of devices is known only at run time, where
/// query_device checks the index against it.
inline CLI::Validator device_index() {
  return strict_integer<int>(
      "integers 0, 1, ...: a CUDA device index as `rooflinectl devices` lists them");
}

}  // namespace rooflinectl
