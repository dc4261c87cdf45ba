// The sweep's phase-time line (src/core/phase_times.hpp): sums per phase, order, shares and the
// wall time no phase covers.
#include <gtest/gtest.h>

#include "core/phase_times.hpp"

namespace rooflinectl {
namespace {

TEST(PhaseTimes, SumsPerPhaseInFirstAddedOrder) {
  PhaseTimes times;
  times.add("validate", 1.0);
  times.add("time", 2.0);
  times.add("validate", 0.5);
  ASSERT_EQ(times.phases().size(), 2u);
  EXPECT_EQ(times.phases()[0].first, "validate");
  EXPECT_DOUBLE_EQ(times.phases()[0].second, 1.5);
  EXPECT_EQ(times.phases()[1].first, "time");
  EXPECT_DOUBLE_EQ(times.total_s(), 3.5);
}

TEST(PhaseTimes, LineShowsSharesAndTheUncoveredRest) {
  PhaseTimes times;
  times.add("setup", 1.0);
  times.add("replay pass", 3.0);
  EXPECT_EQ(phase_times_line(times, 5.0),
            "sweep time 5.00 s: setup 1.00 s (20%), replay pass 3.00 s (60%), other 1.00 s (20%)");
}

TEST(PhaseTimes, NoOtherWhenThePhasesCoverTheWallTime) {
  PhaseTimes times;
  times.add("time", 2.0);
  EXPECT_EQ(phase_times_line(times, 2.001), "sweep time 2.00 s: time 2.00 s (100%)");
}

TEST(PhaseTimes, ZeroWallTimePrintsNoShares) {
  PhaseTimes times;
  times.add("time", 0.0);
  EXPECT_EQ(phase_times_line(times, 0.0), "sweep time 0.00 s: time 0.00 s");
}

}  // namespace
}  // namespace rooflinectl
