// GPU checks of the measurement layer against work whose size is known exactly: DRAM bytes of a
// 1 GiB copy, tensor ops of a bf16 GEMM (2·M·N·K), event timing, the SM clock probe and the L2
// flusher. Expectations follow what was read on the H200 (cupti-on-h200.md).
//
// This file is host C++ (no kernels of its own): cuBLAS's copy kernel (cublasScopy) stands in
// for the float4 grid-stride copy; it reads and writes each byte once just the same.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "cupti/metrics.hpp"
#include "cupti/profiler_session.hpp"
#include "device/device_info.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/cublas_check.hpp"
#include "kernels/operator.hpp"
#include "measure/clock_probe.hpp"
#include "measure/l2_flush.hpp"
#include "measure/timing.hpp"

namespace rooflinectl {
namespace {

using Ranges = std::vector<std::map<std::string, double>>;

constexpr int kDevice = 0;
constexpr int64_t kCopyBytes = int64_t{1} << 30;
constexpr int64_t kCopyFloats = kCopyBytes / static_cast<int64_t>(sizeof(float));
// Small enough that source and destination both stay in L2 (60 MiB on the H200).
constexpr int64_t kSmallCopyBytes = int64_t{8} << 20;
constexpr int64_t kSmallCopyFloats = kSmallCopyBytes / static_cast<int64_t>(sizeof(float));
constexpr int kGemmSize = 2048;

/// Owns a cuBLAS handle.
class CublasHandle {
 public:
  CublasHandle() { RFL_CUBLAS_CHECK(cublasCreate(&handle_)); }
  ~CublasHandle() { cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

/// Makes device 0 current with a context (CUPTI attaches to the current context).
DeviceRecord use_device() {
  RFL_CUDA_CHECK(cudaSetDevice(kDevice));
  RFL_CUDA_CHECK(cudaFree(nullptr));
  return query_device(kDevice);
}

/// A session for `metrics`, or std::nullopt with CUPTI's refusal in `why` (no permission,
/// another profiler attached, ...). An unknown metric name is a bug in the metric table, not
/// the environment: it fails the test instead.
std::optional<ProfilerSession> open_session(const std::vector<std::string>& metrics,
                                            std::string& why) {
  try {
    return ProfilerSession(kDevice, metrics);
  } catch (const Error& e) {
    why = e.what();
    if (why.find("not available on") != std::string::npos) ADD_FAILURE() << why;
    return std::nullopt;
  }
}

double sum_over_ranges(const Ranges& ranges, const char* metric) {
  double sum = 0;
  for (const auto& range : ranges) sum += range.at(metric);
  return sum;
}

void copy_floats(cublasHandle_t cublas, const float* src, float* dst, int64_t count,
                 cudaStream_t stream) {
  RFL_CUBLAS_CHECK(cublasSetStream(cublas, stream));
  RFL_CUBLAS_CHECK(cublasScopy(cublas, static_cast<int>(count), src, 1, dst, 1));
}

TEST(MeasureCupti, CopyDramBytesMatchTheBytesMoved) {
  const DeviceRecord device = use_device();
  std::string why;
  std::optional<ProfilerSession> session = open_session(counter_metric_names(), why);
  if (!session) GTEST_SKIP() << "counters unavailable: " << why;

  DeviceBuffer<float> src(kCopyFloats);
  DeviceBuffer<float> dst(kCopyFloats);
  RFL_CUDA_CHECK(cudaMemset(src.get(), 0x3f, static_cast<size_t>(kCopyBytes)));
  RFL_CUDA_CHECK(cudaMemset(dst.get(), 0, static_cast<size_t>(kCopyBytes)));
  L2Flusher flusher(device.l2_bytes);
  CublasHandle cublas;
  copy_floats(cublas.get(), src.get(), dst.get(), kCopyFloats, nullptr);  // load the module

  const Ranges ranges = session->profile(
      [&] { flusher.flush(nullptr); },
      [&] { copy_floats(cublas.get(), src.get(), dst.get(), kCopyFloats, nullptr); });
  ASSERT_GE(ranges.size(), 1u);
  const double read = sum_over_ranges(ranges, kMetricDramReadBytes);
  const double write = sum_over_ranges(ranges, kMetricDramWriteBytes);
  std::printf("copy 1 GiB: %zu range(s), %d passes, DRAM read %.6g B, write %.6g B, L2 %.4g B\n",
              ranges.size(), session->passes(), read, write,
              sum_over_ranges(ranges, kMetricL2Bytes));
  EXPECT_NEAR(read, static_cast<double>(kCopyBytes), 0.01 * kCopyBytes);
  EXPECT_NEAR(write, static_cast<double>(kCopyBytes), 0.01 * kCopyBytes);

  const CounterResult counters =
      counters_from_ranges(ranges, {"copy"}, session->passes(), flusher.policy());
  ASSERT_TRUE(counters.total.dram_read_bytes);
  EXPECT_DOUBLE_EQ(*counters.total.dram_read_bytes, read);
  ASSERT_TRUE(counters.total.sm_clock_hz);
  EXPECT_GT(*counters.total.sm_clock_hz, 0.3e9);
  ASSERT_TRUE(counters.peaks.dram_bytes_per_cycle);
  EXPECT_GT(*counters.peaks.dram_bytes_per_cycle, 0.0);
}

TEST(MeasureCupti, Bf16GemmTensorOpsAreTwoMnk) {
  use_device();
  std::string why;
  std::optional<ProfilerSession> session = open_session(counter_metric_names(), why);
  if (!session) GTEST_SKIP() << "counters unavailable: " << why;

  const int64_t elements = int64_t{kGemmSize} * kGemmSize;
  DeviceBuffer<uint16_t> a(elements);  // bf16 storage
  DeviceBuffer<uint16_t> b(elements);
  DeviceBuffer<uint16_t> c(elements);
  // 0x3c3c as bf16 is ~0.0115: finite products, no overflow in the fp32 accumulation.
  RFL_CUDA_CHECK(cudaMemset(a.get(), 0x3c, static_cast<size_t>(a.bytes())));
  RFL_CUDA_CHECK(cudaMemset(b.get(), 0x3c, static_cast<size_t>(b.bytes())));
  CublasHandle cublas;
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const auto gemm = [&] {
    RFL_CUBLAS_CHECK(cublasGemmEx(cublas.get(), CUBLAS_OP_N, CUBLAS_OP_N, kGemmSize, kGemmSize,
                                  kGemmSize, &alpha, a.get(), CUDA_R_16BF, kGemmSize, b.get(),
                                  CUDA_R_16BF, kGemmSize, &beta, c.get(), CUDA_R_16BF, kGemmSize,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  gemm();  // heuristics, workspace and module loading happen outside the profiled call

  const Ranges ranges = session->profile([] {}, gemm);
  ASSERT_GE(ranges.size(), 1u);
  const double tensor_ops = sum_over_ranges(ranges, kMetricTensorBf16Ops);
  const double expected = 2.0 * kGemmSize * kGemmSize * kGemmSize;
  std::printf("bf16 GEMM %d^3: %zu range(s), tensor bf16 ops %.6g (2MNK = %.6g)\n", kGemmSize,
              ranges.size(), tensor_ops, expected);
  EXPECT_NEAR(tensor_ops, expected, 0.001 * expected);
}

// Our own tensor-core GEMM (kernels/gemm.cu) at the sweep's default shape for L = 4096:
// M = 4096, K = d_model = 2048, N = 4·d_model = 8192. Its counted tensor FLOPs must equal 2·M·N·K.
TEST(MeasureCupti, OurGemmTensorFlopsAreTwoMnk) {
  use_device();
  std::string why;
  std::optional<ProfilerSession> session = open_session(counter_metric_names(), why);
  if (!session) GTEST_SKIP() << "counters unavailable: " << why;
  Shape shape;
  shape.seq_len = 4096;
  const std::unique_ptr<OperatorRun> run = find_operator("gemm").create(shape, kDefaultVersionKey);
  run->fill_random(11);
  run->launch(nullptr);  // module loading outside the profiled launch
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  const CounterResult counters =
      counters_from_ranges(session->profile([] {}, [&] { run->launch(nullptr); }),
                           run->kernel_names(), session->passes(), "not flushed");
  ASSERT_TRUE(counters.total.tensor_flop());
  const double m = 4096, k = 2048, n = 8192;
  const double expected = 2.0 * m * n * k;
  std::printf("our GEMM %gx%gx%g: tensor FLOP %.8g (2MNK = %.8g)\n", m, n, k,
              *counters.total.tensor_flop(), expected);
  EXPECT_NEAR(*counters.total.tensor_flop(), expected, 0.001 * expected);
}

TEST(MeasureCupti, SessionSurvivesAMove) {
  use_device();
  std::string why;
  std::optional<ProfilerSession> session = open_session({kMetricDramReadBytes}, why);
  if (!session) GTEST_SKIP() << "counters unavailable: " << why;
  ProfilerSession moved = std::move(*session);
  EXPECT_THROW(session->profile([] {}, [] {}), Error);

  DeviceBuffer<float> src(kSmallCopyFloats);
  DeviceBuffer<float> dst(kSmallCopyFloats);
  CublasHandle cublas;
  const auto copy = [&] {
    copy_floats(cublas.get(), src.get(), dst.get(), kSmallCopyFloats, nullptr);
  };
  copy();
  EXPECT_GE(moved.profile([] {}, copy).size(), 1u);
  EXPECT_GE(moved.profile([] {}, copy).size(), 1u);  // a second call reuses the counter image
}

TEST(MeasureTiming, TimeLaunchesOnTheCopy) {
  const DeviceRecord device = use_device();
  DeviceBuffer<float> src(kCopyFloats);
  DeviceBuffer<float> dst(kCopyFloats);
  RFL_CUDA_CHECK(cudaMemset(src.get(), 0x3f, static_cast<size_t>(kCopyBytes)));
  L2Flusher flusher(device.l2_bytes);
  CublasHandle cublas;
  const auto launch = [&](cudaStream_t stream) {
    copy_floats(cublas.get(), src.get(), dst.get(), kCopyFloats, stream);
  };
  TimingOptions options;
  options.repetitions = 7;
  options.warmup_runs = 2;
  const TimingResult t = time_launches(launch, options, flusher, nullptr);

  ASSERT_EQ(t.samples_s.size(), 7u);
  EXPECT_GT(t.median_s, 0.0);
  EXPECT_LE(t.min_s, t.median_s);
  EXPECT_LE(t.median_s, t.max_s);
  EXPECT_EQ(t.warmup_runs, 2);
  EXPECT_TRUE(t.l2_flushed);
  ASSERT_TRUE(t.sm_clock_hz);
  // 2 GiB of traffic faster than 10 TB/s would mean the events did not bracket the kernel.
  EXPECT_GT(t.median_s, 2.0 * kCopyBytes / 10e12);
  std::printf(
      "copy 1 GiB: median %.4g ms (min %.4g, max %.4g), %.3g TB/s read+write, SM %.4g GHz\n",
      t.median_s * 1e3, t.min_s * 1e3, t.max_s * 1e3, 2.0 * kCopyBytes / t.median_s / 1e12,
      *t.sm_clock_hz / 1e9);

  TimingOptions none;
  none.repetitions = 0;
  EXPECT_THROW(time_launches(launch, none, flusher, nullptr), Error);
}

TEST(MeasureClock, SmClockProbeIsPlausible) {
  const DeviceRecord device = use_device();
  const double hz = measure_sm_clock_hz(nullptr);
  std::printf("SM clock probe: %.4g GHz (device max %.4g GHz)\n", hz / 1e9,
              device.sm_clock_max_hz / 1e9);
  EXPECT_GT(hz, 0.3e9);
  EXPECT_LT(hz, 3.5e9);
  EXPECT_LE(hz, 1.05 * device.sm_clock_max_hz);
}

TEST(MeasureL2Flush, FlushesAndMoves) {
  const DeviceRecord device = use_device();
  EXPECT_THROW(L2Flusher(0), Error);
  L2Flusher flusher(device.l2_bytes);
  EXPECT_GE(flusher.sweep_bytes(), 4 * device.l2_bytes);
  EXPECT_LT(flusher.sweep_bytes(), 4 * device.l2_bytes + 16);
  EXPECT_NE(flusher.policy().find("MiB"), std::string::npos) << flusher.policy();
  flusher.flush(nullptr);
  RFL_CUDA_CHECK(cudaDeviceSynchronize());

  L2Flusher moved(std::move(flusher));
  EXPECT_THROW(flusher.flush(nullptr), Error);
  moved.flush(nullptr);
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
}

// After an L2 flush the profiled launch reads its whole input from DRAM. (On the H200 with CUDA
// 13.0 the range profiler also read the full 8 MiB on a warm repeat, even with one pass, unlike
// the earlier stand-alone reading in cupti-on-h200.md; the warm value is printed, not asserted.)
TEST(MeasureL2Flush, ProfiledReadAfterFlushComesFromDram) {
  const DeviceRecord device = use_device();
  std::string why;
  std::optional<ProfilerSession> session =
      open_session({kMetricDramReadBytes, kMetricDramWriteBytes}, why);
  if (!session) GTEST_SKIP() << "counters unavailable: " << why;
  DeviceBuffer<float> src(kSmallCopyFloats);
  DeviceBuffer<float> dst(kSmallCopyFloats);
  RFL_CUDA_CHECK(cudaMemset(src.get(), 0x3f, static_cast<size_t>(kSmallCopyBytes)));
  L2Flusher flusher(device.l2_bytes);
  CublasHandle cublas;
  const auto copy = [&] {
    copy_floats(cublas.get(), src.get(), dst.get(), kSmallCopyFloats, nullptr);
  };

  const double warm_read = sum_over_ranges(session->profile(copy, copy), kMetricDramReadBytes);
  const double cold_read = sum_over_ranges(session->profile(
                                               [&] {
                                                 copy();
                                                 flusher.flush(nullptr);
                                               },
                                               copy),
                                           kMetricDramReadBytes);
  std::printf("8 MiB copy: DRAM read warm %.4g B, after flush %.4g B\n", warm_read, cold_read);
  EXPECT_GT(cold_read, 0.9 * kSmallCopyBytes);
}

// After a flush, a kernel that only reads (cublasSasum over 1 GiB) reads the whole buffer from
// DRAM. Its DRAM write counter is not 0: on the H200 it read ~30 MB (2.8% of the reads) whatever
// the flush did (a second never-written read buffer, or discard.global.L2 of the memset buffer,
// changed nothing), so the origin is open (noted in docs/perf-notes.md). The bound catches a
// flush that leaves far more behind.
TEST(MeasureL2Flush, ReadOnlyKernelAfterFlushReadsEverythingFromDram) {
  const DeviceRecord device = use_device();
  std::string why;
  std::optional<ProfilerSession> session =
      open_session({kMetricDramReadBytes, kMetricDramWriteBytes}, why);
  if (!session) GTEST_SKIP() << "counters unavailable: " << why;
  DeviceBuffer<float> data(kCopyFloats);
  L2Flusher flusher(device.l2_bytes);
  CublasHandle cublas;
  float sum = 0.0f;
  const auto asum = [&] {
    RFL_CUBLAS_CHECK(cublasSasum(cublas.get(), static_cast<int>(kCopyFloats), data.get(), 1, &sum));
  };
  RFL_CUDA_CHECK(cudaMemset(data.get(), 0, static_cast<size_t>(kCopyBytes)));  // dirty L2
  asum();
  const Ranges ranges = session->profile(
      [&] {
        RFL_CUDA_CHECK(cudaMemset(data.get(), 0, static_cast<size_t>(kCopyBytes)));
        flusher.flush(nullptr);
      },
      asum);
  const double read = sum_over_ranges(ranges, kMetricDramReadBytes);
  const double write = sum_over_ranges(ranges, kMetricDramWriteBytes);
  std::printf("read-only 1 GiB after flush: DRAM read %.6g B, write %.6g B\n", read, write);
  EXPECT_NEAR(read, static_cast<double>(kCopyBytes), 0.01 * kCopyBytes);
  EXPECT_LT(write, 0.05 * kCopyBytes);
}

}  // namespace
}  // namespace rooflinectl
