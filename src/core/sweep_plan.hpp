// The points a sweep runs, in run order: operators × sequence lengths at the config's base
// shape, cut to the config's shard when it has one. Read by the sweep loop, by `sweep
// --baseline`'s power check and by `merge`, so that all three agree on what a sweep is.
#pragma once

#include <string>
#include <vector>

#include "core/shape.hpp"
#include "core/sweep_config.hpp"

namespace rooflinectl {

/// One point of the plan.
struct PlannedPoint {
  std::string op;
  Shape shape;
  /// 1-based position in the whole, unsharded plan (what the progress line and the point's
  /// random seed count).
  size_t index = 0;
};

/// Every point of `config`, ignoring config.shard: for each operator of config.ops, each length
/// of config.seq_lens, in that order.
std::vector<PlannedPoint> plan_all_points(const SweepConfig& config);

/// Whether `shard` runs `point`: the point's plan position is in shard.plan_indices when the
/// shard has an explicit list, else shard_of_point decides.
bool shard_runs(const ShardSpec& shard, const PlannedPoint& point);

/// plan_all_points, cut to config.shard's points (shard_runs) when config.shard is set.
std::vector<PlannedPoint> plan_points(const SweepConfig& config);

}  // namespace rooflinectl
