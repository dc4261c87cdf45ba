#include "measure/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "device/gpu_check.hpp"
#include "measure/clock_probe.hpp"
#include "measure/nvtx_range.hpp"

namespace rooflinectl {
namespace {

constexpr double kSecondsPerMs = 1e-3;

/// Owns one cudaEvent_t.
class Event {
 public:
  Event() { RFL_GPU_CHECK(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace

TimingResult time_launches(const std::function<void(cudaStream_t)>& launch,
                           const TimingOptions& options, L2Flusher& flusher, cudaStream_t stream) {
  if (options.repetitions < 1) {
    throw bad_input(fmt::format("invalid --repetitions {}: must be >= 1", options.repetitions));
  }
  if (options.warmup_runs < 0) {
    throw bad_input(fmt::format("invalid warm-up count {}: must be >= 0", options.warmup_runs));
  }
  for (int i = 0; i < options.warmup_runs; ++i) launch(stream);

  std::vector<Event> starts(static_cast<size_t>(options.repetitions));
  std::vector<Event> stops(static_cast<size_t>(options.repetitions));
  for (int i = 0; i < options.repetitions; ++i) {
    if (options.flush_l2) flusher.flush(stream);
    RFL_GPU_CHECK(cudaEventRecord(starts[static_cast<size_t>(i)].get(), stream));
    {
      const NvtxRange range(options.nvtx_range);
      launch(stream);
    }
    RFL_GPU_CHECK(cudaEventRecord(stops[static_cast<size_t>(i)].get(), stream));
  }
  // One sync for all samples keeps the host out of the way between launches.
  RFL_GPU_CHECK(cudaStreamSynchronize(stream));

  TimingResult result;
  result.samples_s.reserve(static_cast<size_t>(options.repetitions));
  for (size_t i = 0; i < starts.size(); ++i) {
    float ms = 0;
    RFL_GPU_CHECK(cudaEventElapsedTime(&ms, starts[i].get(), stops[i].get()));
    result.samples_s.push_back(static_cast<double>(ms) * kSecondsPerMs);
  }
  result.median_s = median(result.samples_s);
  const auto [min_it, max_it] =
      std::minmax_element(result.samples_s.begin(), result.samples_s.end());
  result.min_s = *min_it;
  result.max_s = *max_it;
  result.warmup_runs = options.warmup_runs;
  result.l2_flushed = options.flush_l2;
  result.cache_policy =
      options.flush_l2
          ? "L2 flushed before each timed sample (warm-up launches unflushed): " + flusher.policy()
          : "L2 left warm between timed samples (--warm-l2): an input that fits in L2 is read "
            "from L2, not DRAM";
  result.sm_clock_hz = measure_sm_clock_hz(stream);
  return result;
}

}  // namespace rooflinectl
