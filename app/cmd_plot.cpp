#include "cmd_plot.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/output_extension.hpp"
#include "cli/report_format.hpp"
#include "core/error.hpp"
#include "io/atomic_file.hpp"
#include "io/json_reader.hpp"
#include "render/svg/svg_roofline.hpp"
#include "render/svg/svg_throughput.hpp"
#include "result/consistency.hpp"
#include "result/point_key.hpp"

namespace rooflinectl {

CLI::App* setup_plot(CLI::App& app, PlotOptions& o) {
  CLI::App* sub = app.add_subcommand("plot", "Draw a sweep report as an SVG chart");
  sub->add_option("report", o.report, "JSON report written by `sweep --output`")->required();
  sub->add_option("--output,-o", o.output, "SVG file to write (name ending in .svg)")->required();
  sub->add_option("--chart", o.chart,
                  "roofline (log-log, every point under its roof) | throughput (TFLOP/s, TB/s "
                  "and tokens/s against L)");
  return sub;
}

int run_plot_command(const PlotOptions& o) {
  if (o.chart != "roofline" && o.chart != "throughput") {
    throw bad_input(fmt::format("invalid --chart '{}': allowed roofline, throughput", o.chart));
  }
  check_output_extension(o.output, ".svg", "the chart is SVG");
  check_output_file_path(o.output);
  const Report report = load_report(o.report);
  check_unique_points(report, o.report);
  check_report_consistency(report, o.report);
  // A chart without a single measured point would be empty axes that look like a result.
  const bool any_ok =
      std::any_of(report.points.begin(), report.points.end(),
                  [](const PointResult& p) { return p.status == PointStatus::kOk; });
  if (!any_ok) {
    throw bad_input(fmt::format("{} has no point with status ok ({} points): nothing to plot",
                                o.report, report.points.size()));
  }
  const std::string svg = o.chart == "roofline" ? roofline_svg(report) : throughput_svg(report);
  write_file_atomically(o.output, svg);
  const size_t without_roofline = points_without_roofline(report).size();
  fmt::print(stderr, "{} chart of {} points written to {}{}\n", o.chart, report.points.size(),
             o.output,
             without_roofline
                 ? fmt::format(" ({} without roofline data, noted on the chart)", without_roofline)
                 : "");
  return above_roof_exit_code(report);
}

}  // namespace rooflinectl
