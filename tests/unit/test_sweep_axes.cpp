// Shape axes swept as lists (core/sweep_axes.hpp, core/sweep_plan.hpp): config-file arrays, the
// product's documented order, axes an operator does not use, refused combinations, sharding of a
// product, and the report's record of the lists.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "bad_input_message.hpp"
#include "core/error.hpp"
#include "core/shard.hpp"
#include "core/sweep_axes.hpp"
#include "core/sweep_config.hpp"
#include "core/sweep_plan.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"

namespace rooflinectl {
namespace {

SweepConfig config_of(const std::string& json) { return parse_sweep_config(json, "c.json"); }

/// "op B H H_kv d dtype causal gelu L" of each point, for order checks.
std::vector<std::string> point_texts(const SweepConfig& config) {
  std::vector<std::string> out;
  for (const PlannedPoint& p : plan_all_points(config)) {
    const Shape& s = p.shape;
    out.push_back(p.op + " " + std::to_string(s.batch) + " " + std::to_string(s.heads) + " " +
                  std::to_string(s.kv_heads) + " " + std::to_string(s.head_dim) + " " +
                  to_string(s.dtype) + " " + (s.causal ? "on" : "off") + " " +
                  to_string(s.gelu_form) + " " + std::to_string(s.seq_len));
  }
  return out;
}

TEST(SweepAxes, ScalarsKeepTheOldPlan) {
  const SweepConfig c = config_of(R"({"ops": ["gemm", "gelu"], "seq": "512,1024", "batch": 4})");
  EXPECT_TRUE(c.axes.none());
  EXPECT_EQ(point_texts(c), (std::vector<std::string>{
                                "gemm 4 16 16 128 bf16 off erf 512",
                                "gemm 4 16 16 128 bf16 off erf 1024",
                                "gelu 4 16 16 128 bf16 off erf 512",
                                "gelu 4 16 16 128 bf16 off erf 1024",
                            }));
}

TEST(SweepAxes, ProductOrderIsDtypeOpAxesThenSeq) {
  const SweepConfig c = config_of(
      R"({"ops": ["flash_attention", "gemm"], "seq": "512,1024", "batch": [2, 1],
          "dtype": ["fp16", "bf16"], "causal": [false, true]})");
  EXPECT_EQ(c.base.batch, 2);  // the first value of each list
  EXPECT_EQ(c.base.dtype, Dtype::kFp16);
  EXPECT_EQ(point_texts(c), (std::vector<std::string>{
                                "flash_attention 2 16 16 128 fp16 off erf 512",
                                "flash_attention 2 16 16 128 fp16 off erf 1024",
                                "flash_attention 2 16 16 128 fp16 on erf 512",
                                "flash_attention 2 16 16 128 fp16 on erf 1024",
                                "flash_attention 1 16 16 128 fp16 off erf 512",
                                "flash_attention 1 16 16 128 fp16 off erf 1024",
                                "flash_attention 1 16 16 128 fp16 on erf 512",
                                "flash_attention 1 16 16 128 fp16 on erf 1024",
                                // gemm does not read causal: it runs once per batch, not twice
                                "gemm 2 16 16 128 fp16 off erf 512",
                                "gemm 2 16 16 128 fp16 off erf 1024",
                                "gemm 1 16 16 128 fp16 off erf 512",
                                "gemm 1 16 16 128 fp16 off erf 1024",
                                "flash_attention 2 16 16 128 bf16 off erf 512",
                                "flash_attention 2 16 16 128 bf16 off erf 1024",
                                "flash_attention 2 16 16 128 bf16 on erf 512",
                                "flash_attention 2 16 16 128 bf16 on erf 1024",
                                "flash_attention 1 16 16 128 bf16 off erf 512",
                                "flash_attention 1 16 16 128 bf16 off erf 1024",
                                "flash_attention 1 16 16 128 bf16 on erf 512",
                                "flash_attention 1 16 16 128 bf16 on erf 1024",
                                "gemm 2 16 16 128 bf16 off erf 512",
                                "gemm 2 16 16 128 bf16 off erf 1024",
                                "gemm 1 16 16 128 bf16 off erf 512",
                                "gemm 1 16 16 128 bf16 off erf 1024",
                            }));
  // Indices count the plan's points, 1-based.
  const std::vector<PlannedPoint> plan = plan_all_points(c);
  for (size_t i = 0; i < plan.size(); ++i) EXPECT_EQ(plan[i].index, i + 1);
}

TEST(SweepAxes, AxisOrderInsideAnOperator) {
  const SweepConfig c = config_of(
      R"({"ops": ["flash_attention"], "seq": "512", "heads": [32, 16], "kv_heads": [16, 8],
          "head_dim": [64, 128]})");
  const std::vector<std::string> texts = point_texts(c);
  ASSERT_EQ(texts.size(), 8u);
  EXPECT_EQ(texts[0], "flash_attention 1 32 16 64 bf16 off erf 512");
  EXPECT_EQ(texts[1], "flash_attention 1 32 16 128 bf16 off erf 512");
  EXPECT_EQ(texts[2], "flash_attention 1 32 8 64 bf16 off erf 512");
  EXPECT_EQ(texts[4], "flash_attention 1 16 16 64 bf16 off erf 512");
}

