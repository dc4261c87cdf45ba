// One consistency check of a report's stored derived values against their raw data, run by
// every reader (`report`, `plot`, `compare`, `sweep --baseline`) so that no two of them can read
// one report differently. Pure host code.
#pragma once

#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// Relative difference up to which a stored derived value equals its recomputation: the writer
/// stores doubles exactly (17 significant digits), so anything beyond rounding is an edit.
inline constexpr double kConsistencyTolerance = 1e-9;

/// Throws a bad-input Error (exit 2) "<origin>: points[i] (<op> at L = <L>): roofline.<key> <v>
/// differs from <source> <w>: ..." when a point's roofline placement did not use the FLOPs and
/// DRAM bytes expected_placement_inputs (result/placement_inputs.hpp) gives for its bases, or has
/// a placement without that raw data, or whose L2 bytes, when stored, are not the point's
/// counters.total.l2_bytes (placement_l2_bytes). (Its time is held against timing.median_s by the
/// report reader itself, and the derived rates are recomputed on reading.)
void check_report_consistency(const Report& report, const std::string& origin);

}  // namespace rooflinectl
