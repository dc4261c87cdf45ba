// GPU checks of the counter engine against kernels whose DRAM traffic is known exactly: a fill
// that stores N bytes must show N bytes written to DRAM in total (in-window writes plus the
// write-back the sweep after it catches), whether or not the output fits in L2 and whether L2 was
// flushed (cold) or already held the output dirty (warm); a copy must also read N bytes. The
// in-window figure alone is what Nsight Compute reports, and undercounts an output that stays in
// L2 (docs/counter-method.md).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "cupti/counter_engine.hpp"
#include "cupti/metrics.hpp"
#include "device/device_info.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "measure/l2_flush.hpp"

namespace rooflinectl {
namespace {

constexpr int kDevice = 0;
constexpr double kTolerance = 0.02;  // issue 13: within 2% of the bytes stored
constexpr int kThreads = 256;
constexpr int kBlocks = 1024;

__global__ void fill_kernel(uint4* out, int64_t count, uint32_t value) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    out[i] = make_uint4(value, value, value, value);
  }
}

__global__ void copy_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, int64_t count) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    out[i] = in[i];
  }
}

/// One engine for every test of this file, as a sweep has one per process: on the H200 (CUDA
/// 13.0) creating a CUPTI session after an engine had been destroyed crashed inside CUPTI, so the
/// engine is built once and never destroyed. nullptr with CUPTI's refusal in `why`.
CounterEngine* shared_engine(std::string& why) {
  static std::string refusal;
  static CounterEngine* engine = []() -> CounterEngine* {
    try {
      RFL_CUDA_CHECK(cudaSetDevice(kDevice));
      RFL_CUDA_CHECK(cudaFree(nullptr));
      return new CounterEngine(kDevice);
    } catch (const Error& e) {
      refusal = e.what();
      return nullptr;
    }
  }();
  why = refusal;
  if (why.find("not available on") != std::string::npos) ADD_FAILURE() << why;
  return engine;
}

struct Measured {
  double read = 0;
  double write_in_window = 0;
  double writeback = 0;
  double l2_write = 0;
};

Measured measure(CounterEngine& engine, L2Flusher& flusher, bool warm,
                 const std::function<void()>& launch, const char* label, int64_t bytes) {
  CounterPassHooks hooks;
  // Warm: the kernel has just run once, so L2 already holds its output (dirty) and its input.
  hooks.flush_l2 = [&] {
    flusher.flush(nullptr);
    if (warm) launch();
  };
  hooks.launch = launch;
  hooks.writeback_sweep = [&] { flusher.read_sweep(nullptr); };
  hooks.cache_policy = warm ? "warm" : flusher.policy();
  hooks.sweep_method = flusher.read_sweep_policy();
  const CounterResult c = engine.measure(hooks, {label});
  EXPECT_TRUE(c.note.empty()) << c.note;
  EXPECT_TRUE(c.dram_writeback_bytes) << c.writeback_null_reason;
  Measured m;
  m.read = c.total.dram_read_bytes.value_or(-1);
  m.write_in_window = c.total.dram_write_bytes.value_or(-1);
  m.writeback = c.dram_writeback_bytes.value_or(-1);
  m.l2_write = c.total.l2_write_bytes.value_or(-1);
  std::printf(
      "%-5s %s %6.2f MiB: DRAM read %.4f MB, write in window %.4f MB + write-back %.4f MB = "
      "%.4f MB, L2 stores %.4f MB (stored %.4f MB)\n",
      label, warm ? "warm" : "cold", static_cast<double>(bytes) / (1 << 20), m.read / 1e6,
      m.write_in_window / 1e6, m.writeback / 1e6, (m.write_in_window + m.writeback) / 1e6,
      m.l2_write / 1e6, static_cast<double>(bytes) / 1e6);
  return m;
}

