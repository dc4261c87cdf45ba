// rooflinectl entry point: the only place that catches exceptions and maps them to exit codes.
#include <cuda_runtime_api.h>  // CUDART_VERSION
#include <cupti_version.h>     // CUPTI_API_VERSION
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cmd_compare.hpp"
#include "cmd_devices.hpp"
#include "cmd_doctor.hpp"
#include "cmd_layer.hpp"
#include "cmd_list.hpp"
#include "cmd_merge.hpp"
#include "cmd_model.hpp"
#include "cmd_peaks.hpp"
#include "cmd_plot.hpp"
#include "cmd_profile.hpp"
#include "cmd_report.hpp"
#include "cmd_sweep.hpp"
#include "core/error.hpp"
#include "core/version.hpp"
#include "core/version_text.hpp"
#include "io/atomic_file.hpp"

namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 partial run (a point skipped or failed) or a regression (compare, "
    "sweep --baseline); 2 bad input (usage, config, file); 3 environment (no GPU, counters "
    "refused when required, clocks that cannot be locked, an output or standard output that "
    "cannot be written for want of space, a read-only filesystem or an I/O error); 4 internal "
    "error; 130 interrupted by SIGINT/SIGTERM (report written with the points done, the rest "
    "marked interrupted; a second signal aborts, unless within 0.1 s of the first). README, "
    "\"Exit codes:\" paragraph, has each case.";

/// CLI11 says "The following arguments were not expected: b a" (reversed, unquoted) for stray
/// words and unknown options alike. This names the subcommand and each word in the order given:
/// unknown options first if there are any, else the stray words with the positional arguments
/// the subcommand takes. CLI11 2.1 puts the name of the refusing app in the error's name.
std::string describe_extra_arguments(const CLI::App& root, const CLI::Error& e) {
  const CLI::App* sub = nullptr;
  for (const CLI::App* candidate : root.get_subcommands([](const CLI::App*) { return true; })) {
    if (candidate->get_name() == e.get_name()) sub = candidate;
  }
  if (sub == nullptr) return e.what();
  std::vector<std::string> options;
  std::vector<std::string> extra;
  for (const std::string& word : sub->remaining()) {
    (word.size() > 1 && word[0] == '-' ? options : extra).push_back("'" + word + "'");
  }
  if (!options.empty()) {
    return fmt::format("unknown option{} {} for '{}'", options.size() == 1 ? "" : "s",
                       fmt::join(options, ", "), sub->get_name());
  }
  if (extra.empty()) return e.what();
  const std::string words = fmt::format("{}", fmt::join(extra, ", "));
  std::vector<std::string> positionals;
  for (const CLI::Option* option : sub->get_options()) {
    if (option->get_positional()) positionals.push_back(option->get_name());
  }
  const std::string takes =
      positionals.empty()
          ? "no positional arguments (options start with --)"
          : fmt::format("{} positional argument{} ({})", positionals.size(),
                        positionals.size() == 1 ? "" : "s", fmt::join(positionals, ", "));
  return fmt::format("unexpected argument{} {} to '{}': it takes {}", extra.size() == 1 ? "" : "s",
                     words, sub->get_name(), takes);
}

/// CLI11's wording for a missing positional or a wrong count of values ("reports is required",
/// "--ops: At Most 1 required but received 2", "--gpu: 1 required TEXT missing") in the project's:
/// what is missing or repeated, of which subcommand, and what to give. Other messages unchanged.
std::string describe_value_count(const CLI::App& failed, const CLI::Error& e) {
  const std::string what = e.what();
  // CLI11 reports from the root app: the deepest parsed subcommand is the one that failed.
  const CLI::App* app = &failed;
  while (!app->get_subcommands().empty()) app = app->get_subcommands().front();
  const std::string sub = app->get_parent() != nullptr ? app->get_name() : "rooflinectl";
  std::smatch m;
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
      std::regex_match(what, m, std::regex("(\\S+) is required"))) {
    return fmt::format("'{}' needs its {} argument", sub, m[1].str());
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    if (std::regex_match(what, m, std::regex("(\\S+): At Most 1 required but received (\\d+)"))) {
      return fmt::format(
          "{} given {} times to '{}': give it once (a list is one comma-separated value)",
          m[1].str(), m[2].str(), sub);
    }
    if (std::regex_match(what, m, std::regex("(\\S+): \\d+ required \\S+ missing"))) {
      return fmt::format("{} of '{}' needs a value", m[1].str(), sub);
    }
  }
  return what;
}

