#include "render/junit_writer.hpp"

#include <fmt/format.h>

#include "render/xml_escape.hpp"

namespace rooflinectl {
namespace {

enum class CaseOutcome { kPass, kFailure, kSkipped };

CaseOutcome outcome_of(const PointComparison& p, bool strict) {
  if (is_regression(p.verdict)) return CaseOutcome::kFailure;
  if (p.verdict == Verdict::kInconclusive || p.verdict == Verdict::kRemoved) {
    return strict ? CaseOutcome::kFailure : CaseOutcome::kSkipped;
  }
  return CaseOutcome::kPass;
}

}  // namespace

std::string format_compare_junit(const CompareResult& result) {
  size_t failures = 0;
  size_t skipped = 0;
  std::string cases;
  for (const PointComparison& p : result.points) {
    const CaseOutcome outcome = outcome_of(p, result.options.strict);
    const std::string message = xml_escape(to_string(p.verdict) + ": " + p.reason);
    cases += fmt::format(R"(    <testcase classname="{}" name="{}">)", xml_escape(p.key.op),
                         xml_escape(p.key.shape_label()));
    if (outcome == CaseOutcome::kFailure) {
      ++failures;
      cases += fmt::format(R"(<failure message="{}" type="{}">{}</failure>)", message,
                           to_string(p.verdict), message);
    } else if (outcome == CaseOutcome::kSkipped) {
      ++skipped;
      cases += fmt::format(R"(<skipped message="{}"/>)", message);
    }
    cases += "</testcase>\n";
  }
  std::string system_out;
  for (const std::string& w : result.warnings) system_out += "warning: " + xml_escape(w) + "\n";
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"rooflinectl\" tests=\"{0}\" failures=\"{1}\" skipped=\"{2}\">\n"
      "  <testsuite name=\"rooflinectl compare\" tests=\"{0}\" failures=\"{1}\" "
      "skipped=\"{2}\" errors=\"0\">\n"
      "{3}"
      "    <system-out>{4}</system-out>\n"
      "  </testsuite>\n"
      "</testsuites>\n",
      result.points.size(), failures, skipped, cases, system_out);
}

}  // namespace rooflinectl
