// Counters of the kernel launches a program makes, collected from inside their launch calls: the
// one-pass byte set of the sweep's counter engine (DRAM and L2 bytes, duration, clocks, bf16
// tensor ops, per-cycle peaks, and the tensor-pipe instruction count of any dtype when it still
// fits the pass), with the same write-back-safe L2 flush before each launch and the same
// read-only sweep after it (docs/counter-method.md). One pass, so nothing is replayed and the
// program's memory is never saved or restored.
//
// Several launches share one collection (one start and stop of the range profiler, which costs
// about 30 ms on the H200 where a range costs about 1 ms): each launch is a few ranges of it, the
// flush's (discarded), the program's kernel and the write-back sweep.
//
// Run 2 of `profile --mode full` collects the FLOP set instead (cupti/metrics.hpp
// flop_metric_names): several passes, so CUPTI replays each kernel inside its launch and saves
// and restores the device memory it writes between passes (kernel replay), and the program's
// results are what they would be without it. No flush, no write-back sweep (no bytes are taken
// from this run), and one launch per collection, so that a launch kernel replay fails for does
// not take other launches' FLOPs with it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cupti/profiler_session.hpp"
#include "measure/l2_flush.hpp"
#include "profile/launch_selection.hpp"
#include "result/report.hpp"

namespace rooflinectl {

class LaunchCounters {
 public:
  /// The counter ranges of one launch: the program's kernel, then the write-back sweep.
  using LaunchRanges = std::vector<std::map<std::string, double>>;

  /// On the context current on this thread: the range profiler with the byte set and an L2
  /// flusher on its device (kBytes), or with the FLOP set's metrics this chip has (kFlops).
  /// Throws the session's environment Errors (privileges, another profiler, an unsupported GPU).
  explicit LaunchCounters(CounterRun run);
  /// Starts a collection when none is open, then (byte set) flushes L2 inside it and waits for
  /// the flush: call right before the program's launch. Errors as ProfilerSession::begin_ranges.
  void before_launch();
  /// Waits for the program's launch, then (byte set) enqueues the write-back sweep: call right
  /// after it.
  void after_launch();
  /// Whether a collection is open (before_launch() called since the last close()).
  bool open() const { return launches_ > 0; }
  /// Whether the open collection has room for no further launch (ProfilerSession::kMaxRanges;
  /// the FLOP set: one launch per collection).
  bool full() const;
  /// Stops the profiler and returns the ranges of every launch since the collection opened, in
  /// launch order. Throws an environment Error when the profiler fails or the ranges are not
  /// ranges_per_launch() per launch (a kernel the collection did not expect ran inside it); the
  /// collection is closed on every way out.
  std::vector<LaunchRanges> close();
  const std::vector<CounterSession>& sessions() const { return sessions_; }
  /// How L2 was left before each launch; "" for the FLOP set (no flush).
  std::string cache_policy() const { return flusher_ ? flusher_->policy() : ""; }
  /// How the write-back was measured; "" for the FLOP set (no sweep).
  std::string sweep_method() const { return flusher_ ? flusher_->read_sweep_policy() : ""; }

  /// Ranges each launch takes in a collection: byte set: the flush's (counted when the counters
  /// start), the kernel, the write-back sweep; FLOP set: the kernel.
  size_t ranges_per_launch() const { return flusher_ ? flush_ranges_ + 2 : 1; }
  /// Ranges of each launch that close() returns: byte set 2 (the kernel, the write-back sweep),
  /// FLOP set 1 (the kernel).
  size_t ranges_kept_per_launch() const { return flusher_ ? 2 : 1; }

 private:
  ProfilerSession session_;
  std::optional<L2Flusher> flusher_;  ///< byte set only
  size_t set_ = 0;
  size_t launches_ = 0;      ///< launches in the open collection
  size_t flush_ranges_ = 0;  ///< ranges one L2 flush makes inside a collection
  std::vector<CounterSession> sessions_;
};

}  // namespace rooflinectl
