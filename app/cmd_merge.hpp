// `rooflinectl merge`: join the reports of one sweep's shards into the report of the whole sweep.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rooflinectl {

struct MergeOptions;

/// Arguments of `merge`.
struct MergeCommandOptions {
  std::vector<std::string> inputs;  ///< the shard reports (`sweep --shard i/n --output`)
  std::string output;               ///< the merged report (.json, written atomically)
  bool allow_different_gpus = false;
};

/// Binds the arguments of `merge` to `options`.
CLI::App* setup_merge(CLI::App& app, MergeCommandOptions& options);

/// Reads and checks every input (as `report` does), merges them (merge/shard_merge.hpp), writes
/// the merged report atomically and prints one summary line (points by status, shards, GPUs) on
/// stdout, warnings on stderr. Returns 0 when every point is ok, 1 when a point is skipped,
/// failed or interrupted (as `sweep`). Throws a bad-input Error (exit 2) for an unreadable or
/// invalid input, any refusal of merge_shard_reports, or an output path that is an input or
/// cannot be written; nothing is written then.
int run_merge_command(const MergeCommandOptions& options);

}  // namespace rooflinectl
