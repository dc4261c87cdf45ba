// Memory table, flash IO bound and the tile-level helpers of the analytic model, at hand-computed
// values (memory_model.hpp's worked example among them).
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "model/memory_model.hpp"
#include "model/operator_model.hpp"

namespace rooflinectl {
namespace {

Shape shape_at(int64_t seq_len) {
  Shape s;  // B = 1, H = H_kv = 16, d = 128, bf16
  s.seq_len = seq_len;
  return s;
}

TEST(MemoryModel, SeedsWorkedExample) {
  // Seeds: d = 128, L = 4096, fp16: S = 4096 × 4096 × 2 B ≈ 33.5 MB, S + P ≈ 67 MB per head;
  // L = 8192: 268 MB (4×).
  Shape s = shape_at(4096);
  s.dtype = Dtype::kFp16;
  const AttentionMemory m = attention_memory(s);
  EXPECT_DOUBLE_EQ(m.s_bytes_per_head, 33554432.0);
  EXPECT_NEAR(m.s_bytes_per_head / 1e6, 33.5, 0.1);
  EXPECT_DOUBLE_EQ(m.s_and_p_bytes_per_head, 67108864.0);
  EXPECT_DOUBLE_EQ(m.s_and_p_bytes_total, 16 * 67108864.0);
  s.seq_len = 8192;
  EXPECT_NEAR(attention_memory(s).s_and_p_bytes_per_head / 1e6, 268.4, 0.1);
  EXPECT_DOUBLE_EQ(attention_memory(s).s_and_p_bytes_per_head, 4 * m.s_and_p_bytes_per_head);
}

TEST(MemoryModel, KvCacheAndGqa) {
  Shape s = shape_at(4096);
  // 2 (K, V) × 16 KV heads × 4096 × 128 × 2 B = 33.5 MB.
  EXPECT_DOUBLE_EQ(attention_memory(s).kv_cache_bytes, 33554432.0);
  EXPECT_DOUBLE_EQ(attention_memory(s).qkvo_bytes, 4 * 16 * 4096.0 * 128 * 2);
  s.kv_heads = 2;  // GQA group 8: an eighth of the cache
  EXPECT_DOUBLE_EQ(attention_memory(s).kv_cache_bytes, 33554432.0 / 8);
  EXPECT_DOUBLE_EQ(attention_memory(s).qkvo_bytes, (2 * 16 + 2 * 2) * 4096.0 * 128 * 2);
}

// An FP8 KV cache holds 1 byte per element: L = 4096, B = 1, H_kv = 16, d = 128 gives 2 × 16 ×
// 4096 × 128 × 1 B = 16.8 MB, half the bf16 cache; Q, O, S and P stay 16-bit.
TEST(MemoryModel, Fp8KvCacheIsOneBytePerElement) {
  Shape s = shape_at(4096);
  const AttentionMemory bf16 = attention_memory(s);
  s.kv_dtype = KvDtype::kFp8E4m3;
  const AttentionMemory fp8 = attention_memory(s);
  EXPECT_DOUBLE_EQ(fp8.kv_cache_bytes, 16777216.0);
  EXPECT_DOUBLE_EQ(fp8.kv_cache_bytes, bf16.kv_cache_bytes / 2);
  EXPECT_DOUBLE_EQ(fp8.s_and_p_bytes_total, bf16.s_and_p_bytes_total);
  s.dtype = Dtype::kFp16;  // the query dtype does not change the FP8 cache
  EXPECT_DOUBLE_EQ(attention_memory(s).kv_cache_bytes, 16777216.0);
  EXPECT_EQ(kv_element_bytes(s), 1);
  s.kv_dtype = KvDtype::kAuto;
  EXPECT_EQ(kv_element_bytes(s), 2);
}

TEST(MemoryModel, LargestNaiveLengthIsTheExactIntegerRoot) {
  Shape s = shape_at(1);
  s.heads = s.kv_heads = 1;
  // Footprint 2·e·L² + 4·d·e·L = 4L² + 1024L; L = 1000 takes exactly 5,024,000 bytes.
  EXPECT_EQ(max_naive_attention_seq_len(s, 5024000.0), 1000);
  EXPECT_EQ(max_naive_attention_seq_len(s, 5023999.0), 999);
  EXPECT_EQ(max_naive_attention_seq_len(s, 1.0), 0);
  Shape h = shape_at(1);  // 16 heads on 141 GiB
  const double memory = 141.0 * (1 << 30);
  const int64_t l = max_naive_attention_seq_len(h, memory);
  h.seq_len = l;
  EXPECT_LE(attention_memory(h).naive_attention_bytes, memory);
  h.seq_len = l + 1;
  EXPECT_GT(attention_memory(h).naive_attention_bytes, memory);
  EXPECT_THROW(max_naive_attention_seq_len(s, 0.0), Error);
}

TEST(MemoryModel, FlashStreamedKeys) {
  EXPECT_DOUBLE_EQ(flash_streamed_keys(4096, false, 64), 64.0 * 4096);
  // Causal: query tile t streams keys 0 .. (t+1)·64 − 1: 64 · (1 + … + 64) = 133,120.
  EXPECT_DOUBLE_EQ(flash_streamed_keys(4096, true, 64), 64.0 * 64 * 65 / 2);
  EXPECT_DOUBLE_EQ(flash_streamed_keys(100, true, 64), 64.0 + 100.0);
  EXPECT_DOUBLE_EQ(flash_streamed_keys(100, false, 64), 2 * 100.0);
  EXPECT_THROW(flash_streamed_keys(100, false, 0), Error);
}

TEST(MemoryModel, FlashCausalImplementedBytesStopAtTheDiagonal) {
  Shape s = shape_at(4096);
  s.causal = true;
  const AnalyticResult r = analytic_model("flash_attention", s);
  const double q_o_lse = 2 * 16 * 4096.0 * 128 * 2 + 4 * 16 * 4096.0;
  // 32 query tiles of 128 rows: tile t streams keys 0 .. (t+1)·128 − 1.
  EXPECT_DOUBLE_EQ(r.implemented_dram_bytes, q_o_lse + 2 * 16 * 128 * 2 * (128.0 * 32 * 33 / 2));
}

TEST(MemoryModel, FlashComputedPairsAreWholeTiles) {
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4096, 128, false), 4096.0 * 4096);
  // 1000 rows pad to 8 query tiles of 128; keys to 16 tiles of 64 (d 128) or 8 of 128 (d 64).
  EXPECT_DOUBLE_EQ(flash_computed_pairs(1000, 128, false), 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(flash_computed_pairs(1000, 64, false), 1024.0 * 1024);
  // 4097 rows pad to 33 · 128 = 4224, keys to 65 · 64 = 4160 at d 128.
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4097, 128, false), 4224.0 * 4160);
  // Causal: warp w (32 rows) computes whole key tiles up to 32·(w+1). d 128, Bc 64: warps 2j
  // and 2j+1 both compute j+1 tiles, 4096 · 64 · 65 / 2 pairs vs 4096 · 4097 / 2 visible.
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4096, 128, true), 4096.0 * 64 * 65 / 2);
  EXPECT_NEAR(flash_computed_pairs(4096, 128, true) / attention_pairs(4096, true), 1.0154, 1e-4);
  // d 64, Bc 128: warps 4j .. 4j+3 compute j+1 tiles, 4096 · 128 · 33 / 2 pairs.
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4096, 64, true), 4096.0 * 128 * 33 / 2);
  EXPECT_NEAR(flash_computed_pairs(4096, 64, true) / attention_pairs(4096, true), 1.0310, 1e-4);
}

