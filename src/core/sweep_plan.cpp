#include "core/sweep_plan.hpp"

#include <algorithm>

#include "core/shard.hpp"

namespace rooflinectl {

std::vector<PlannedPoint> plan_all_points(const SweepConfig& config) {
  std::vector<PlannedPoint> points;
  points.reserve(config.ops.size() * config.seq_lens.size());
  for (const std::string& op : config.ops) {
    for (const int64_t seq_len : config.seq_lens) {
      PlannedPoint point{op, config.base, points.size() + 1};
      point.shape.seq_len = seq_len;
      points.push_back(point);
    }
  }
  return points;
}

bool shard_runs(const ShardSpec& shard, const PlannedPoint& point) {
  if (!shard.plan_indices.empty()) {
    return std::binary_search(shard.plan_indices.begin(), shard.plan_indices.end(), point.index);
  }
  return shard_of_point(point.op, point.shape, shard.count) == shard.index;
}

std::vector<PlannedPoint> plan_points(const SweepConfig& config) {
  std::vector<PlannedPoint> points = plan_all_points(config);
  if (!config.shard) return points;
  std::vector<PlannedPoint> mine;
  for (const PlannedPoint& point : points) {
    if (shard_runs(*config.shard, point)) mine.push_back(point);
  }
  return mine;
}

}  // namespace rooflinectl
