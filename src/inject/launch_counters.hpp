// Counters of one kernel launch a program makes, collected from inside its launch call: the
// one-pass byte set of the sweep's counter engine (DRAM and L2 bytes, duration, clocks, bf16
// tensor ops, per-cycle peaks, and the tensor-pipe instruction count of any dtype when it still
// fits the pass), with the same write-back-safe L2 flush before the launch and the same
// read-only sweep after it (docs/counter-method.md). One pass, so nothing is replayed and the
// program's memory is never saved or restored.
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
  /// On the context current on this thread: the range profiler with the byte set and an L2
  /// flusher on its device. Throws the session's environment Errors (privileges, another
  /// profiler, an unsupported GPU).
  LaunchCounters();
  /// Flushes L2 (unprofiled) and starts the profiler: call right before the program's launch.
  void begin();
  /// Enqueues the write-back sweep, stops the profiler and returns the ranges: the program's
  /// kernel, then the sweep. Errors as ProfilerSession::end_ranges.
  std::vector<std::map<std::string, double>> end();
  const std::vector<CounterSession>& sessions() const { return sessions_; }
  std::string cache_policy() const { return flusher_.policy(); }
  std::string sweep_method() const { return flusher_.read_sweep_policy(); }

 private:
  ProfilerSession session_;
  L2Flusher flusher_;
  size_t set_ = 0;
  std::vector<CounterSession> sessions_;
};

}  // namespace rooflinectl
