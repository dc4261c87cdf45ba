// Which FLOPs and DRAM bytes a point is placed on the roofline with, and why: the one definition
// that the sweep uses to place a point and that every reader uses to check a stored placement.
// Pure host code, no CUDA.
#pragma once

#include <optional>
#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// RooflinePoint::bytes_basis values.
/// Counted DRAM read + in-window write + deferred write-back: the traffic of the isolated launch.
inline constexpr const char* kBytesIsolated = "dram_isolated";
/// Counted DRAM read + in-window write only (what Nsight Compute reports): used when the
/// write-back was not measured, and by schema-1 reports.
inline constexpr const char* kBytesInWindow = "dram_in_window";
/// The analytic model's as-implemented DRAM bytes (no counters): naive attention, whose S and P
/// go from one kernel to the next through global memory.
inline constexpr const char* kBytesAnalytic = "analytic_implemented";
/// The analytic model's minimum DRAM bytes, each input read and each output written once (no
/// counters): every operator whose as-implemented extra traffic is re-reads inside one kernel,
/// which L2 serves (flash attention's K and V per query tile: at L = 4096 on the H200 the counters
/// read 62 MB where the no-reuse model streams 1108 MB).
inline constexpr const char* kBytesAnalyticMin = "analytic_min";

/// The analytic bytes basis of operator `op` (kBytesAnalytic for naive_attention, else
/// kBytesAnalyticMin): the analytic figure closest to the DRAM traffic and never so high that a
/// point is placed above a true roof by the model's own re-read count.
const char* analytic_bytes_basis(const std::string& op);

/// The L2 bytes of a placement on `basis` ("counters", "analytic"): on counters the point's
/// counters.total.l2_bytes (lts__t_bytes.sum) when > 0; never from the model, so an analytic
/// placement (and a missing or zero count) gets std::nullopt with the reason.
L2Bytes placement_l2_bytes(const PointResult& point, const std::string& basis);

/// The inputs of one placement. `flop` and `dram_bytes` are both set (and > 0) or both nullopt
/// with `null_reason`.
struct PlacementInputs {
  std::optional<double> flop;
  std::optional<double> dram_bytes;
  std::optional<double> dram_bytes_in_window;  ///< PlacementFigures::dram_bytes_in_window
  L2Bytes l2;                                  ///< placement_l2_bytes(point, basis)
  std::string basis;                           ///< RooflinePoint::basis: "counters" or "analytic"
  std::string bytes_basis;  ///< kBytesIsolated, kBytesInWindow, kBytesAnalytic or kBytesAnalyticMin
  std::string null_reason;  ///< empty when set
};

/// The FLOPs and DRAM bytes of a placement, and where they come from (for messages).
struct PlacementFigures {
  double flop = 0;
  double dram_bytes = 0;
  /// The part of dram_bytes moved during the kernels' windows (counters.total read + write) on
  /// the write-back-inclusive basis (kBytesIsolated), which judges the DRAM slope
  /// (RooflinePoint::dram_bytes_in_window); std::nullopt on every other basis.
  std::optional<double> dram_bytes_in_window;
  std::string source;  ///< e.g. "counters (all FLOPs; DRAM read + in-window write + write-back)"
};

/// What a stored placement with `basis` ("counters", "analytic") and `bytes_basis` (one of the
/// k*Bytes values; empty reads as the schema-1 meaning: in-window for counters) must have used,
/// from the point's raw data. std::nullopt with `why_not` when that data is missing or not
/// positive, or a basis is unknown. The consistency check of every reader
/// (io/consistency.hpp) holds stored placements against it.
std::optional<PlacementFigures> expected_placement_inputs(const PointResult& point,
                                                          const std::string& basis,
                                                          const std::string& bytes_basis,
                                                          std::string& why_not);

/// The sweep's rule, in order:
/// 1. counters collected (`point.counters.null_reason` unset): counted FLOPs (all pipes) and
///    `dram_bytes_isolated()`, or the in-window bytes when the write-back is unknown; both must be
///    > 0, else null with the reason (no silent switch to the model for a point that has
///    counters);
/// 2. no counters: `point.analytic.flop` and the analytic DRAM bytes of
///    analytic_bytes_basis(point.op) (implemented or minimum), basis "analytic", when both > 0.
/// `l2` is placement_l2_bytes of the basis either way.
PlacementInputs placement_inputs(const PointResult& point);

}  // namespace rooflinectl
