#include "cmd_report.hpp"

#include <fmt/format.h>

#include "report/atomic_file.hpp"
#include "report/json_reader.hpp"
#include "report_format.hpp"

namespace rooflinectl {

CLI::App* setup_report(CLI::App& app, ReportOptions& o) {
  CLI::App* sub =
      app.add_subcommand("report", "Print a saved sweep report as a table, Markdown, CSV or JSON");
  sub->add_option("report", o.report, "JSON report written by `sweep --output`")->required();
  sub->add_option("--format", o.format,
                  "table (console) | md (Markdown for a pull request: one table per operator, "
                  "verdicts, the flash-vs-naive conclusion) | csv (one row per point, units in "
                  "the header) | json (the report re-validated, derived values recomputed, in "
                  "the format `sweep --output` writes)");
  sub->add_option("--output,-o", o.output, "Write to this file instead of stdout");
  return sub;
}

int run_report_command(const ReportOptions& o) {
  const ReportFormat format = parse_report_format(
      o.format, "--format",
      {ReportFormat::kTable, ReportFormat::kMarkdown, ReportFormat::kCsv, ReportFormat::kJson});
  if (!o.output.empty()) check_output_file_path(o.output);
  const std::string text = render_report(load_report(o.report), format);
  if (o.output.empty()) {
    fmt::print("{}", text);
  } else {
    write_file_atomically(o.output, text);
    fmt::print(stderr, "written to {}\n", o.output);
  }
  return 0;
}

}  // namespace rooflinectl
