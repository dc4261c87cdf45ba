#include <gtest/gtest.h>

#include "core/error.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {
namespace {

// H200 datasheet values (989.5 TFLOP/s dense bf16, 4.8 TB/s) as an example roof.
Roof h200_tensor_roof() { return Roof{Pipe::kTensor, 989.5e12, 4.8e12, "test"}; }

TEST(Roofline, RidgePointIsPeakOverBandwidth) {
  EXPECT_NEAR(ridge_point_flop_per_byte(h200_tensor_roof()), 206.15, 0.01);
  // A100 80 GB: 312 TFLOP/s over 2.039 TB/s ≈ 153 FLOP/B; H100 SXM: 989.5 / 3.35 ≈ 295.
  EXPECT_NEAR(ridge_point_flop_per_byte(Roof{Pipe::kTensor, 312e12, 2.039e12, ""}), 153.0, 0.1);
  EXPECT_NEAR(ridge_point_flop_per_byte(Roof{Pipe::kTensor, 989.5e12, 3.35e12, ""}), 295.4, 0.1);
}

TEST(Roofline, AttainableIsMinOfSlopeAndFlatRoof) {
  const Roof roof = h200_tensor_roof();
  EXPECT_DOUBLE_EQ(attainable_flop_per_s(roof, 1.0), 4.8e12);
  EXPECT_DOUBLE_EQ(attainable_flop_per_s(roof, 100.0), 480e12);
  EXPECT_DOUBLE_EQ(attainable_flop_per_s(roof, 1000.0), 989.5e12);
}

TEST(Roofline, MemoryBoundPoint) {
  // 1 GFLOP over 1 GB in 1 ms: I = 1 FLOP/B, achieved 1 TFLOP/s, attainable 4.8 TFLOP/s.
  const RooflinePoint p = place_on_roofline(h200_tensor_roof(), 1e9, 1e9, 1e-3, "counters");
  EXPECT_EQ(p.bound, Bound::kMemory);
  EXPECT_DOUBLE_EQ(p.arithmetic_intensity_flop_per_byte, 1.0);
  EXPECT_DOUBLE_EQ(p.achieved_flop_per_s, 1e12);
  EXPECT_DOUBLE_EQ(p.achieved_bytes_per_s, 1e12);
  EXPECT_NEAR(p.fraction_of_roof, 1.0 / 4.8, 1e-12);
  EXPECT_FALSE(p.above_roof);
}

TEST(Roofline, ComputeBoundPoint) {
  // 2·8192³ FLOP over 3·8192²·2 bytes: I ≈ 2731 FLOP/B, far right of the ridge.
  const double flop = 2.0 * 8192.0 * 8192.0 * 8192.0;
  const double bytes = 3.0 * 8192.0 * 8192.0 * 2.0;
  const RooflinePoint p = place_on_roofline(h200_tensor_roof(), flop, bytes, 1.5e-3, "counters");
  EXPECT_EQ(p.bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(p.attainable_flop_per_s, 989.5e12);
  EXPECT_NEAR(p.fraction_of_roof, flop / 1.5e-3 / 989.5e12, 1e-12);
}

TEST(Roofline, AboveRoofIsFlagged) {
  const RooflinePoint p = place_on_roofline(h200_tensor_roof(), 1e9, 1e9, 1e-4, "counters");
  EXPECT_TRUE(p.above_roof);  // 10 TB/s on a 4.8 TB/s roof
}

TEST(Roofline, ExactlyAtRidgeIsComputeBound) {
  const Roof roof{Pipe::kFp32, 100.0, 10.0, ""};
  EXPECT_EQ(place_on_roofline(roof, 10.0, 1.0, 1.0, "x").bound, Bound::kCompute);
  EXPECT_EQ(place_on_roofline(roof, 9.99, 1.0, 1.0, "x").bound, Bound::kMemory);
}

TEST(Roofline, RejectsNonPositiveInputs) {
  EXPECT_THROW(place_on_roofline(h200_tensor_roof(), 0.0, 1.0, 1.0, "x"), Error);
  EXPECT_THROW(place_on_roofline(h200_tensor_roof(), 1.0, 0.0, 1.0, "x"), Error);
  EXPECT_THROW(place_on_roofline(h200_tensor_roof(), 1.0, 1.0, 0.0, "x"), Error);
  EXPECT_THROW(ridge_point_flop_per_byte(Roof{Pipe::kTensor, 0.0, 1.0, ""}), Error);
}

TEST(Roofline, BoundNamesRoundTrip) {
  EXPECT_EQ(parse_bound(to_string(Bound::kMemory)), Bound::kMemory);
  EXPECT_EQ(parse_bound(to_string(Bound::kCompute)), Bound::kCompute);
  EXPECT_THROW(parse_bound("both"), Error);
}

}  // namespace
}  // namespace rooflinectl
