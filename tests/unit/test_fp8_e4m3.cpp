// The host's E4M3 values (core/fp8_e4m3.hpp), which the references decode an FP8 KV cache with,
// at the OCP OFP8 specification's landmarks; the KV dtype's names and element size; and the
// quantization-error statistics a validation carries (core/validation.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "bad_input_message.hpp"
#include "core/fp8_e4m3.hpp"
#include "core/shape.hpp"
#include "core/validation.hpp"

namespace rooflinectl {
namespace {

TEST(Fp8E4m3, SpecificationLandmarks) {
  EXPECT_EQ(e4m3_to_double(0x00), 0.0);
  EXPECT_TRUE(std::signbit(e4m3_to_double(0x80)));  // -0
  EXPECT_EQ(e4m3_to_double(0x38), 1.0);             // exponent 7 = bias
  EXPECT_EQ(e4m3_to_double(0xb8), -1.0);
  EXPECT_EQ(e4m3_to_double(0x3c), 1.5);
  EXPECT_EQ(e4m3_to_double(0x7e), kE4m3Max);  // 1.75 × 2^8 = 448, the largest finite
  EXPECT_EQ(e4m3_to_double(0xfe), -448.0);
  EXPECT_EQ(e4m3_to_double(0x08), std::ldexp(1.0, -6));          // smallest normal
  EXPECT_EQ(e4m3_to_double(0x07), 0.875 * std::ldexp(1.0, -6));  // largest subnormal
  EXPECT_EQ(e4m3_to_double(0x01), std::ldexp(1.0, -9));          // smallest subnormal
  EXPECT_TRUE(std::isnan(e4m3_to_double(0x7f)));
  EXPECT_TRUE(std::isnan(e4m3_to_double(0xff)));
  EXPECT_EQ(e4m3_to_double(0x78), 256.0);  // exponent 15 is a normal exponent: no infinity
}

// Every pattern but the two NaNs is finite, and the positive ones increase with their bits.
TEST(Fp8E4m3, PositivePatternsAreOrdered) {
  double previous = -1.0;
  for (int bits = 0; bits < 0x7f; ++bits) {
    const double value = e4m3_to_double(static_cast<uint8_t>(bits));
    ASSERT_TRUE(std::isfinite(value)) << bits;
    EXPECT_GT(value, previous) << bits;
    EXPECT_EQ(e4m3_to_double(static_cast<uint8_t>(bits | 0x80)), -value) << bits;
    previous = value;
  }
}

TEST(KvDtype, NamesAndElementSize) {
  EXPECT_EQ(parse_kv_dtype("auto"), KvDtype::kAuto);
  EXPECT_EQ(parse_kv_dtype("fp8_e4m3"), KvDtype::kFp8E4m3);
  EXPECT_EQ(to_string(KvDtype::kFp8E4m3), "fp8_e4m3");
  EXPECT_EQ(bad_input_message([] { parse_kv_dtype("e4m3"); }),
            "invalid KV dtype 'e4m3' (--kv-dtype): allowed auto (the --dtype), fp8_e4m3");
  Shape s;
  EXPECT_EQ(kv_element_bytes(s), 2);
  EXPECT_EQ(kv_dtype_label(s), "");
  s.kv_dtype = KvDtype::kFp8E4m3;
  EXPECT_EQ(kv_element_bytes(s), 1);
  EXPECT_EQ(kv_dtype_label(s), "kv=fp8_e4m3");
}

TEST(QuantizationError, DifferenceStatsSkipNonFinite) {
  const std::vector<double> out = {1.0, 2.5, NAN, -1.0};
  const std::vector<double> ref = {1.5, 2.0, 3.0, -4.0};
  const QuantizationError q = difference_stats(out.data(), ref.data(), 4, "ref");
  EXPECT_EQ(q.reference, "ref");
  EXPECT_EQ(q.checked_elements, 3);
  EXPECT_DOUBLE_EQ(q.max_abs_difference, 3.0);
  EXPECT_DOUBLE_EQ(q.rms_difference, std::sqrt((0.25 + 0.25 + 9.0) / 3.0));
  EXPECT_DOUBLE_EQ(q.max_abs_reference, 4.0);
  const QuantizationError none = difference_stats(out.data(), ref.data(), 0, "ref");
  EXPECT_EQ(none.checked_elements, 0);
  EXPECT_EQ(none.rms_difference, 0.0);
}

}  // namespace
}  // namespace rooflinectl
