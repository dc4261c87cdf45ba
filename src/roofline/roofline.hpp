// The roofline model (Williams, Waterman & Patterson, CACM 52(4), 2009): attainable performance
// P = min(P_peak, I × BW) with arithmetic intensity I = FLOP / DRAM byte and ridge point
// I* = P_peak / BW. Pure host code, no CUDA.
#pragma once

#include <optional>
#include <string>

#include "core/pipe.hpp"
#include "roofline/roof_source.hpp"

namespace rooflinectl {

/// The roof a point is placed under: one compute peak (the pipe's) and the DRAM bandwidth.
struct Roof {
  Pipe pipe = Pipe::kTensor;
  double peak_flop_per_s = 0;   ///< compute roof of `pipe`, FLOP/s
  double peak_bytes_per_s = 0;  ///< DRAM roof, bytes/s
  std::string source;           ///< where both peaks came from (counters × clock, datasheet, ...)
  RoofSource source_kind = RoofSource::kCounters;  ///< which of the three sources `source` is
};

/// Ridge point I* = P_peak / BW in FLOP/byte. Throws a bad-input Error when either is ≤ 0.
double ridge_point_flop_per_byte(const Roof& roof);

/// Attainable FLOP/s at intensity `intensity_flop_per_byte` under `roof`: min(P_peak, I × BW).
double attainable_flop_per_s(const Roof& roof, double intensity_flop_per_byte);

enum class Bound { kMemory, kCompute };
std::string to_string(Bound bound);
Bound parse_bound(const std::string& text);

/// A point placed on the roofline. All rates per second, intensities in FLOP/byte.
struct RooflinePoint {
  Roof roof;
  double flop = 0;        ///< FLOPs the placement used
  double dram_bytes = 0;  ///< DRAM bytes the placement used
  double time_s = 0;      ///< time the placement used (median of the timed pass)
  double arithmetic_intensity_flop_per_byte = 0;
  double achieved_flop_per_s = 0;
  double achieved_bytes_per_s = 0;
  double ridge_flop_per_byte = 0;
  double attainable_flop_per_s = 0;
  /// achieved / attainable (1.0 = on the roof). Above 1 means a unit, formula or counter bug and
  /// sets `above_roof`.
  double fraction_of_roof = 0;
  bool above_roof = false;
  Bound bound = Bound::kMemory;  ///< memory when I < I*, else compute
  std::string basis;             ///< "counters" (measured FLOPs and bytes) or "analytic"
  /// Which DRAM bytes `dram_bytes` is (roofline/placement_inputs.hpp): "dram_isolated",
  /// "dram_in_window", "analytic_implemented" or "analytic_min"; empty when the caller did not
  /// say.
  std::string bytes_basis;
};

/// Places one measurement under `roof`. Preconditions (bad-input Error otherwise): flop > 0,
/// dram_bytes > 0, time_s > 0, roof peaks > 0.
RooflinePoint place_on_roofline(const Roof& roof, double flop, double dram_bytes, double time_s,
                                const std::string& basis);

}  // namespace rooflinectl
