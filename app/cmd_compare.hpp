// `rooflinectl compare BASE.json NEW.json`: per-point verdicts and the CI exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "compare/compare.hpp"
#include "compare/profile_compare.hpp"

namespace rooflinectl {

/// The gate's flags, shared by `compare` and `sweep --baseline`; kept as text so that one parser
/// (parse_threshold, parse_compare_by) reports bad values with the flag's name.
struct CompareGateFlags {
  std::string time_threshold = "5%";
  std::string counter_threshold = "1%";
  std::string traffic_threshold = "5%";
  std::string l2_threshold = "10%";
  std::string by = "time";
  bool strict = false;
  bool allow_different_gpu = false;
  /// Which of the sweep-only gates were on the command line (a layer comparison refuses them,
  /// even at their default values).
  bool counter_threshold_given = false;
  bool traffic_threshold_given = false;
  bool l2_threshold_given = false;
  bool by_given = false;
};

/// Binds --time-threshold, --counter-threshold, --traffic-threshold, --l2-threshold, --by,
/// --strict, --allow-different-gpu to `flags`.
void add_compare_gate_flags(CLI::App& sub, CompareGateFlags& flags);

/// Converts the flags to CompareOptions; throws a bad-input Error naming the bad flag value.
CompareOptions compare_options_from_flags(const CompareGateFlags& flags);

/// Loads a sweep report for `compare` or `sweep --baseline` (load_report) and throws a bad-input
/// Error "<path> has no points" when it holds none: compared with it every point would read as
/// added or removed, and the gate would pass on nothing; and one saying a sweep baseline must be
/// a sweep report when `path` is a `rooflinectl profile` report.
Report load_report_to_compare(const std::string& path);

/// Flags and arguments of `compare`.
struct CompareCommandOptions {
  std::string base_file;
  std::string new_file;
  CompareGateFlags gate;
  std::string min_share = "1%";  ///< --min-share (profile reports only), parsed by parse_threshold
  bool min_share_given = false;
  std::string format = "table";  ///< table | md | json | junit (junit: sweep reports only)
  bool format_given = false;     ///< else -o's extension picks the format (table for .txt)
  std::string output;            ///< --output/-o: file to write instead of stdout
  bool output_given = false;
};

/// Binds the arguments and flags of `compare` to `options`.
CLI::App* setup_compare(CLI::App& app, CompareCommandOptions& options);

/// Runs `compare`: loads both reports, compares two sweep reports (compare_reports), two
/// profile reports (compare_profiles) or two measured layer reports (compare_layer_reports), prints
/// in the chosen format on stdout or writes it atomically to --output (whose extension must match
/// the format; without --format the extension picks it: .txt table, .md, .json, .xml junit).
/// Returns 0 (no regression) or 1 (a regression; with --strict also an inconclusive or removed
/// point or kernel). Throws a bad-input Error (exit 2) for a bad flag, an unreadable or invalid
/// report, reports of two kinds (naming which file is which), --format junit or md, --by roof,
/// --min-share or a counter threshold where they do not apply, an analytic layer report, different
/// schema versions, or different GPUs without
/// --allow-different-gpu.
int run_compare_command(const CompareCommandOptions& options);

}  // namespace rooflinectl