/// Help, --version and the commands that print with fmt::print write through stdout's buffer,
/// so a failed write (`> /dev/full`, a full disk) would show only when the buffer is flushed at
/// exit, after the exit code is chosen. It is flushed and checked here instead: a success whose
/// output was lost exits 3 with one error line; an exit code already not 0 stays, and a line
/// already printed for an Error (write_stdout's own "cannot write to standard output") is not
/// repeated.
int finish(int code, bool error_printed) {
  try {
    rooflinectl::flush_stdout();
  } catch (const rooflinectl::Error& e) {
    if (!error_printed) fmt::print(stderr, "error: {}\n", e.what());
    return code == 0 ? static_cast<int>(e.exit_code()) : code;
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rooflinectl;
  CLI::App app{"rooflinectl: roofline profiler for transformer-inference operators on NVIDIA GPUs"};
  app.footer(kExitCodes);
  app.set_version_flag(
      "--version", version_text({kToolVersion, kGitRevision, CUDART_VERSION, CUPTI_API_VERSION}));
  app.require_subcommand(1);
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    // An unknown first word reaches CLI11 as "A subcommand is required": name the word instead.
    const std::vector<std::string> extra = failed->remaining();
    if (failed->get_parent() == nullptr && failed->get_subcommands().empty()) {
      // Every registered subcommand, in the order of --help (the filter overload lists them all,
      // not only the parsed ones).
      std::string allowed;
      for (const CLI::App* sub : failed->get_subcommands([](const CLI::App*) { return true; })) {
        allowed += (allowed.empty() ? "" : ", ") + sub->get_name();
      }
      if (extra.empty()) {
        return fmt::format("error: a subcommand is required: one of {} (see --help)\n", allowed);
      }
      return fmt::format("error: unknown subcommand '{}': allowed {} (see --help)\n", extra.front(),
                         allowed);
    }
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      return fmt::format("error: {} (see --help)\n", describe_extra_arguments(*failed, e));
    }
    return fmt::format("error: {} (see --help)\n", describe_value_count(*failed, e));
  });

  SweepOptions sweep_options;
  DevicesOptions devices_options;
  CompareCommandOptions compare_options;
  CLI::App* sweep = setup_sweep(app, sweep_options);
  CLI::App* devices = setup_devices(app, devices_options);
  ListOptions list_options;
  CLI::App* list = setup_list(app, list_options);
  CLI::App* compare = setup_compare(app, compare_options);
  ModelOptions model_options;
  CLI::App* model = setup_model(app, model_options);
  LayerOptions layer_options;
  CLI::App* layer = setup_layer(app, layer_options);
  PeaksOptions peaks_options;
  CLI::App* peaks = setup_peaks(app, peaks_options);
  PlotOptions plot_options;
  CLI::App* plot = setup_plot(app, plot_options);
  ProfileOptions profile_options;
  CLI::App* profile = setup_profile(app, profile_options);
  ReportOptions report_options;
  CLI::App* report = setup_report(app, report_options);
  DoctorOptions doctor_options;
  CLI::App* doctor = setup_doctor(app, doctor_options);
  MergeCommandOptions merge_options;
  CLI::App* merge = setup_merge(app, merge_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and --version are collected and written in one write_stdout, so a lost write names its
    // reason (ENOSPC for `> /dev/full`); usage errors go to stderr as CLI11 formats them.
    std::ostringstream out;
    std::ostringstream err;
    const int code = app.exit(e, out, err);
    fmt::print(stderr, "{}", err.str());
    if (code != 0) return finish(static_cast<int>(ExitCode::kBadInput), true);
    try {
      write_stdout(out.str());
    } catch (const Error& failed) {
      fmt::print(stderr, "error: {}\n", failed.what());
      return static_cast<int>(failed.exit_code());
    }
    return finish(0, false);
  }

  const auto run_parsed = [&]() -> int {
    if (sweep->parsed()) return run_sweep_command(sweep_options);
    if (devices->parsed()) return run_devices_command(devices_options);
    if (list->parsed()) return run_list_command(list_options);
    if (compare->parsed()) return run_compare_command(compare_options);
    if (model->parsed()) return run_model_command(model_options);
    if (layer->parsed()) return run_layer_command(layer_options);
    if (peaks->parsed()) return run_peaks_command(peaks_options);
    if (plot->parsed()) return run_plot_command(plot_options);
    if (profile->parsed()) return run_profile_command(profile_options);
    if (report->parsed()) return run_report_command(report_options);
    if (doctor->parsed()) return run_doctor_command(doctor_options);
    if (merge->parsed()) return run_merge_command(merge_options);
    return 0;
  };
  try {
    return finish(run_parsed(), false);
  } catch (const Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return finish(static_cast<int>(e.exit_code()), true);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: internal: {}\n", e.what());
    return finish(4, true);
  }
}
