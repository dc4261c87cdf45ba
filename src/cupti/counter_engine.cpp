#include "cupti/counter_engine.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

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
  return CounterSession{role, session.replay_description(set), session.passes(set),
                        session.metrics(set), std::nullopt};
}

}  // namespace

CounterEngine::CounterEngine(int device, Dtype dtype, bool sm_throughput, bool fp8_inputs)
    : session_(device) {
  byte_set_ = session_.add_metric_set(one_pass_byte_set(session_, dtype));
  sessions_ = {describe(session_, byte_set_, "bytes")};
  const FollowUpSets plan = plan_follow_up_sets(
      follow_up_metric_names(session_.metrics(byte_set_), dtype, sm_throughput, fp8_inputs),
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

BytePass CounterEngine::bytes_pass(const CounterPassHooks& hooks) {
  const auto run = [&] {
    return session_.profile(
        hooks.flush_l2,
        [&] {
          hooks.launch();
          hooks.writeback_sweep();
        },
        byte_set_);
  };
  BytePass pass{run(), 1};
  while (byte_session_has_foreign_writes(pass.ranges) && pass.attempts < kMaxByteSessionAttempts) {
    pass.ranges = run();
    ++pass.attempts;
  }
  return pass;
}

std::vector<std::map<std::string, double>> CounterEngine::follow_up_pass(
    size_t index, const CounterPassHooks& hooks) {
  if (index >= follow_up_sets_.size()) {
    throw bad_input(
        fmt::format("counter session {} does not exist (the engine has {} after the "
                    "byte session)",
                    index, follow_up_sets_.size()));
  }
  return session_.profile(hooks.flush_l2, hooks.launch, follow_up_sets_[index]);
}

void CounterEngine::warm_up(const std::function<void()>& kernels) {
  (void)session_.profile([] {}, kernels, byte_set_);
}

CounterResult CounterEngine::combine(const CounterPassRanges& ranges, const CounterPassHooks& hooks,
                                     const std::vector<std::string>& kernel_names) const {
  return counters_from_passes(ranges, kernel_names, sessions_, hooks.cache_policy,
                              hooks.sweep_method);
}

}  // namespace rooflinectl
