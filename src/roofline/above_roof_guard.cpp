#include "roofline/above_roof_guard.hpp"

#include <fmt/format.h>

namespace rooflinectl {

std::optional<std::string> above_roof_error(const RooflinePoint& point) {
  if (!point.above_roof) return std::nullopt;
  const std::string cause =
      point.roof.source_kind == RoofSource::kMeasured
          ? "the microbenchmark under-measured this ceiling (re-run `rooflinectl peaks`), or a "
            "unit, FLOP-formula or counter bug"
          : "a theoretical peak cannot be exceeded: a unit, FLOP-formula or counter bug";
  return fmt::format(
      "above the {} roof: achieved {:.4g} TFLOP/s is {:.3f}x the attainable {:.4g} "
      "TFLOP/s at {:.4g} FLOP/B; {}",
      to_string(point.roof.source_kind), point.achieved_flop_per_s / 1e12, point.fraction_of_roof,
      point.attainable_flop_per_s / 1e12, point.arithmetic_intensity_flop_per_byte, cause);
}

}  // namespace rooflinectl
