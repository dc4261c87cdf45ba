// Writers of a CompareResult: console table, Markdown (a pull-request comment), JSON. They only
// read the result; every judgement is made in compare.cpp. Pure host code; none throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/compare.hpp"

namespace rooflinectl {

/// Layout version of compare_to_json's output; bump on any incompatible change.
inline constexpr int kCompareSchemaVersion = 1;

/// Console view: a header naming both reports and the thresholds, one "warning:" line per
/// warning, one aligned row per point (verdict, operator, L, version, base and new median,
/// change, p-value, counters beyond the threshold), the reason of every point that is not
/// "same", and a summary line with the counts and the exit code.
std::string format_compare_table(const CompareResult& result);

/// GitHub-flavoured Markdown for a pull-request comment: a heading with the outcome, the
/// warnings as a quote (the machine changed, ...), a table of the points that are not "same"
/// (regressions first) with their reasons, and every point in a collapsed <details> table.
std::string format_compare_markdown(const CompareResult& result);

/// Everything in the result as ordered JSON: "compare_schema_version" first, then "base", "new",
/// "options", "canary", "warnings", "summary" (counts per verdict, regressions), "exit_code",
/// "points" (key, verdict, reason, time evidence or null, counter changes, counter_note).
/// Non-finite numbers are written as null.
nlohmann::ordered_json compare_to_json(const CompareResult& result);

}  // namespace rooflinectl
