// The counter pass of one point: DRAM and L2 bytes (and every other hardware counter that fits)
// from a one-pass session right after a write-back-safe L2 flush, with a read-only sweep after
// the kernels that catches the write-back of what they left dirty in L2; then the SASS FLOP
// instruction counters in further one-pass sessions, and only what alone needs several passes
// (fp16 tensor ops, sm__throughput) under kernel replay, whose DRAM bytes are never used
// (docs/counter-method.md has the measurements behind this split). Every metric set is
// configured once, when the engine is built.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cupti/metrics.hpp"
#include "cupti/profiler_session.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// What the engine runs for one point. Every function enqueues on the profiled device and may
/// throw; the engine synchronizes after each.
struct CounterPassHooks {
  /// Leaves L2 cold and without dirty lines (runs unprofiled before each session's launch).
  std::function<void()> flush_l2;
  /// Enqueues the operator's kernels once.
  std::function<void()> launch;
  /// Enqueues a read-only sweep of lines not resident, over 4 × L2; profiled as one range after
  /// `launch` in the byte session, its DRAM writes are the operator's deferred write-back.
  std::function<void()> writeback_sweep;
  std::string cache_policy;  ///< flush_l2 in one phrase, for CounterResult::cache_policy
  std::string sweep_method;  ///< writeback_sweep in one phrase, for writeback_method
};

/// Byte sessions one point may run while byte_session_has_foreign_writes holds.
inline constexpr int kMaxByteSessionAttempts = 3;

/// The byte session of one point as CounterEngine::bytes_pass ran it.
struct BytePass {
  std::vector<std::map<std::string, double>> ranges;  ///< the kernels, then the write-back sweep
  int attempts = 1;  ///< byte sessions run (more than 1: foreign writes were seen)
};

/// A ProfilerSession with the byte set and the follow-up sets of plan_follow_up_sets().
class CounterEngine {
 public:
  /// Opens the session on `device` and configures the byte set: the required byte metrics, then
  /// each other candidate of byte_metric_candidates(`dtype`) that keeps the set at one pass; then
  /// the follow-up sets: follow_up_metric_names() packed into one-pass sets, and a kernel-replay
  /// set for the metrics that alone need several passes (fp16 tensor ops when `dtype` is fp16;
  /// sm__throughput, 8 passes on GH100, only when `sm_throughput`); the fp8 tensor-pipe metric
  /// only when `fp8_inputs` (the points it counts include FP8 GEMM ones). Throws the session's
  /// environment Errors, and an environment Error when the required byte metrics alone need
  /// more than one pass on this chip.
  CounterEngine(int device, Dtype dtype, bool sm_throughput, bool fp8_inputs = false);

  /// The byte session of one point: flush, then the kernels and the write-back sweep, run again
  /// (up to kMaxByteSessionAttempts in all, the last kept) while its DRAM writes exceed the
  /// kernels' L2 stores (byte_session_has_foreign_writes: writes no kernel made). Errors as
  /// ProfilerSession::profile. Switching between metric sets re-creates CUPTI's range profiler
  /// object (ProfilerSession::profile), which costs a few hundred milliseconds: a sweep runs
  /// every point's byte pass first, then every point's pass of each follow-up set in turn.
  BytePass bytes_pass(const CounterPassHooks& hooks);
  /// Sessions after the byte session (one-pass sets first, then the replay set if any).
  size_t follow_up_count() const { return follow_up_sets_.size(); }
  /// Follow-up session `index` (< follow_up_count()) of one point: flush, then the kernels.
  /// Errors as bytes_pass; an out-of-range index is a bad-input Error.
  std::vector<std::map<std::string, double>> follow_up_pass(size_t index,
                                                            const CounterPassHooks& hooks);
  /// Merges one point's passes (counters_from_passes with this engine's sessions).
  CounterResult combine(const CounterPassRanges& ranges, const CounterPassHooks& hooks,
                        const std::vector<std::string>& kernel_names) const;

  /// Profiles `kernels` once with the byte set and drops the result. The first profiled launch
  /// of a process showed ~8.5 MB of in-window DRAM writes that no kernel stored (the first
  /// point of a sweep on the H200; later points of the same operator: none), so a sweep warms
  /// the session up before its first point. Errors as bytes_pass.
  void warm_up(const std::function<void()>& kernels);

  /// Every metric set, byte set first, as recorded in each point's CounterResult::sessions.
  const std::vector<CounterSession>& sessions() const { return sessions_; }

 private:
  ProfilerSession session_;
  size_t byte_set_ = 0;
  std::vector<size_t> follow_up_sets_;
  std::vector<CounterSession> sessions_;
};

}  // namespace rooflinectl
