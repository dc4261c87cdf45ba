#include "cmd_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/output_extension.hpp"
#include "cli/report_format.hpp"
#include "core/error.hpp"
#include "core/json_input.hpp"
#include "io/atomic_file.hpp"
#include "io/json_reader.hpp"
#include "io/layer_json.hpp"
#include "io/profile_json.hpp"
#include "model/layer_time_split.hpp"
#include "render/cross_gpu_writer.hpp"
#include "render/layer_split_writer.hpp"
#include "render/profile_table.hpp"
#include "result/consistency.hpp"
#include "result/point_key.hpp"

namespace rooflinectl {

CLI::App* setup_report(CLI::App& app, ReportOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "report",
      "Print a saved sweep report as a table, Markdown, CSV, JSON or BMF (a profile report: table "
      "or JSON; a layer report's time split: table, Markdown or CSV)");
  sub->add_option("reports", o.reports,
                  "JSON report written by `sweep --output`, `merge`, `profile -o` or `layer -o`; "
                  "two or more "
                  "sweep reports (e.g. the same sweep on an A100, an H100 and an H200): the same "
                  "points side by side, each on its own GPU's roofs, with time ratios to the first")
      ->required();
  sub->add_option("--format", o.format,
                  "table (console) | md (Markdown for a pull request: one table per operator, "
                  "verdicts, the flash-vs-naive conclusion) | csv (one row per point, units in "
                  "the header) | json (the report re-validated, derived values recomputed, in "
                  "the format `sweep --output` writes) | bmf (Bencher Metric Format, as `sweep "
                  "--format bmf` prints it, docs/ci.md) (default: from -o's extension, .md md, "
                  ".csv csv, .json json; else table)")
      ->each([&o](const std::string&) { o.format_given = true; });
  sub->add_option("--output,-o", o.output,
                  "Write to this file instead of stdout (atomically; name ending in the --format's "
                  "extension: .txt, .md, .csv, .json (json and bmf); never the input report) "
                  "(default: stdout)")
      ->each([&o](const std::string&) { o.output_given = true; });
  return sub;
}

