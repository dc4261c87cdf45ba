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
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cupti/profiler_session.hpp"
#include "measure/l2_flush.hpp"
#include "result/report.hpp"

namespace rooflinectl {

class LaunchCounters {
 public:
  /// The counter ranges of one launch: the program's kernel, then the write-back sweep.
  using LaunchRanges = std::vector<std::map<std::string, double>>;

  /// On the context current on this thread: the range profiler with the byte set and an L2
  /// flusher on its device. Throws the session's environment Errors (privileges, another
  /// profiler, an unsupported GPU).
  LaunchCounters();
  /// Starts a collection when none is open, then flushes L2 inside it and waits for the flush:
  /// call right before the program's launch. Errors as ProfilerSession::begin_ranges.
  void before_launch();
  /// Waits for the program's launch, then enqueues the write-back sweep: call right after it.
  void after_launch();
  /// Whether a collection is open (before_launch() called since the last close()).
  bool open() const { return launches_ > 0; }
  /// Whether the open collection has room for no further launch (ProfilerSession::kMaxRanges).
  bool full() const;
  /// Stops the profiler and returns the ranges of every launch since the collection opened, in
  /// launch order. Throws an environment Error when the profiler fails or the ranges are not
  /// ranges_per_launch() per launch (a kernel the collection did not expect ran inside it); the
  /// collection is closed on every way out.
  std::vector<LaunchRanges> close();
  const std::vector<CounterSession>& sessions() const { return sessions_; }
  std::string cache_policy() const { return flusher_.policy(); }
  std::string sweep_method() const { return flusher_.read_sweep_policy(); }

  /// Ranges each launch takes in a collection: the flush's (counted when the counters start),
  /// the kernel, the write-back sweep.
  size_t ranges_per_launch() const { return flush_ranges_ + 2; }

 private:
  ProfilerSession session_;
  L2Flusher flusher_;
  size_t set_ = 0;
  size_t launches_ = 0;      ///< launches in the open collection
  size_t flush_ranges_ = 0;  ///< ranges one L2 flush makes inside a collection
  std::vector<CounterSession> sessions_;
};

}  // namespace rooflinectl
