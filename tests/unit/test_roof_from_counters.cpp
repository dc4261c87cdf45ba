#include <gtest/gtest.h>

#include "h200_counter_peaks.hpp"
#include "peaks/roof_from_counters.hpp"

namespace rooflinectl {
namespace {

TEST(RoofFromCounters, DramBandwidthIsBytesPerCycleTimesClock) {
  std::string reason;
  const auto roof = roof_from_counters(h200_point_counters(), Pipe::kFp32, false, 9, 0, reason);
  ASSERT_TRUE(roof);
  EXPECT_NEAR(roof->peak_bytes_per_s, 4.811e12, 0.001e12);
}

TEST(RoofFromCounters, Fp32PeakCountsFmaAsTwoFlop) {
  std::string reason;
  const auto roof = roof_from_counters(h200_point_counters(), Pipe::kFp32, false, 9, 0, reason);
  ASSERT_TRUE(roof);
  EXPECT_NEAR(roof->peak_flop_per_s, 66.9e12, 0.05e12);
}

TEST(RoofFromCounters, TensorPeakIsHalvedOnSm90) {
  std::string reason;
  const auto roof = roof_from_counters(h200_point_counters(), Pipe::kTensor, false, 9, 0, reason);
  ASSERT_TRUE(roof);
  // 132 SMs × 4096 dense FLOP/cycle × 1.98 GHz = 1070.5 TFLOP/s at this clock.
  EXPECT_NEAR(roof->peak_flop_per_s, 132.0 * 4096.0 * 1.98e9, 1e9);
  EXPECT_NE(roof->source.find("sparse"), std::string::npos);
  const auto other = roof_from_counters(h200_point_counters(), Pipe::kTensor, false, 8, 0, reason);
  ASSERT_TRUE(other);
  EXPECT_NEAR(other->peak_flop_per_s, 1.081344e6 * 1.98e9, 1e9);
}

TEST(RoofFromCounters, Fp8InputsTakeTheFp8PipesPeakHalvedOnSm90) {
  std::string reason;
  CounterResult c = h200_point_counters();
  // A sweep without FP8 GEMM points never reads the fp8 peak: no roof, and why.
  EXPECT_FALSE(roof_from_counters(c, Pipe::kTensor, true, 9, 0, reason));
  EXPECT_EQ(reason, "tensor fp8 peak not measured");
  // Read on the H100 (rooflinectl peaks): twice bf16's per-cycle value.
  c.peaks.tensor_fp8_per_cycle = 2.162688e6;
  const auto roof = roof_from_counters(c, Pipe::kTensor, true, 9, 0, reason);
  ASSERT_TRUE(roof);
  EXPECT_NEAR(roof->peak_flop_per_s, 2.0 * 132.0 * 4096.0 * 1.98e9, 1e9);
  EXPECT_NE(roof->source.find("tensor fp8 2.163e+06 FLOP/cycle / 2"), std::string::npos)
      << roof->source;
  // The fp32 pipe ignores the inputs' type.
  const auto fp32 = roof_from_counters(c, Pipe::kFp32, true, 9, 0, reason);
  ASSERT_TRUE(fp32);
  EXPECT_NEAR(fp32->peak_flop_per_s, 66.9e12, 0.05e12);
}

TEST(RoofFromCounters, MissingValuesGiveReasonNotZero) {
  std::string reason;
  CounterResult none;
  none.null_reason = "counters disabled (--no-counters)";
  EXPECT_FALSE(roof_from_counters(none, Pipe::kTensor, false, 9, 0, reason));
  EXPECT_NE(reason.find("--no-counters"), std::string::npos);

  CounterResult no_clock = h200_point_counters();
  no_clock.total.sm_clock_hz.reset();
  EXPECT_FALSE(roof_from_counters(no_clock, Pipe::kTensor, false, 9, 0, reason));
  EXPECT_NE(reason.find("SM clock"), std::string::npos);
}

}  // namespace
}  // namespace rooflinectl
