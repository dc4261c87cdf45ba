// Memory table, flash IO bound and the tile-level helpers of the analytic model, at hand-computed
// values (memory_model.hpp's worked examples among them), and the KV-cache capacity of a budget,
// contiguous vs paged.
#include <gtest/gtest.h>

#include <cmath>

#include "bad_input_message.hpp"
#include "core/error.hpp"
#include "core/model_preset.hpp"
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
  EXPECT_DOUBLE_EQ(flash_streamed_keys(4096, 4096, false, 64), 64.0 * 4096);
  // Causal: query tile t streams keys 0 .. (t+1)·64 − 1: 64 · (1 + … + 64) = 133,120.
  EXPECT_DOUBLE_EQ(flash_streamed_keys(4096, 4096, true, 64), 64.0 * 64 * 65 / 2);
  EXPECT_DOUBLE_EQ(flash_streamed_keys(100, 100, true, 64), 64.0 + 100.0);
  EXPECT_DOUBLE_EQ(flash_streamed_keys(100, 100, false, 64), 2 * 100.0);
  EXPECT_THROW(flash_streamed_keys(100, 100, false, 0), Error);
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
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4096, 4096, 128, false), 4096.0 * 4096);
  // 1000 rows pad to 8 query tiles of 128; keys to 16 tiles of 64 (d 128) or 8 of 128 (d 64).
  EXPECT_DOUBLE_EQ(flash_computed_pairs(1000, 1000, 128, false), 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(flash_computed_pairs(1000, 1000, 64, false), 1024.0 * 1024);
  // 4097 rows pad to 33 · 128 = 4224, keys to 65 · 64 = 4160 at d 128.
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4097, 4097, 128, false), 4224.0 * 4160);
  // Causal: warp w (32 rows) computes whole key tiles up to 32·(w+1). d 128, Bc 64: warps 2j
  // and 2j+1 both compute j+1 tiles, 4096 · 64 · 65 / 2 pairs vs 4096 · 4097 / 2 visible.
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4096, 4096, 128, true), 4096.0 * 64 * 65 / 2);
  EXPECT_NEAR(flash_computed_pairs(4096, 4096, 128, true) / attention_pairs(4096, 4096, true),
              1.0154, 1e-4);
  // d 64, Bc 128: warps 4j .. 4j+3 compute j+1 tiles, 4096 · 128 · 33 / 2 pairs.
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4096, 4096, 64, true), 4096.0 * 128 * 33 / 2);
  EXPECT_NEAR(flash_computed_pairs(4096, 4096, 64, true) / attention_pairs(4096, 4096, true),
              1.0310, 1e-4);
  // d 96 has d 128's tiles (Br 128, 32-row warps, Bc 64).
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4097, 4097, 96, false), 4224.0 * 4160);
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4096, 4096, 96, true), 4096.0 * 64 * 65 / 2);
  // d 256: Br 64, 16-row warps, Bc 32. 4097 rows pad to 65 · 64 = 4160, keys to 129 · 32 = 4128.
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4096, 4096, 256, false), 4096.0 * 4096);
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4097, 4097, 256, false), 4160.0 * 4128);
  // Causal: warps 2j and 2j+1 (16 rows each) both compute j+1 tiles of 32 keys, 4096 · 32 · 129 / 2
  // pairs; at L = 1000, 3.0% fewer than d 128's tiles would compute.
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4096, 4096, 256, true), 4096.0 * 32 * 129 / 2);
  EXPECT_NEAR(flash_computed_pairs(4096, 4096, 256, true) / attention_pairs(4096, 4096, true),
              1.0076, 1e-4);
  EXPECT_NEAR(
      flash_computed_pairs(1000, 1000, 128, true) / flash_computed_pairs(1000, 1000, 256, true),
      1.0303, 1e-4);
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
  // d = 256: the kernel's Br is 64 (Bc 32), the paper's min(ceil(116,736 / 1024), 256) = 114.
  Shape wide = s;
  wide.head_dim = 256;
  const FlashIoBound io256 = flash_io_bound(wide, 228.0 * 1024);
  EXPECT_EQ(io256.paper_query_tile_rows, 114);
  EXPECT_EQ(io256.kernel_query_tile_rows, 64);
  EXPECT_EQ(io256.kernel_key_tile_cols, 32);
  EXPECT_DOUBLE_EQ(io256.kernel_io_bytes,
                   2 * 16 * 4096.0 * 256 * 2 + 4 * 16 * 4096.0 + 64 * 2 * kv_pass);
  EXPECT_DOUBLE_EQ(io256.kernel_io_bytes,
                   analytic_model("flash_attention", wide).implemented_dram_bytes);
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