TEST(SweepAxes, AxesAnOperatorDoesNotUse) {
  EXPECT_FALSE(operator_uses_axis("gelu", SweepAxis::kCausal));
  EXPECT_FALSE(operator_uses_axis("gemm", SweepAxis::kKvHeads));
  EXPECT_FALSE(operator_uses_axis("decode_attention", SweepAxis::kCausal));
  EXPECT_FALSE(operator_uses_axis("flash_attention", SweepAxis::kGeluForm));
  EXPECT_TRUE(operator_uses_axis("gelu", SweepAxis::kGeluForm));
  // geglu's GELU follows --gelu-form; swiglu (SiLU) and rmsnorm have none.
  EXPECT_TRUE(operator_uses_axis("geglu", SweepAxis::kGeluForm));
  EXPECT_FALSE(operator_uses_axis("swiglu", SweepAxis::kGeluForm));
  EXPECT_FALSE(operator_uses_axis("rmsnorm", SweepAxis::kGeluForm));
  for (const char* op : {"rmsnorm", "swiglu", "geglu"}) {
    EXPECT_FALSE(operator_uses_axis(op, SweepAxis::kCausal)) << op;
    EXPECT_FALSE(operator_uses_axis(op, SweepAxis::kKvHeads)) << op;
    EXPECT_TRUE(operator_uses_axis(op, SweepAxis::kHeads)) << op;
  }
  EXPECT_TRUE(operator_uses_axis("layernorm", SweepAxis::kHeadDim));  // d_model = H·d
  const SweepConfig c = config_of(
      R"({"ops": ["gelu", "naive_attention"], "seq": "512", "causal": [false, true],
          "gelu_form": ["erf", "tanh"]})");
  EXPECT_EQ(point_texts(c), (std::vector<std::string>{
                                "gelu 1 16 16 128 bf16 off erf 512",
                                "gelu 1 16 16 128 bf16 off tanh 512",
                                "naive_attention 1 16 16 128 bf16 off erf 512",
                                "naive_attention 1 16 16 128 bf16 on erf 512",
                            }));
}

// Explicit GEMM dims are gemm's alone: the other operators' points carry 0, so their reports,
// keys and shards are those of a sweep without them; the gemm point's shard key names them.
TEST(SweepAxes, GemmDimsReachOnlyGemmPoints) {
  const SweepConfig c =
      config_of(R"({"ops": ["gelu", "gemm"], "seq": "1", "gemm_n": 6144, "gemm_k": 4096})");
  const std::vector<PlannedPoint> plan = plan_all_points(c);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].op, "gelu");
  EXPECT_EQ(plan[0].shape.gemm_n, 0);
  EXPECT_EQ(plan[0].shape.gemm_k, 0);
  EXPECT_EQ(plan[1].op, "gemm");
  EXPECT_EQ(plan[1].shape.gemm_n, 6144);
  EXPECT_EQ(plan[1].shape.gemm_k, 4096);
  EXPECT_EQ(shard_point_key("gemm", plan[1].shape),
            "gemm|L=1|B=1|H=16|Hkv=16|d=128|bf16|0|erf|gemm=N=6144 K=4096");
  EXPECT_EQ(shard_point_key("gelu", plan[0].shape), "gelu|L=1|B=1|H=16|Hkv=16|d=128|bf16|0|erf");
}

