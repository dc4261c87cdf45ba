// The one definition of which FLOPs and DRAM bytes a point's roofline placement uses, computed
// from the point's raw data. The consistency check (consistency.hpp) holds every stored
// placement against it, so a report whose roofline was edited, or written by a placement that
// used other figures, is refused by every reader instead of read differently by each.
#pragma once

#include <optional>
#include <string>

#include "report/result.hpp"

namespace rooflinectl {

/// FLOPs, DRAM bytes and basis of a roofline placement.
struct PlacementInputs {
  double flop = 0;        ///< FLOPs
  double dram_bytes = 0;  ///< bytes
  std::string basis;      ///< RooflinePoint::basis: "counters" or "analytic"
  /// Where the two figures come from, for messages, e.g. "counters.total (tensor + fp32 + fp16
  /// FLOPs; DRAM read + write bytes)".
  std::string source;
};

/// What the placement of `point` should have used for `basis`:
///  * "counters": counters.total.total_flop() and counters.total.dram_bytes() (read + write);
///  * "analytic": analytic.flop and analytic.implemented_dram_bytes.
/// std::nullopt (with `why_not` set) when that raw data is missing or not positive, or the basis
/// is unknown. Pure function of the point; the sweep's placement and every reader's check must
/// agree with it.
std::optional<PlacementInputs> expected_placement_inputs(const PointResult& point,
                                                         const std::string& basis,
                                                         std::string& why_not);

}  // namespace rooflinectl