TEST(MemoryModel, SharedMemoryPerSm) {
  EXPECT_DOUBLE_EQ(*shared_memory_per_sm_bytes(9, 0), 228.0 * 1024);
  EXPECT_DOUBLE_EQ(*shared_memory_per_sm_bytes(8, 0), 164.0 * 1024);
  EXPECT_DOUBLE_EQ(*shared_memory_per_sm_bytes(8, 9), 100.0 * 1024);
  EXPECT_FALSE(shared_memory_per_sm_bytes(7, 5).has_value());
}

TEST(MemoryModel, FlashIoBoundOnH200) {
  const Shape s = shape_at(4096);
  const FlashIoBound io = flash_io_bound(s, 228.0 * 1024);
  // M = 116,736 bf16 elements; ceil(M / 4d) = 228 > d, so the paper's Br = d = 128.
  EXPECT_EQ(io.paper_query_tile_rows, 128);
  const double q_o_lse = 2 * 16 * 4096.0 * 128 * 2 + 4 * 16 * 4096.0;
  const double kv_pass = 2 * 16 * 4096.0 * 128 * 2;  // K and V of every query head, once
  EXPECT_DOUBLE_EQ(io.paper_io_bytes, q_o_lse + 32 * kv_pass);
  // The kernel's Br is the paper's here: 128 rows, Bc = 64 keys at d = 128.
  EXPECT_EQ(io.kernel_query_tile_rows, 128);
  EXPECT_EQ(io.kernel_key_tile_cols, 64);
  EXPECT_DOUBLE_EQ(io.kernel_io_bytes, q_o_lse + 32 * kv_pass);
  EXPECT_DOUBLE_EQ(io.kernel_io_bytes, analytic_model("flash_attention", s).implemented_dram_bytes);
  EXPECT_DOUBLE_EQ(io.theta_bytes, 16 * 4096.0 * 4096 * 128 * 128 / 116736.0 * 2);
  // Θ(L²): doubling L quadruples the bound's leading term.
  EXPECT_NEAR(flash_io_bound(shape_at(8192), 228.0 * 1024).theta_bytes / io.theta_bytes, 4.0,
              1e-12);
  // A small SRAM makes the paper's tile smaller than d: M = 16 KiB → 8192 elements / 512 = 16 rows.
  EXPECT_EQ(flash_io_bound(s, 16.0 * 1024).paper_query_tile_rows, 16);
  EXPECT_THROW(flash_io_bound(s, 0.0), Error);
}

TEST(MemoryModel, WriteBytesAndGemmReuse) {
  const Shape s = shape_at(4096);
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("gemm", s), 4096.0 * 8192 * 2);
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("flash_attention", s),
                   16 * 4096.0 * 128 * 2 + 4 * 16 * 4096.0);
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("decode_attention", s), 16 * 128.0 * 2);
  EXPECT_THROW(min_dram_write_bytes("softmax", s), Error);
  // 64 column blocks each read X (4096 × 2048), 32 row blocks each read W (2048 × 8192).
  EXPECT_DOUBLE_EQ(gemm_no_reuse_read_bytes(s, gemm_block_tile("gemm_v1_mma_sync", s.tokens())),
                   (64.0 * 4096 * 2048 + 32.0 * 2048 * 8192) * 2);
  // v2's 128 × 256 tiles: half as many tile columns re-read X.
  EXPECT_DOUBLE_EQ(gemm_no_reuse_read_bytes(s, gemm_block_tile("gemm_v2_wgmma_tma", s.tokens())),
                   (32.0 * 4096 * 2048 + 32.0 * 2048 * 8192) * 2);
}

}  // namespace
}  // namespace rooflinectl
