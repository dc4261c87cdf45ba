// `rooflinectl sweep`: run operators × sequence lengths, print a table, write a JSON report.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/shape_options.hpp"
#include "cmd_compare.hpp"

namespace rooflinectl {

/// Flags of `sweep`; unset optionals keep the config file's (or the built-in default) value.
struct SweepOptions {
  std::string config_file;
  ShapeOptions shape;  ///< --ops, --seq and the shape flags, shared with `model`
  /// --filter EXPR: the points of the axis product to keep (core/point_filter.hpp)
  std::optional<std::string> filter;
  std::string output;            ///< JSON report path (must end in .json); empty: none
  bool output_given = false;     ///< --output was on the command line (an empty name is refused)
  std::string format = "table";  ///< stdout format: table | json | csv | md
  std::optional<int> repetitions;
  std::optional<int> warmup_runs;        ///< untimed launches before each point's samples
  std::optional<std::string> max_noise;  ///< --max-noise text ("1%" or "0.01")
  std::optional<int> min_samples;
  std::optional<double> min_time_s;
  std::optional<double> max_time_s;
  bool no_counters = false;
  bool require_counters = false;  ///< exit 3 before the sweep when counters cannot be read
  bool warm_l2 = false;
  bool sm_throughput = false;
  std::optional<int> device;
  /// Baseline report: sweep, compare against it, print the Markdown comparison on stdout and
  /// exit with compare's code. Loaded and checked before the sweep starts.
  std::string baseline;
  CompareGateFlags gate;            ///< compare's gate flags, used with --baseline
  std::optional<std::string> roof;  ///< --roof datasheet | counters | measured
  /// --lock-clocks base (NVML, root only)
  std::optional<std::string> lock_clocks;
  /// --shard i/n | auto: run only that shard's points (core/shard.hpp)
  std::optional<std::string> shard;
  /// --devices 0,1,...|all: spread the points over these GPUs (sweep/device_workers.hpp)
  std::optional<std::string> devices;
  /// --plan-indices 1,4,...: with --shard i/n, the plan positions this shard runs (what `sweep
  /// --devices` passes its workers; not shown in --help)
  std::optional<std::string> plan_indices;
};

/// Binds the flags of `sweep` to `options`.
CLI::App* setup_sweep(CLI::App& app, SweepOptions& options);

/// Runs `sweep`; returns the exit code (0 all points ok, 1 some skipped/failed; with --baseline
/// also 1 for a regression; 130 stopped by SIGINT/SIGTERM: the report holds the points done and
/// marks the rest interrupted). Throws Error for bad input (2) and environment problems (3).
int run_sweep_command(const SweepOptions& options);

}  // namespace rooflinectl