TEST(SweepAxes, ConfigArraysAreCheckedPerElement) {
  EXPECT_NE(bad_input_message([] { config_of(R"({"batch": []})"); }).find("'batch'"),
            std::string::npos);
  EXPECT_NE(bad_input_message([] {
              config_of(R"({"batch": [1, 8, 1]})");
            }).find("element 2 repeats element 0"),
            std::string::npos);
  EXPECT_NE(bad_input_message([] {
              config_of(R"({"batch": [1, 0]})");
            }).find("value 0 must be at least 1"),
            std::string::npos);
  EXPECT_NE(bad_input_message([] {
              config_of(R"({"dtype": ["bf16", "fp8"]})");
            }).find("invalid dtype 'fp8'"),
            std::string::npos);
  EXPECT_NE(bad_input_message([] { config_of(R"({"causal": [true, "on"]})"); }).find("causal[1]"),
            std::string::npos);
  // One-element arrays are one value.
  EXPECT_TRUE(config_of(R"({"batch": [8]})").axes.none());
  EXPECT_EQ(config_of(R"({"batch": [8]})").base.batch, 8);
}

TEST(SweepAxes, InvalidCombinationIsRefusedWithTheFilterThatDropsIt) {
  const SweepConfig c = config_of(
      R"({"ops": ["flash_attention"], "seq": "512", "heads": [16, 32], "kv_heads": [8, 32]})");
  const std::string message = bad_input_message([&] { validate_sweep_config(c); });
  EXPECT_NE(message.find("invalid kv-heads 32 (--kv-heads): heads (16)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("in the combination flash_attention H=16 H_kv=32"), std::string::npos)
      << message;
  EXPECT_NE(message.find("--filter 'op!=flash_attention|heads!=16|kv_heads!=32'"),
            std::string::npos)
      << message;
  // The filter it names makes the sweep valid.
  SweepConfig filtered = c;
  filtered.filter = "op!=flash_attention|heads!=16|kv_heads!=32";
  EXPECT_NO_THROW(validate_sweep_config(filtered));
  EXPECT_EQ(plan_all_points(filtered).size(), 3u);
}

TEST(SweepAxes, AListedValueNoCombinationCanRunIsThatValuesError) {
  // As `--batch 0,8` parses: the first value is the base shape's, the list holds both.
  SweepConfig c = config_of(R"({"batch": [1, 8]})");
  c.base.batch = 0;
  c.axes.batch = {0, 8};
  EXPECT_EQ(bad_input_message([&] { validate_sweep_config(c); }),
            "invalid batch 0 (--batch): must be a positive integer (1 and up)");
  c = config_of(R"({"head_dim": [64, 128]})");
  c.axes.head_dim = {64, -128};
  EXPECT_EQ(bad_input_message([&] { validate_sweep_config(c); }),
            "invalid head-dim -128 (--head-dim): must be a positive integer; flash_attention and "
            "decode_attention run 64, 96, 128 or 256, naive_attention any multiple of 8");
}

// `--batch 1,2,3 --heads 0`: the fixed value is wrong at every combination, so its error comes
// alone, without a --filter term that could not help.
TEST(SweepAxes, AFixedValueNoCombinationCanRunIsThatValuesErrorAlone) {
  SweepConfig c = config_of(R"({"batch": [1, 2, 3]})");
  c.base.heads = 0;
  c.base.kv_heads = 0;
  EXPECT_EQ(bad_input_message([&] { validate_sweep_config(c); }),
            "invalid heads 0 (--heads): must be a positive integer (1 and up)");
}

TEST(SweepAxes, ConfigHeadsWithoutKvHeadsMeansMhaAsOnTheCommandLine) {
  const SweepConfig c = config_of(R"({"heads": 24})");
  EXPECT_EQ(c.base.heads, 24);
  EXPECT_EQ(c.base.kv_heads, 24);
  EXPECT_NO_THROW(validate_sweep_config(c));
  EXPECT_EQ(config_of(R"({"heads": 32, "kv_heads": 8})").base.kv_heads, 8);
  const std::string message = bad_input_message([] { config_of(R"({"heads": [16, 32]})"); });
  EXPECT_NE(message.find("an array of heads needs \"kv_heads\" too"), std::string::npos) << message;
}

TEST(SweepAxes, OneValueErrorsAreUnchanged) {
  const SweepConfig c = config_of(R"({"heads": 16, "kv_heads": 32})");
  EXPECT_EQ(bad_input_message([&] { validate_sweep_config(c); }),
            "invalid kv-heads 32 (--kv-heads): heads (16) must be a multiple of kv-heads (GQA "
            "group size H/H_kv)");
}

TEST(SweepAxes, FilterDroppingEverythingIsRefused) {
  SweepConfig c = config_of(R"({"seq": "512"})");
  c.filter = "seq>512";
  EXPECT_NE(bad_input_message([&] { validate_sweep_config(c); }).find("drops every point"),
            std::string::npos);
}

TEST(SweepAxes, LabelNamesTheVaryingAxesTheOperatorUses) {
  const SweepConfig c = config_of(
      R"({"batch": [1, 8], "dtype": ["bf16", "fp16"], "causal": [false, true], "heads": 32,
          "kv_heads": 8})");
  Shape s = c.base;
  s.batch = 8;
  s.dtype = Dtype::kFp16;
  s.causal = true;
  EXPECT_EQ(swept_axes_label(c.axes, "flash_attention", s), "fp16 B=8 causal");
  EXPECT_EQ(swept_axes_label(c.axes, "gelu", s), "fp16 B=8");  // gelu has no causal
  EXPECT_EQ(swept_axes_label(SweepAxes{}, "gelu", s), "");
  EXPECT_EQ(axis_summary(c.axes, c.base, SweepAxis::kBatch), "{1, 8}");
  EXPECT_EQ(axis_summary(c.axes, c.base, SweepAxis::kCausal), "{non-causal, causal}");
  EXPECT_EQ(axis_summary(c.axes, c.base, SweepAxis::kHeads), "32");
}

TEST(SweepAxes, ShardsPartitionTheProduct) {
  SweepConfig c = config_of(
      R"({"ops": ["flash_attention", "gelu"], "seq": "512,1024,2048", "batch": [1, 2, 4],
          "dtype": ["bf16", "fp16"]})");
  const size_t all = plan_all_points(c).size();
  EXPECT_EQ(all, 2u * (3 * 3 + 3 * 3));
  std::set<size_t> seen;
  for (int i = 1; i <= 4; ++i) {
    c.shard = parse_shard_spec(std::to_string(i) + "/4", "--shard");
    for (const PlannedPoint& p : plan_points(c)) EXPECT_TRUE(seen.insert(p.index).second);
  }
  EXPECT_EQ(seen.size(), all);
}

