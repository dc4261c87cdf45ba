// Which FLOPs and DRAM bytes a point is placed on the roofline with, and why: the one definition
// that the sweep uses to place a point and that every reader uses to check a stored placement.
// Pure host code, no CUDA.
#pragma once

#include <optional>
#include <string>

#include "report/result.hpp"

namespace rooflinectl {

/// RooflinePoint::bytes_basis values.
/// Counted DRAM read + in-window write + deferred write-back: the traffic of the isolated launch.
inline constexpr const char* kBytesIsolated = "dram_isolated";
/// Counted DRAM read + in-window write only (what Nsight Compute reports): used when the
/// write-back was not measured, and by schema-1 reports.
inline constexpr const char* kBytesInWindow = "dram_in_window";
/// The analytic model's as-implemented DRAM bytes (no counters).
inline constexpr const char* kBytesAnalytic = "analytic_implemented";

/// The inputs of one placement. `flop` and `dram_bytes` are both set (and > 0) or both nullopt
/// with `null_reason`.
struct PlacementInputs {
  std::optional<double> flop;
  std::optional<double> dram_bytes;
  std::string basis;        ///< RooflinePoint::basis: "counters" or "analytic"
  std::string bytes_basis;  ///< one of kBytesIsolated, kBytesInWindow, kBytesAnalytic
  std::string null_reason;  ///< empty when set
};

/// The FLOPs and DRAM bytes of a placement, and where they come from (for messages).
struct PlacementFigures {
  double flop = 0;
  double dram_bytes = 0;
  std::string source;  ///< e.g. "counters (all FLOPs; DRAM read + in-window write + write-back)"
};

/// What a stored placement with `basis` ("counters", "analytic") and `bytes_basis` (one of the
/// k*Bytes values; empty reads as the schema-1 meaning: in-window for counters) must have used,
/// from the point's raw data. std::nullopt with `why_not` when that data is missing or not
/// positive, or a basis is unknown. The consistency check of every reader
/// (report/consistency.hpp) holds stored placements against it.
std::optional<PlacementFigures> expected_placement_inputs(const PointResult& point,
                                                          const std::string& basis,
                                                          const std::string& bytes_basis,
                                                          std::string& why_not);

/// The sweep's rule, in order:
/// 1. counters collected (`point.counters.null_reason` unset): counted FLOPs (all pipes) and
///    `dram_bytes_isolated()`, or the in-window bytes when the write-back is unknown; both must be
///    > 0, else null with the reason (no silent switch to the model for a point that has
///    counters);
/// 2. no counters: `point.analytic.flop` and `point.analytic.implemented_dram_bytes`, basis
///    "analytic", when both are > 0.
PlacementInputs placement_inputs(const PointResult& point);

}  // namespace rooflinectl
