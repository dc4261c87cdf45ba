#include "render/compare_common.hpp"

#include <cmath>

namespace rooflinectl {

std::string report_identity_label(const ReportIdentity& id) {
  return fmt::format("{} ({})", id.git_revision.empty() ? "no git revision" : id.git_revision,
                     id.timestamp_utc);
}

nlohmann::ordered_json report_identity_json(const ReportIdentity& id) {
  nlohmann::ordered_json j;
  j["tool_version"] = id.tool_version;
  j["git_revision"] =
      id.git_revision.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(id.git_revision);
  j["timestamp_utc"] = id.timestamp_utc;
  j["device_name"] = id.device_name;
  return j;
}

std::string signed_percent(double fraction) { return fmt::format("{:+.1f}%", 100.0 * fraction); }

std::string threshold_percent(double fraction) { return fmt::format("{:g}%", 100.0 * fraction); }

nlohmann::ordered_json json_number(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json json_number(const std::optional<double>& value) {
  return value ? json_number(*value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json counter_changes_json(const std::vector<CounterChange>& changes) {
  nlohmann::ordered_json counters = nlohmann::ordered_json::array();
  for (const auto& c : changes) {
    counters.push_back(nlohmann::ordered_json{{"metric", c.metric},
                                              {"base", json_number(c.base)},
                                              {"new", json_number(c.current)},
                                              {"relative_change", json_number(c.relative_change)},
                                              {"beyond_threshold", c.beyond_threshold}});
  }
  return counters;
}

void add_significance_json(nlohmann::ordered_json& time, const TimeEvidence& evidence) {
  time["p_value"] = json_number(evidence.p_value);
  time["p_value_exact"] = evidence.exact_p;
  time["p_value_adjusted"] = json_number(evidence.p_value_adjusted);
  time["family_size"] = evidence.family_size;
}

bool needs_reason_line(Verdict verdict) {
  return verdict != Verdict::kSame && verdict != Verdict::kAdded && verdict != Verdict::kRemoved;
}

std::string regression_outcome(size_t regressions, int exit_code, const std::string& items) {
  if (regressions > 0) {
    return fmt::format("{} regression{}", regressions, regressions == 1 ? "" : "s");
  }
  if (exit_code != 0) {
    return fmt::format("no regression, but inconclusive or removed {} fail under --strict", items);
  }
  return "no regression";
}

void append_folded_rows(std::string& out, const std::string& summary, const std::string& header,
                        const std::vector<std::string>& rows, const std::string& items) {
  out += "<details><summary>" + summary + "</summary>\n\n" + header;
  size_t shown = 0;
  for (const std::string& row : rows) {
    if (out.size() + row.size() > kMarkdownCommentBudget) break;
    out += row;
    ++shown;
  }
  if (shown < rows.size()) {
    out += fmt::format(
        "\n{} more {} not shown (a GitHub comment holds 65,536 characters): `--format table` or "
        "`--format json` has them all.\n",
        rows.size() - shown, items);
  }
  out += "\n</details>\n";
}

}  // namespace rooflinectl
