// Where a roof's peaks come from: datasheet, counters or measured, named on every point.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "core/error.hpp"

namespace rooflinectl {

/// datasheet: the vendor's theoretical figures (builtin GPU table); counters: CUPTI
/// `<metric>.peak_sustained` per cycle × the clock measured during the kernel; measured: the
/// ceilings `rooflinectl peaks` reached with its microbenchmarks on this GPU (cached).
enum class RoofSource { kDatasheet, kCounters, kMeasured };

inline std::string to_string(RoofSource source) {
  switch (source) {
    case RoofSource::kDatasheet:
      return "datasheet";
    case RoofSource::kCounters:
      return "counters";
    case RoofSource::kMeasured:
      return "measured";
  }
  return "unknown";
}

/// Parses "datasheet" | "counters" | "measured"; throws a bad-input Error naming the token and the
/// allowed values otherwise.
inline RoofSource parse_roof_source(std::string_view text) {
  if (text == "datasheet") return RoofSource::kDatasheet;
  if (text == "counters") return RoofSource::kCounters;
  if (text == "measured") return RoofSource::kMeasured;
  throw bad_input(
      fmt::format("invalid roof source '{}': allowed datasheet, counters, measured", text));
}

}  // namespace rooflinectl
