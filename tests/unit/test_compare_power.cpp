// The time gate's power check: the Holm-adjusted floor of the Mann-Whitney p-value, the
// repetitions needed, and compare refusing (exit 2) a comparison that could not flag anything.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "compare/compare_power.hpp"
#include "compare/significance.hpp"
#include "core/error.hpp"

namespace rooflinectl {
namespace {

std::string error_of(const std::vector<FamilyMember>& family) {
  try {
    check_time_gate_power(family);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    return e.what();
  }
  return "";
}

std::vector<FamilyMember> family_of(size_t points, size_t n_base, size_t n_new) {
  return std::vector<FamilyMember>(points, FamilyMember{"gemm gemm_v1 L=512", n_base, n_new});
}

TEST(ComparePower, FloorIsTheHigherOfTheExactAndTheApproximateFloor) {
  // 10 + 10: exact 2 / C(20, 10) = 1.08e-5; normal approximation at U = 0:
  // z = (50 - 0.5) / sqrt(100 * 21 / 12) = 3.742, p = 1.83e-4, the higher.
  EXPECT_NEAR(time_gate_floor_p_value(10, 10), 1.8267e-4, 1e-8);
  // 3 + 3: exact 2 / 20 = 0.1 is above the approximation's 0.081.
  EXPECT_NEAR(time_gate_floor_p_value(3, 3), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(time_gate_floor_p_value(0, 10), 1.0);
  // 5 + 5 over 42 points: 42 x 0.012186 (z = 12 / sqrt(25 * 11 / 12)) = 0.512.
  EXPECT_NEAR(min_adjusted_p_value(42, 5, 5), 0.5118, 1e-4);
  EXPECT_DOUBLE_EQ(min_adjusted_p_value(500, 3, 3), 1.0);  // capped
}

TEST(ComparePower, RepetitionsNeededForTheDefaultSweep) {
  // 42 points (six operators x seven lengths): 9 + 9 floors at 42 x 4.1e-4 = 0.017, 10 + 10 at
  // 42 x 1.83e-4 = 0.0077, the first below 0.01.
  EXPECT_EQ(equal_samples_needed(42, kMannWhitneyAlpha), 10u);
  EXPECT_EQ(equal_samples_needed(1, kMannWhitneyAlpha), 6u);  // 5 + 5: 0.0122 by approximation
  EXPECT_EQ(equal_samples_needed(10, kMannWhitneyAlpha), 8u);
  // Against a 10-sample base 7 points need 6 new samples (7 x 0.00138 = 0.0096; 5: 7 x 0.0027).
  EXPECT_EQ(new_samples_needed(7, 10, kMannWhitneyAlpha), std::optional<size_t>(6));
  // A 2-sample base: the approximation's floor tends to erfc(sqrt(3)) = 0.014 > 0.01.
  EXPECT_EQ(new_samples_needed(1, 2, kMannWhitneyAlpha), std::nullopt);
  EXPECT_THROW(new_samples_needed(0, 5, kMannWhitneyAlpha), Error);
  EXPECT_THROW(new_samples_needed(4, 0, kMannWhitneyAlpha), Error);
  EXPECT_THROW(equal_samples_needed(4, 1.5), Error);
}

TEST(ComparePower, RefusesAFamilyThatCannotReachAlpha) {
  EXPECT_EQ(error_of({}), "");
  EXPECT_EQ(error_of(family_of(42, 10, 10)), "");
  const std::string message = error_of(family_of(42, 9, 9));
  EXPECT_NE(message.find("42 points"), std::string::npos) << message;
  EXPECT_NE(message.find("--repetitions 10 or more"), std::string::npos) << message;
  EXPECT_NE(error_of(family_of(1, 2, 2)).find("no number of new samples is enough"),
            std::string::npos);
  EXPECT_NE(message.find("gemm gemm_v1 L=512"), std::string::npos) << message;
  // One weak point is enough: it could pass a regression unflagged.
  std::vector<FamilyMember> mixed = family_of(41, 10, 10);
  mixed.push_back({"gelu gelu_v1 L=4096", 10, 3});
  const std::string weak = error_of(mixed);
  EXPECT_NE(weak.find("10 base and 3 new samples (gelu gelu_v1 L=4096)"), std::string::npos)
      << weak;
}

TEST(ComparePower, PlannedFamilyCountsOnlyMatchedOkTimedBasePoints) {
  Report base;
  for (const char* op : {"gemm", "gelu"}) {
    PointResult p;
    p.op = op;
    p.version = std::string(op) + "_v1";
    p.shape.seq_len = 512;
    p.timing = TimingResult{};
    p.timing->samples_s = {1e-3, 1e-3, 1e-3, 1e-3, 1e-3};
    base.points.push_back(p);
  }
  base.points[1].status = PointStatus::kFailed;
  Shape shape;
  shape.seq_len = 512;
  const std::vector<PointKey> planned = {
      {"gemm", "", shape}, {"gelu", "", shape}, {"layernorm", "", shape}};
  const std::vector<FamilyMember> family = planned_time_gate_family(base, planned, 9);
  ASSERT_EQ(family.size(), 1u);
  EXPECT_EQ(family[0].base_samples, 5u);
  EXPECT_EQ(family[0].new_samples, 9u);
  shape.seq_len = 1024;
  EXPECT_TRUE(planned_time_gate_family(base, {{"gemm", "", shape}}, 9).empty());
}

}  // namespace
}  // namespace rooflinectl
