#include "cmd_report.hpp"

#include <fmt/format.h>

#include "cli/output_extension.hpp"
#include "cli/report_format.hpp"
#include "core/error.hpp"
#include "io/atomic_file.hpp"
#include "io/json_reader.hpp"
#include "io/profile_json.hpp"
#include "render/profile_table.hpp"
#include "result/consistency.hpp"
#include "result/point_key.hpp"

namespace rooflinectl {

CLI::App* setup_report(CLI::App& app, ReportOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "report",
      "Print a saved sweep report as a table, Markdown, CSV, JSON or BMF (a profile report: table "
      "or JSON)");
  sub->add_option("report", o.report, "JSON report written by `sweep --output` or `profile -o`")
      ->required();
  sub->add_option("--format", o.format,
                  "table (console) | md (Markdown for a pull request: one table per operator, "
                  "verdicts, the flash-vs-naive conclusion) | csv (one row per point, units in "
                  "the header) | json (the report re-validated, derived values recomputed, in "
                  "the format `sweep --output` writes) | bmf (Bencher Metric Format, as `sweep "
                  "--format bmf` prints it, docs/ci.md) (default table)");
  sub->add_option("--output,-o", o.output,
                  "Write to this file instead of stdout (atomically; name ending in the --format's "
                  "extension: .txt, .md, .csv, .json (json and bmf); never the input report) "
                  "(default: stdout)")
      ->each([&o](const std::string&) { o.output_given = true; });
  return sub;
}

namespace {

void write_output(const ReportOptions& o, const std::string& text) {
  if (!o.output_given) {
    write_stdout(text);
  } else {
    write_file_atomically(o.output, text);
    fmt::print(stderr, "written to {}\n", o.output);
  }
}

// A profile report has kernels, not sweep points: the table `profile` printed, or the report
// re-written; the per-point formats have nothing to show.
std::string render_profile_report(const ProfileReport& report, ReportFormat format,
                                  const std::string& path) {
  if (format == ReportFormat::kTable) return format_profile_table(report);
  if (format == ReportFormat::kJson) return profile_report_to_json_text(report);
  throw bad_input(fmt::format(
      "--format {}: {} is a `rooflinectl profile` report; allowed for profile reports: table, json",
      format_name(format), path));
}

}  // namespace

int run_report_command(const ReportOptions& o) {
  const ReportFormat format =
      parse_report_format(o.format, "--format",
                          {ReportFormat::kTable, ReportFormat::kMarkdown, ReportFormat::kCsv,
                           ReportFormat::kJson, ReportFormat::kBmf});
  if (o.output_given) {
    check_output_extension(
        o.output, extension_of(format),
        fmt::format("--format {} writes {}", format_name(format), extension_of(format)));
    check_output_is_not_input(o.output, o.report);
    check_output_file_path(o.output);
  }
  if (is_profile_report_file(o.report)) {
    write_output(o, render_profile_report(load_profile_report(o.report), format, o.report));
    return static_cast<int>(ExitCode::kOk);
  }
  const Report report = load_report(o.report);
  // As compare and plot: a report of no points has nothing to show, and an empty table would look
  // like a result.
  if (report.points.empty()) {
    throw bad_input(fmt::format(
        "{} has no points: nothing to report (a sweep writes one per operator and length)",
        o.report));
  }
  check_unique_points(report, o.report);
  check_report_consistency(report, o.report);
  write_output(o, render_report(report, format));
  return report_exit_code(report);
}

}  // namespace rooflinectl