// --kv-dtype auto,fp8_e4m3: the innermost axis before L, so that both caches of one shape run side
// by side; an operator without a KV cache runs once, at auto, even when fp8_e4m3 comes first.
TEST(SweepAxes, KvDtypeIsDecodesInnermostAxis) {
  EXPECT_TRUE(operator_uses_axis("decode_attention", SweepAxis::kKvDtype));
  EXPECT_FALSE(operator_uses_axis("flash_attention", SweepAxis::kKvDtype));
  EXPECT_FALSE(operator_uses_axis("gemm", SweepAxis::kKvDtype));
  EXPECT_EQ(axis_name(SweepAxis::kKvDtype), "kv_dtype");
  EXPECT_EQ(axis_flag(SweepAxis::kKvDtype), "--kv-dtype");
  const SweepConfig c = config_of(
      R"({"ops": ["decode_attention", "gemm"], "seq": "512,1024", "batch": [1, 8],
          "kv_dtype": ["fp8_e4m3", "auto"]})");
  std::vector<std::string> texts;
  for (const PlannedPoint& p : plan_all_points(c)) {
    texts.push_back(p.op + " B=" + std::to_string(p.shape.batch) + " " +
                    to_string(p.shape.kv_dtype) + " L=" + std::to_string(p.shape.seq_len));
  }
  EXPECT_EQ(texts, (std::vector<std::string>{
                       "decode_attention B=1 fp8_e4m3 L=512",
                       "decode_attention B=1 fp8_e4m3 L=1024", "decode_attention B=1 auto L=512",
                       "decode_attention B=1 auto L=1024", "decode_attention B=8 fp8_e4m3 L=512",
                       "decode_attention B=8 fp8_e4m3 L=1024", "decode_attention B=8 auto L=512",
                       "decode_attention B=8 auto L=1024", "gemm B=1 auto L=512",
                       "gemm B=1 auto L=1024", "gemm B=8 auto L=512", "gemm B=8 auto L=1024"}));
  Shape s = c.base;
  s.batch = 8;
  EXPECT_EQ(swept_axes_label(c.axes, "decode_attention", s), "B=8 kv=fp8_e4m3");
  s.kv_dtype = KvDtype::kAuto;
  s.dtype = Dtype::kFp16;
  EXPECT_EQ(swept_axes_label(c.axes, "decode_attention", s), "B=8 kv=fp16");
  EXPECT_EQ(swept_axes_label(c.axes, "gemm", s), "B=8");
  EXPECT_EQ(axis_summary(c.axes, c.base, SweepAxis::kKvDtype), "{fp8_e4m3, auto}");
  EXPECT_EQ(axis_value_text(SweepAxis::kKvDtype, c.base), "fp8_e4m3");
  // The report's config records the list, and a worker's config file reads back to the same plan.
  EXPECT_EQ(sweep_config_to_json(c)["kv_dtype"],
            nlohmann::ordered_json::array({"fp8_e4m3", "auto"}));
  const SweepConfig back = parse_sweep_config(sweep_config_file_json(c).dump(), "workers.json");
  EXPECT_EQ(back.axes.kv_dtype, c.axes.kv_dtype);
  EXPECT_FALSE(sweep_config_to_json(default_sweep_config()).contains("kv_dtype"));
  // --filter kv_dtype=... keeps one cache; gemm has none, so the condition holds for it.
  SweepConfig filtered = c;
  filtered.filter = "kv_dtype=fp8_e4m3";
  EXPECT_EQ(plan_all_points(filtered).size(), 8u);
  EXPECT_EQ(bad_input_message([] { parse_kv_dtype_list("auto,auto"); }),
            "invalid --kv-dtype 'auto,auto': auto is listed more than once");
  EXPECT_EQ(bad_input_message([] { parse_kv_dtype_list("auto,int8"); }),
            "invalid KV dtype 'int8' (--kv-dtype): allowed auto (the --dtype), fp8_e4m3");
}