// Llama 3.1 8B's KV cache: 32 layers, H_kv = 8, d = 128, bf16, pages of 16 (vLLM's default block
// size), a contiguous allocator reserving 131072 positions (its max_position_embeddings).
KvCapacitySpec llama_8b_kv(double budget_bytes) {
  KvCapacitySpec s;
  s.layers = 32;
  s.kv_heads = 8;
  s.head_dim = 128;
  s.kv_element_bytes = 2;
  s.page_size = 16;
  s.max_model_len = 131072;
  s.budget_bytes = budget_bytes;
  return s;
}

constexpr double kGiB = 1073741824.0;

// memory_model.hpp's worked example: 2·32·8·128·2 = 131072 B per position, 2 MiB pages; 40 GiB
// = 20480 pages; a contiguous sequence reserves 131072 × 131072 B = 16 GiB, so 2 fit.
TEST(KvCapacity, WorkedExampleLlama8b) {
  const KvCapacity c = kv_capacity(llama_8b_kv(40 * kGiB), {500, 4352, 33280, 131072});
  EXPECT_DOUBLE_EQ(c.bytes_per_position, 131072.0);
  EXPECT_DOUBLE_EQ(c.page_bytes, 2097152.0);
  EXPECT_EQ(c.total_pages, 20480);
  ASSERT_EQ(c.rows.size(), 4u);
  const KvCapacityRow& chat = c.rows[0];
  EXPECT_EQ(chat.pages_per_sequence, 32);  // ceil(500 / 16)
  EXPECT_EQ(chat.contiguous_sequences, 2);
  EXPECT_EQ(chat.paged_sequences, 640);  // 20480 / 32
  EXPECT_DOUBLE_EQ(chat.contiguous_bytes_per_sequence, 16 * kGiB);
  EXPECT_DOUBLE_EQ(chat.paged_bytes_per_sequence, 32 * 2097152.0);
  EXPECT_DOUBLE_EQ(chat.contiguous_waste_fraction, 1.0 - 500.0 / 131072.0);
  EXPECT_DOUBLE_EQ(chat.paged_waste_fraction, 12.0 / 512.0);  // 12 unused slots of 512
  EXPECT_EQ(c.rows[1].pages_per_sequence, 272);               // 4352 = 272 whole pages: no waste
  EXPECT_EQ(c.rows[1].paged_sequences, 75);                   // floor(20480 / 272 = 75.3)
  EXPECT_DOUBLE_EQ(c.rows[1].paged_waste_fraction, 0.0);
  EXPECT_EQ(c.rows[2].pages_per_sequence, 2080);
  EXPECT_EQ(c.rows[2].paged_sequences, 9);  // floor(9.85)
  // At the longest length paging buys nothing: both hold 16 GiB per sequence.
  EXPECT_EQ(c.rows[3].paged_sequences, 2);
  EXPECT_EQ(c.rows[3].contiguous_sequences, 2);
  EXPECT_DOUBLE_EQ(c.rows[3].contiguous_waste_fraction, 0.0);
}

TEST(KvCapacity, Fp8HalvesBytesAndLargerPagesWasteMore) {
  KvCapacitySpec s = llama_8b_kv(40 * kGiB);
  s.kv_element_bytes = 1;  // fp8_e4m3: twice the pages in the same budget
  const KvCapacity fp8 = kv_capacity(s, {500});
  EXPECT_DOUBLE_EQ(fp8.bytes_per_position, 65536.0);
  EXPECT_EQ(fp8.total_pages, 40960);
  EXPECT_EQ(fp8.rows[0].paged_sequences, 1280);
  EXPECT_EQ(fp8.rows[0].contiguous_sequences, 5);  // 40 GiB / 8 GiB
  // L = 513 needs 33 pages of 16 (620 sequences) but 5 pages of 128 (512): the last page's tail.
  s.kv_element_bytes = 2;
  EXPECT_EQ(kv_capacity(s, {513}).rows[0].paged_sequences, 620);
  s.page_size = 128;
  const KvCapacity big = kv_capacity(s, {513});
  EXPECT_EQ(big.total_pages, 2560);
  EXPECT_EQ(big.rows[0].pages_per_sequence, 5);
  EXPECT_EQ(big.rows[0].paged_sequences, 512);
  EXPECT_DOUBLE_EQ(big.rows[0].paged_waste_fraction, 1.0 - 513.0 / 640.0);
}

