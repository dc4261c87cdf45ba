#include "cupti/counter_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "core/wall_clock.hpp"

namespace rooflinectl {
namespace {

/// The required byte metrics plus every other candidate that keeps the set at one pass, in
/// candidate order. Adding a metric never lowers the pass count, so one scan is enough.
std::vector<std::string> one_pass_byte_set(const ProfilerSession& session, Dtype dtype) {
  std::vector<std::string> set = required_byte_metrics();
  const int required_passes = session.count_passes(set);
  if (required_passes != 1) {
    throw environment_error(fmt::format(
        "the DRAM byte counters ({}, {}) need {} passes on this GPU, not one: DRAM bytes cannot "
        "be read without replay, which would count CUPTI's own memory restore",
        set[0], set[1], required_passes));
  }
  for (const auto& candidate : byte_metric_candidates(dtype)) {
    if (std::find(set.begin(), set.end(), candidate) != set.end()) continue;
    set.push_back(candidate);
    if (session.count_passes(set) != 1) set.pop_back();
  }
  return set;
}

CounterSession describe(const ProfilerSession& session, size_t set, const char* role) {
  return CounterSession{role,
                        session.replay_description(set),
                        session.passes(set),
                        session.metrics(set),
                        std::nullopt,
                        std::nullopt};
}

}  // namespace

CounterEngine::CounterEngine(int device, Dtype dtype, bool sm_throughput, MmaInputs extra)
    : session_(device) {
  byte_set_ = session_.add_metric_set(one_pass_byte_set(session_, dtype));
  sessions_ = {describe(session_, byte_set_, "bytes")};
  const FollowUpSets plan = plan_follow_up_sets(
      follow_up_metric_names(session_.metrics(byte_set_), dtype, sm_throughput, extra),
      [this](const std::vector<std::string>& metrics) { return session_.count_passes(metrics); });
  for (const auto& metrics : plan.one_pass) {
    follow_up_sets_.push_back(session_.add_metric_set(metrics));
    sessions_.push_back(describe(session_, follow_up_sets_.back(), "counts"));
  }
  if (!plan.multi_pass.empty()) {
    follow_up_sets_.push_back(session_.add_metric_set(plan.multi_pass));
    sessions_.push_back(describe(session_, follow_up_sets_.back(), "replay"));
  }
}

CollectedPass CounterEngine::alone(size_t set, const CounterPassHooks& hooks, bool with_sweep) {
  const auto start = std::chrono::steady_clock::now();
  CollectedPass pass;
  pass.ranges = session_.profile(
      hooks.flush_l2,
      [&] {
        hooks.launch();
        if (with_sweep) hooks.writeback_sweep();
      },
      set);
  pass.wall_time_s = seconds_since(start);
  return pass;
}

std::optional<std::vector<CollectedPass>> CounterEngine::collect(
    size_t set, const std::vector<CollectionMember>& points, bool with_sweep) {
  if (points.size() == 1)
    return std::vector<CollectedPass>{alone(set, points[0].hooks, with_sweep)};
  CollectionLayout layout;
  for (const auto& point : points) layout.kernel_ranges.push_back(point.kernel_ranges);
  layout.flush_ranges = flush_ranges_;
  layout.sweep_ranges = with_sweep ? sweep_ranges_ : 0;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<CounterRange> ranges = session_.profile(
      points[0].hooks.flush_l2,
      [&] {
        for (size_t i = 0; i < points.size(); ++i) {
          if (i > 0) points[i].hooks.flush_l2();
          points[i].hooks.launch();
          if (with_sweep) points[i].hooks.writeback_sweep();
        }
      },
      set);
  const double wall_time_s = seconds_since(start);
  auto split = split_collection(ranges, layout);
  if (!split) return std::nullopt;
  std::vector<CollectedPass> passes(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    passes[i].ranges = std::move((*split)[i]);
    passes[i].wall_time_s = wall_time_s;
    passes[i].points_in_collection = static_cast<int>(points.size());
  }
  return passes;
}

bool CounterEngine::fit_one_collection(const std::vector<size_t>& kernel_ranges,
                                       bool byte_session) const {
  CollectionLayout layout{kernel_ranges, flush_ranges_, byte_session ? sweep_ranges_ : 0};
  return collection_range_count(layout) <= static_cast<size_t>(ProfilerSession::kMaxRanges);
}

std::vector<CollectedPass> CounterEngine::bytes_passes(
    const std::vector<CollectionMember>& points) {
  std::vector<CollectedPass> passes;
  if (points.empty()) return passes;
  auto collected = collect(byte_set_, points, true);
  if (collected) {
    passes = std::move(*collected);
  } else {
    for (const auto& point : points) passes.push_back(alone(byte_set_, point.hooks, true));
  }
  for (size_t i = 0; i < points.size(); ++i) {
    CollectedPass& pass = passes[i];
    while (byte_session_has_foreign_writes(pass.ranges) &&
           pass.attempts < kMaxByteSessionAttempts) {
      CollectedPass again = alone(byte_set_, points[i].hooks, true);
      pass.ranges = std::move(again.ranges);
      pass.wall_time_s += again.wall_time_s;
      ++pass.attempts;
    }
  }
  return passes;
}

std::vector<CollectedPass> CounterEngine::follow_up_passes(
    size_t index, const std::vector<CollectionMember>& points) {
  if (index >= follow_up_sets_.size()) {
    throw bad_input(
        fmt::format("counter session {} does not exist (the engine has {} after the "
                    "byte session)",
                    index, follow_up_sets_.size()));
  }
  const size_t set = follow_up_sets_[index];
  std::vector<CollectedPass> passes;
  if (points.empty()) return passes;
  // Kernel replay replays each kernel inside its launch; sharing a collection saves nothing
  // there, and CUPTI's save/restore would span the other points' launches.
  if (session_.passes(set) == 1) {
    if (auto collected = collect(set, points, false)) return std::move(*collected);
  }
  for (const auto& point : points) passes.push_back(alone(set, point.hooks, false));
  return passes;
}

void CounterEngine::warm_up(const std::function<void()>& flush_l2,
                            const std::function<void()>& writeback_sweep) {
  sweep_ranges_ = session_.profile([] {}, writeback_sweep, byte_set_).size();
  flush_ranges_ = session_.profile([] {}, flush_l2, byte_set_).size();
}

CounterResult CounterEngine::combine(const CounterPassRanges& ranges, const CounterPassHooks& hooks,
                                     const std::vector<std::string>& kernel_names) const {
  return counters_from_passes(ranges, kernel_names, sessions_, hooks.cache_policy,
                              hooks.sweep_method);
}

}  // namespace rooflinectl
