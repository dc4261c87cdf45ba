// `rooflinectl merge`: the reports of one sweep's shards (`sweep --shard i/n`) joined into the
// report of the whole sweep, strictly: shards of different sweeps, builds or counter methods, a
// shard given twice, a missing shard and a point measured twice are refused, never averaged or
// silently dropped. Host code on report records.
#pragma once

#include <string>
#include <vector>

#include "result/report.hpp"

namespace rooflinectl {

/// One shard report and the path it was read from (named in every refusal).
struct MergeInput {
  std::string file;
  Report report;
};

struct MergeOptions {
  /// Join shards measured on different GPU models (name or compute capability): each point keeps
  /// its own GPU and roofs (PointResult::source). Off: such shards are refused.
  bool allow_different_gpus = false;
};

/// The merged report and what a reader should know about it.
struct MergeResult {
  Report report;
  /// One line each, e.g. that the shards ran under different drivers.
  std::vector<std::string> warnings;
};

/// Joins `inputs`, the reports of shards 1..n of one sweep, into the report of every point of
/// that sweep, in the sweep's run order (core/sweep_plan.hpp). Every input must be a shard report
/// (config.shard) of the current schema; all must share the tool version and git revision, the
/// config (but the shard index and the CUDA device index), the shard count, the counter method
/// (counters on or off, available or not, and the sessions' replay modes and metric sets, among
/// the shards that counted a point: a shard of no points merges with any) and the
/// roof source used, and the assignment rule. Each shard must hold exactly the points its index
/// owes (core/sweep_plan.hpp shard_runs: the hash rule, or the shard's explicit list from `sweep
/// --devices`): a point of another shard, a missing one, one in two shards, or a plan position
/// that two explicit lists claim or none does, is refused. Different GPU models
/// are refused unless options.allow_different_gpus. The merged report keeps every shard's device,
/// roofs and canary in `sources` (in shard order) and each point's index into it; its own
/// device, peaks and canary are those of shard 1, its timestamp the latest shard's, its config the
/// sweep's without a shard. Throws a bad-input Error naming the file(s) and the cause.
MergeResult merge_shard_reports(std::vector<MergeInput> inputs, const MergeOptions& options);

}  // namespace rooflinectl
