// `rooflinectl profile [options] -- CMD ARGS...`: the roofline of any CUDA program's kernels.
// Runs CMD with the injection library (librooflinectl_inject.so, through CUDA_INJECTION64_PATH),
// then builds the profile report from what it recorded (docs/profile.md).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "profile/profile_report.hpp"

namespace rooflinectl {

struct ProfileOptions {
  ProfileConfig config;
  std::string output = "rooflinectl-profile.json";  ///< the JSON report
  std::vector<std::string> command;                 ///< CMD ARGS
  uint64_t launch_count = 0;  ///< --launch-count (0 with launch_count_given false: none)
  bool launch_count_given = false;
  bool no_counters = false;
  bool quiet = false;  ///< no table on stdout
};

/// Binds the arguments of `profile` to `options`.
CLI::App* setup_profile(CLI::App& app, ProfileOptions& options);

/// Checks the options, runs the program with the injection library, writes the report
/// (atomically) and prints the kernel table on stdout. Returns the program's exit status (128 +
/// the signal when a signal ended it): the report is written in every case, marked incomplete
/// when a process did not exit normally. Throws a bad-input Error (exit 2) for a bad filter, no
/// program, a program that cannot be run or an unwritable output path; an environment Error
/// (exit 3) when the injection library is not found.
int run_profile_command(ProfileOptions& options);

}  // namespace rooflinectl
