// What the comparison writers (compare_writer, profile_compare_writer, layer_compare_writer)
// say the same way: the two reports' identity, percentages, JSON numbers, the verdict order, the
// counter-change array and the outcome line. Pure host code; none throws.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compare/compare.hpp"

namespace rooflinectl {

/// One side of a comparison in a header line: "<git revision> (<timestamp>)", "no git revision"
/// where the report has none.
std::string report_identity_label(const ReportIdentity& id);

/// One side of a comparison in JSON: tool_version, git_revision (null where the report has none),
/// timestamp_utc, device_name.
nlohmann::ordered_json report_identity_json(const ReportIdentity& id);

/// A relative change as a signed percentage with one decimal: 0.0312 → "+3.1%".
std::string signed_percent(double fraction);

/// A threshold fraction as a percentage, shortest form: 0.05 → "5%".
std::string threshold_percent(double fraction);

/// A JSON number, or null where `value` is not finite (or absent): JSON has no NaN or infinity.
nlohmann::ordered_json json_number(double value);
nlohmann::ordered_json json_number(const std::optional<double>& value);

/// The "counters" array of a compared point or kernel: per gated metric its base and new value,
/// the relative change and whether it passed the counter threshold.
nlohmann::ordered_json counter_changes_json(const std::vector<CounterChange>& changes);

/// The significance fields both JSON layouts give a time comparison, after the medians, relative
/// change and sample counts: the p-value (exact or normal approximation), the Holm-adjusted
/// p-value and the family it was adjusted in.
void add_significance_json(nlohmann::ordered_json& time, const TimeEvidence& evidence);

/// Whether a compared item's reason goes below the table: added and removed items have no
/// reason beyond their verdict (their row says it), and "same" needs none.
bool needs_reason_line(Verdict verdict);

/// "N failed, N slower, ..." in kVerdictAttentionOrder, from any result with count(Verdict).
template <class Result>
std::string verdict_counts(const Result& result) {
  std::string text;
  for (const Verdict v : kVerdictAttentionOrder) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", result.count(v), to_string(v));
  }
  return text;
}

/// The JSON "summary" of any result with count(Verdict) and regressions(): a count per verdict in
/// kVerdictAttentionOrder, then "regressions".
template <class Result>
nlohmann::ordered_json verdict_summary_json(const Result& result) {
  nlohmann::ordered_json summary;
  for (const Verdict v : kVerdictAttentionOrder) summary[to_string(v)] = result.count(v);
  summary["regressions"] = result.regressions();
  return summary;
}

/// Characters a comparison's Markdown may reach: under the 65,536 characters GitHub takes in one
/// comment body, with room for the closing lines.
inline constexpr size_t kMarkdownCommentBudget = 60000;

/// Appends to `out` a folded block "<details><summary>{summary}</summary>", `header` and as many of
/// `rows` as keep `out` within kMarkdownCommentBudget, then a line saying how many rows were left
/// out (`items`: "points", "kernels", "rows"; the table and JSON formats have them all) and the
/// closing tag.
void append_folded_rows(std::string& out, const std::string& summary, const std::string& header,
                        const std::vector<std::string>& rows, const std::string& items);

/// The outcome after the summary: "N regression(s)"; else, when the exit code is not 0,
/// "no regression, but inconclusive or removed <items> fail under --strict"; else
/// "no regression". `items`: "points" or "kernels".
std::string regression_outcome(size_t regressions, int exit_code, const std::string& items);

}  // namespace rooflinectl
