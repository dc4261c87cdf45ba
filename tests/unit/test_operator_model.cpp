#include <gtest/gtest.h>

#include "core/error.hpp"
#include "model/operator_model.hpp"

namespace rooflinectl {
namespace {

Shape default_shape(int64_t seq_len) {
  Shape s;  // B = 1, H = H_kv = 16, d = 128, bf16
  s.seq_len = seq_len;
  return s;
}

TEST(OperatorModel, NaiveAttentionAtL4096) {
  const AnalyticResult r = analytic_model("naive_attention", default_shape(4096));
  EXPECT_DOUBLE_EQ(r.flop, 4.0 * 16 * 4096.0 * 4096.0 * 128);  // 137.4 GFLOP
  // Q, K, V, O: 4 × 16 × 4096 × 128 × 2 B = 67.1 MB; S and P per head 33.5 MB each, 2× traffic.
  EXPECT_DOUBLE_EQ(r.min_dram_bytes, 4.0 * 16 * 4096 * 128 * 2);
  EXPECT_DOUBLE_EQ(r.implemented_dram_bytes - r.min_dram_bytes, 4.0 * 16 * 4096.0 * 4096.0 * 2);
  // The S/P traffic alone caps the intensity at d / e = 64 FLOP/B for bf16.
  EXPECT_NEAR(r.flop / (r.implemented_dram_bytes - r.min_dram_bytes), 64.0, 1e-12);
}

TEST(OperatorModel, FlashAttentionCausalCountsVisiblePairs) {
  Shape s = default_shape(1024);
  s.causal = true;
  const AnalyticResult r = analytic_model("flash_attention", s);
  EXPECT_DOUBLE_EQ(r.flop, 4.0 * 16 * 128 * (1024.0 * 1025.0 / 2.0));
  EXPECT_NE(r.flop_formula.find("(L+1)/2"), std::string::npos);
  s.causal = false;
  EXPECT_DOUBLE_EQ(analytic_model("flash_attention", s).flop, 4.0 * 16 * 1024.0 * 1024 * 128);
  EXPECT_DOUBLE_EQ(attention_pairs(3, true), 6.0);
}

TEST(OperatorModel, FlashImplementedBytesGrowWithQueryTiles) {
  const AnalyticResult r = analytic_model("flash_attention", default_shape(4096));
  const double qkvo = 4.0 * 16 * 4096 * 128 * 2;
  const double lse = 4.0 * 16 * 4096;
  EXPECT_DOUBLE_EQ(r.min_dram_bytes, qkvo + lse);
  EXPECT_DOUBLE_EQ(r.implemented_dram_bytes, qkvo / 2 + lse + 32.0 * qkvo / 2);
}

TEST(OperatorModel, GemmIsTwoMNK) {
  const AnalyticResult r = analytic_model("gemm", default_shape(4096));
  const double m = 4096, k = 2048, n = 8192;
  EXPECT_DOUBLE_EQ(r.flop, 2 * m * n * k);
  EXPECT_DOUBLE_EQ(r.min_dram_bytes, (m * k + k * n + m * n) * 2);
}

TEST(OperatorModel, ElementwiseConventions) {
  Shape s = default_shape(512);
  const double n_gelu = 512.0 * 4 * 2048;
  EXPECT_DOUBLE_EQ(analytic_model("gelu", s).flop, 4 * n_gelu);
  EXPECT_DOUBLE_EQ(analytic_model("gelu", s).min_dram_bytes, 2 * n_gelu * 2);
  s.gelu_form = GeluForm::kTanh;
  EXPECT_DOUBLE_EQ(analytic_model("gelu", s).flop, 8 * n_gelu);
  const double n_ln = 512.0 * 2048;
  EXPECT_DOUBLE_EQ(analytic_model("layernorm", s).flop, 8 * n_ln);
  EXPECT_DOUBLE_EQ(analytic_model("layernorm", s).min_dram_bytes, 2 * n_ln * 2 + 2 * 2048 * 2);
}

TEST(OperatorModel, DecodeIntensityIsAboutTheGroupSize) {
  Shape s = default_shape(32768);
  s.batch = 8;
  s.heads = 32;
  s.kv_heads = 32;
  const AnalyticResult mha = analytic_model("decode_attention", s);
  EXPECT_NEAR(mha.flop / mha.min_dram_bytes, 1.0, 1e-3);
  s.kv_heads = 8;
  const AnalyticResult gqa = analytic_model("decode_attention", s);
  EXPECT_NEAR(gqa.flop / gqa.min_dram_bytes, 4.0, 4e-3);
}

// Block-table bytes by hand. B = 2, H = 32, H_kv = 8 (g = 4: one head chunk of 8 heads per
// block), L = 1000 (not a page multiple), P = 16: ceil(1000/16) = 63 pages per sequence, 126
// int32 entries = 504 bytes once; each of the 8 KV heads reads its sequence's row: 4032 bytes.
TEST(OperatorModel, DecodePagedCountsTheBlockTable) {
  Shape s = default_shape(1000);
  s.batch = 2;
  s.heads = 32;
  s.kv_heads = 8;
  const AnalyticResult contiguous = analytic_model("decode_attention", s);
  // K and V: 2 × 2 × 8 × 1000 × 128 × 2 B = 8 192 000; q and o: 2 × 2 × 32 × 128 × 2 B = 32 768.
  EXPECT_DOUBLE_EQ(contiguous.min_dram_bytes, 8192000.0 + 32768.0);
  EXPECT_DOUBLE_EQ(contiguous.implemented_dram_bytes, contiguous.min_dram_bytes);
  EXPECT_NE(contiguous.bytes_formula.find("contiguous KV cache"), std::string::npos);

  s.kv_layout = KvLayout::kPaged;
  s.page_size = 16;
  const BlockTableBytes table = decode_block_table_bytes(s);
  EXPECT_DOUBLE_EQ(table.min_bytes, 504.0);
  EXPECT_DOUBLE_EQ(table.implemented_bytes, 4032.0);
  const AnalyticResult paged = analytic_model("decode_attention", s);
  EXPECT_DOUBLE_EQ(paged.flop, contiguous.flop);
  EXPECT_DOUBLE_EQ(paged.min_dram_bytes, 8224768.0 + 504.0);
  EXPECT_DOUBLE_EQ(paged.implemented_dram_bytes, 8224768.0 + 4032.0);
  EXPECT_NE(paged.bytes_formula.find("paged KV cache, 16-position pages"), std::string::npos);
}

// g = 32 (H = 64, H_kv = 2) takes two head chunks of 16 heads, and each reads the table: B = 1,
// L = 4096, P = 128: 32 entries = 128 bytes once, × 2 KV heads × 2 chunks = 512 bytes.
TEST(OperatorModel, DecodePagedTableIsReadPerHeadChunk) {
  Shape s = default_shape(4096);
  s.heads = 64;
  s.kv_heads = 2;
  s.kv_layout = KvLayout::kPaged;
  s.page_size = 128;
  const BlockTableBytes table = decode_block_table_bytes(s);
  EXPECT_DOUBLE_EQ(table.min_bytes, 128.0);
  EXPECT_DOUBLE_EQ(table.implemented_bytes, 512.0);
  s.kv_layout = KvLayout::kContiguous;
  s.page_size = 0;
  EXPECT_DOUBLE_EQ(decode_block_table_bytes(s).min_bytes, 0.0);
  EXPECT_DOUBLE_EQ(decode_block_table_bytes(s).implemented_bytes, 0.0);
}

// An FP8 KV cache by hand. B = 2, H = 32, H_kv = 8 (g = 4: one head chunk), L = 1000, d = 128:
// K and V 2 × 2 × 8 × 1000 × 128 × 1 B = 4 096 000 (half of bf16's 8 192 000); q and o stay bf16,
// 2 × 2 × 32 × 128 × 2 B = 32 768; scales 2 × 8 × 4 B = 64 once, and once per sequence as
// implemented: 2 × 64 = 128. FLOPs unchanged (dequantization not counted).
TEST(OperatorModel, DecodeFp8KvCacheIsOneBytePerElementPlusScales) {
  Shape s = default_shape(1000);
  s.batch = 2;
  s.heads = 32;
  s.kv_heads = 8;
  const AnalyticResult bf16 = analytic_model("decode_attention", s);
  s.kv_dtype = KvDtype::kFp8E4m3;
  const KvScaleBytes scales = decode_kv_scale_bytes(s);
  EXPECT_DOUBLE_EQ(scales.min_bytes, 64.0);
  EXPECT_DOUBLE_EQ(scales.implemented_bytes, 128.0);
  const AnalyticResult fp8 = analytic_model("decode_attention", s);
  EXPECT_DOUBLE_EQ(fp8.flop, bf16.flop);
  EXPECT_DOUBLE_EQ(fp8.min_dram_bytes, 4096000.0 + 32768.0 + 64.0);
  EXPECT_DOUBLE_EQ(fp8.implemented_dram_bytes, 4096000.0 + 32768.0 + 128.0);
  EXPECT_NE(fp8.bytes_formula.find("fp8_e4m3 KV cache"), std::string::npos) << fp8.bytes_formula;
  EXPECT_NE(fp8.flop_formula.find("dequantizing"), std::string::npos) << fp8.flop_formula;
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("decode_attention", s), 2 * 32 * 128 * 2.0);

