#include "cmd_profile.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "cli/output_extension.hpp"
#include "cli/strict_integer.hpp"
#include "core/error.hpp"
#include "core/utc_timestamp.hpp"
#include "core/version.hpp"
#include "device/device_info.hpp"
#include "io/atomic_file.hpp"
#include "io/profile_json.hpp"
#include "profile/launch_selection.hpp"
#include "program/child_process.hpp"
#include "program/profile_assembly.hpp"
#include "render/profile_table.hpp"
#include "sweep/sweep_roofs.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kInjectLibraryName = "librooflinectl_inject.so";
constexpr const char* kInjectLibraryVariable = "RFL_INJECT_LIBRARY";

std::string directory_of_executable() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  path[n] = '\0';
  std::string text(path);
  return text.substr(0, text.rfind('/'));
}

bool is_file(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

/// $RFL_INJECT_LIBRARY, else next to the executable (the build tree), else ../lib/rooflinectl
/// (the package layout).
std::string find_injection_library() {
  if (const char* given = std::getenv(kInjectLibraryVariable); given != nullptr && *given != '\0') {
    if (!is_file(given)) {
      throw environment_error(
          fmt::format("{}={}: no such readable file", kInjectLibraryVariable, given));
    }
    return given;
  }
  const std::string dir = directory_of_executable();
  for (const std::string& candidate :
       {dir + "/" + kInjectLibraryName, dir + "/../lib/rooflinectl/" + kInjectLibraryName}) {
    if (is_file(candidate)) return candidate;
  }
  throw environment_error(fmt::format(
      "{} not found next to {} or in ../lib/rooflinectl: rebuild (it is built with rooflinectl) "
      "or set {}",
      kInjectLibraryName, dir, kInjectLibraryVariable));
}

std::string make_record_directory() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/rooflinectl-profile-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw environment_error(fmt::format("cannot create a directory for the raw records ({}): {}",
                                        pattern, std::strerror(errno)));
  }
  return pattern;
}

/// Reads and removes every raw record file in `dir`, then the directory.
std::vector<ProcessRecords> collect_records(const std::string& dir) {
  std::vector<ProcessRecords> processes;
  DIR* handle = opendir(dir.c_str());
  std::vector<std::string> files;
  if (handle != nullptr) {
    while (const dirent* entry = readdir(handle)) {
      const std::string name = entry->d_name;
      if (name.size() > 6 && name.compare(name.size() - 6, 6, ".jsonl") == 0) files.push_back(name);
    }
    closedir(handle);
  }
  std::sort(files.begin(), files.end());
  for (const auto& name : files) {
    const std::string path = dir + "/" + name;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    processes.push_back(parse_process_records(text.str(), path));
    std::remove(path.c_str());
  }
  rmdir(dir.c_str());
  return processes;
}

/// Whether every process wrote its end record.
bool all_complete(const std::vector<ProcessRecords>& processes) {
  for (const auto& p : processes) {
    if (!p.complete) return false;
  }
  return true;
}

/// One run of the program with the injection collecting `run`'s counter set: its records (read
/// and removed) and how it ended.
ChildExit run_once(const ProfileOptions& o, const std::string& library, CounterRun run,
                   std::vector<ProcessRecords>& records) {
  const std::string dir = make_record_directory();
  std::vector<std::pair<std::string, std::string>> environment =
      profile_environment(o.config, dir, run);
  environment.emplace_back("CUDA_INJECTION64_PATH", library);
  // NVTX ranges reach the library through its InitializeInjectionNvtx2 (src/inject/injection.cpp).
  environment.emplace_back("NVTX_INJECTION64_PATH", library);
  ChildExit exit;
  try {
    exit = run_child(o.command, environment);
  } catch (...) {
    collect_records(dir);
    throw;
  }
  records = collect_records(dir);
  return exit;
}

/// How an ended run reads in the report's reasons: "exited with 3", "was killed by signal 9".
std::string ended(const ChildExit& exit) {
  if (exit.signal) return fmt::format("was killed by signal {}", *exit.signal);
  return fmt::format("exited with {}", exit.exit_code.value_or(-1));
}

/// Full mode's run 2 (the FLOP run), when run 1 succeeded; otherwise why it did not run.
FlopRunInputs run_flop_run(const ProfileOptions& o, const std::string& library,
                           const ChildExit& first) {
  FlopRunInputs run2;
  if (pass_through_status(first) != 0) {
    run2.outcome.failure = fmt::format("run 2 not run: the program {} in run 1", ended(first));
    return run2;
  }
  fmt::print(stderr,
             "profile --mode full: run 1 done ({:.2f} s); running the program again for the FLOP "
             "set (kernel replay)\n",
             first.wall_time_s);
  const ChildExit second = run_once(o, library, CounterRun::kFlops, run2.processes);
  run2.outcome.exit_code = second.exit_code;
  run2.outcome.signal = second.signal;
  run2.outcome.wall_time_s = second.wall_time_s;
  run2.outcome.complete = all_complete(run2.processes);
  if (pass_through_status(second) != 0) {
    run2.outcome.failure = fmt::format(
        "the program {} in run 2 (the FLOP run, kernel replay), exit 0 in run 1", ended(second));
  }
  return run2;
}

