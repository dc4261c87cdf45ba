// Attention with a query length other than L (--q-len, Shape::q_len): the axis and its plan (a
// chunk longer than L has no point, one of L is the full prefill), its config, report and filter
// forms, and the analytic FLOPs and bytes of naive and flash attention at L_q ≠ L.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bad_input_message.hpp"
#include "core/error.hpp"
#include "core/point_filter.hpp"
#include "core/sweep_axes.hpp"
#include "core/sweep_config.hpp"
#include "core/sweep_plan.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "model/memory_model.hpp"
#include "model/operator_model.hpp"
#include "result/point_key.hpp"
#include "result/tokens_per_second.hpp"

namespace rooflinectl {
namespace {

SweepConfig config_of(const std::string& json) { return parse_sweep_config(json, "c.json"); }

/// "op q=Q L=L" of each planned point (q=L for the full prefill).
std::vector<std::string> point_texts(const SweepConfig& config) {
  std::vector<std::string> out;
  for (const PlannedPoint& p : plan_all_points(config)) {
    out.push_back(p.op + " q=" + axis_value_text(SweepAxis::kQLen, p.shape) +
                  " L=" + std::to_string(p.shape.seq_len));
  }
  return out;
}

Shape chunk_shape(int64_t q_len, int64_t seq_len, bool causal) {
  Shape s;
  s.batch = 2;
  s.heads = 8;
  s.kv_heads = 2;
  s.head_dim = 128;
  s.seq_len = seq_len;
  s.q_len = q_len;
  s.causal = causal;
  return s;
}

// Visible pairs by brute force: query i of L_q sees key j of L_k iff j <= i + L_k - L_q.
double counted_pairs(int64_t q_len, int64_t kv_len, bool causal) {
  double pairs = 0;
  for (int64_t i = 0; i < q_len; ++i) {
    for (int64_t j = 0; j < kv_len; ++j) pairs += !causal || j <= i + kv_len - q_len ? 1 : 0;
  }
  return pairs;
}

TEST(QueryLen, ParsesIntegersAndL) {
  EXPECT_EQ(parse_q_len_list("512,L,1"), (std::vector<int64_t>{512, 0, 1}));
  EXPECT_EQ(bad_input_message([] { parse_q_len_list("L,0"); }),
            "invalid --q-len 'L,0': 0 is listed more than once (0 and L both mean L_q = L)");
  EXPECT_EQ(bad_input_message([] { parse_q_len_list("512,half"); }),
            "invalid --q-len '512,half': 'half' is neither an integer nor L (L_q = L, the full "
            "prefill)");
  EXPECT_EQ(bad_input_message([] { parse_q_len_list("99999999999999999999"); }),
            "invalid --q-len '99999999999999999999': 99999999999999999999 is out of range "
            "(allowed 1 to L, or L)");
  EXPECT_EQ(axis_name(SweepAxis::kQLen), "q_len");
  EXPECT_EQ(axis_flag(SweepAxis::kQLen), "--q-len");
  EXPECT_TRUE(operator_uses_axis("flash_attention", SweepAxis::kQLen));
  EXPECT_TRUE(operator_uses_axis("naive_attention", SweepAxis::kQLen));
  EXPECT_FALSE(operator_uses_axis("decode_attention", SweepAxis::kQLen));
  EXPECT_FALSE(operator_uses_axis("gemm", SweepAxis::kQLen));
}

// q_len is the innermost axis before L; L shorter than the chunk has no point, L equal to it is
// the full prefill (q_len 0); with L in the list too it is not planned twice; the other
// operators run once at q_len 0.
TEST(QueryLen, PlanSkipsLongerChunksAndSettlesEqualOnes) {
  const SweepConfig c = config_of(
      R"({"ops": ["flash_attention", "gemm"], "seq": "256,512,1024", "q_len": [512, 0]})");
  EXPECT_EQ(point_texts(c),
            (std::vector<std::string>{"flash_attention q=512 L=1024", "flash_attention q=L L=256",
                                      "flash_attention q=L L=512", "flash_attention q=L L=1024",
                                      "gemm q=L L=256", "gemm q=L L=512", "gemm q=L L=1024"}));
  // Without L in the list, L = 512 is planned once, as the full prefill.
  const SweepConfig one = config_of(R"({"ops": ["naive_attention"], "seq": "256,512,1024",
                                        "q_len": 512})");
  EXPECT_EQ(point_texts(one), (std::vector<std::string>{"naive_attention q=L L=512",
                                                        "naive_attention q=512 L=1024"}));
  Shape s = c.base;
  s.q_len = 512;
  EXPECT_EQ(swept_axes_label(c.axes, "flash_attention", s), "q=512");
  s.q_len = 0;
  EXPECT_EQ(swept_axes_label(c.axes, "flash_attention", s), "q=L");
  EXPECT_EQ(swept_axes_label(c.axes, "gemm", s), "");
  EXPECT_EQ(axis_summary(c.axes, c.base, SweepAxis::kQLen), "{512, L}");
}

TEST(QueryLen, ConfigIsChecked) {
  EXPECT_EQ(bad_input_message([] {
              validate_sweep_config(config_of(R"({"ops": ["flash_attention"], "seq": "512",
                                                  "q_len": 1024})"));
            }),
            "invalid q-len 1024 (--q-len): allowed L (or 0) or 1 to the longest --seq length, "
            "512 (a query chunk is part of the L keys it attends to)");
  EXPECT_EQ(bad_input_message([] {
              validate_sweep_config(config_of(R"({"ops": ["decode_attention", "gemm"],
                                                  "seq": "512", "q_len": [128, 0]})"));
            }),
            "invalid q-len 128,L (--q-len): it sets the query length of naive_attention and "
            "flash_attention, and the operators (--ops) include neither (decode_attention has "
            "one query by definition)");
  EXPECT_THROW(config_of(R"({"q_len": -1})"), Error);
  EXPECT_NO_THROW(validate_sweep_config(
      config_of(R"({"ops": ["flash_attention", "gemm"], "seq": "512,4096", "q_len": 1024})")));
  Shape s = chunk_shape(513, 512, false);
  EXPECT_EQ(bad_input_message([&] { validate_common_shape(s); }),
            "invalid q-len 513 (--q-len): allowed L (or 0) or 1 to L = 512 (the query chunk is "
            "part of the L keys it attends to)");
}

TEST(QueryLen, ReportConfigKeyAndFilterRoundTrip) {
  const SweepConfig c =
      config_of(R"({"ops": ["flash_attention"], "seq": "512,2048", "q_len": [128, 0]})");
  EXPECT_EQ(sweep_config_to_json(c)["q_len"], nlohmann::ordered_json::array({128, 0}));
  EXPECT_FALSE(sweep_config_to_json(default_sweep_config()).contains("q_len"));
  const SweepConfig back = parse_sweep_config(sweep_config_file_json(c).dump(), "workers.json");
  EXPECT_EQ(back.axes.q_len, c.axes.q_len);
  // q_len compares the query length itself (L for the full prefill); q_len=L the full prefill.
  SweepConfig filtered = c;
  filtered.filter = "q_len<=512";
  EXPECT_EQ(point_texts(filtered),
            (std::vector<std::string>{"flash_attention q=128 L=512", "flash_attention q=128 L=2048",
                                      "flash_attention q=L L=512"}));
  filtered.filter = "q_len!=L";
  EXPECT_EQ(plan_all_points(filtered).size(), 2u);
  EXPECT_EQ(bad_input_message([] { parse_point_filter("q_len<L"); }),
            "invalid --filter 'q_len<L': term 'q_len<L': q_len compares with L by = or != only, "
            "not '<' (q_len=L keeps the full prefill, q_len!=L the chunks; q_len<=N compares the "
            "query length with an integer)");
  // A chunk is its own point: the key tells it from the full prefill at the same L.
  PointResult full;
  full.op = "flash_attention";
  full.shape = chunk_shape(0, 2048, true);
  PointResult chunk = full;
  chunk.shape.q_len = 128;
  EXPECT_FALSE(point_key(full).same_point(point_key(chunk)));
  EXPECT_EQ(shape_variant_label(chunk.shape), " q=128");
  EXPECT_EQ(shape_variant_label(full.shape), "");
}

TEST(QueryLen, AttentionPairsMatchBruteForce) {
  for (const bool causal : {false, true}) {
    for (const auto [q, k] : {std::pair<int64_t, int64_t>{1, 1},
                              {1, 37},
                              {5, 37},
                              {37, 37},
                              {100, 1000},
                              {64, 65},
                              {50, 20}}) {
      SCOPED_TRACE(std::to_string(q) + " over " + std::to_string(k) + (causal ? " causal" : ""));
      EXPECT_DOUBLE_EQ(attention_pairs(q, k, causal), counted_pairs(q, k, causal));
    }
  }
}

// Query tile t (Br rows) of a chunk streams keys up to its last row's diagonal: min((t+1)·Br,
// L_q) + L − L_q.
TEST(QueryLen, FlashStreamedKeysAndComputedPairsFollowTheDiagonal) {
  EXPECT_DOUBLE_EQ(flash_streamed_keys(200, 1000, false, 128), 2.0 * 1000);
  EXPECT_DOUBLE_EQ(flash_streamed_keys(200, 1000, true, 128), (128.0 + 800) + (200.0 + 800));
  EXPECT_DOUBLE_EQ(flash_streamed_keys(1000, 1000, true, 128),
                   flash_streamed_keys(1000, 1000, true, 128));
  // L_q > L_k: the first tile's rows see no key (clamped at 0).
  EXPECT_DOUBLE_EQ(flash_streamed_keys(300, 100, true, 128), 0.0 + 56 + 100);
  EXPECT_THROW(flash_streamed_keys(0, 100, true, 128), Error);
  // Warps of 32 rows, key tiles of 64 at d = 128: a 100-row chunk over 1000 keys, causal, is
  // 4 warps with key ends 932, 964, 996, 1000 → 15, 16, 16, 16 tiles (128 rows padded).
  EXPECT_DOUBLE_EQ(flash_computed_pairs(100, 1000, 128, true), 32.0 * 64 * (15 + 16 + 16 + 16));
  EXPECT_DOUBLE_EQ(flash_computed_pairs(100, 1000, 128, false), 128.0 * 1024);
  EXPECT_DOUBLE_EQ(flash_computed_pairs(4096, 4096, 128, false), 4096.0 * 4096);
}

TEST(QueryLen, NaiveAndFlashModelsCountTheChunk) {
  const Shape s = chunk_shape(512, 8192, true);
  const double b = 2, h = 8, hkv = 2, d = 128, e = 2, q = 512, l = 8192;
  const AnalyticResult naive = analytic_model("naive_attention", s);
  EXPECT_DOUBLE_EQ(naive.flop, 4 * b * h * q * l * d);
  EXPECT_DOUBLE_EQ(naive.min_dram_bytes, (2 * b * h * q + 2 * b * hkv * l) * d * e);
  EXPECT_DOUBLE_EQ(naive.implemented_dram_bytes, naive.min_dram_bytes + 4 * b * h * q * l * e);
  EXPECT_NE(naive.flop_formula.find("L_q*L"), std::string::npos);
  const AnalyticResult flash = analytic_model("flash_attention", s);
  EXPECT_DOUBLE_EQ(flash.flop, 4 * b * h * d * (q * l - q * (q - 1) / 2));
  EXPECT_DOUBLE_EQ(flash.min_dram_bytes, (2 * b * h * q + 2 * b * hkv * l) * d * e + 4 * b * h * q);
  // Four query tiles of 128 rows, key ends 7808, 7936, 8064, 8192.
  EXPECT_DOUBLE_EQ(
      flash.implemented_dram_bytes,
      2 * b * h * q * d * e + 4 * b * h * q + 2 * b * h * d * e * (7808.0 + 7936 + 8064 + 8192));
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("flash_attention", s), b * h * q * d * e + 4 * b * h * q);
  // A chunk processes its L_q new tokens per sequence.
  EXPECT_DOUBLE_EQ(tokens_per_second("flash_attention", s, 0.5), 2 * b * q);
  EXPECT_DOUBLE_EQ(tokens_per_second("gemm", s, 0.5), 2 * b * l);
  // The full prefill at the same L is unchanged by the chunk code.
  Shape full = s;
  full.q_len = 0;
  EXPECT_DOUBLE_EQ(analytic_model("flash_attention", full).flop, 4 * b * h * d * l * (l + 1) / 2);
  EXPECT_EQ(analytic_model("flash_attention", full).flop_formula,
            "4*B*H*d*L*(L+1)/2 (visible pairs, bottom-right causal mask)");
  // At d = 256 the formula says whose tiles it counts: v2's 64 rows, v3's 128 on cc 9.0.
  EXPECT_EQ(analytic_model("flash_attention", full).bytes_formula.find("v3"), std::string::npos);
  full.head_dim = 256;
  EXPECT_NE(
      analytic_model("flash_attention", full).bytes_formula.find("Br = 64 is flash_attention_v2"),
      std::string::npos);
}

TEST(QueryLen, NaiveMemoryHoldsAnLqByLScoreMatrix) {
  Shape s = chunk_shape(512, 8192, false);
  const AttentionMemory m = attention_memory(s);
  EXPECT_DOUBLE_EQ(m.s_bytes_per_head, 512.0 * 8192 * 2);
  EXPECT_DOUBLE_EQ(m.qkvo_bytes, (2.0 * 2 * 8 * 512 + 2.0 * 2 * 2 * 8192) * 128 * 2);
  // Footprint linear in L at a fixed chunk: the largest L fits, L + 1 does not.
  const double memory = 80e9;
  const int64_t l = max_naive_attention_seq_len(s, memory);
  const auto footprint = [&](int64_t len) {
    Shape at = s;
    at.seq_len = len;
    return attention_memory(at).naive_attention_bytes;
  };
  EXPECT_LE(footprint(l), memory);
  EXPECT_GT(footprint(l + 1), memory);
  EXPECT_GT(l, max_naive_attention_seq_len(chunk_shape(0, 1, false), memory));
  // A budget below the chunk's own L = L_q footprint fits nothing.
  EXPECT_EQ(max_naive_attention_seq_len(s, footprint(512) / 2), 0);
}

}  // namespace
}  // namespace rooflinectl
