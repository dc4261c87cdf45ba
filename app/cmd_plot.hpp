// `rooflinectl plot`: draw a sweep report as an SVG chart (roofline or throughput against L), or a
// profile report's kernels on the roofline.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rooflinectl {

struct PlotOptions {
  std::string report;              ///< JSON report written by `sweep --output` or `profile -o`
  std::string output;              ///< SVG file to write (atomically)
  std::string chart = "roofline";  ///< roofline | throughput
  bool chart_given = false;        ///< --chart was on the command line (a layer report has none)
};

/// Binds the arguments of `plot` to `options`.
CLI::App* setup_plot(CLI::App& app, PlotOptions& options);

/// Reads the report, draws the chart (roofline_svg or throughput_svg; for a profile report
/// profile_roofline_svg) and writes it to options.output atomically; prints one line on stderr
/// naming the file and how many points (kernels) were left out of the chart for lack of roofline
/// data. Returns report_exit_code for a sweep report: 0, or 1 when a point is not ok or above its
/// roof; 0 for a profile report. Throws a bad-input Error (exit 2) for an unknown chart, --chart
/// throughput on a profile report, any --chart on a layer report, a profile with no kernel, an
/// unreadable or invalid report, a sweep report without an ok point, or an output path that cannot
/// be written.
int run_plot_command(const PlotOptions& options);

}  // namespace rooflinectl
