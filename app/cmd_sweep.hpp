// `rooflinectl sweep`: run operators × sequence lengths, print a table, write a JSON report.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace rooflinectl {

/// Flags of `sweep`; unset optionals keep the config file's (or the built-in default) value.
struct SweepOptions {
  std::string config_file;
  std::optional<std::string> ops;  ///< comma-separated operator names
  std::optional<std::string> seq;  ///< --seq spec (see parse_seq_spec)
  std::optional<int64_t> batch;
  std::optional<int64_t> heads;
  std::optional<int64_t> kv_heads;
  std::optional<int64_t> head_dim;
  std::optional<std::string> dtype;
  std::optional<std::string> gelu_form;
  bool causal = false;
  std::string output;           ///< JSON report path; empty: none
  std::string format = "table";  ///< stdout format: table | json
  std::optional<int> repetitions;
  bool no_counters = false;
  bool require_counters = false;  ///< exit 3 before the sweep when counters cannot be read
  bool warm_l2 = false;
  std::optional<int> device;
};

/// Binds the flags of `sweep` to `options`.
CLI::App* setup_sweep(CLI::App& app, SweepOptions& options);

/// Runs `sweep`; returns the exit code (0 all points ok, 1 some skipped/failed, 130 stopped by
/// SIGINT/SIGTERM: the report holds the points done and marks the rest interrupted). Throws Error
/// for bad input (2) and environment problems (3).
int run_sweep_command(const SweepOptions& options);

}  // namespace rooflinectl
