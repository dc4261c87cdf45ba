#include "measure/canary.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <vector>

#include "core/error.hpp"
#include "core/statistics.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/event.hpp"

namespace rooflinectl {
namespace {

constexpr int64_t kAlignBytes = 16;
constexpr double kSecondsPerMs = 1e-3;

}  // namespace

CanaryResult measure_copy_canary(int64_t l2_bytes, cudaStream_t stream) {
  if (l2_bytes <= 0) {
    throw bad_input(
        fmt::format("invalid L2 size {} bytes for the copy canary: must be > 0", l2_bytes));
  }
  const int64_t wanted = kCanaryL2Multiple * l2_bytes;
  const int64_t bytes = (wanted + kAlignBytes - 1) / kAlignBytes * kAlignBytes;
  const auto size = static_cast<size_t>(bytes);
  DeviceBuffer<std::byte> source(bytes);
  DeviceBuffer<std::byte> target(bytes);
  // Touch both buffers first so the first copy does not pay for page mapping.
  RFL_CUDA_CHECK(cudaMemsetAsync(source.get(), 1, size, stream));
  RFL_CUDA_CHECK(cudaMemsetAsync(target.get(), 0, size, stream));
  RFL_CUDA_CHECK(
      cudaMemcpyAsync(target.get(), source.get(), size, cudaMemcpyDeviceToDevice, stream));

  std::vector<Event> starts(kCanaryRuns);
  std::vector<Event> stops(kCanaryRuns);
  for (int i = 0; i < kCanaryRuns; ++i) {
    RFL_CUDA_CHECK(cudaEventRecord(starts[i].get(), stream));
    RFL_CUDA_CHECK(
        cudaMemcpyAsync(target.get(), source.get(), size, cudaMemcpyDeviceToDevice, stream));
    RFL_CUDA_CHECK(cudaEventRecord(stops[i].get(), stream));
  }
  RFL_CUDA_CHECK(cudaStreamSynchronize(stream));

  CanaryResult result;
  result.copy_bytes = bytes;
  for (int i = 0; i < kCanaryRuns; ++i) {
    float ms = 0;
    RFL_CUDA_CHECK(cudaEventElapsedTime(&ms, starts[i].get(), stops[i].get()));
    result.samples_s.push_back(static_cast<double>(ms) * kSecondsPerMs);
  }
  const double median_s = median(result.samples_s);
  if (median_s <= 0) {
    throw environment_error(fmt::format(
        "copy canary: median copy time {} s of {} bytes is not positive", median_s, bytes));
  }
  // Read once and written once: 2 bytes of DRAM traffic per byte copied.
  result.copy_bytes_per_s = 2.0 * static_cast<double>(bytes) / median_s;
  result.method = fmt::format(
      "cudaMemcpyAsync device-to-device of {:.0f} MiB ({} x L2), median of {} CUDA-event-timed "
      "copies after 1 warm-up; bandwidth counts read + write",
      static_cast<double>(bytes) / (1024.0 * 1024.0), kCanaryL2Multiple, kCanaryRuns);
  return result;
}

}  // namespace rooflinectl
