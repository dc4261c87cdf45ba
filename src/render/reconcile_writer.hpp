// Console text for the reconciliation of a sweep report: one block per operator and flagged check
// (analytic vs counted outside its documented band) with its explanation once. Pure host code,
// reads only.
#pragma once

#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// "reconciliation (analytic vs counted): N of M checks flagged" and then, per operator and
/// flagged quantity (and side of its band), one line with the quantity vs reference, the band and
/// each flagged L with its ratio, and the explanation once, that of the first such point (the
/// JSON keeps every point's). Empty when no point carries a reconciliation.
std::string format_reconciliation_flags(const Report& report);

}  // namespace rooflinectl
