// How the points of two reports differ, axis by axis: what `compare` shows when no point of one
// report matches a point of the other (another batch, dtype or operator set), so that the user
// sees which setting changed instead of a gate that passed on nothing. Pure host code.
#pragma once

#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// "batch: base 1, new 2; dtype: base bf16, new fp16": for each matching axis (operator, L,
/// batch, heads, KV heads, head dim, dtype, causal, GELU form) whose set of values differs between
/// the two reports, both sets (values in first-seen order, at most 8 each, then "..."). When no
/// single axis differs, says that only the combinations do.
std::string describe_point_set_difference(const Report& base, const Report& current);

}  // namespace rooflinectl