TEST(KvCapacity, BudgetBelowOneSequence) {
  // 1 GiB holds 512 pages but not one 16 GiB contiguous reservation.
  const KvCapacity c = kv_capacity(llama_8b_kv(kGiB), {33280});
  EXPECT_EQ(c.total_pages, 512);
  EXPECT_EQ(c.rows[0].contiguous_sequences, 0);
  EXPECT_EQ(c.rows[0].paged_sequences, 0);  // 2080 pages needed
}

TEST(KvCapacity, BadInputNamesTheFlag) {
  const KvCapacitySpec s = llama_8b_kv(40 * kGiB);
  EXPECT_NE(bad_input_message([&] {
              kv_capacity(s, {131073});
            }).find("invalid --kv-lengths 131073: a sequence holds 1 .. --max-model-len 131072"),
            std::string::npos);
  KvCapacitySpec bad = s;
  bad.page_size = 24;
  EXPECT_NE(bad_input_message([&] {
              kv_capacity(bad, {500});
            }).find("invalid page size 24 (--page-size): allowed 16, 32, 64, 128"),
            std::string::npos);
  bad = s;
  bad.budget_bytes = 0;
  EXPECT_NE(bad_input_message([&] { kv_capacity(bad, {500}); }).find("budget 0 bytes"),
            std::string::npos);
  bad = s;
  bad.layers = 0;
  EXPECT_NE(bad_input_message([&] { kv_capacity(bad, {500}); }).find("invalid layers 0 (--layers)"),
            std::string::npos);
}

// Llama 3.1 8B: per layer 4096·(32 + 16)·128 + 4096·4096 + 3·4096·14336 + 2·4096 = 218,112,000
// parameters; 32 layers and two 128256 × 4096 tables give 8,030,257,152 (the published 8.03 B).
TEST(KvCapacity, WeightsAndTheBudgetLeft) {
  const ModelPreset& llama = find_model_preset("llama-3.1-8b");
  EXPECT_DOUBLE_EQ(model_weight_bytes(llama, 32), 2.0 * 8030257152.0);
  EXPECT_DOUBLE_EQ(model_weight_bytes(llama, 1), 2.0 * (218112000.0 + 2 * 128256.0 * 4096));
  // Gemma 2 9B ties its LM head to the embedding: per layer 3584·(16 + 16)·256 + 4096·3584 +
  // 3·3584·14336 + 2·3584 = 198,188,032 parameters, 42 layers and one 256000 × 3584 table give
  // 9,241,401,344: the paper's 9,241,705,984 (arXiv:2408.00118, Table 1) less the 304,640 of the
  // post-norms and the final norm, which the layer model leaves out.
  const ModelPreset& gemma = find_model_preset("gemma-2-9b");
  ASSERT_TRUE(gemma.tied_embeddings);
  EXPECT_DOUBLE_EQ(model_weight_bytes(gemma, 42), 2.0 * 9241401344.0);
  // GPT-2 small: what is left after the layers is one 50257 × 768 bf16 table; Llama keeps two.
  const ModelPreset& gpt2 = find_model_preset("gpt2");
  const double gpt2_layer = model_weight_bytes(gpt2, 2) - model_weight_bytes(gpt2, 1);
  EXPECT_DOUBLE_EQ(model_weight_bytes(gpt2, 1) - gpt2_layer, 50257.0 * 768 * 2);
  const double llama_layer = model_weight_bytes(llama, 2) - model_weight_bytes(llama, 1);
  EXPECT_DOUBLE_EQ(model_weight_bytes(llama, 1) - llama_layer, 2 * 128256.0 * 4096 * 2);
  // H100 SXM: 80 GiB; 0.9 × 85899345920 − 16060514304 = 61248897024 B = 29205 pages of 2 MiB.
  const double budget = kv_budget_after_weights(85899345920.0, 0.9, 2.0 * 8030257152.0);
  EXPECT_DOUBLE_EQ(budget, 61248897024.0);
  const KvCapacity c = kv_capacity(llama_8b_kv(budget), {500});
  EXPECT_EQ(c.total_pages, 29205);
  EXPECT_EQ(c.rows[0].paged_sequences, 912);
  EXPECT_EQ(c.rows[0].contiguous_sequences, 3);
  EXPECT_NE(bad_input_message([] {
              kv_budget_after_weights(85899345920.0, 0.18, 16060514304.0);
            }).find("no memory left for the KV cache: 0.18 x 85.90 GB of device memory - 16.06 GB"),
            std::string::npos);
  EXPECT_NE(bad_input_message([] {
              kv_budget_after_weights(8e10, 1.5, 1e9);
            }).find("invalid --gpu-memory-utilization 1.5"),
            std::string::npos);
}

}  // namespace
}  // namespace rooflinectl
