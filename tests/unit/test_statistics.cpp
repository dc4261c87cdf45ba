// Mann-Whitney U test against values computed by hand (rank sums, counts of arrangements, and the
// normal approximation with its tie correction written out in the comments).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "compare/significance.hpp"
#include "core/error.hpp"

namespace rooflinectl {
namespace {

TEST(MannWhitney, CompletelySeparatedThreeAndThreeIsExactPointOne) {
  // U_x = 0 (no x above any y). C(6,3) = 20 arrangements, one with U = 0: p = 2 · 1/20.
  const MannWhitneyResult r = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_first, 0.0);
  EXPECT_DOUBLE_EQ(r.p_value, 0.1);
}

TEST(MannWhitney, CompletelySeparatedFiveAndFive) {
  // C(10,5) = 252, one arrangement per extreme: p = 2/252 either way round.
  const MannWhitneyResult low = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  const MannWhitneyResult high = mann_whitney_u({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(low.u_first, 0.0);
  EXPECT_DOUBLE_EQ(high.u_first, 25.0);
  EXPECT_NEAR(low.p_value, 2.0 / 252.0, 1e-15);
  EXPECT_NEAR(high.p_value, 2.0 / 252.0, 1e-15);
}

TEST(MannWhitney, InterleavedThreeAndThree) {
  // x = {1,3,5}, y = {2,4,6}: pairs x > y are 3>2, 5>2, 5>4, so U_x = 3, U_y = 6.
  // Counts of U for m = n = 3, U = 0..9: 1 1 2 3 3 3 3 2 1 1 (sum 20).
  // P(U <= 3) = (1+1+2+3)/20 = 7/20, p = 2 · 7/20 = 0.7.
  const MannWhitneyResult r = mann_whitney_u({1, 3, 5}, {2, 4, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_first, 3.0);
  EXPECT_NEAR(r.p_value, 0.7, 1e-15);
}

TEST(MannWhitney, TiesUseTheNormalApproximationWithTieCorrection) {
  // Pooled: 1(x) 2(x) 2(x) 2(y) 3(y) 4(y); the three 2s share mid-rank 3.
  // R_x = 1 + 3 + 3 = 7, U_x = 7 - 3·4/2 = 1. Mean 4.5; one tie group of 3: Σ(t³-t) = 24.
  // Variance = 9/12 · (7 - 24/30) = 4.65; z = (|1 - 4.5| - 0.5)/√4.65 = 1.391217;
  // p = erfc(z/√2) = 0.1641597.
  const MannWhitneyResult r = mann_whitney_u({1, 2, 2}, {2, 3, 4});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_first, 1.0);
  EXPECT_NEAR(r.p_value, 0.1641597, 1e-6);
}

TEST(MannWhitney, AllEqualIsNotSeparated) {
  const MannWhitneyResult r = mann_whitney_u({2, 2, 2, 2}, {2, 2, 2});
  EXPECT_DOUBLE_EQ(r.u_first, 6.0);  // every pair a tie: 12 · 1/2
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
  // 60 vs 60, separated: U = 0, mean 1800, variance 60·60·121/12 = 36300,
  // z = 1799.5/190.53 = 9.445, p ≈ 3.6e-21.
  std::vector<double> x;
  std::vector<double> y;
  for (int i = 1; i <= 60; ++i) {
    x.push_back(i);
    y.push_back(60 + i);
  }
  const MannWhitneyResult r = mann_whitney_u(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_first, 0.0);
  EXPECT_GT(r.p_value, 1e-21);
  EXPECT_LT(r.p_value, 1e-20);
}

TEST(MannWhitney, ExactAndApproximateAgreeRoughlyAtModerateSize) {
  // 10 vs 10 with a moderate shift: the exact tail and the normal approximation should be close
  // (a wrong count table or variance would put them far apart).
  const std::vector<double> x = {1, 2, 4, 5, 7, 9, 10, 12, 15, 18};
  const std::vector<double> y = {3, 6, 8, 11, 13, 14, 16, 17, 19, 20};
  const MannWhitneyResult exact = mann_whitney_u(x, y);
  ASSERT_TRUE(exact.exact);
  // U_x by hand: pairs x > y: 4>3, 5>3, 7>{3,6}, 9>{3,6,8}, 10>{3,6,8}, 12>{3,6,8,11},
  // 15>{3,6,8,11,13,14}, 18>{3,6,8,11,13,14,16,17} → 1+1+2+3+3+4+6+8 = 28.
  EXPECT_DOUBLE_EQ(exact.u_first, 28.0);
  // Normal: z = (|28 - 50| - 0.5)/√(100·21/12) = 21.5/13.229 = 1.6252, p = 0.1041.
  EXPECT_NEAR(exact.p_value, 0.1041, 0.01);
}

TEST(MannWhitney, MinimumPValue) {
  EXPECT_NEAR(mann_whitney_min_p_value(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(mann_whitney_min_p_value(10, 10), 2.0 / 184756.0, 1e-15);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p_value(1, 1), 1.0);
}

TEST(MannWhitney, RefusesEmptyAndNonFiniteSamples) {
  EXPECT_THROW(mann_whitney_u({}, {1.0}), Error);
  EXPECT_THROW(mann_whitney_u({1.0}, {}), Error);
  EXPECT_THROW(mann_whitney_u({1.0, std::numeric_limits<double>::quiet_NaN()}, {2.0}), Error);
}

TEST(Holm, AdjustsInRankOrderAndKeepsMonotone) {
  // Sorted: 0.005 (#3), 0.01 (#0), 0.03 (#2), 0.04 (#1); multipliers 4, 3, 2, 1:
  // 0.02, 0.03, 0.06, max(0.06, 0.04) = 0.06.
  const std::vector<double> adjusted = holm_adjust({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(adjusted.size(), 4u);
  EXPECT_NEAR(adjusted[0], 0.03, 1e-15);
  EXPECT_NEAR(adjusted[1], 0.06, 1e-15);
  EXPECT_NEAR(adjusted[2], 0.06, 1e-15);
  EXPECT_NEAR(adjusted[3], 0.02, 1e-15);
}

TEST(Holm, CapsAtOneAndHandlesEdges) {
  EXPECT_TRUE(holm_adjust({}).empty());
  EXPECT_EQ(holm_adjust({0.2}), std::vector<double>{0.2});
  EXPECT_EQ(holm_adjust({0.6, 0.7}), (std::vector<double>{1.0, 1.0}));
  EXPECT_THROW(holm_adjust({1.5}), Error);
  EXPECT_THROW(holm_adjust({std::numeric_limits<double>::quiet_NaN()}), Error);
}

}  // namespace
}  // namespace rooflinectl
