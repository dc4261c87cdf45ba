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
#include <optional>
#include <string>
#include <vector>

#include "cupti/collection_split.hpp"
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

/// One session of one point as the engine ran it: alone, or in a collection shared with other
/// points (CollectionMember).
struct CollectedPass {
  /// The point's ranges: its kernels, then (byte session) the write-back sweep.
  std::vector<CounterRange> ranges;
  int attempts = 1;  ///< byte sessions run (more than 1: foreign writes were seen)
  /// Wall time of the collection the point's ranges came from, plus its own repeats, seconds.
  double wall_time_s = 0;
  int points_in_collection = 1;  ///< points that shared that collection, this one included
};

/// One point of a shared collection: its hooks and the kernels its launch enqueues.
struct CollectionMember {
  CounterPassHooks hooks;
  size_t kernel_ranges = 0;  ///< OperatorRun::kernel_names().size()
};

/// A ProfilerSession with the byte set and the follow-up sets of plan_follow_up_sets().
class CounterEngine {
 public:
  /// Opens the session on `device` and configures the byte set: the required byte metrics, then
  /// each other candidate of byte_metric_candidates(`dtype`) that keeps the set at one pass; then
  /// the follow-up sets: follow_up_metric_names() packed into one-pass sets, and a kernel-replay
  /// set for the metrics that alone need several passes (fp16 tensor ops when `dtype` is fp16;
  /// sm__throughput, 8 passes on GH100, only when `sm_throughput`); the tensor-pipe
  /// metrics of the MMA input types in `extra` (besides `dtype`'s own). Throws the session's
  /// environment Errors, and an environment Error when the required byte metrics alone need
  /// more than one pass on this chip.
  CounterEngine(int device, Dtype dtype, bool sm_throughput, MmaInputs extra = {});

  /// The byte sessions of `points` (≥ 1), in one range-profiler collection when they are more
  /// than one and fit_one_collection: the first point's flush unprofiled, then for each point
  /// its flush (after the first), its kernels and the write-back sweep, cut apart by
  /// split_collection; a collection whose range count is not the predicted one is dropped and
  /// every point profiled alone. A point whose ranges show foreign writes
  /// (byte_session_has_foreign_writes: DRAM writes above the kernels' L2 stores) is profiled
  /// again alone, up to kMaxByteSessionAttempts sessions in all, the last kept. Errors as
  /// ProfilerSession::profile (an error loses the whole call's points). Switching between
  /// metric sets re-creates CUPTI's range profiler object, which costs a few hundred
  /// milliseconds: a sweep runs every point's byte pass first, then every point's pass of each
  /// follow-up set in turn.
  std::vector<CollectedPass> bytes_passes(const std::vector<CollectionMember>& points);
  /// Sessions after the byte session (one-pass sets first, then the replay set if any).
  size_t follow_up_count() const { return follow_up_sets_.size(); }
  /// Follow-up session `index` (< follow_up_count()) of `points` (≥ 1): as bytes_passes without
  /// the write-back sweep and the foreign-write repeats; a multi-pass (kernel replay) set
  /// profiles each point alone. An out-of-range index is a bad-input Error; else errors as
  /// bytes_passes.
  std::vector<CollectedPass> follow_up_passes(size_t index,
                                              const std::vector<CollectionMember>& points);
  /// Whether points whose launches enqueue `kernel_ranges` kernels each fit one collection of
  /// the byte session (`byte_session`: with the write-back sweep) or of a follow-up session:
  /// collection_range_count ≤ ProfilerSession::kMaxRanges. Known after warm_up.
  bool fit_one_collection(const std::vector<size_t>& kernel_ranges, bool byte_session) const;
  /// Merges one point's passes (counters_from_passes with this engine's sessions).
  CounterResult combine(const CounterPassRanges& ranges, const CounterPassHooks& hooks,
                        const std::vector<std::string>& kernel_names) const;

  /// Profiles `writeback_sweep` once with the byte set and drops the result, then `flush_l2`
  /// alone, and keeps how many ranges each made (the flush's reset of persisting lines is a
  /// driver kernel of its own on the H200). The first profiled launch of a process showed
  /// ~8.5 MB of in-window DRAM writes that no kernel stored (the first point of a sweep on the
  /// H200; later points of the same operator: none), so a sweep warms the session up before its
  /// first point. Errors as bytes_passes.
  void warm_up(const std::function<void()>& flush_l2, const std::function<void()>& writeback_sweep);
  /// Every metric set, byte set first, as recorded in each point's CounterResult::sessions.
  const std::vector<CounterSession>& sessions() const { return sessions_; }

 private:
  ProfilerSession session_;
  size_t byte_set_ = 0;
  std::vector<size_t> follow_up_sets_;
  std::vector<CounterSession> sessions_;
  size_t flush_ranges_ = 0;  ///< ranges of one flush_l2 (warm_up)
  size_t sweep_ranges_ = 1;  ///< ranges of one writeback_sweep (warm_up)

  /// Profiles `points` with set `set` in one collection (see bytes_passes), or alone when there
  /// is one; nullopt when the collection's ranges do not split as predicted.
  std::optional<std::vector<CollectedPass>> collect(size_t set,
                                                    const std::vector<CollectionMember>& points,
                                                    bool with_sweep);
  /// One point alone with set `set`, its flush unprofiled.
  CollectedPass alone(size_t set, const CounterPassHooks& hooks, bool with_sweep);
};

}  // namespace rooflinectl