ProfileInputs gather_inputs(std::vector<ProcessRecords> processes, const ProfileOptions& o,
                            const ChildExit& exit) {
  ProfileInputs inputs;
  inputs.processes = std::move(processes);
  inputs.config = o.config;
  inputs.program.command = o.command;
  inputs.program.exit_code = exit.exit_code;
  inputs.program.signal = exit.signal;
  inputs.program.wall_time_s = exit.wall_time_s;
  std::set<int> used;
  for (const auto& p : inputs.processes) {
    for (const auto& l : p.launches) used.insert(l.device);
    for (const auto& a : p.activities) used.insert(a.device);
  }
  for (int device : used) {
    DeviceRecord record = query_device(device);
    inputs.peaks.emplace(device,
                         prepare_sweep_roofs(record, std::nullopt, o.config.counters, std::cerr));
    inputs.devices.emplace(device, std::move(record));
  }
  return inputs;
}

}  // namespace

CLI::App* setup_profile(CLI::App& app, ProfileOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "profile",
      "Run a CUDA program (a binary, python script.py, ...) and place each of its kernels on "
      "this GPU's roofline: rooflinectl profile [options] -- CMD ARGS...");
  sub->add_option("--output,-o", o.output, "JSON profile report (written atomically)")
      ->capture_default_str();
  sub->add_option("--kernel-regex", o.config.kernel_regex,
                  "Profile only kernels whose demangled name this ECMAScript regex finds "
                  "(ncu -k regex:); every launch is still timed (default: every kernel)");
  sub->add_option("--nvtx-include", o.config.nvtx_include,
                  "Profile only launches inside these NVTX push/pop ranges (ncu syntax: A/, A/B/, "
                  "A/*/B, A/+/B, [A, A], regex:...); repeat to OR (default: inside or outside "
                  "any range)");
  sub->add_option("--launch-skip", o.config.launch_skip,
                  "Skip this many matching launches before profiling")
      ->transform(strict_integer<uint64_t>("integers 0, 1, ..."))
      ->capture_default_str();
  sub->add_option("--launch-count", o.launch_count,
                  "Profile at most this many launches (default: no limit)")
      ->transform(strict_integer<uint64_t>("integers 1, 2, ..."))
      ->each([&o](const std::string&) { o.launch_count_given = true; });
  sub->add_option("--sample-every", o.config.sample_every,
                  "Profile one launch in K of each kernel name (the 1st, K+1th, ...)")
      ->transform(strict_integer<uint64_t>("integers 1, 2, ..."))
      ->capture_default_str();
  sub->add_flag("--include-nccl", o.config.include_nccl,
                "Profile NCCL kernels too (default: timed only; serializing a collective's "
                "launches can hang it)");
  sub->add_option("--mode", o.config.mode,
                  "single-pass: one pass of the byte set per selected launch (DRAM, L2, bf16 "
                  "tensor FLOPs); full: the program runs a second time for every pipe's FLOPs "
                  "and SM throughput under kernel replay (docs/profile.md, Full mode)")
      ->capture_default_str();
  sub->add_flag("--no-counters", o.no_counters,
                "Only time the launches (CUPTI activity records); no counters, no placement");
  sub->add_flag("--quiet,-q", o.quiet, "Do not print the kernel table");
  sub->add_option("command", o.command, "The program and its arguments, after --")->required();
  return sub;
}

int run_profile_command(ProfileOptions& o) {
  if (o.launch_count_given) o.config.launch_count = o.launch_count;
  o.config.counters = !o.no_counters;
  if (o.config.mode != kModeSinglePass && o.config.mode != kModeFull) {
    throw bad_input(fmt::format("invalid --mode '{}': allowed {}, {}", o.config.mode,
                                kModeSinglePass, kModeFull));
  }
  if (o.config.mode == kModeFull && o.no_counters) {
    throw bad_input(
        "invalid --mode full with --no-counters: full mode runs the program again for counters "
        "(drop one of them)");
  }
  LaunchSelector check(o.config);  // a bad regex or NVTX expression: exit 2 before the program runs
  check_output_extension(o.output, ".json", "the profile report is JSON");
  check_output_file_path(o.output);
  check_runnable(o.command);
  if (device_count() == 0) {
    throw environment_error(no_device_message() + " (the program was not run)");
  }
  const std::string library = find_injection_library();
  std::vector<ProcessRecords> records;
  const ChildExit exit = run_once(o, library, CounterRun::kBytes, records);
  std::optional<FlopRunInputs> flop_run;
  if (o.config.mode == kModeFull) flop_run = run_flop_run(o, library, exit);
  ProfileInputs inputs = gather_inputs(std::move(records), o, exit);
  inputs.flop_run = std::move(flop_run);
  ProfileReport report = assemble_profile(inputs);
  report.tool_version = kToolVersion;
  report.git_revision = kGitRevision;
  report.timestamp_utc = utc_timestamp_now();
  write_file_atomically(o.output, profile_report_to_json_text(report));
  if (!o.quiet) write_stdout(format_profile_table(report));
  fmt::print(stderr, "profile report written to {}\n", o.output);
  return pass_through_status(exit);
}

}  // namespace rooflinectl
