#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "core/error.hpp"
#include "core/statistics.hpp"
#include "cupti/metrics.hpp"

namespace rooflinectl {
namespace {

using Range = std::map<std::string, double>;

// A range with every collected metric, values loosely shaped like a 1 GiB copy on the H200
// (cupti-on-h200.md), scaled by `scale` so that ranges differ.
Range full_range(double scale, double duration_ns, double sm_clock_hz) {
  Range r;
  for (const auto& name : counter_metric_names()) r[name] = scale;
  r[kMetricDramReadBytes] = 1.07e9 * scale;
  r[kMetricDramWriteBytes] = 1.08e9 * scale;
  r[kMetricDurationNs] = duration_ns;
  r[kMetricSmClockHz] = sm_clock_hz;
  r[kMetricDramClockHz] = 3.2e9;
  r[kMetricDramBytesPeakPerCycle] = 1504.0 * scale;
  r[kMetricFfmaPeakPerCycle] = 16896.0 * scale;
  r[kMetricTensorBf16PeakPerCycle] = 1.081344e6 * scale;
  return r;
}

TEST(CounterMetricNames, ContainsEachNamedMetricOnce) {
  const auto& names = counter_metric_names();
  for (const char* metric : {kMetricDramReadBytes,    kMetricDramWriteBytes,
                             kMetricL2Bytes,          kMetricL2WriteSectors,
                             kMetricDurationNs,       kMetricSmClockHz,
                             kMetricDramClockHz,      kMetricTensorBf16Ops,
                             kMetricTensorFp16Ops,    kMetricFfmaInst,
                             kMetricFaddInst,         kMetricFmulInst,
                             kMetricHfmaInst,         kMetricHaddInst,
                             kMetricHmulInst,         kMetricDramBytesPeakPerCycle,
                             kMetricFfmaPeakPerCycle, kMetricTensorBf16PeakPerCycle,
                             kMetricSmThroughputPct,  kMetricDramThroughputPct,
                             kMetricL2ClockHz,        kMetricL2BytesPeakPerCycle,
                             kMetricTensorTf32Ops,    kMetricTensorFp8Ops,
                             kMetricDfmaInst,         kMetricDaddInst,
                             kMetricDmulInst,         kMetricTensorFp8PeakPerCycle}) {
    EXPECT_EQ(std::count(names.begin(), names.end(), metric), 1) << metric;
  }
  EXPECT_EQ(names.size(), 28u);
}

TEST(CountersFromRanges, UtilizationPercentBecomesFractionWeightedByDuration) {
  Range a = full_range(1.0, 100.0, 1.9e9);
  a[kMetricSmThroughputPct] = 80.0;
  a[kMetricDramThroughputPct] = 20.0;
  Range b = full_range(1.0, 300.0, 1.9e9);
  b[kMetricSmThroughputPct] = 40.0;
  b[kMetricDramThroughputPct] = 60.0;
  const auto c = counters_from_ranges({a, b}, {"a", "b"}, 8, "");
  EXPECT_DOUBLE_EQ(*c.kernels[0].sm_throughput_fraction, 0.80);
  EXPECT_DOUBLE_EQ(*c.kernels[1].dram_throughput_fraction, 0.60);
  // A share of peak does not add up over kernels: (0.8·100 + 0.4·300) / 400 = 0.5.
  EXPECT_DOUBLE_EQ(*c.total.sm_throughput_fraction, 0.5);
  EXPECT_DOUBLE_EQ(*c.total.dram_throughput_fraction, (0.2 * 100 + 0.6 * 300) / 400);
}

TEST(CountersFromRanges, LabelsRangesWithKernelNamesAndConvertsUnits) {
  const auto c = counters_from_ranges({full_range(1.0, 544000.0, 1.98e9)}, {"copy"}, 2, "flushed");
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_FALSE(c.null_reason);
  EXPECT_EQ(c.passes, 2);
  EXPECT_EQ(c.cache_policy, "flushed");
  EXPECT_TRUE(c.note.empty());
  const KernelCounters& k = c.kernels[0];
  EXPECT_EQ(k.name, "copy");
  EXPECT_DOUBLE_EQ(*k.dram_read_bytes, 1.07e9);
  EXPECT_DOUBLE_EQ(*k.dram_write_bytes, 1.08e9);
  EXPECT_DOUBLE_EQ(*k.duration_s, 544e-6);  // gpu__time_duration is in ns
  EXPECT_DOUBLE_EQ(*k.sm_clock_hz, 1.98e9);
  EXPECT_DOUBLE_EQ(*k.dram_clock_hz, 3.2e9);
  EXPECT_DOUBLE_EQ(*k.tensor_bf16_flop, 1.0);
  EXPECT_DOUBLE_EQ(*k.hmul_inst, 1.0);
  EXPECT_EQ(c.total.name, "total");
}

TEST(CountersFromRanges, TotalSumsCountsAndWeightsClocksByDuration) {
  const auto c = counters_from_ranges(
      {full_range(1.0, 100.0, 1.8e9), full_range(2.0, 300.0, 2.0e9), full_range(3.0, 100.0, 1.9e9)},
      {"s", "softmax", "pv"}, 3, "");
  ASSERT_EQ(c.kernels.size(), 3u);
  EXPECT_EQ(c.kernels[1].name, "softmax");
  EXPECT_DOUBLE_EQ(*c.total.dram_read_bytes, 1.07e9 * 6.0);
  EXPECT_DOUBLE_EQ(*c.total.l2_bytes, 6.0);
  EXPECT_DOUBLE_EQ(*c.total.ffma_inst, 6.0);
  EXPECT_DOUBLE_EQ(*c.total.duration_s, 500e-9);
  // (1.8·100 + 2.0·300 + 1.9·100) / 500 GHz
  EXPECT_DOUBLE_EQ(*c.total.sm_clock_hz, (1.8e9 * 100 + 2.0e9 * 300 + 1.9e9 * 100) / 500);
  EXPECT_DOUBLE_EQ(*c.total.dram_clock_hz, 3.2e9);
}

TEST(CountersFromRanges, PeaksComeFromTheFirstRange) {
  const auto c = counters_from_ranges({full_range(1.0, 1.0, 1e9), full_range(5.0, 1.0, 1e9)},
                                      {"a", "b"}, 1, "");
  EXPECT_DOUBLE_EQ(*c.peaks.dram_bytes_per_cycle, 1504.0);
  EXPECT_DOUBLE_EQ(*c.peaks.ffma_inst_per_cycle, 16896.0);
  EXPECT_DOUBLE_EQ(*c.peaks.tensor_bf16_per_cycle, 1.081344e6);
}

TEST(CountersFromRanges, RangeCountMismatchUsesIndexLabelsAndNotesIt) {
  const auto c =
      counters_from_ranges({full_range(1.0, 1.0, 1e9), full_range(1.0, 1.0, 1e9)}, {"gemm"}, 1, "");
  ASSERT_EQ(c.kernels.size(), 2u);
  EXPECT_EQ(c.kernels[0].name, "kernel_0");
  EXPECT_EQ(c.kernels[1].name, "kernel_1");
  EXPECT_NE(c.note.find("2 kernel ranges"), std::string::npos) << c.note;
  EXPECT_NE(c.note.find("gemm"), std::string::npos) << c.note;
  EXPECT_DOUBLE_EQ(*c.total.dram_read_bytes, 2 * 1.07e9);
}

TEST(CountersFromRanges, MissingOrNonFiniteValuesBecomeNullAndPoisonTheTotal) {
  Range nan_read = full_range(1.0, 1.0, 1e9);
  nan_read[kMetricDramReadBytes] = std::numeric_limits<double>::quiet_NaN();
  Range no_l2 = full_range(1.0, 1.0, 1e9);
  no_l2.erase(kMetricL2Bytes);
  no_l2[kMetricFfmaInst] = std::numeric_limits<double>::infinity();
  const auto c = counters_from_ranges({nan_read, no_l2}, {"a", "b"}, 1, "");
  EXPECT_FALSE(c.kernels[0].dram_read_bytes);
  EXPECT_TRUE(c.kernels[0].l2_bytes);
  EXPECT_FALSE(c.kernels[1].l2_bytes);
  EXPECT_FALSE(c.kernels[1].ffma_inst);
  EXPECT_FALSE(c.total.dram_read_bytes);
  EXPECT_FALSE(c.total.l2_bytes);
  EXPECT_FALSE(c.total.ffma_inst);
  EXPECT_TRUE(c.total.dram_write_bytes);
}

TEST(CountersFromRanges, ClockWithoutDurationIsUnknownInTheTotal) {
  Range no_time = full_range(1.0, 1.0, 1e9);
  no_time.erase(kMetricDurationNs);
  const auto c = counters_from_ranges({no_time}, {"a"}, 1, "");
  EXPECT_TRUE(c.kernels[0].sm_clock_hz);
  EXPECT_FALSE(c.total.sm_clock_hz);
  const auto zero = counters_from_ranges({full_range(1.0, 0.0, 1e9)}, {"a"}, 1, "");
  EXPECT_FALSE(zero.total.sm_clock_hz);
}

TEST(CountersFromRanges, NoRangesSetsNullReason) {
  const auto c = counters_from_ranges({}, {"gemm"}, 2, "flushed");
  ASSERT_TRUE(c.null_reason);
  EXPECT_TRUE(c.kernels.empty());
  EXPECT_FALSE(c.total.dram_read_bytes);
  EXPECT_FALSE(c.peaks.dram_bytes_per_cycle);
  EXPECT_EQ(c.passes, 2);
}

// median() summarizes the timed samples that sit beside these counters in a point; it is pure and
// has no other unit-test file.
TEST(Median, OddCountTakesTheMiddleValue) {
  EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median({7.5}), 7.5);
}

TEST(Median, EvenCountAveragesTheTwoMiddleValues) {
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_DOUBLE_EQ(median({1.0, 1.0, 5.0, 9.0}), 3.0);
}

TEST(Median, EmptyInputIsBadInput) {
  try {
    median({});
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
  }
}

}  // namespace
}  // namespace rooflinectl