TEST(SweepAxes, ReportAndConfigFileRecordTheLists) {
  SweepConfig c = config_of(
      R"({"ops": ["gelu"], "seq": "512", "batch": [1, 8], "dtype": ["bf16", "fp16"],
          "causal": [false, true], "gelu_form": ["tanh", "erf"], "filter": "batch>=1"})");
  const nlohmann::ordered_json j = sweep_config_to_json(c);
  EXPECT_EQ(j["batch"], nlohmann::ordered_json::array({1, 8}));
  EXPECT_EQ(j["dtype"], nlohmann::ordered_json::array({"bf16", "fp16"}));
  EXPECT_EQ(j["causal"], nlohmann::ordered_json::array({false, true}));
  EXPECT_EQ(j["gelu_form"], nlohmann::ordered_json::array({"tanh", "erf"}));
  EXPECT_EQ(j["heads"], 16);
  EXPECT_EQ(j["filter"], "batch>=1");
  // The config file `sweep --devices` writes for its workers reads back to the same plan.
  const SweepConfig back = parse_sweep_config(sweep_config_file_json(c).dump(), "workers.json");
  EXPECT_EQ(point_texts(back), point_texts(c));
  EXPECT_EQ(back.filter, c.filter);
  // Without lists nothing new is written.
  const nlohmann::ordered_json plain = sweep_config_to_json(default_sweep_config());
  EXPECT_EQ(plain["batch"], 1);
  EXPECT_EQ(plain["dtype"], "bf16");
  EXPECT_FALSE(plain.contains("filter"));
}

}  // namespace
}  // namespace rooflinectl
