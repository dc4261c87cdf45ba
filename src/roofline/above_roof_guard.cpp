#include "roofline/above_roof_guard.hpp"

#include <fmt/format.h>

namespace rooflinectl {
namespace {

// Why a point can be above a roof from `kind`.
std::string likely_cause(RoofSource kind) {
  return kind == RoofSource::kMeasured
             ? "the microbenchmark under-measured this ceiling (re-run `rooflinectl peaks`), or a "
               "unit, FLOP-formula or counter bug"
             : "a theoretical peak cannot be exceeded: a unit, FLOP-formula or counter bug";
}

// The L2 slope binds (binding_level kL2, so every L2 figure is set): the point moved more L2
// bytes per second than the L2 roof allows.
std::string above_l2_roof(const RooflinePoint& point) {
  const Roof& roof = point.roof;
  const RoofSource kind = roof.l2_source_kind.value_or(roof.source_kind);
  return fmt::format(
      "above the {} L2 roof: achieved {:.4g} TFLOP/s is {:.3f}x the attainable {:.4g} TFLOP/s at "
      "{:.4g} FLOP per L2 byte (L2 traffic {:.4g} TB/s against the {:.4g} TB/s roof); {}",
      to_string(kind), point.achieved_flop_per_s / 1e12, point.fraction_of_roof,
      point.attainable_flop_per_s / 1e12, point.l2_arithmetic_intensity_flop_per_byte.value_or(0),
      point.achieved_l2_bytes_per_s.value_or(0) / 1e12, roof.l2_bytes_per_s.value_or(0) / 1e12,
      likely_cause(kind));
}

}  // namespace

std::optional<std::string> above_roof_error(const RooflinePoint& point) {
  if (!point.above_roof) return std::nullopt;
  if (point.binding_level == RoofLevel::kL2) return above_l2_roof(point);
  // With the deferred write-back known apart, even the in-window bytes did not explain it.
  const std::string in_window =
      point.in_window_arithmetic_intensity_flop_per_byte
          ? fmt::format(
                " (not explained by deferred write-back: {:.4g} FLOP per in-window DRAM "
                "byte)",
                *point.in_window_arithmetic_intensity_flop_per_byte)
          : "";
  return fmt::format(
      "above the {} roof: achieved {:.4g} TFLOP/s is {:.3f}x the attainable {:.4g} "
      "TFLOP/s at {:.4g} FLOP/B{}; {}",
      to_string(point.roof.source_kind), point.achieved_flop_per_s / 1e12, point.fraction_of_roof,
      point.attainable_flop_per_s / 1e12, point.arithmetic_intensity_flop_per_byte, in_window,
      likely_cause(point.roof.source_kind));
}

}  // namespace rooflinectl
