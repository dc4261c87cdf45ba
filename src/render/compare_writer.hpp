// Writers of a CompareResult: console table, Markdown (a pull-request comment), JSON. They only
// read the result; every judgement is made in compare.cpp. Pure host code; none throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "compare/compare.hpp"

namespace rooflinectl {

/// Layout version of compare_to_json's output; bump on any incompatible change. 2: an unknown
/// git revision is null (was "").
inline constexpr int kCompareSchemaVersion = 2;

/// Console view: a header naming both reports and the thresholds, one "warning:" line per
/// warning, one aligned row per point (verdict, operator, L, version or "old -> new" across a
/// version change, base and new median, change, p-value, counters beyond the threshold), the
/// reason of every point that is not "same", "added" or "removed" (their row says all), and a
/// summary line with the counts, the number of points matched across a version change (when
/// any) and the exit code.
std::string format_compare_table(const CompareResult& result);

/// GitHub-flavoured Markdown for a pull-request comment: a heading with the outcome, the
/// warnings as a quote (the machine changed, ...), a table of the points that are not "same"
/// (regressions first) with the reasons of those neither added nor removed, and every point in
/// a collapsed <details> table.
std::string format_compare_markdown(const CompareResult& result);

/// Everything in the result as ordered JSON: "compare_schema_version" first, then "base", "new",
/// "options", "canary", "warnings", "summary" (counts per verdict, regressions), "exit_code",
/// "points" (key, verdict, reason, time evidence or null, counter changes, counter_note).
/// Version changes (added in the same layout version 1): summary "version_changed" (count), and
/// per point "new_version" (the new report's version, null for a removed point) and
/// "version_changed"; "version" stays the base report's (the new one's for an added point).
/// Non-finite numbers are written as null.
nlohmann::ordered_json compare_to_json(const CompareResult& result);

}  // namespace rooflinectl
