// `rooflinectl report`: print a saved sweep report as a table, Markdown, CSV or JSON, or a saved
// profile report as a table or JSON.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rooflinectl {

struct ReportOptions {
  /// JSON reports written by `sweep --output`, `merge` or `profile -o`; two or more sweep
  /// reports: the cross-GPU view (render/cross_gpu_writer.hpp)
  std::vector<std::string> reports;
  std::string format = "table";  ///< table | md | csv | json | bmf
  /// --format was on the command line; without it, -o's extension picks the format (.md, .csv,
  /// .json; .txt and anything else: table)
  bool format_given = false;
  std::string output;         ///< write here (atomically) instead of stdout; empty: stdout
  bool output_given = false;  ///< --output was on the command line (an empty name is refused)
};

/// Binds the arguments of `report` to `options`.
CLI::App* setup_report(CLI::App& app, ReportOptions& options);

/// Reads the report and prints it in options.format (render_report) on stdout, or writes it to
/// options.output (atomically). A profile report ("kind": "profile") prints as table
/// (format_profile_table, what `profile` prints) or json (profile_report_to_json_text of the
/// report read back). Returns report_exit_code for a sweep report: 0, or 1 when a point is not ok
/// or above its roof; 0 for a profile report. Throws a bad-input Error (exit 2) for an unknown
/// format, md, csv or bmf on a profile report, an unreadable or invalid report, a sweep report of
/// no points, or an output path that cannot be written. Two or more reports: the same points side
/// by side (format_cross_gpu_report), table or md only, profile reports refused; returns 1 when a
/// point of any report is not ok or above its roof, else 0.
int run_report_command(const ReportOptions& options);

}  // namespace rooflinectl