  // Paged as well: the block table (504 B once, 4032 B as implemented, as above) adds to both.
  s.kv_layout = KvLayout::kPaged;
  s.page_size = 16;
  const AnalyticResult paged = analytic_model("decode_attention", s);
  EXPECT_DOUBLE_EQ(paged.min_dram_bytes, fp8.min_dram_bytes + 504.0);
  EXPECT_DOUBLE_EQ(paged.implemented_dram_bytes, fp8.implemented_dram_bytes + 4032.0);
  EXPECT_NE(paged.bytes_formula.find("paged KV cache, 16-position pages: 2*B*H_kv*L*d*1"),
            std::string::npos)
      << paged.bytes_formula;

  // g = 32 (H = 64, H_kv = 2): two head chunks each read the scales. B = 1: 16 B once, 32 B.
  s = default_shape(4096);
  s.heads = 64;
  s.kv_heads = 2;
  s.kv_dtype = KvDtype::kFp8E4m3;
  EXPECT_DOUBLE_EQ(decode_kv_scale_bytes(s).min_bytes, 16.0);
  EXPECT_DOUBLE_EQ(decode_kv_scale_bytes(s).implemented_bytes, 32.0);
  s.kv_dtype = KvDtype::kAuto;
  EXPECT_DOUBLE_EQ(decode_kv_scale_bytes(s).implemented_bytes, 0.0);
}

TEST(OperatorModel, TokensPerSecond) {
  Shape s = default_shape(4096);
  s.batch = 2;
  EXPECT_DOUBLE_EQ(tokens_per_second("flash_attention", s, 1e-3), 8192.0 / 1e-3);
  EXPECT_DOUBLE_EQ(tokens_per_second("decode_attention", s, 1e-3), 2.0 / 1e-3);
  EXPECT_THROW(tokens_per_second("gemm", s, 0.0), Error);
}

TEST(OperatorModel, UnknownOperatorIsBadInput) {
  try {
    analytic_model("conv2d", default_shape(512));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
  }
}

}  // namespace
}  // namespace rooflinectl
