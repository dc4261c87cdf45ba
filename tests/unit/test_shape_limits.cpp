// Shape products are computed in 64-bit integers without overflow: a shape whose tensors would
// exceed kMaxTensorElements is refused with the product and its values, before any kernel code
// multiplies the axes. The L² score-matrix bound applies only to operators that store S and P.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "core/shape.hpp"

namespace rooflinectl {
namespace {

// validate_common_shape, then (with_scores) validate_score_matrix_size, as naive_attention does.
std::string error_of(const Shape& s, bool with_scores = true) {
  try {
    validate_common_shape(s);
    if (with_scores) validate_score_matrix_size(s);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    return e.what();
  }
  return "";
}

Shape shape(int64_t batch, int64_t heads, int64_t seq_len, int64_t head_dim = 128) {
  Shape s;
  s.batch = batch;
  s.heads = heads;
  s.kv_heads = heads;
  s.seq_len = seq_len;
  s.head_dim = head_dim;
  return s;
}

TEST(ShapeLimits, HeadDimZeroNamesTheHeadDimsTheKernelsRun) {
  const std::string message = error_of(shape(1, 16, 512, 0));
  EXPECT_NE(message.find("invalid head-dim 0 (--head-dim)"), std::string::npos) << message;
  EXPECT_NE(message.find("64, 96, 128 or 256"), std::string::npos) << message;
  EXPECT_NE(message.find("any multiple of 8"), std::string::npos) << message;
}

TEST(ShapeLimits, DesignDocShapesPass) {
  EXPECT_EQ(error_of(shape(1, 16, 32768)), "");
  EXPECT_EQ(error_of(shape(2, 32, 32768)),
            "");  // naive attention past memory: skipped, not refused
  EXPECT_EQ(error_of(shape(64, 64, 131072)), "");
}

TEST(ShapeLimits, ScoresOfBatchTimesHeadsTimesLSquaredAreBounded) {
  // 4e9 · 16 · 2^31² overflows int64 many times over; the message names the product's values.
  const std::string message = error_of(shape(4000000000, 16, 2147483647));
  EXPECT_NE(message.find("4000000000"), std::string::npos) << message;
  EXPECT_NE(message.find("2147483647"), std::string::npos) << message;
  EXPECT_NE(message.find("2^50"), std::string::npos) << message;
}

TEST(ShapeLimits, ProductJustOverTheLimitIsRefusedJustUnderAccepted) {
  // B·H·L² = 2^50 exactly is allowed; one more batch row of scores is not.
  EXPECT_EQ(error_of(shape(1 << 10, 1 << 8, 1 << 16, 8)), "");
  // Twice the batch: B·H·L² = 2^51.
  EXPECT_NE(error_of(shape(1 << 11, 1 << 8, 1 << 16, 8)), "");
}

TEST(ShapeLimits, ScoreBoundIsNotPartOfTheCommonChecks) {
  // GELU at L = 2^28 and decode at L = 2^24 (d = 128, 16 heads) hold no L² tensor; only the
  // score-matrix check (naive attention) refuses them.
  for (const int64_t seq_len : {int64_t{1} << 28, int64_t{1} << 24}) {
    EXPECT_EQ(error_of(shape(1, 16, seq_len), /*with_scores=*/false), "") << seq_len;
    EXPECT_NE(error_of(shape(1, 16, seq_len)).find("seq_len² (attention scores S, P)"),
              std::string::npos)
        << seq_len;
  }
}

TEST(ShapeLimits, GatedFfnInputIsTwiceTheActivation) {
  // B·L·d_ff = 2^30 · 4 · 2^18 = 2^50 (d_ff = 4·d_model) passes the common checks; the gated input
  // holds gate and up, 2^51 elements, and only validate_gated_ffn_size refuses it, naming the
  // product.
  const Shape s = shape(int64_t{1} << 30, int64_t{1} << 18, 1, 1);
  EXPECT_EQ(error_of(s, /*with_scores=*/false), "");
  try {
    validate_gated_ffn_size(s);
    ADD_FAILURE() << "2^51 gated input elements accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    const std::string message = e.what();
    EXPECT_NE(message.find("gated FFN input"), std::string::npos) << message;
    EXPECT_NE(message.find("1073741824 × 1 × 2 × 4 × 262144 × 1"), std::string::npos) << message;
  }
  // Half the heads: 2^50 exactly is allowed.
  EXPECT_NO_THROW(validate_gated_ffn_size(shape(int64_t{1} << 30, int64_t{1} << 17, 1, 1)));
}

TEST(ShapeLimits, EachProductIsChecked) {
  // Q elements: B·H·L·d over the limit while B·H·L² is not (d ≫ L).
  EXPECT_NE(error_of(shape(1 << 20, 1 << 10, 1, 1 << 21)).find("head-dim (Q, O)"),
            std::string::npos);
  // FFN weight d_model · 4·d_model: 4 · (2^13 · 2^12)² = 2^52.
  EXPECT_NE(error_of(shape(1, 1 << 13, 1, 1 << 12)).find("FFN weight"), std::string::npos);
  // INT64 max on one axis alone.
  EXPECT_NE(error_of(shape(INT64_MAX, 1, 1, 1)), "");
  EXPECT_NE(error_of(shape(1, 1, INT64_MAX, 1)), "");
}

}  // namespace
}  // namespace rooflinectl
