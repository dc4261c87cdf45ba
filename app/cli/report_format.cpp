#include "cli/report_format.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "io/json_writer.hpp"
#include "render/attention_summary.hpp"
#include "render/bmf_writer.hpp"
#include "render/csv_writer.hpp"
#include "render/markdown_writer.hpp"
#include "render/reconcile_writer.hpp"
#include "render/table_writer.hpp"
#include "roofline/above_roof_guard.hpp"

namespace rooflinectl {

const char* format_name(ReportFormat format) {
  switch (format) {
    case ReportFormat::kTable:
      return "table";
    case ReportFormat::kJson:
      return "json";
    case ReportFormat::kCsv:
      return "csv";
    case ReportFormat::kMarkdown:
      return "md";
    case ReportFormat::kBmf:
      return "bmf";
  }
  return "";
}

int report_exit_code(const Report& report) {
  size_t above = 0;
  size_t not_ok = 0;
  const PointResult* first_above = nullptr;
  const PointResult* first_not_ok = nullptr;
  for (const PointResult& p : report.points) {
    if (p.status != PointStatus::kOk && not_ok++ == 0) first_not_ok = &p;
    if (p.roofline && p.roofline->above_roof && above++ == 0) first_above = &p;
  }
  const int partial = static_cast<int>(ExitCode::kPartial);
  if (not_ok > 0) {
    const PointResult& p = *first_not_ok;
    fmt::print(stderr, "{} of {} points not ok (first: {} at L = {}, {}{}{}); exit {}\n", not_ok,
               report.points.size(), p.op, p.shape.seq_len, to_string(p.status),
               p.reason.empty() ? "" : ": ", p.reason, partial);
  }
  if (above > 0) {
    const PointResult& p = *first_above;
    fmt::print(stderr,
               "{} point{} above {} roof (first: {} {} at L = {}): achieved exceeds attainable, a "
               "unit, formula or counter error; exit {}\n",
               above, above == 1 ? "" : "s", above == 1 ? "its" : "their", p.op, p.version,
               p.shape.seq_len, partial);
  }
  return not_ok + above > 0 ? partial : static_cast<int>(ExitCode::kOk);
}

int profile_report_exit_code(const ProfileReport& report) {
  size_t above = 0;
  const KernelSummary* first = nullptr;
  for (const KernelSummary& k : report.kernels) {
    if (k.roofline && k.roofline->above_roof && above++ == 0) first = &k;
  }
  if (above == 0) return static_cast<int>(ExitCode::kOk);
  const int partial = static_cast<int>(ExitCode::kPartial);
  fmt::print(stderr, "{} kernel{} above {} roof (first: {}): {}; exit {}\n", above,
             above == 1 ? "" : "s", above == 1 ? "its" : "their", first->key,
             above_roof_error(*first->roofline).value_or(""), partial);
  return partial;
}

const char* extension_of(ReportFormat format) {
  switch (format) {
    case ReportFormat::kTable:
      return ".txt";
    case ReportFormat::kCsv:
      return ".csv";
    case ReportFormat::kMarkdown:
      return ".md";
    case ReportFormat::kJson:
    case ReportFormat::kBmf:
      return ".json";
  }
  return "";
}

ReportFormat parse_report_format(const std::string& text, const std::string& flag,
                                 const std::vector<ReportFormat>& allowed) {
  std::string list;
  for (const ReportFormat f : allowed) {
    if (text == format_name(f)) return f;
    list += (list.empty() ? "" : ", ") + std::string(format_name(f));
  }
  throw bad_input(fmt::format("invalid {} '{}': allowed {}", flag, text, list));
}

std::string render_report(const Report& report, ReportFormat format) {
  switch (format) {
    case ReportFormat::kJson:
      return report_to_json_text(report);
    case ReportFormat::kCsv:
      return format_csv_report(report);
    case ReportFormat::kMarkdown:
      return format_markdown_report(report);
    case ReportFormat::kBmf:
      return report_to_bmf(report).dump(2, ' ', false,
                                        nlohmann::ordered_json::error_handler_t::replace) +
             "\n";
    case ReportFormat::kTable:
      break;
  }
  const std::string summary = format_attention_summary_text(summarize_attention(report));
  return format_console_table(report) + format_reconciliation_flags(report) +
         (summary.empty() ? "" : "\n" + summary);
}

}  // namespace rooflinectl
