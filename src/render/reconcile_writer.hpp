// Console text for the reconciliation of a sweep report: one block per flagged check (analytic vs
// counted outside its documented band) with its explanation. Pure host code, reads only.
#pragma once

#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// "reconciliation: N flagged of M checks" and then, per flagged check, operator, L, quantity vs
/// reference, ratio, band and explanation. Empty when no point carries a reconciliation.
std::string format_reconciliation_flags(const Report& report);

}  // namespace rooflinectl
