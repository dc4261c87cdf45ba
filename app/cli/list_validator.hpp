// A CLI11 validator for a flag that takes one value or a comma list of values.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rooflinectl {

/// Applies `item` to each comma-separated item of the token; the first item it refuses gives the
/// message, which names that item as `item` alone would ("--batch: '1.5' is not a whole number
/// (allowed: integers 1..2^50)"). Empty items pass to the list parser, which names them. Give the
/// option a type_name that shows the list ("B[,B...]"): the validator adds nothing to --help.
inline CLI::Validator list_of(CLI::Validator item) {
  return CLI::Validator(
      [item](std::string& token) -> std::string {
        size_t start = 0;
        while (true) {
          const size_t comma = token.find(',', start);
          std::string part =
              token.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
          if (!part.empty() || comma == std::string::npos) {
            const std::string error = item(part);
            if (!error.empty()) return error;
          }
          if (comma == std::string::npos) return "";
          start = comma + 1;
        }
      },
      "");  // the option's type_name shows the list form, e.g. "B[,B...]"
}

}  // namespace rooflinectl