namespace {

// The format an -o name implies when --format is not given: the writer of its extension
// (extension_of; json for .json: bmf is JSON too but asked for by name), else the table.
std::string format_of_output(const std::string& path) {
  const std::string extension = output_name_extension(path);
  for (const ReportFormat format :
       {ReportFormat::kMarkdown, ReportFormat::kCsv, ReportFormat::kJson}) {
    if (extension == extension_of(format)) return format_name(format);
  }
  return format_name(ReportFormat::kTable);
}

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

// A layer report (`layer -o`): its time split per (batch, length), re-printed from the JSON; the
// report is JSON already, and its other views (bounds, peak memory) are what `layer` printed.
std::string render_layer_report(const nlohmann::json& document, ReportFormat format,
                                const std::string& path) {
  const LayerTimeSplit split = layer_time_split_from_json(document, path);
  // A measured report is read as `compare` reads it too, so that an edited or damaged one (a
  // layer time that is not its operators' sum, a time on a failed operator) is refused here as
  // there, not printed.
  if (split.basis == "measured median times") layer_times_from_json(document, path);
  if (format == ReportFormat::kTable) return format_layer_split_table(split);
  if (format == ReportFormat::kMarkdown) return format_layer_split_markdown(split);
  if (format == ReportFormat::kCsv) return format_layer_split_csv(split);
  throw bad_input(fmt::format(
      "--format {}: {} is a `rooflinectl layer` report (JSON already); allowed for layer "
      "reports: table, md, csv",
      format_name(format), path));
}

// A report `report` can show: points, each unique, stored values consistent with the raw data.
Report checked_report(const nlohmann::json& document, const std::string& path) {
  Report report = report_from_json(document, path);
  // As compare and plot: a report of no points has nothing to show, and an empty table would look
  // like a result.
  if (report.points.empty()) {
    throw bad_input(fmt::format(
        "{} has no points: nothing to report (a sweep writes one per operator and length)", path));
  }
  check_unique_points(report, path);
  check_report_consistency(report, path);
  return report;
}

int run_cross_gpu_report(const ReportOptions& o, ReportFormat format) {
  if (format != ReportFormat::kTable && format != ReportFormat::kMarkdown) {
    throw bad_input(fmt::format(
        "--format {} with {} reports: the side-by-side view is a table or md (one report at a "
        "time for csv, json, bmf)",
        format_name(format), o.reports.size()));
  }
  std::vector<Report> reports;
  for (const std::string& path : o.reports) {
    const nlohmann::json document = parse_json_text(read_text_file(path, "report"), path);
    if (is_profile_report(document) || is_layer_report(document)) {
      throw bad_input(
          fmt::format("{} is a `rooflinectl {}` report; the side-by-side view takes sweep reports "
                      "(compare two {} reports with `compare`)",
                      path, is_layer_report(document) ? "layer" : "profile",
                      is_layer_report(document) ? "layer" : "profile"));
    }
    reports.push_back(checked_report(document, path));
  }
  // A report that shares no point with the first shows only "absent" cells: say why on stderr
  // (different operators or shapes), as `compare` refuses such a pair.
  for (size_t i = 1; i < reports.size(); ++i) {
    const bool shared =
        std::any_of(reports[i].points.begin(), reports[i].points.end(), [&](const PointResult& p) {
          const PointKey key = point_key(p);
          return std::any_of(reports[0].points.begin(), reports[0].points.end(),
                             [&](const PointResult& q) { return point_key(q).same_point(key); });
        });
    if (!shared) {
      fmt::print(stderr,
                 "warning: {} shares no point with {} (other operators or shapes): every row "
                 "shows one side absent\n",
                 o.reports[i], o.reports[0]);
    }
  }
  std::vector<CrossGpuReport> view;
  int code = static_cast<int>(ExitCode::kOk);
  for (size_t i = 0; i < reports.size(); ++i) {
    view.push_back({o.reports[i], &reports[i]});
    code = std::max(code, report_exit_code(reports[i]));
  }
  write_output(o, format_cross_gpu_report(view, format == ReportFormat::kMarkdown));
  return code;
}

}  // namespace

int run_report_command(const ReportOptions& o) {
  const ReportFormat format = parse_report_format(
      o.format_given || !o.output_given ? o.format : format_of_output(o.output), "--format",
      {ReportFormat::kTable, ReportFormat::kMarkdown, ReportFormat::kCsv, ReportFormat::kJson,
       ReportFormat::kBmf});
  if (o.output_given) {
    if (!o.format_given && format == ReportFormat::kTable && !o.output.empty() &&
        output_name_extension(o.output) != extension_of(format)) {
      throw bad_input(fmt::format(
          "invalid --output '{}': without --format the file name picks the writer, so it must "
          "end in .txt (table), .md, .csv or .json",
          o.output));
    }
    check_output_extension(
        o.output, extension_of(format),
        fmt::format("--format {} writes {}", format_name(format), extension_of(format)));
    for (const std::string& path : o.reports) check_output_is_not_input(o.output, path);
    check_output_file_path(o.output);
  }
  if (o.reports.size() > 1) return run_cross_gpu_report(o, format);
  // Read and parsed once: a merged report of thousands of points is tens of MB.
  const std::string& path = o.reports.front();
  const nlohmann::json document = parse_json_text(read_text_file(path, "report"), path);
  if (is_profile_report(document)) {
    const ProfileReport profile = profile_report_from_json(document, path);
    write_output(o, render_profile_report(profile, format, path));
    return profile_report_exit_code(profile);
  }
  if (is_layer_report(document)) {
    write_output(o, render_layer_report(document, format, path));
    return static_cast<int>(ExitCode::kOk);
  }
  const Report report = checked_report(document, path);
  write_output(o, render_report(report, format));
  return report_exit_code(report);
}

}  // namespace rooflinectl
