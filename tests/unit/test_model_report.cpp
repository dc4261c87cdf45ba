// `rooflinectl model` on the H200 SXM spec: predictions at hand-computed values, the memory table
// with the worked example's numbers in the printed text, and JSON without NaN or missing keys.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/sweep_config.hpp"
#include "device/gpu_spec.hpp"
#include "model/prediction.hpp"
#include "render/model_writer.hpp"

namespace rooflinectl {
namespace {

const std::vector<std::pair<std::string, Pipe>> kOps = {{"naive_attention", Pipe::kTensor},
                                                        {"flash_attention", Pipe::kTensor},
                                                        {"gemm", Pipe::kTensor},
                                                        {"gelu", Pipe::kFp32},
                                                        {"layernorm", Pipe::kFp32},
                                                        {"decode_attention", Pipe::kFp32}};

ModelReport h200_report(Dtype dtype, std::vector<int64_t> seq_lens) {
  SweepConfig config = default_sweep_config();
  config.base.dtype = dtype;
  config.seq_lens = std::move(seq_lens);
  return build_model_report(config, kOps, find_gpu_spec("h200-sxm"));
}

const Prediction& find(const ModelReport& r, const std::string& op, int64_t l) {
  for (const auto& p : r.points) {
    if (p.op == op && p.shape.seq_len == l) return p;
  }
  throw std::runtime_error("no prediction for " + op);
}

TEST(ModelReport, PredictionsOnH200) {
  const ModelReport r = h200_report(Dtype::kBf16, {4096});
  const Prediction& gemm = find(r, "gemm", 4096);
  ASSERT_TRUE(gemm.roof.has_value());
  EXPECT_DOUBLE_EQ(gemm.roof->peak_flop_per_s, 989.5e12);
  EXPECT_NEAR(*gemm.ridge_flop_per_byte, 206.1, 0.1);
  // 137.4 GFLOP over 117.4 MB: 1170 FLOP/B, compute-bound; ≥ 137.4e9 / 989.5e12 = 138.9 µs.
  EXPECT_NEAR(gemm.min_intensity_flop_per_byte, 1170.3, 0.1);
  EXPECT_EQ(*gemm.bound, Bound::kCompute);
  EXPECT_NEAR(*gemm.time_lower_bound_s, 1.374389534720e11 / 989.5e12, 1e-12);

  // Naive attention as implemented: I → d/e = 64 FLOP/B (S and P), below the ridge.
  const Prediction& naive = find(r, "naive_attention", 4096);
  EXPECT_NEAR(naive.implemented_intensity_flop_per_byte, 62.1, 0.1);
  EXPECT_EQ(*naive.bound, Bound::kMemory);
  EXPECT_EQ(*naive.min_bound, Bound::kCompute);  // what FlashAttention's minimum bytes allow
  EXPECT_NEAR(*naive.attainable_flop_per_s, naive.implemented_intensity_flop_per_byte * 4.8e12, 1);

  // Decode on the fp32 roof: ~1 FLOP/B with H_kv = H, memory-bound at 67 / 4.8 = 14 FLOP/B ridge.
  const Prediction& decode = find(r, "decode_attention", 4096);
  EXPECT_EQ(decode.pipe, Pipe::kFp32);
  EXPECT_NEAR(decode.min_intensity_flop_per_byte, 1.0, 0.01);
  EXPECT_NEAR(*decode.ridge_flop_per_byte, 67.0 / 4.8, 1e-9);
  EXPECT_EQ(*decode.bound, Bound::kMemory);
  EXPECT_NEAR(*decode.time_lower_bound_s, decode.analytic.min_dram_bytes / 4.8e12, 1e-15);
}

TEST(ModelReport, GqaRaisesDecodeIntensityByTheGroupSize) {
  SweepConfig config = default_sweep_config();
  config.seq_lens = {8192};
  config.base.kv_heads = 2;  // g = 8
  const ModelReport r = build_model_report(config, kOps, find_gpu_spec("h200-sxm"));
  EXPECT_NEAR(find(r, "decode_attention", 8192).min_intensity_flop_per_byte, 8.0, 0.05);
}

TEST(ModelReport, MemoryTableHasTheSeedsNumbers) {
  const ModelReport r = h200_report(Dtype::kFp16, {4096, 8192});
  ASSERT_EQ(r.memory.size(), 2u);
  EXPECT_DOUBLE_EQ(r.memory[0].s_bytes_per_head, 33554432.0);
  const std::string text = format_model_table(r);
  EXPECT_NE(text.find("33.6 MB"), std::string::npos) << text;  // S per head, L = 4096
  EXPECT_NE(text.find("67.1 MB"), std::string::npos) << text;  // S + P per head
  EXPECT_NE(text.find("268 MB"), std::string::npos) << text;   // S + P per head, L = 8192
  EXPECT_NE(text.find("NVIDIA H200 SXM 141GB"), std::string::npos);
  EXPECT_NE(text.find("ridge 206.1"), std::string::npos) << text;
  EXPECT_NE(text.find("largest L for naive attention"), std::string::npos);
  EXPECT_NE(text.find("flash attention IO bound"), std::string::npos);
  // 141 GiB holds naive attention (16 heads) up to L ≈ 48.6k, so every listed L fits.
  EXPECT_GT(r.max_naive_seq_len, 40000);
  EXPECT_LT(r.max_naive_seq_len, 60000);
}

// A decode-only question gets the KV cache per layer, not naive attention's S and P, and no layer
// widths line (no operator of it runs at d_model or ffn_dim): a trial found both printed.
TEST(ModelReport, DecodeAloneShowsItsKvCacheOnly) {
  SweepConfig config = default_sweep_config();
  config.seq_lens = {4096, 32768};
  config.base.batch = 8;
  config.base.heads = 32;
  config.base.kv_heads = 8;
  const ModelReport r =
      build_model_report(config, {{"decode_attention", Pipe::kTensor}}, find_gpu_spec("h100-sxm"));
  const std::string text = format_model_table(r);
  EXPECT_EQ(text.find("largest L for naive attention"), std::string::npos) << text;
  EXPECT_EQ(text.find("S+P"), std::string::npos) << text;
  EXPECT_EQ(text.find("layer: d_model"), std::string::npos) << text;
  // 2·B·H_kv·L·d·2 bytes: 134 MB at L = 4096, 1.07 GB at 32768.
  EXPECT_NE(text.find("   4096     134 MB"), std::string::npos) << text;
  EXPECT_NE(text.find("  32768    1.07 GB"), std::string::npos) << text;
  EXPECT_NE(text.find("KV/layer = 2*B*H_kv*L*d*e"), std::string::npos) << text;
  // With an attention operator that has S and P, the table and the layer line come back.
  const ModelReport full = h200_report(Dtype::kBf16, {4096});
  EXPECT_NE(format_model_table(full).find("largest L for naive attention"), std::string::npos);
  EXPECT_NE(format_model_table(full).find("layer: d_model"), std::string::npos);
}

// Values from a few bytes to petabytes keep three significant digits and their unit, instead of
// "0.00" or "70368744.2" in a fixed MB or GFLOP column; the device memory is named in GiB and GB.
TEST(ModelReport, TinyAndHugeValuesKeepTheirDigitsAndUnits) {
  const ModelReport r = h200_report(Dtype::kBf16, {1, 1048576});
  const std::string text = format_model_table(r);
  EXPECT_NE(text.find("32.8 kFLOP"), std::string::npos) << text;  // gelu at L = 1: 2048*16 FLOP
  EXPECT_NE(text.find("6.8 ns"), std::string::npos) << text;      // its 32.8 kB at 4.8 TB/s
  EXPECT_NE(text.find("9.01 PFLOP"), std::string::npos) << text;  // flash at L = 1048576
  EXPECT_NE(text.find("70.4 TB"), std::string::npos) << text;     // S + P of all heads
  EXPECT_NE(text.find("2.00 B"), std::string::npos) << text;      // S per head at L = 1
  EXPECT_EQ(text.find(" 0.00 "), std::string::npos) << text;
  EXPECT_EQ(text.find("70368744"), std::string::npos) << text;
  EXPECT_NE(text.find("in 141.0 GiB = 151.4 GB of device memory"), std::string::npos) << text;
}

TEST(ModelReport, JsonIsCompleteAndFinite) {
  const ModelReport r = h200_report(Dtype::kBf16, {512, 32768});
  const nlohmann::ordered_json j = model_report_to_json(r);
  EXPECT_EQ(j.begin().key(), "model_schema_version");
  EXPECT_EQ(j["gpu"]["id"], "h200-sxm");
  EXPECT_EQ(j["gpu"]["dense_tensor_flop_per_s"]["bf16"]["value"], 989.5e12);
  EXPECT_FALSE(j["gpu"]["hbm_bytes_per_s"]["source"].get<std::string>().empty());
  EXPECT_EQ(j["points"].size(), 12u);
  EXPECT_EQ(j["memory"].size(), 2u);
  EXPECT_EQ(j["flash_io"].size(), 2u);
  const std::string text = model_report_to_json_text(r);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("Infinity"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(text)["points"][0]["bound"], "memory");  // naive at 512
}

TEST(ModelReport, MissingFigureIsNullWithAReason) {
  GpuSpec gpu = find_gpu_spec("l40s");  // no FP64 and (here removed) no FP32 figure
  gpu.fp32_flop_per_s = SpecValue{};
  SweepConfig config = default_sweep_config();
  config.seq_lens = {1024};
  const ModelReport r = build_model_report(config, kOps, gpu);
  const Prediction& gelu = find(r, "gelu", 1024);
  EXPECT_FALSE(gelu.roof.has_value());
  EXPECT_FALSE(gelu.attainable_flop_per_s.has_value());
  EXPECT_NE(gelu.roof_null_reason.find("FP32"), std::string::npos);
  const auto j = model_report_to_json(r);
  bool found = false;
  for (const auto& p : j["points"]) {
    if (p["op"] == "gelu") {
      EXPECT_TRUE(p["attainable_flop_per_s"].is_null());
      EXPECT_FALSE(p["attainable_flop_per_s_null_reason"].get<std::string>().empty());
      found = true;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_NE(format_model_table(r).find("no roof:"), std::string::npos);
}

// The KV-cache capacity section: absent (null with a reason) unless asked for; with a budget from
// the GPU, its origin in the table and in JSON.
TEST(ModelReport, KvCapacityTableAndJson) {
  ModelReport r = h200_report(Dtype::kBf16, {4096});
  EXPECT_EQ(format_model_table(r).find("KV-cache capacity"), std::string::npos);
  nlohmann::ordered_json j = model_report_to_json(r);
  EXPECT_TRUE(j["kv_capacity"].is_null());
  EXPECT_FALSE(j["kv_capacity_null_reason"].get<std::string>().empty());

  KvCapacitySpec s;
  s.layers = 32;
  s.kv_heads = 8;
  s.head_dim = 128;
  s.max_model_len = 131072;
  s.budget_bytes = 40.0 * 1073741824.0;
  r.kv_capacity = kv_capacity(s, {500, 131072});
  std::string text = format_model_table(r);
  EXPECT_NE(text.find("2*32*8*128*2 = 131072 B; page of 16 positions: 2.10 MB"), std::string::npos)
      << text;
  EXPECT_NE(text.find("budget: 40.00 GiB = 42.95 GB (--kv-budget-gib)"), std::string::npos);
  EXPECT_NE(text.find("pages in the budget: 20480"), std::string::npos);
  EXPECT_NE(text.find("      500        32           2        640       320.0x        99.6%"),
            std::string::npos)
      << text;
  j = model_report_to_json(r);
  EXPECT_EQ(j["kv_capacity"]["budget_source"], "kv_budget_gib");
  EXPECT_TRUE(j["kv_capacity"]["weight_bytes"].is_null());
  EXPECT_EQ(j["kv_capacity"]["total_pages"], 20480);
  EXPECT_EQ(j["kv_capacity"]["rows"][0]["paged_sequences"], 640);
  EXPECT_EQ(j["kv_capacity"]["rows"][1]["contiguous_sequences"], 2);

  r.kv_budget_utilization = 0.9;
  r.kv_budget_weight_bytes = 16060514304.0;
  text = format_model_table(r);
  EXPECT_NE(text.find("x 151.40 GB (h200-sxm) - 16.06 GB of bf16 weights"), std::string::npos)
      << text;
  j = model_report_to_json(r);
  EXPECT_EQ(j["kv_capacity"]["budget_source"], "gpu_memory_minus_weights");
  EXPECT_EQ(j["kv_capacity"]["gpu_memory_utilization"], 0.9);
  EXPECT_EQ(j["kv_capacity"]["weight_bytes"], 16060514304.0);
}

}  // namespace
}  // namespace rooflinectl
