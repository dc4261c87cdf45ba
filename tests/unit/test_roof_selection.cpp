// Roof sources: the datasheet, counter-derived and measured PeakSets, ridge points,
// and which roof `sweep --roof` gives a point.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "device/gpu_spec.hpp"
#include "h200_counter_peaks.hpp"
#include "peaks/peak_sources.hpp"
#include "peaks/roof_selection.hpp"
#include "result/peak_set.hpp"

namespace rooflinectl {
namespace {

// A datasheet entry with the figures each test passes in, built by hand so these tests do not
// depend on the builtin table's contents.
GpuSpec hand_spec(double hbm, double bf16, double fp16, double fp32) {
  GpuSpec s;
  s.id = "test-gpu";
  s.name = "Test GPU";
  s.device_names = {"NVIDIA Test"};
  s.cc_major = 9;
  s.cc_minor = 0;
  s.sm_count = 132;
  s.hbm_bytes_per_s = {hbm, "test datasheet r1"};
  s.dense_tensor_flop_per_s["bf16"] = {bf16, "test datasheet r1, bf16 dense"};
  if (fp16 > 0) s.dense_tensor_flop_per_s["fp16"] = {fp16, "test datasheet r1, fp16 dense"};
  s.fp32_flop_per_s = {fp32, "test datasheet r1, fp32"};
  return s;
}

PeakBenchmarkRecord bench(const char* name, CeilingKind kind, std::optional<double> rate) {
  PeakBenchmarkRecord b;
  b.name = name;
  b.label = name;
  b.kind = kind;
  b.rate = rate;
  b.repetitions = 20;
  if (!rate) b.null_reason = "not supported here";
  return b;
}

PeakSet h200_measured() {
  return measured_peak_set({bench("dram_copy", CeilingKind::kDram, 4.2e12),
                            bench("dram_read", CeilingKind::kDram, 4.4e12),
                            bench("dram_write", CeilingKind::kDram, 4.0e12),
                            bench("fp32_ffma", CeilingKind::kFp32, 60e12),
                            bench("tensor_bf16_mma_sync", CeilingKind::kTensorBf16, 600e12),
                            bench("tensor_bf16_wgmma", CeilingKind::kTensorBf16, 900e12),
                            bench("tensor_fp16_wgmma", CeilingKind::kTensorFp16, std::nullopt)},
                           "test run");
}

TEST(RoofSelection, DefaultIsMeasuredWhenCachedElseDatasheetElseCounters) {
  EXPECT_EQ(resolve_roof_source(std::nullopt, true, "", true, true).source, RoofSource::kMeasured);
  const RoofPlan datasheet = resolve_roof_source(std::nullopt, false, "no entry", true, true);
  EXPECT_EQ(datasheet.source, RoofSource::kDatasheet);
  EXPECT_TRUE(datasheet.note.empty());
  const RoofPlan counters = resolve_roof_source(std::nullopt, false, "no entry", false, true);
  EXPECT_EQ(counters.source, RoofSource::kCounters);
  EXPECT_NE(counters.note.find("not in the datasheet table"), std::string::npos) << counters.note;
}

TEST(RoofSelection, UnknownGpuFallsBackFromDatasheetToCountersWithANote) {
  const RoofPlan plan = resolve_roof_source(RoofSource::kDatasheet, true, "", false, true);
  EXPECT_EQ(plan.source, RoofSource::kCounters);
  EXPECT_NE(plan.note.find("counter-derived"), std::string::npos) << plan.note;
  EXPECT_EQ(resolve_roof_source(RoofSource::kDatasheet, true, "", true, true).source,
            RoofSource::kDatasheet);
}

TEST(RoofSelection, MeasuredWithoutCacheIsAnEnvironmentErrorNamingTheFix) {
  try {
    resolve_roof_source(RoofSource::kMeasured, false, "no cache entry /c/peaks-x.json", true, true);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kEnvironment);
    EXPECT_NE(std::string(e.what()).find("rooflinectl peaks"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/c/peaks-x.json"), std::string::npos) << e.what();
  }
  EXPECT_EQ(resolve_roof_source(RoofSource::kMeasured, true, "", false, false).source,
            RoofSource::kMeasured);
}

TEST(RoofSelection, CountersWithNoCountersIsBadInput) {
  try {
    resolve_roof_source(RoofSource::kCounters, true, "", true, false);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
  }
  EXPECT_EQ(resolve_roof_source(RoofSource::kCounters, true, "", true, true).source,
            RoofSource::kCounters);
}

TEST(RoofSelection, ParsesTheThreeSourceNames) {
  for (const RoofSource s :
       {RoofSource::kDatasheet, RoofSource::kCounters, RoofSource::kMeasured}) {
    EXPECT_EQ(parse_roof_source(to_string(s)), s);
  }
  EXPECT_THROW(parse_roof_source("theoretical"), Error);
}

TEST(RoofSelection, PipeAndDtypePickTheComputeCeiling) {
  EXPECT_EQ(compute_ceiling_kind(Pipe::kFp32, Dtype::kBf16), CeilingKind::kFp32);
  EXPECT_EQ(compute_ceiling_kind(Pipe::kTensor, Dtype::kBf16), CeilingKind::kTensorBf16);
  EXPECT_EQ(compute_ceiling_kind(Pipe::kTensor, Dtype::kFp16), CeilingKind::kTensorFp16);
}

TEST(MeasuredPeaks, EachKindTakesItsFastestBenchmark) {
  const PeakSet set = h200_measured();
  EXPECT_FALSE(set.null_reason);
  EXPECT_DOUBLE_EQ(*set.dram.value, 4.4e12);  // read-only beat the copy
  EXPECT_NE(set.dram.source.find("dram_read (best of 3 DRAM benchmarks"), std::string::npos)
      << set.dram.source;
  EXPECT_DOUBLE_EQ(*set.tensor_bf16.value, 900e12);
  EXPECT_FALSE(set.tensor_fp16.value);  // its only benchmark did not run
  EXPECT_FALSE(set.l2.value);
  EXPECT_TRUE(measured_peak_set({}, "none").null_reason);
}

TEST(MeasuredPeaks, DramRoofIsTheBestDramCeilingWhicheverBenchmarkReachedIt) {
  // H200 figures: our copy kernel 3.94 TB/s, the driver's cudaMemcpyAsync copy 4.2 TB/s.
  const PeakSet set =
      measured_peak_set({bench("dram_copy", CeilingKind::kDram, 3.94e12),
                         bench("DRAM copy (cudaMemcpyAsync D2D)", CeilingKind::kDram, 4.2e12),
                         bench("dram_read", CeilingKind::kDram, 3.9e12),
                         bench("dram_write", CeilingKind::kDram, 3.96e12),
                         bench("tensor_bf16_wgmma", CeilingKind::kTensorBf16, 969e12)},
                        "test run");
  EXPECT_DOUBLE_EQ(*set.dram.value, 4.2e12);
  EXPECT_NE(set.dram.source.find("cudaMemcpyAsync D2D) (best of 4 DRAM benchmarks"),
            std::string::npos)
      << set.dram.source;
  std::string reason;
  const auto roof = roof_from_peak_set(set, Pipe::kTensor, Dtype::kBf16, reason);
  ASSERT_TRUE(roof) << reason;
  EXPECT_DOUBLE_EQ(roof->peak_bytes_per_s, 4.2e12);
  EXPECT_NE(roof->source.find("cudaMemcpyAsync"), std::string::npos) << roof->source;
}

TEST(MeasuredPeaks, RoofNamesTheSourceAndUsesTheDtypeCeiling) {
  const PeakSet set = h200_measured();
  std::string reason;
  const auto roof = roof_from_peak_set(set, Pipe::kTensor, Dtype::kBf16, reason);
  ASSERT_TRUE(roof) << reason;
  EXPECT_EQ(roof->source_kind, RoofSource::kMeasured);
  EXPECT_EQ(roof->source.rfind("measured: ", 0), 0u) << roof->source;
  EXPECT_DOUBLE_EQ(roof->peak_flop_per_s, 900e12);
  EXPECT_DOUBLE_EQ(roof->peak_bytes_per_s, 4.4e12);
  // fp16 has no measured ceiling: null with a reason, never a borrowed bf16 value.
  EXPECT_FALSE(roof_from_peak_set(set, Pipe::kTensor, Dtype::kFp16, reason));
  EXPECT_NE(reason.find("tensor fp16"), std::string::npos) << reason;
  const auto fp32 = roof_from_peak_set(set, Pipe::kFp32, Dtype::kFp16, reason);
  ASSERT_TRUE(fp32);
  EXPECT_DOUBLE_EQ(fp32->peak_flop_per_s, 60e12);
}

TEST(DatasheetPeaks, UnknownGpuIsNullWithTheDeviceNamed) {
  const PeakSet set = datasheet_peak_set(nullptr, "NVIDIA Mystery", 12, 0, 170);
  ASSERT_TRUE(set.null_reason);
  EXPECT_NE(set.null_reason->find("NVIDIA Mystery"), std::string::npos);
  EXPECT_NE(set.null_reason->find("12.0"), std::string::npos);
  EXPECT_FALSE(set.dram.value);
  std::string reason;
  EXPECT_FALSE(roof_from_peak_set(set, Pipe::kTensor, Dtype::kBf16, reason));
  EXPECT_NE(reason.find("NVIDIA Mystery"), std::string::npos) << reason;
}

TEST(DatasheetPeaks, CeilingsCarryTheSpecSources) {
  const GpuSpec spec = hand_spec(4.8e12, 989.5e12, 0, 67e12);
  const PeakSet set = datasheet_peak_set(&spec, "NVIDIA Test", 9, 0, 132);
  EXPECT_FALSE(set.null_reason);
  EXPECT_DOUBLE_EQ(*set.dram.value, 4.8e12);
  EXPECT_DOUBLE_EQ(*set.tensor_bf16.value, 989.5e12);
  EXPECT_NE(set.tensor_bf16.source.find("bf16 dense"), std::string::npos);
  EXPECT_FALSE(set.tensor_fp16.value);  // not in this spec
  EXPECT_FALSE(set.l2.value);           // datasheets give none
  std::string reason;
  const auto roof = roof_from_peak_set(set, Pipe::kTensor, Dtype::kBf16, reason);
  ASSERT_TRUE(roof);
  EXPECT_EQ(roof->source_kind, RoofSource::kDatasheet);
  EXPECT_EQ(roof->source.rfind("datasheet: ", 0), 0u) << roof->source;
}

TEST(DatasheetPeaks, RidgePointsMatchTheTextbookValues) {
  // H100 SXM: 989.5 TFLOP/s over 3.35 TB/s = 295; A100 80 GB SXM: 312 over 2.039 = 153.
  const GpuSpec h100 = hand_spec(3.35e12, 989.5e12, 989.5e12, 67e12);
  const GpuSpec a100 = hand_spec(2.039e12, 312e12, 312e12, 19.5e12);
  EXPECT_NEAR(
      *ridge_flop_per_byte(datasheet_peak_set(&h100, "", 9, 0, 132), CeilingKind::kTensorBf16),
      295.4, 0.1);
  EXPECT_NEAR(
      *ridge_flop_per_byte(datasheet_peak_set(&a100, "", 8, 0, 108), CeilingKind::kTensorFp16),
      153.0, 0.1);
  EXPECT_NEAR(*ridge_flop_per_byte(datasheet_peak_set(&a100, "", 8, 0, 108), CeilingKind::kFp32),
              9.56, 0.01);
  EXPECT_FALSE(ridge_flop_per_byte(datasheet_peak_set(&a100, "", 8, 0, 108), CeilingKind::kDram));
  EXPECT_FALSE(ridge_flop_per_byte(datasheet_peak_set(nullptr, "", 8, 0, 108), CeilingKind::kFp32));
}

TEST(CounterPeaks, H200PerCyclePeaksGiveTheDatasheetScale) {
  // Per-cycle peaks (`<metric>.peak_sustained`) as CUPTI reported them on the H200.
  CounterPeakInputs in;
  in.dram_bytes_per_cycle = 1504.0;
  in.ffma_inst_per_cycle = 16896.0;
  in.tensor_bf16_per_cycle = 1.081344e6;
  in.tensor_fp16_per_cycle = 1.081344e6;
  in.sm_clock_hz = 1.98e9;
  in.dram_clock_hz = 3.199e9;
  EXPECT_FALSE(counter_peak_set(in, 9, 0, "test").tensor_fp8.value);  // not collected
  in.tensor_fp8_per_cycle = 2.162688e6;  // twice bf16's, as the datasheets have it
  const PeakSet set = counter_peak_set(in, 9, 0, "test");
  EXPECT_NEAR(*set.dram.value, 4.811e12, 0.001e12);
  EXPECT_NEAR(*set.fp32.value, 66.9e12, 0.05e12);
  EXPECT_NEAR(*set.tensor_bf16.value, 132.0 * 4096.0 * 1.98e9, 1e9);  // halved: sparse counter
  EXPECT_NEAR(*set.tensor_fp16.value, 132.0 * 4096.0 * 1.98e9, 1e9);
  EXPECT_NE(set.tensor_fp16.source.find("/ 2 (counter reads the 2:4-sparse rate on sm_90)"),
            std::string::npos)
      << set.tensor_fp16.source;
  EXPECT_NEAR(*set.tensor_fp8.value, 2.0 * 132.0 * 4096.0 * 1.98e9, 1e9);  // halved, as bf16
  EXPECT_NE(set.tensor_fp8.source.find("/ 2 (counter reads the 2:4-sparse rate on sm_90)"),
            std::string::npos)
      << set.tensor_fp8.source;
  EXPECT_NEAR(*ridge_flop_per_byte(set, CeilingKind::kTensorFp8) /
                  *ridge_flop_per_byte(set, CeilingKind::kTensorBf16),
              2.0, 1e-9);
  EXPECT_FALSE(set.l2.value);  // L2 peak and clock not given
  EXPECT_EQ(set.dram.source.rfind("counters: ", 0), 0u) << set.dram.source;
  // Not halved where the sparse finding has not been verified.
  EXPECT_NEAR(*counter_peak_set(in, 8, 0, "test").tensor_bf16.value, 1.081344e6 * 1.98e9, 1e9);
}

TEST(CounterPeaks, PointRoofUnderCountersUsesThePointsOwnCounters) {
  CounterResult c = h200_point_counters();
  c.total.sm_clock_hz = 1.5e9;
  PeaksBlock block;
  block.measured = h200_measured();
  std::string reason;
  const auto roof =
      select_point_roof(RoofSource::kCounters, Pipe::kTensor, Dtype::kBf16, block, c, 9, 0, reason);
  ASSERT_TRUE(roof) << reason;
  EXPECT_EQ(roof->source_kind, RoofSource::kCounters);
  EXPECT_NEAR(roof->peak_flop_per_s, 132.0 * 4096.0 * 1.5e9, 1e9);  // this point's clock
  const auto measured =
      select_point_roof(RoofSource::kMeasured, Pipe::kTensor, Dtype::kBf16, block, c, 9, 0, reason);
  ASSERT_TRUE(measured);
  EXPECT_DOUBLE_EQ(measured->peak_flop_per_s, 900e12);
  // The datasheet set of this block was never filled: null with a reason, not a zero roof.
  block.datasheet = unavailable_peak_set(RoofSource::kDatasheet, "not in table");
  EXPECT_FALSE(select_point_roof(RoofSource::kDatasheet, Pipe::kTensor, Dtype::kBf16, block, c, 9,
                                 0, reason));
  EXPECT_NE(reason.find("not in table"), std::string::npos);
}

}  // namespace
}  // namespace rooflinectl
