#include <gtest/gtest.h>

#include <cmath>

#include "core/validation.hpp"

namespace rooflinectl {
namespace {

TEST(Validation, WithinToleranceAbsPlusRel) {
  const double ref[] = {0.0, 1.0, -10.0};
  const double out[] = {0.009, 1.019, -10.1};  // allowed: 0.01, 0.02, 0.11
  const Validation v = compare_arrays(out, ref, 3, Tolerance{0.01, 0.01}, "cpu-float64");
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.failed_elements, 0);
  EXPECT_NEAR(v.max_abs_error, 0.1, 1e-12);
  EXPECT_LE(v.worst_ratio, 1.0);
}

TEST(Validation, OutsideToleranceFailsAndNamesIndex) {
  const double ref[] = {1.0, 2.0};
  const double out[] = {1.0, 2.1};
  const Validation v = compare_arrays(out, ref, 2, Tolerance{0.01, 0.01}, "r");
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.failed_elements, 1);
  EXPECT_NE(v.detail.find("index 1"), std::string::npos);
}

TEST(Validation, NanOrInfOnEitherSideFails) {
  const double ref[] = {1.0, NAN, 1.0};
  const double out[] = {INFINITY, 1.0, 1.0};
  const Validation v = compare_arrays(out, ref, 3, Tolerance{1e9, 1e9}, "r");
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.non_finite_elements, 2);
}

TEST(Validation, NothingCheckedIsNotAPass) {
  const Validation v = compare_arrays(nullptr, nullptr, 0, Tolerance{1, 1}, "r");
  EXPECT_FALSE(v.passed);
}

}  // namespace
}  // namespace rooflinectl
