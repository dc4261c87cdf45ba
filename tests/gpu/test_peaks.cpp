// GPU checks of `rooflinectl peaks`' microbenchmarks against the datasheet: the
// measured copy bandwidth is 60–100% of the datasheet HBM figure and the measured bf16 tensor
// rate 50–100% of the dense datasheet rate; with counters, each benchmark's written FLOP/byte
// accounting matches what the counters saw.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "cupti/profiler_session.hpp"
#include "device/device_info.hpp"
#include "device/gpu_spec.hpp"
#include "gpu/cuda_check.hpp"
#include "peaks/bench/peak_benchmarks.hpp"
#include "peaks/bench/peak_plan.hpp"
#include "peaks/peak_sources.hpp"
#include "peaks/peaks_key.hpp"
#include "result/peak_set.hpp"

namespace rooflinectl {
namespace {

constexpr int kDevice = 0;

struct Measured {
  DeviceRecord device;
  PeakRunResult run;
  bool counters = false;
  std::string counters_reason;
};

/// Runs the benchmarks once for the whole file (they take a few seconds), with a counter session
/// when CUPTI allows one.
const Measured& measured() {
  static const Measured m = [] {
    Measured out;
    RFL_CUDA_CHECK(cudaSetDevice(kDevice));
    RFL_CUDA_CHECK(cudaFree(nullptr));
    out.device = query_device(kDevice);
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    RFL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    int threads_per_sm = 0;
    RFL_CUDA_CHECK(
        cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, kDevice));
    const PeakBenchmarkPlan plan = plan_peak_benchmarks(
        out.device.sm_count, threads_per_sm, out.device.l2_bytes, static_cast<int64_t>(free_bytes));
    std::unique_ptr<ProfilerSession> session;
    try {
      session = std::make_unique<ProfilerSession>(kDevice, peak_counter_metric_names());
      out.counters = true;
    } catch (const Error& e) {
      // The full list has three metric forms not yet read on a GPU: an unknown name there is a
      // finding to report (then the verified list is tried); no permission is the environment.
      if (std::string(e.what()).find("not available on") != std::string::npos) {
        ADD_FAILURE() << "full peak metric list refused: " << e.what();
      }
      try {
        session = std::make_unique<ProfilerSession>(kDevice, peak_counter_verified_metric_names());
        out.counters = true;
      } catch (const Error& e2) {
        out.counters_reason = e2.what();
      }
    }
    out.run = run_peak_benchmarks(plan, out.device.cc_major, out.device.cc_minor, session.get(),
                                  std::cerr);
    for (const auto& b : out.run.benchmarks) {
      std::printf(
          "%-26s %12.5g %s  counted/work %s  %s\n", b.label.c_str(), b.rate.value_or(0),
          is_bandwidth(b.kind) ? "B/s" : "FLOP/s",
          b.counted_work ? std::to_string(*b.counted_work / b.work_per_launch).c_str() : "-",
          b.null_reason.c_str());
    }
    return out;
  }();
  return m;
}

const PeakBenchmarkRecord& find(const std::string& name) {
  for (const auto& b : measured().run.benchmarks) {
    if (b.name == name) return b;
  }
  throw std::runtime_error("no benchmark " + name);
}

/// The datasheet set of this GPU, or nullptr when the table does not know it.
const GpuSpec* spec() {
  const DeviceRecord& d = measured().device;
  return match_gpu_spec(d.name, d.cc_major, d.cc_minor, d.sm_count);
}

TEST(Peaks, EveryBenchmarkRunsWhereItIsSupported) {
  const auto& m = measured();
  EXPECT_EQ(m.run.failed, 0);
  const bool hopper = m.device.cc_major == 9 && m.device.cc_minor == 0;
  for (const auto& b : m.run.benchmarks) {
    const bool wgmma = b.name.find("wgmma") != std::string::npos;
    if (wgmma && !hopper) {
      EXPECT_FALSE(b.rate) << b.name;
      continue;
    }
    ASSERT_TRUE(b.rate) << b.name << ": " << b.null_reason;
    EXPECT_GT(*b.rate, 0.0) << b.name;
    ASSERT_TRUE(b.median_time_s);
    // Long enough for CUDA-event timing (~0.5 µs resolution, 10–30 µs jitter).
    EXPECT_GT(*b.median_time_s, 100e-6) << b.name;
  }
}

TEST(Peaks, CopyBandwidthIsSixtyToHundredPercentOfTheDatasheet) {
  const GpuSpec* s = spec();
  if (s == nullptr) GTEST_SKIP() << measured().device.name << " is not in the datasheet table";
  const PeakBenchmarkRecord& copy = find("dram_copy");
  ASSERT_TRUE(copy.rate) << copy.null_reason;
  const double ratio = *copy.rate / s->hbm_bytes_per_s.value;
  std::printf("copy %.4g TB/s / datasheet %.4g TB/s = %.1f%%\n", *copy.rate / 1e12,
              s->hbm_bytes_per_s.value / 1e12, ratio * 100);
  EXPECT_GE(ratio, 0.60);
  EXPECT_LE(ratio, 1.00);
  // The driver's copy of the same buffers: also a DRAM ceiling, also below the datasheet, and the
  // measured DRAM roof is the best of them all.
  const PeakBenchmarkRecord& driver_copy = find("dram_copy_memcpy");
  ASSERT_TRUE(driver_copy.rate) << driver_copy.null_reason;
  const double driver_ratio = *driver_copy.rate / s->hbm_bytes_per_s.value;
  const PeakSet set = measured_peak_set(measured().run.benchmarks, "test");
  ASSERT_TRUE(set.dram.value) << set.dram.source;
  std::printf("cudaMemcpyAsync copy %.4g TB/s = %.1f%% of datasheet; DRAM roof %.4g TB/s (%s)\n",
              *driver_copy.rate / 1e12, driver_ratio * 100, *set.dram.value / 1e12,
              set.dram.source.c_str());
  EXPECT_GE(driver_ratio, 0.60);
  EXPECT_LE(driver_ratio, 1.00);
  EXPECT_GE(*set.dram.value, std::max(*copy.rate, *driver_copy.rate));
}

// Datasheet tensor rates are quoted at a boost clock below the highest SM clock: H100 SXM's
// 989.4 TFLOP/s is 132 SMs x 4096 dense bf16 FLOP/clock x 1.83 GHz (H100 whitepaper), while the
// device runs up to 1.98 GHz, so a cool GPU measures up to 1.98 / 1.83 = 1.082x the datasheet
// (a run on an H100 failed the earlier 100% bound once; its value was not kept, three reruns
// read 99.6%). The bound leaves room for the clock ratio, not more.
TEST(Peaks, Bf16TensorRateIsFiftyToHundredTenPercentOfTheDenseDatasheet) {
  const GpuSpec* s = spec();
  if (s == nullptr) GTEST_SKIP() << measured().device.name << " is not in the datasheet table";
  const auto it = s->dense_tensor_flop_per_s.find("bf16");
  if (it == s->dense_tensor_flop_per_s.end()) GTEST_SKIP() << "no bf16 figure for " << s->name;
  const PeakSet set = measured_peak_set(measured().run.benchmarks, "test");
  ASSERT_TRUE(set.tensor_bf16.value) << set.tensor_bf16.source;
  const double ratio = *set.tensor_bf16.value / it->second.value;
  std::printf("bf16 tensor %.4g TFLOP/s (%s) / datasheet %.4g = %.1f%%\n",
              *set.tensor_bf16.value / 1e12, set.tensor_bf16.source.c_str(),
              it->second.value / 1e12, ratio * 100);
  EXPECT_GE(ratio, 0.50);
  EXPECT_LE(ratio, 1.10);
}

TEST(Peaks, CountersConfirmTheWrittenAccounting) {
  const auto& m = measured();
  if (!m.counters) GTEST_SKIP() << "counters unavailable: " << m.counters_reason;
  // Instruction and tensor-op counts are exact up to the few FFMAs outside the timed loop; DRAM
  // bytes within 5% (dirty lines still in L2 when the range ends are written back later; the
  // H200 reference copy read +0.003%, wrote +0.09%, cupti-on-h200.md). The write-only and L2
  // benchmarks are not checked: their counters depend on the L2 state in ways the accounting
  // does not model.
  const struct {
    const char* name;
    double tolerance;
  } checks[] = {{"dram_copy", 0.05},
                {"dram_read", 0.05},
                {"fp32_ffma", 0.001},
                {"tensor_bf16_mma_sync", 0.001},
                {"tensor_fp16_mma_sync", 0.001},
                {"tensor_bf16_wgmma", 0.001},
                {"tensor_fp16_wgmma", 0.001},
                // Fails until kTensorFp8FlopPerMetricUnit (result/counter_fields.hpp) matches the
                // fp8 counter's FLOPs-or-ops convention: this check is what verifies it.
                {"tensor_fp8_wgmma", 0.001}};
  for (const auto& check : checks) {
    const PeakBenchmarkRecord& b = find(check.name);
    if (!b.rate) continue;  // not supported here (wgmma off Hopper)
    ASSERT_TRUE(b.counted_work) << check.name << ": " << b.counted_metric;
    EXPECT_NEAR(*b.counted_work / b.work_per_launch, 1.0, check.tolerance) << check.name;
  }
  ASSERT_TRUE(m.run.counter_peaks);
  const PeakSet counters =
      counter_peak_set(*m.run.counter_peaks, m.device.cc_major, m.device.cc_minor, "test");
  const PeakSet measured_set = measured_peak_set(m.run.benchmarks, "test");
  // A measured ceiling above the chip's own per-cycle peak at its highest clock would mean an
  // accounting bug in the benchmark.
  for (const CeilingKind kind :
       {CeilingKind::kDram, CeilingKind::kFp32, CeilingKind::kTensorBf16}) {
    ASSERT_TRUE(counters.get(kind).value) << ceiling_label(kind) << counters.get(kind).source;
    ASSERT_TRUE(measured_set.get(kind).value) << ceiling_label(kind);
    // 3%: the timed pass and the counter pass may run at slightly different clocks.
    EXPECT_LE(*measured_set.get(kind).value, *counters.get(kind).value * 1.03)
        << ceiling_label(kind);
  }
  // The fp16 and fp8 per-cycle peaks are halved on 9.0 as the bf16 one is: they read the
  // 2:4-sparse rate (peak_sources.cpp). The best tensor benchmark of each type checks its ceiling
  // from both sides: above it, the counter read the dense rate and must not be halved; under 60%
  // of it, a halving is missing (on 9.0, or on an architecture not yet checked).
  for (const CeilingKind kind : {CeilingKind::kTensorFp16, CeilingKind::kTensorFp8}) {
    if (!measured_set.get(kind).value) continue;  // no benchmark of this type ran here
    const Ceiling& ceiling = counters.get(kind);
    ASSERT_TRUE(ceiling.value) << ceiling_label(kind) << ": " << ceiling.source;
    const double ratio = *measured_set.get(kind).value / *ceiling.value;
    std::printf("%s: benchmark %.4g TFLOP/s, counter ceiling %.4g TFLOP/s (%s): %.3f\n",
                ceiling_label(kind).c_str(), *measured_set.get(kind).value / 1e12,
                *ceiling.value / 1e12, ceiling.source.c_str(), ratio);
    EXPECT_LE(ratio, 1.03) << ceiling_label(kind);
    EXPECT_GE(ratio, 0.6) << ceiling_label(kind);
  }
}

TEST(Peaks, CacheKeyNamesThisGpu) {
  const PeaksKey key = query_peaks_key(kDevice);
  EXPECT_EQ(key.gpu_uuid.rfind("GPU-", 0), 0u) << key.gpu_uuid;
  EXPECT_EQ(key.gpu_uuid.size(), 40u) << key.gpu_uuid;
  EXPECT_FALSE(key.driver.empty());
  EXPECT_GT(key.sm_clock_max_hz, 0.3e9);
  std::printf("cache key: %s, driver %s, %.0f MHz\n", key.gpu_uuid.c_str(), key.driver.c_str(),
              key.sm_clock_max_hz / 1e6);
}

}  // namespace
}  // namespace rooflinectl
