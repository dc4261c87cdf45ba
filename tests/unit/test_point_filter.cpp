// `sweep --filter` (core/point_filter.hpp): the grammar, what it keeps, and its errors.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "core/point_filter.hpp"

namespace rooflinectl {
namespace {

Shape shape_of(int64_t batch, Dtype dtype, bool causal, int64_t seq_len) {
  Shape s;
  s.batch = batch;
  s.dtype = dtype;
  s.causal = causal;
  s.seq_len = seq_len;
  return s;
}

std::string error_of(const std::string& expression) {
  try {
    parse_point_filter(expression);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << expression;
  return "";
}

TEST(PointFilter, AndOfOrs) {
  const PointFilter f = parse_point_filter("op!=gelu,batch>=8");
  EXPECT_TRUE(f.keeps("gemm", shape_of(8, Dtype::kBf16, false, 512)));
  EXPECT_FALSE(f.keeps("gemm", shape_of(4, Dtype::kBf16, false, 512)));
  EXPECT_FALSE(f.keeps("gelu", shape_of(32, Dtype::kBf16, false, 512)));
  const PointFilter amp = parse_point_filter("batch=32&dtype=fp16");
  EXPECT_TRUE(amp.keeps("gemm", shape_of(32, Dtype::kFp16, false, 512)));
  EXPECT_FALSE(amp.keeps("gemm", shape_of(32, Dtype::kBf16, false, 512)));
  // Drop one combination: flash attention at batch 32 in fp16.
  const PointFilter drop = parse_point_filter("op!=flash_attention | batch!=32 | dtype!=fp16");
  EXPECT_FALSE(drop.keeps("flash_attention", shape_of(32, Dtype::kFp16, true, 512)));
  EXPECT_TRUE(drop.keeps("flash_attention", shape_of(32, Dtype::kBf16, true, 512)));
  EXPECT_TRUE(drop.keeps("gemm", shape_of(32, Dtype::kFp16, false, 512)));
}

TEST(PointFilter, ComparisonsAndAliases) {
  const Shape s = shape_of(8, Dtype::kBf16, true, 2048);
  EXPECT_TRUE(parse_point_filter("seq<=2048").keeps("gemm", s));
  EXPECT_FALSE(parse_point_filter("L<2048").keeps("gemm", s));
  EXPECT_TRUE(parse_point_filter("seq_len>1024").keeps("gemm", s));
  EXPECT_TRUE(parse_point_filter("batch==8").keeps("gemm", s));
  EXPECT_TRUE(parse_point_filter("kv-heads=16,head-dim=128").keeps("flash_attention", s));
  EXPECT_TRUE(parse_point_filter("causal=on").keeps("flash_attention", s));
  EXPECT_FALSE(parse_point_filter("causal=off").keeps("flash_attention", s));
  EXPECT_TRUE(parse_point_filter("gelu-form=erf").keeps("gelu", s));
}

TEST(PointFilter, AxisTheOperatorDoesNotUseHolds) {
  // gelu has no causal mask: causal=on neither keeps nor drops it.
  const Shape s = shape_of(1, Dtype::kBf16, false, 512);
  EXPECT_TRUE(parse_point_filter("causal=on").keeps("gelu", s));
  EXPECT_FALSE(parse_point_filter("causal=on").keeps("naive_attention", s));
  EXPECT_TRUE(parse_point_filter("kv_heads=8").keeps("gemm", s));
  // gemm has no KV cache; decode's is auto unless the shape says fp8_e4m3.
  EXPECT_TRUE(parse_point_filter("kv_dtype=fp8_e4m3").keeps("gemm", s));
  EXPECT_FALSE(parse_point_filter("kv_dtype=fp8_e4m3").keeps("decode_attention", s));
  Shape fp8 = s;
  fp8.kv_dtype = KvDtype::kFp8E4m3;
  EXPECT_TRUE(parse_point_filter("kv-dtype=fp8_e4m3").keeps("decode_attention", fp8));
  EXPECT_FALSE(parse_point_filter("kv_dtype!=fp8_e4m3").keeps("decode_attention", fp8));
}

TEST(PointFilter, ErrorsNameTheBadToken) {
  EXPECT_EQ(error_of("batch>>8"),
            "invalid --filter 'batch>>8': term 'batch>>8': value '>8' is not an integer (batch "
            "takes integers)");
  EXPECT_EQ(error_of("bach=8"),
            "invalid --filter 'bach=8': term 'bach=8': unknown field 'bach' (allowed op, batch, "
            "heads, kv_heads, head_dim, dtype, causal, gelu_form, kv_dtype, gemm_dtype, "
            "q_len, seq)");
  EXPECT_NE(error_of("op=gemm,dtype<fp16").find("term 'dtype<fp16': dtype takes = or != only"),
            std::string::npos);
  EXPECT_NE(error_of("dtype=fp8").find("invalid dtype 'fp8': allowed bf16, fp16"),
            std::string::npos);
  EXPECT_NE(error_of("op=flash").find("invalid operator 'flash'"), std::string::npos);
  EXPECT_EQ(error_of("kv_dtype=fp8"),
            "invalid --filter 'kv_dtype=fp8': term 'kv_dtype=fp8': invalid KV dtype 'fp8' "
            "(--kv-dtype): allowed auto (the --dtype), fp8_e4m3");
  EXPECT_NE(error_of("kv-dtype>auto").find("kv_dtype takes = or != only"), std::string::npos);
  EXPECT_EQ(error_of("causal=yes"),
            "invalid --filter 'causal=yes': term 'causal=yes': value 'yes' is not on or off "
            "(causal takes on, off)");
  EXPECT_NE(error_of("batch").find("expected FIELD OP VALUE"), std::string::npos);
  EXPECT_NE(error_of("batch=").find("missing value after '='"), std::string::npos);
  EXPECT_NE(error_of("batch!8").find("'!' must be followed by '='"), std::string::npos);
  EXPECT_NE(error_of("batch=8,,op=gemm").find("empty term"), std::string::npos);
  EXPECT_NE(error_of("batch=8|").find("empty term"), std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
}

}  // namespace
}  // namespace rooflinectl
