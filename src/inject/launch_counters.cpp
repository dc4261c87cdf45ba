#include "inject/launch_counters.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <optional>

#include "core/error.hpp"
#include "cupti/metrics.hpp"
#include "gpu/cuda_check.hpp"
#include "profile/range_match.hpp"

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

}  // namespace

LaunchCounters::LaunchCounters()
    : session_(ProfilerSession::CurrentContext{}), flusher_(current_l2_bytes()) {
  set_ = session_.add_metric_set(one_pass_byte_set(session_));
  CounterSession bytes;
  bytes.role = "bytes";
  bytes.replay = session_.replay_description(set_);
  bytes.passes = session_.passes(set_);
  bytes.metrics = session_.metrics(set_);
  sessions_.push_back(std::move(bytes));
  // One discarded collection (a flush alone) before the program's first launch: on the H200
  // the first range of a session counted 28 MiB more DRAM writes than the same launch after it
  // (tests/programs/profile_target's 512 MiB scale kernel: 539.6 MiB, then 512.0); with this
  // collection first, that launch counts 511.97 MiB. The cause is not known.
  // It also names the ranges the flush itself makes (its sweep, and on the H200 one more: the
  // persisting-L2 reset), so that a collection's ranges can be told apart by launch.
  session_.begin_ranges(set_, [] {});
  flusher_.flush(nullptr);
  session_.end_ranges();
  flush_names_ = session_.range_names();
  if (flush_names_.empty()) {
    throw environment_error("an L2 flush inside a counter collection made no counter range");
  }
}

void LaunchCounters::before_launch() {
  if (launches_ == 0) session_.begin_ranges(set_, [] {});
  ++launches_;
  flusher_.flush(nullptr);
  ProfilerSession::synchronize_context();
}

void LaunchCounters::after_launch() {
  ProfilerSession::synchronize_context();
  flusher_.read_sweep(nullptr);
}

bool LaunchCounters::full() const {
  // Half the room for this injection's own ranges: the rest for kernels it does not hook.
  return 2 * (launches_ + 1) * ranges_per_launch() >
         static_cast<size_t>(ProfilerSession::kMaxRanges);
}

std::vector<LaunchCounters::LaunchResult> LaunchCounters::close(
    const std::vector<std::string>& mangled_names) {
  launches_ = 0;
  const std::vector<std::map<std::string, double>> ranges = session_.end_ranges();
  const std::vector<std::string>& names = session_.range_names();
  const std::string& sweep = flush_names_.back();  // the flush ends with the read-only sweep
  std::vector<LaunchResult> results(mangled_names.size());
  size_t from = 0;
  for (size_t i = 0; i < mangled_names.size(); ++i) {
    const std::optional<size_t> kernel =
        find_launch_range(names, from, flush_names_, sweep, mangled_names[i]);
    if (!kernel) {
      const auto last = names.begin() + static_cast<std::ptrdiff_t>(
                                            std::min(names.size(), from + ranges_per_launch()));
      results[i].failure = fmt::format(
          "its kernel's counter range was not found between an L2 flush and a write-back sweep "
          "among the collection's {} ranges (from range {}: {})",
          names.size(), from,
          fmt::join(names.begin() + static_cast<std::ptrdiff_t>(std::min(from, names.size())), last,
                    ", "));
      continue;
    }
    results[i].ranges.assign(ranges.begin() + static_cast<std::ptrdiff_t>(*kernel),
                             ranges.begin() + static_cast<std::ptrdiff_t>(*kernel + 2));
    from = *kernel + 2;
  }
  return results;
}

}  // namespace rooflinectl
