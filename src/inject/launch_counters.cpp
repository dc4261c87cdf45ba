#include "inject/launch_counters.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

#include "core/error.hpp"
#include "cupti/metrics.hpp"
#include "gpu/cuda_check.hpp"

namespace rooflinectl {
namespace {

int64_t current_l2_bytes() {
  int device = 0;
  int l2_bytes = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return l2_bytes;
}

/// The required byte metrics, then every candidate that keeps the set at one pass.
std::vector<std::string> one_pass_byte_set(const ProfilerSession& session) {
  std::vector<std::string> set = required_byte_metrics();
  std::vector<std::string> candidates = byte_metric_candidates(Dtype::kBf16);
  candidates.emplace_back(kMetricTensorPipeInst);
  for (const auto& metric : candidates) {
    if (std::find(set.begin(), set.end(), metric) != set.end()) continue;
    std::vector<std::string> trial = set;
    trial.push_back(metric);
    if (session.count_passes(trial) == 1) set = std::move(trial);
  }
  return set;
}

/// The FLOP set's metrics that this chip has (an unknown name makes count_passes throw).
std::vector<std::string> available_flop_set(const ProfilerSession& session) {
  std::vector<std::string> set;
  for (const auto& metric : flop_metric_names()) {
    try {
      session.count_passes({metric});
      set.push_back(metric);
    } catch (const Error&) {
      // Not on this chip (fp8 tensor ops before Hopper): left out, its field stays null.
    }
  }
  return set;
}

}  // namespace

LaunchCounters::LaunchCounters(CounterRun run) : session_(ProfilerSession::CurrentContext{}) {
  const bool bytes = run == CounterRun::kBytes;
  set_ =
      session_.add_metric_set(bytes ? one_pass_byte_set(session_) : available_flop_set(session_));
  CounterSession described;
  described.role = bytes ? "bytes" : "flops";
  described.replay = session_.replay_description(set_);
  described.passes = session_.passes(set_);
  described.metrics = session_.metrics(set_);
  sessions_.push_back(std::move(described));
  if (!bytes) return;
  flusher_.emplace(current_l2_bytes());
  // One discarded collection (a flush alone) before the program's first launch: on the H200
  // the first range of a session counted 28 MiB more DRAM writes than the same launch after it
  // (tests/programs/profile_target's 512 MiB scale kernel: 539.6 MiB, then 512.0); with this
  // collection first, that launch counts 511.97 MiB. The cause is not known.
  // It also counts the ranges the flush itself makes (its sweep, and on the H200 one more: the
  // persisting-L2 reset), so that a collection's ranges can be split by launch.
  session_.begin_ranges(set_, [] {});
  flusher_->flush(nullptr);
  flush_ranges_ = session_.end_ranges().size();
}

void LaunchCounters::before_launch() {
  if (launches_ == 0) session_.begin_ranges(set_, [] {});
  ++launches_;
  if (!flusher_) return;
  flusher_->flush(nullptr);
  ProfilerSession::synchronize_context();
}

void LaunchCounters::after_launch() {
  ProfilerSession::synchronize_context();
  if (flusher_) flusher_->read_sweep(nullptr);
}

bool LaunchCounters::full() const {
  if (!flusher_) return launches_ >= 1;
  return (launches_ + 1) * ranges_per_launch() > static_cast<size_t>(ProfilerSession::kMaxRanges);
}

std::vector<LaunchCounters::LaunchRanges> LaunchCounters::close() {
  const size_t launches = launches_;
  launches_ = 0;
  const std::vector<std::map<std::string, double>> ranges = session_.end_ranges();
  const size_t each = ranges_per_launch();
  if (ranges.size() != launches * each) {
    throw environment_error(fmt::format(
        "{} counter ranges for {} launch(es) (expected {} each: {}): a kernel no launch call "
        "announced ran while they were collected",
        ranges.size(), launches, each,
        flusher_ ? fmt::format("the flush's {}, the kernel, the write-back sweep", flush_ranges_)
                 : std::string("the kernel")));
  }
  const size_t skipped = flusher_ ? flush_ranges_ : 0;
  const size_t kept = ranges_kept_per_launch();
  std::vector<LaunchRanges> per_launch(launches);
  for (size_t i = 0; i < launches; ++i) {
    const auto first = ranges.begin() + static_cast<std::ptrdiff_t>(i * each + skipped);
    per_launch[i].assign(first, first + static_cast<std::ptrdiff_t>(kept));
  }
  return per_launch;
}

}  // namespace rooflinectl