TEST(CounterTruth, SessionsSplitBytesFromReplay) {
  std::string why;
  CounterEngine* engine = shared_engine(why);
  if (!engine) GTEST_SKIP() << "counters unavailable: " << why;
  ASSERT_EQ(engine->sessions().size(), 2u);
  const CounterSession& bytes = engine->sessions()[0];
  const CounterSession& replay = engine->sessions()[1];
  std::printf("byte session: %d pass(es), %s:", bytes.passes, bytes.replay.c_str());
  for (const auto& m : bytes.metrics) std::printf(" %s", m.c_str());
  std::printf("\nreplay session: %d pass(es), %s:", replay.passes, replay.replay.c_str());
  for (const auto& m : replay.metrics) std::printf(" %s", m.c_str());
  std::printf("\n");
  EXPECT_EQ(bytes.passes, 1);
  for (const auto& required : required_byte_metrics()) {
    EXPECT_NE(std::find(bytes.metrics.begin(), bytes.metrics.end(), required), bytes.metrics.end())
        << required;
    EXPECT_EQ(std::find(replay.metrics.begin(), replay.metrics.end(), required),
              replay.metrics.end())
        << required << " must not come from a multi-pass session";
  }
}

// Sizes from well inside L2 (4 MiB of the H200's 60 MiB) to well past it (256 MiB).
class FillTotals : public ::testing::TestWithParam<std::tuple<int64_t, bool>> {};

TEST_P(FillTotals, TotalDramWritesEqualTheBytesStored) {
  const auto [mib, warm] = GetParam();
  std::string why;
  CounterEngine* engine = shared_engine(why);
  if (!engine) GTEST_SKIP() << "counters unavailable: " << why;
  const DeviceRecord device = query_device(kDevice);
  L2Flusher flusher(device.l2_bytes);
  const int64_t bytes = mib << 20;
  const int64_t count = bytes / static_cast<int64_t>(sizeof(uint4));
  DeviceBuffer<uint4> out(count);
  const auto launch = [&] {
    fill_kernel<<<kBlocks, kThreads>>>(out.get(), count, 7u);
    RFL_CUDA_CHECK(cudaGetLastError());
  };
  launch();  // load the module outside the measurement
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  const Measured m = measure(*engine, flusher, warm, launch, "fill", bytes);
  const double stored = static_cast<double>(bytes);
  EXPECT_NEAR(m.write_in_window + m.writeback, stored, kTolerance * stored);
  EXPECT_NEAR(m.l2_write, stored, kTolerance * stored);
  // A pure store reads nothing (ECC on partial sectors aside: every store here is a full sector).
  EXPECT_LT(m.read, kTolerance * stored);
}

INSTANTIATE_TEST_SUITE_P(SizesColdAndWarm, FillTotals,
                         ::testing::Combine(::testing::Values(int64_t{4}, int64_t{16},
                                                              int64_t{256}),
                                            ::testing::Bool()));

TEST(CounterTruth, CopyReadsAndWritesItsBytesOnce) {
  std::string why;
  CounterEngine* engine = shared_engine(why);
  if (!engine) GTEST_SKIP() << "counters unavailable: " << why;
  const DeviceRecord device = query_device(kDevice);
  L2Flusher flusher(device.l2_bytes);
  const int64_t bytes = int64_t{8} << 20;
  const int64_t count = bytes / static_cast<int64_t>(sizeof(uint4));
  DeviceBuffer<uint4> in(count);
  DeviceBuffer<uint4> out(count);
  RFL_CUDA_CHECK(cudaMemset(in.get(), 1, static_cast<size_t>(bytes)));
  const auto launch = [&] {
    copy_kernel<<<kBlocks, kThreads>>>(in.get(), out.get(), count);
    RFL_CUDA_CHECK(cudaGetLastError());
  };
  launch();
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  const Measured m = measure(*engine, flusher, false, launch, "copy", bytes);
  const double n = static_cast<double>(bytes);
  EXPECT_NEAR(m.read, n, kTolerance * n);
  EXPECT_NEAR(m.write_in_window + m.writeback, n, kTolerance * n);
}

}  // namespace
}  // namespace rooflinectl
