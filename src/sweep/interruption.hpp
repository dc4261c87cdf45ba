// What a sweep does with its points once SIGINT/SIGTERM arrived (src/core/interrupt.hpp): the
// points already measured stay as they are, every point not yet run is recorded as
// "interrupted", so the report is complete and valid — it just says how far the sweep got.
#pragma once

#include "result/report.hpp"

namespace rooflinectl {

/// Checks pending_interrupt(); when a signal is pending, marks `point` (planned, not yet run)
/// as interrupted: status kInterrupted, a reason naming the signal, no validation, timing or
/// roofline, and null-reasons for counters and roofline. Returns true when it did (the caller
/// must then not measure the point). Called once per point, between points, by the sweep loop.
bool mark_if_interrupted(PointResult& point);

/// True when any point of `report` is interrupted (the run exits 130).
bool report_was_interrupted(const Report& report);

}  // namespace rooflinectl
