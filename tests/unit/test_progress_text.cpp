// Progress lines of a sweep (src/core/progress_text.hpp): durations, the estimate of the time
// left and the text of the start and done lines.
#include <gtest/gtest.h>

#include <cmath>

#include "core/progress_text.hpp"

namespace rooflinectl {
namespace {

TEST(ProgressText, DurationsForPeople) {
  EXPECT_EQ(format_duration(0.4213), "0.42 s");
  EXPECT_EQ(format_duration(9.994), "9.99 s");
  EXPECT_EQ(format_duration(12.34), "12.3 s");
  EXPECT_EQ(format_duration(59.97), "1 min 00 s");
  EXPECT_EQ(format_duration(245.4), "4 min 05 s");
  EXPECT_EQ(format_duration(3599.4), "59 min 59 s");
  EXPECT_EQ(format_duration(3720), "1 h 02 min");
  EXPECT_EQ(format_duration(-1), "0.00 s");
  EXPECT_EQ(format_duration(std::nan("")), "0.00 s");
}

TEST(ProgressText, TimeLeftIsTheMeanPointTimesThePointsLeft) {
  EXPECT_FALSE(estimate_seconds_left(0, 0, 42).has_value());
  EXPECT_DOUBLE_EQ(*estimate_seconds_left(6.0, 3, 39), 78.0);
  EXPECT_DOUBLE_EQ(*estimate_seconds_left(6.0, 3, 0), 0.0);
}

TEST(ProgressText, StartLineShowsTheLastPointAndTimeLeftOnceKnown) {
  EXPECT_EQ(point_start_line(1, 42, "naive_attention L=512", std::nullopt, std::nullopt),
            "[1/42] naive_attention L=512 ...");
  EXPECT_EQ(point_start_line(3, 42, "naive_attention L=2048", 1.5, 60.0),
            "[3/42] naive_attention L=2048 ... (last 1.50 s, about 1 min 00 s left)");
}

TEST(ProgressText, DoneLineShowsThePointTimeAndTimeLeft) {
  EXPECT_EQ(point_done_line(3, 42, "gemm L=4096", 1.234, 45.0),
            "[3/42] gemm L=4096: 1.23 s, about 45.0 s left");
  EXPECT_EQ(point_done_line(42, 42, "gemm L=4096", 0.5, 0.0), "[42/42] gemm L=4096: 0.50 s, done");
}

}  // namespace
}  // namespace rooflinectl
