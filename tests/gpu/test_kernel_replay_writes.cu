// Why DRAM bytes come from a one-pass session (docs/counter-method.md): with CUDA 13.0 a
// multi-pass kernel-replay session resets nothing in L2 between passes, so a 4 MiB fill's
// in-window DRAM writes pick up write-backs that are not the kernel's, while one pass after the
// flush sees none of its own (they are still in L2). Its own binary: it opens two plain sessions
// one after the other, which must not share a process with a CounterEngine.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>

#include "core/error.hpp"
#include "cupti/metrics.hpp"
#include "cupti/profiler_session.hpp"
#include "device/device_info.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "measure/l2_flush.hpp"

namespace rooflinectl {
namespace {

constexpr int kDevice = 0;
constexpr int kThreads = 256;
constexpr int kBlocks = 1024;

__global__ void fill_kernel(uint4* out, int64_t count, uint32_t value) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    out[i] = make_uint4(value, value, value, value);
  }
}

// If this ever fails, the split may no longer be needed: re-measure before dropping it.
TEST(KernelReplay, InflatesInWindowWritesOfAnL2ResidentOutput) {
  const DeviceRecord device = [] {
    RFL_CUDA_CHECK(cudaSetDevice(kDevice));
    RFL_CUDA_CHECK(cudaFree(nullptr));
    return query_device(kDevice);
  }();
  L2Flusher flusher(device.l2_bytes);
  const int64_t bytes = int64_t{4} << 20;
  const int64_t count = bytes / static_cast<int64_t>(sizeof(uint4));
  DeviceBuffer<uint4> out(count);
  const auto launch = [&] {
    fill_kernel<<<kBlocks, kThreads>>>(out.get(), count, 3u);
    RFL_CUDA_CHECK(cudaGetLastError());
  };
  launch();
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  double replayed_write = 0;
  int passes = 0;
  try {
    ProfilerSession session(kDevice, counter_metric_names());
    passes = session.passes();
    const auto ranges = session.profile([&] { flusher.flush(nullptr); }, launch);
    ASSERT_EQ(ranges.size(), 1u);
    replayed_write = ranges[0].at(kMetricDramWriteBytes);
  } catch (const Error& e) {
    GTEST_SKIP() << "counters unavailable: " << e.what();
  }
  double one_pass_write = 0;
  {
    ProfilerSession session(kDevice, required_byte_metrics());
    ASSERT_EQ(session.passes(), 1);
    const auto ranges = session.profile([&] { flusher.flush(nullptr); }, launch);
    ASSERT_EQ(ranges.size(), 1u);
    one_pass_write = ranges[0].at(kMetricDramWriteBytes);
  }
  std::printf(
      "fill 4 MiB, in-window DRAM writes: %d-pass kernel replay %.4f MB, one pass %.4f MB\n",
      passes, replayed_write / 1e6, one_pass_write / 1e6);
  EXPECT_GT(passes, 1);
  EXPECT_GT(replayed_write, one_pass_write + 0.25 * static_cast<double>(bytes));
}

}  // namespace
}  // namespace rooflinectl
