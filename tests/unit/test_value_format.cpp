// format_time_s: the unit follows the magnitude, so a layer's tiny lower bounds (an RMSNorm row
// at batch 1 moves ~25 KB: ~7 ns at 3.35 TB/s) do not print as "0.0 µs".
#include <gtest/gtest.h>

#include <limits>

#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

TEST(FormatTimeS, PicksTheUnitByMagnitude) {
  EXPECT_EQ(format_time_s(7.3e-9), "7.30 ns");
  EXPECT_EQ(format_time_s(656e-9), "656 ns");
  EXPECT_EQ(format_time_s(1e-6), "1.0 µs");
  EXPECT_EQ(format_time_s(35.8e-6), "35.8 µs");
  EXPECT_EQ(format_time_s(1.45e-3), "1.45 ms");
  EXPECT_EQ(format_time_s(2.31), "2.310 s");
}

TEST(FormatTimeS, ZeroAndMissingValues) {
  EXPECT_EQ(format_time_s(0.0), "0.0 µs");
  EXPECT_EQ(format_time_s(std::numeric_limits<double>::quiet_NaN()), kNoValue);
  EXPECT_EQ(format_time_s(std::numeric_limits<double>::infinity()), kNoValue);
}

TEST(FormatSi, PicksThePrefixByMagnitudeUpToZetta) {
  EXPECT_EQ(format_si(6.18e13, "FLOP/s"), "61.8 TFLOP/s");
  EXPECT_EQ(format_si(1.43e7, "tokens/s"), "14.3 Mtokens/s");
  EXPECT_EQ(format_si(2.5e18, "FLOP"), "2.50 EFLOP");
  EXPECT_EQ(format_si(7.08e21, "FLOP"), "7.08 ZFLOP");  // `layer --analytic` at L = 2^31 - 1
  EXPECT_EQ(format_si(5e24, "FLOP"), "5000 ZFLOP");
  EXPECT_EQ(format_si(0.5, "B"), "0.500 B");
  EXPECT_EQ(format_si(std::numeric_limits<double>::quiet_NaN(), "B"), kNoValue);
}

}  // namespace
}  // namespace rooflinectl
