// Writers of a ProfileCompareResult (`rooflinectl compare` on two profile reports): console
// table, Markdown (a pull-request comment), JSON. They only read the result; every judgement is
// made in compare/profile_compare.cpp. Pure host code; none throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "compare/profile_compare.hpp"

namespace rooflinectl {

/// Layout version of profile_compare_to_json's output; bump on any incompatible change. 2: an
/// unknown git revision is null (was "").
inline constexpr int kProfileCompareSchemaVersion = 2;

/// Console view: a header naming both reports, the thresholds, --min-share and the number of
/// kernels tested by time; one "warning:" line per warning; one aligned row per kernel (verdict,
/// kernel name shortened to 48 characters with its NVTX path, share of the base's GPU time,
/// launches base/new, median base and new, change of the median, Holm-adjusted p or "-" when not
/// tested by time, counters beyond their threshold or "=" when none); then "<verdict>: <key>:
/// <reason>" for every kernel neither same, added nor removed; and a summary line with the
/// count per verdict and the exit code.
std::string format_profile_compare_table(const ProfileCompareResult& result);

/// GitHub-flavoured Markdown for a pull-request comment: a heading with the outcome, the
/// warnings as a quote, a table of the kernels that are not "same" (regressions first) with the
/// reasons, and every kernel in a collapsed <details> table.
std::string format_profile_compare_markdown(const ProfileCompareResult& result);

/// Everything in the result as ordered JSON: "profile_compare_schema_version" first, then "base",
/// "new" (tool version, git revision, timestamp, device name), "options" (thresholds and
/// min_share as fractions, strict, allow_different_gpu, mann_whitney_alpha,
/// time_resolution_floor_s), "time_family_size", "warnings", "summary" (count per verdict,
/// regressions), "exit_code", "kernels" (key, name, nvtx, verdict, regression, reason,
/// base_share, base_launches, new_launches, time_gated, time: medians in seconds, timed launches
/// and p-values, or null; counters: metric, base, new, relative_change, beyond_threshold;
/// counter_note, traffic_note). Non-finite numbers and absent values are written as null.
nlohmann::ordered_json profile_compare_to_json(const ProfileCompareResult& result);

}  // namespace rooflinectl
