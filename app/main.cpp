// rooflinectl entry point: the only place that catches exceptions and maps them to exit codes.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>

#include "cmd_compare.hpp"
#include "cmd_devices.hpp"
#include "cmd_list.hpp"
#include "cmd_model.hpp"
#include "cmd_peaks.hpp"
#include "cmd_plot.hpp"
#include "cmd_report.hpp"
#include "cmd_sweep.hpp"
#include "core/error.hpp"
#include "core/version.hpp"

namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 partial run (a point skipped or failed) or a regression (compare, "
    "sweep --baseline); 2 bad input (usage, "
    "config, file); 3 environment (no GPU, counters refused when required); 4 internal error.";

}  // namespace

int main(int argc, char** argv) {
  using namespace rooflinectl;
  CLI::App app{"rooflinectl: roofline profiler for transformer-inference operators on NVIDIA GPUs"};
  app.footer(kExitCodes);
  app.set_version_flag("--version", fmt::format("rooflinectl {} ({})", kToolVersion,
                                                kGitRevision[0] ? kGitRevision : "unknown"));
  app.require_subcommand(1);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return fmt::format("error: {} (see --help)\n", e.what());
  });

  SweepOptions sweep_options;
  DevicesOptions devices_options;
  CompareCommandOptions compare_options;
  CLI::App* sweep = setup_sweep(app, sweep_options);
  CLI::App* devices = setup_devices(app, devices_options);
  CLI::App* list = setup_list(app);
  CLI::App* compare = setup_compare(app, compare_options);
  ModelOptions model_options;
  CLI::App* model = setup_model(app, model_options);
  PeaksOptions peaks_options;
  CLI::App* peaks = setup_peaks(app, peaks_options);
  PlotOptions plot_options;
  CLI::App* plot = setup_plot(app, plot_options);
  ReportOptions report_options;
  CLI::App* report = setup_report(app, report_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help/version or the usage error
    return code == 0 ? 0 : static_cast<int>(ExitCode::kBadInput);
  }

  try {
    if (sweep->parsed()) return run_sweep_command(sweep_options);
    if (devices->parsed()) return run_devices_command(devices_options);
    if (list->parsed()) return run_list_command();
    if (compare->parsed()) return run_compare_command(compare_options);
    if (model->parsed()) return run_model_command(model_options);
    if (peaks->parsed()) return run_peaks_command(peaks_options);
    if (plot->parsed()) return run_plot_command(plot_options);
    if (report->parsed()) return run_report_command(report_options);
  } catch (const Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return static_cast<int>(e.exit_code());
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: internal: {}\n", e.what());
    return 4;
  }
  return 0;
}
