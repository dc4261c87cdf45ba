#include "cmd_plot.hpp"

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
#include "render/svg/svg_layer_split.hpp"
#include "render/svg/svg_profile_roofline.hpp"
#include "render/svg/svg_roofline.hpp"
#include "render/svg/svg_throughput.hpp"
#include "result/consistency.hpp"
#include "result/point_key.hpp"

namespace rooflinectl {

CLI::App* setup_plot(CLI::App& app, PlotOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "plot",
      "Draw a sweep, profile or layer report as an SVG chart (a layer report: its time split)");
  sub->add_option("report", o.report,
                  "JSON report written by `sweep --output`, `profile -o` (roofline only) or "
                  "`layer -o` (its time split)")
      ->required();
  sub->add_option("--output,-o", o.output, "SVG file to write (name ending in .svg)")->required();
  sub->add_option("--chart", o.chart,
                  "roofline (log-log, every point under its roof) | throughput (TFLOP/s, TB/s "
                  "and tokens/s against L) (default roofline)")
      ->each([&o](const std::string&) { o.chart_given = true; });
  return sub;
}

namespace {

// The roofline of a profile's kernels; a throughput chart plots a sweep against L, which a
// profile does not have.
int plot_profile_report(const PlotOptions& o) {
  if (o.chart != "roofline") {
    throw bad_input(fmt::format(
        "--chart {}: {} is a `rooflinectl profile` report, which has only --chart roofline "
        "(throughput plots a sweep against L)",
        o.chart, o.report));
  }
  const ProfileReport report = load_profile_report(o.report);
  if (report.kernels.empty()) {
    throw bad_input(
        fmt::format("{}: the profiled program ran no kernel: nothing to plot", o.report));
  }
  write_file_atomically(o.output, profile_roofline_svg(report));
  const size_t unplaced = unplaced_kernel_lines(report).size();
  fmt::print(
      stderr, "roofline chart of {} kernels written to {}{}\n", report.kernels.size(), o.output,
      unplaced ? fmt::format(" ({} without a placement, listed under the chart)", unplaced) : "");
  return profile_report_exit_code(report);
}

// The time split of a saved `rooflinectl layer` report (its JSON), as `layer --chart` draws it.
int plot_layer_report(const PlotOptions& o, const nlohmann::json& document) {
  if (o.chart_given) {
    throw bad_input(fmt::format(
        "--chart {}: {} is a `rooflinectl layer` report, drawn as its time split (leave --chart "
        "out)",
        o.chart, o.report));
  }
  const LayerTimeSplit split = layer_time_split_from_json(document, o.report);
  write_file_atomically(o.output, layer_split_svg(split));
  fmt::print(stderr, "layer time-split chart of {} bar{} ({}) written to {}\n", split.bars.size(),
             split.bars.size() == 1 ? "" : "s", split.basis, o.output);
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

int run_plot_command(const PlotOptions& o) {
  if (o.chart != "roofline" && o.chart != "throughput") {
    throw bad_input(fmt::format("invalid --chart '{}': allowed roofline, throughput", o.chart));
  }
  check_output_extension(o.output, ".svg", "the chart is SVG");
  check_output_file_path(o.output);
  if (is_profile_report_file(o.report)) return plot_profile_report(o);
  const nlohmann::json document = parse_json_text(read_text_file(o.report, "report"), o.report);
  if (is_layer_report(document)) {
    return plot_layer_report(o, document);
  }
  const Report report = report_from_json(document, o.report);
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
  return report_exit_code(report);
}

}  // namespace rooflinectl
