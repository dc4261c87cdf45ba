// The stdout formats shared by `sweep --format` and `report --format`.
#pragma once

#include <string>
#include <vector>

#include "profile/profile_report.hpp"
#include "result/report.hpp"

namespace rooflinectl {

enum class ReportFormat { kTable, kJson, kCsv, kMarkdown, kBmf };

/// Parses `text` ("table" | "json" | "csv" | "md" | "bmf") for the option `flag`, accepting only
/// the formats in `allowed`. Throws a bad-input Error naming the value and the allowed list.
ReportFormat parse_report_format(const std::string& text, const std::string& flag,
                                 const std::vector<ReportFormat>& allowed);

/// The name `parse_report_format` accepts for `format` ("table", "md", ...).
const char* format_name(ReportFormat format);

/// The file extension a file of `format` has: table ".txt", md ".md", csv ".csv", json and bmf
/// ".json".
const char* extension_of(ReportFormat format);

/// The exit code of `report` and `plot` for `report`, the one its sweep exited with: kOk, or
/// kPartial (1) when a point is not ok (skipped, failed or interrupted) or lies above its roof,
/// which is an error in a unit, a formula or a counter (README "roofs"); then one line on stderr
/// per kind names the points' count and the first one.
int report_exit_code(const Report& report);

/// The exit code of `report` and `plot` for a `rooflinectl profile` report: kOk, or kPartial (1)
/// when a kernel's placement lies above its roof (as for a sweep point, and as `compare` fails
/// it); then one line on stderr names the count, the first kernel and the cause
/// (above_roof_error).
int profile_report_exit_code(const ProfileReport& report);

/// `report` rendered as `format`: table = console table then the flash-vs-naive summary (when
/// the report has attention points) and the reconciliation flags; json = the report file's
/// text; csv and md = the CSV and Markdown writers; bmf = Bencher Metric Format (docs/ci.md). Ends
/// with a newline.
std::string render_report(const Report& report, ReportFormat format);

}  // namespace rooflinectl
