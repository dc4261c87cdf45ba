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

int above_roof_exit_code(const Report& report) {
  size_t above = 0;
  const PointResult* first = nullptr;
  for (const PointResult& p : report.points) {
    if (p.roofline && p.roofline->above_roof) {
      ++above;
      if (first == nullptr) first = &p;
    }
  }
  if (above == 0) return static_cast<int>(ExitCode::kOk);
  fmt::print(stderr,
             "{} point{} above {} roof (first: {} {} at L = {}): achieved exceeds attainable, a "
             "unit, formula or counter error; exit {}\n",
             above, above == 1 ? "" : "s", above == 1 ? "its" : "their", first->op, first->version,
             first->shape.seq_len, static_cast<int>(ExitCode::kPartial));
  return static_cast<int>(ExitCode::kPartial);
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
