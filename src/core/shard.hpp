// Which points of a sweep one shard runs (`sweep --shard i/n`, `--shard auto`): a stable
// function of each point's key, so that the shards of one sweep are disjoint, cover every point,
// and adding an axis value leaves every other point in its shard. Pure host code.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.hpp"

namespace rooflinectl {

/// Most shards one sweep may be split into: far more than any sweep has points today (2016 for
/// the product of every axis the issue tracker names); more is a typo.
inline constexpr int kMaxShardCount = 100000;

/// How a point is assigned to a shard, in words (recorded in each shard's report).
inline constexpr const char* kShardAssignment =
    "1 + FNV-1a 64-bit hash of the point key (op|L|B|H|H_kv|d|dtype|causal|gelu_form[|kv]) mod "
    "count";

/// How `sweep --devices` assigns points to its workers, in words (recorded in each worker's
/// report, with the list itself).
inline constexpr const char* kBalancedAssignment =
    "explicit list (sweep --devices): points by predicted time, longest first, each onto the "
    "worker with the least predicted time so far";

/// Shard `index` of `count`, 1-based (Slurm's `--array=1-n` and `sweep --shard 2/4` read alike).
struct ShardSpec {
  int index = 1;
  int count = 1;
  /// The 1-based positions in the whole plan (core/sweep_plan.hpp plan_all_points) this shard
  /// runs, ascending, when they were assigned explicitly (kBalancedAssignment); empty: the hash
  /// rule kShardAssignment decides.
  std::vector<size_t> plan_indices;
  bool operator==(const ShardSpec& other) const {
    return index == other.index && count == other.count && plan_indices == other.plan_indices;
  }
  /// "i/n", e.g. "2/4".
  std::string text() const;
  /// kShardAssignment or kBalancedAssignment.
  const char* assignment() const {
    return plan_indices.empty() ? kShardAssignment : kBalancedAssignment;
  }
};

/// Parses "i/n" with 1 ≤ i ≤ n ≤ kMaxShardCount, integers only. Throws a bad-input Error naming
/// `flag` and the text otherwise.
ShardSpec parse_shard_spec(std::string_view text, std::string_view flag);

/// Parses an explicit list of plan positions, "3,1,7" (whole numbers 1..plan_size, each once),
/// returned ascending. Throws a bad-input Error naming `flag`, the item and what is allowed.
std::vector<size_t> parse_plan_indices(std::string_view text, size_t plan_size,
                                       std::string_view flag);

/// Looks up one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

/// `--shard auto`: the shard a scheduler assigned.
///   Slurm job array: SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT
///   (index = ID − MIN + 1; a step other than 1, SLURM_ARRAY_TASK_STEP, is refused since the
///   indices would not be contiguous);
///   Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based) with the shard count in
///   RFL_SHARD_COUNT, which the manifest sets to the Job's `completions` (Kubernetes does not put
///   that count in the pod's environment).
/// Slurm is read first. Throws a bad-input Error naming the variable when one is malformed or out
/// of range, or when neither scheduler's variables are set.
ShardSpec shard_from_environment(const EnvLookup& env);

/// The point key kShardAssignment hashes, e.g. "gelu|L=4096|B=1|H=16|Hkv=16|d=128|bf16|0|erf",
/// with "|kv=paged/16" appended for decode attention over a paged KV cache.
/// Changing its form moves points between shards: a unit test pins it.
std::string shard_point_key(const std::string& op, const Shape& shape);

/// FNV-1a, 64 bit (Fowler, Noll, Vo; the offset basis 14695981039346656037 and prime
/// 1099511628211 of the published definition).
uint64_t fnv1a_64(std::string_view text);

/// The 1-based shard of `count` the point belongs to (kShardAssignment).
int shard_of_point(const std::string& op, const Shape& shape, int count);

/// kBalancedAssignment: `costs[k]` is the predicted time of plan position k + 1; returns, for each
/// of `workers` (≥ 1) workers, its plan positions ascending. Longest processing time first
/// (Graham 1969, "Bounds on multiprocessing timing anomalies": within 4/3 of the best makespan):
/// positions by cost descending (ties: lower position first) each go to the worker with the least
/// cost so far (ties: lower worker). A worker may get no position when there are fewer positions
/// than workers.
std::vector<std::vector<size_t>> balance_plan_positions(const std::vector<double>& costs,
                                                        int workers);

}  // namespace rooflinectl
