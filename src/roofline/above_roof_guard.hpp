// The above-roof guard: a point achieving more than its roof allows is an error flag,
// never a silent "> 100%". Pure host code.
#pragma once

#include <optional>
#include <string>

#include "roofline/roofline.hpp"

namespace rooflinectl {

/// One line describing why `point` is flagged, or std::nullopt when it is not above its roof
/// (point.above_roof false: achieved ≤ the lowest known ceiling, the L2 one included). The roof
/// it names is the binding one: "above the <source> L2 roof" when the L2 slope binds (the L2
/// traffic exceeds the L2 bandwidth), else "above the <source> roof". The cause it names depends
/// on that ceiling's source: above a datasheet or counter-derived peak (theoretical) it is a
/// unit, FLOP-formula or counter bug; above a measured ceiling it is either that or a
/// microbenchmark that under-measured the ceiling.
std::optional<std::string> above_roof_error(const RooflinePoint& point);

}  // namespace rooflinectl
