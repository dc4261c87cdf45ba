// Sweep config: defaults, configs/default.json, strict parsing (unknown keys, wrong types, bad
// values) and whole-config validation.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json_input.hpp"
#include "core/operator_names.hpp"
#include "core/sweep_config.hpp"
#include "core/sweep_plan.hpp"
#include "io/json_writer.hpp"

#ifndef RFL_SOURCE_DIR
#error "RFL_SOURCE_DIR (the repository root) must be defined by the build"
#endif

namespace rooflinectl {
namespace {

const std::vector<std::string> kSixOps = {"naive_attention", "flash_attention", "gemm", "gelu",
                                          "layernorm",       "decode_attention"};

// Parses `json` and returns the bad-input message; fails the test if it does not throw one.
std::string parse_error(const std::string& json) {
  try {
    parse_sweep_config(json, "my.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no Error for " << json;
  return "";
}

std::string validate_error(const SweepConfig& config) {
  try {
    validate_sweep_config(config);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no Error";
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SweepConfig, Defaults) {
  const SweepConfig c = default_sweep_config();
  // rmsnorm, swiglu and geglu run only when named: the default sweep keeps its six operators.
  EXPECT_EQ(c.ops, kSixOps);
  EXPECT_EQ(c.seq_spec, "512..32768");
  EXPECT_EQ(c.seq_lens, (std::vector<int64_t>{512, 1024, 2048, 4096, 8192, 16384, 32768}));
  const Shape shape;
  EXPECT_EQ(c.base.batch, shape.batch);
  EXPECT_EQ(c.base.heads, shape.heads);
  EXPECT_EQ(c.base.kv_heads, shape.kv_heads);
  EXPECT_EQ(c.base.head_dim, shape.head_dim);
  EXPECT_EQ(c.base.dtype, shape.dtype);
  EXPECT_EQ(c.base.causal, shape.causal);
  EXPECT_EQ(c.base.gelu_form, shape.gelu_form);
  EXPECT_EQ(c.repetitions, 10);
  EXPECT_EQ(c.warmup_runs, 3);
  EXPECT_TRUE(c.counters);
  EXPECT_FALSE(c.warm_l2);
  EXPECT_EQ(c.device, 0);
  EXPECT_NO_THROW(validate_sweep_config(c));
}

TEST(SweepConfig, DefaultFileEqualsBuiltInDefaults) {
  const std::string path = std::string(RFL_SOURCE_DIR) + "/configs/default.json";
  const SweepConfig from_file = load_sweep_config(path);
  EXPECT_EQ(sweep_config_to_json(from_file), sweep_config_to_json(default_sweep_config()));

  // The file spells out every key, so it documents the whole format.
  const nlohmann::json file = nlohmann::json::parse(std::ifstream(path));
  std::set<std::string> keys;
  for (const auto& item : file.items()) keys.insert(item.key());
  EXPECT_EQ(keys, (std::set<std::string>{"ops", "seq", "batch", "heads", "kv_heads", "head_dim",
                                         "dtype", "causal", "gelu_form", "kv_layout", "kv_dtype",
                                         "gemm_dtype", "repetitions", "warmup_runs", "counters",
                                         "warm_l2", "device", "sm_throughput", "kernels"}));
}

TEST(SweepConfig, KeysOverrideOnlyWhatTheyName) {
  const SweepConfig c = parse_sweep_config(
      R"({"ops": ["gemm", "gelu"], "seq": "1000..3000:1000", "kv_heads": 4, "dtype": "fp16",
          "causal": true, "gelu_form": "tanh", "repetitions": 5, "warm_l2": true})",
      "my.json");
  EXPECT_EQ(c.ops, (std::vector<std::string>{"gemm", "gelu"}));
  EXPECT_EQ(c.seq_spec, "1000..3000:1000");
  EXPECT_EQ(c.seq_lens, (std::vector<int64_t>{1000, 2000, 3000}));
  EXPECT_EQ(c.base.kv_heads, 4);
  EXPECT_EQ(c.base.heads, 16);
  EXPECT_EQ(c.base.dtype, Dtype::kFp16);
  EXPECT_TRUE(c.base.causal);
  EXPECT_EQ(c.base.gelu_form, GeluForm::kTanh);
  EXPECT_EQ(c.repetitions, 5);
  EXPECT_EQ(c.warmup_runs, 3);
  EXPECT_TRUE(c.warm_l2);
  EXPECT_TRUE(c.counters);
  EXPECT_NO_THROW(validate_sweep_config(c));
  EXPECT_EQ(sweep_config_to_json(parse_sweep_config("{}", "empty.json")),
            sweep_config_to_json(default_sweep_config()));
}

TEST(SweepConfig, KernelsKeyAsksForVersionsAndIsRecorded) {
  const SweepConfig c =
      parse_sweep_config(R"({"kernels": {"gemm": "v1", "flash_attention": "v2"}})", "my.json");
  EXPECT_EQ(c.kernels, (KernelRequests{{"flash_attention", "v2"}, {"gemm", "v1"}}));
  EXPECT_EQ(sweep_config_to_json(c)["kernels"],
            (nlohmann::ordered_json{{"flash_attention", "v2"}, {"gemm", "v1"}}));
  // Names are checked against the operators' declarations with the plan, not here.
  EXPECT_EQ(parse_sweep_config(R"({"kernels": {"nope": "v9"}})", "my.json").kernels,
            (KernelRequests{{"nope", "v9"}}));
  // Nothing asked for: every operator runs its default, and nothing is written.
  const SweepConfig none = parse_sweep_config(R"({"kernels": {}})", "my.json");
  EXPECT_TRUE(none.kernels.empty());
  EXPECT_FALSE(sweep_config_to_json(none).contains("kernels"));
  EXPECT_TRUE(default_sweep_config().kernels.empty());
}

TEST(SweepConfig, UnknownKeyIsBadInputNamingFileAndKey) {
  const std::string message = parse_error(R"({"batch": 2, "sequence": "512"})");
  EXPECT_TRUE(contains(message, "my.json")) << message;
  EXPECT_TRUE(contains(message, "'sequence'")) << message;
}

TEST(SweepConfig, WrongTypeIsBadInputNamingFileAndKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"batch": "2"})", "'batch'"},
      {R"({"batch": 1.5})", "'batch'"},
      {R"({"causal": 1})", "'causal'"},
      {R"({"ops": "gemm"})", "'ops'"},
      {R"({"ops": ["gemm", 3]})", "'ops[1]'"},
      {R"({"seq": 512.5})", "'seq'"},
      {R"({"seq": true})", "'seq'"},
      {R"({"seq": [512, "1024"]})", "'seq[1]'"},
      {R"({"repetitions": 99999999999})", "'repetitions'"},
      {R"({"dtype": "fp8"})", "'dtype'"},
      {R"({"gelu_form": "exact"})", "'gelu_form'"},
      {R"({"kernels": "gemm=v1"})", "'kernels'"},
      {R"({"kernels": ["gemm=v1"]})", "'kernels'"},
      {R"({"kernels": {"gemm": 1}})", "'kernels.gemm'"},
      {R"({"kernels": {"gemm": ""}})", "'kernels'"},
  };
  for (const auto& [json, key] : cases) {
    const std::string message = parse_error(json);
    EXPECT_TRUE(contains(message, "my.json")) << json << ": " << message;
    EXPECT_TRUE(contains(message, key)) << json << ": " << message;
  }
}

TEST(SweepConfig, SeqIsASpecStringOrIntegersAsTheOtherAxes) {
  const SweepConfig one = parse_sweep_config(R"({"seq": 512})", "my.json");
  EXPECT_EQ(one.seq_lens, (std::vector<int64_t>{512}));
  EXPECT_EQ(one.seq_spec, "512");
  const SweepConfig list = parse_sweep_config(R"({"seq": [512, 4096]})", "my.json");
  EXPECT_EQ(list.seq_lens, (std::vector<int64_t>{512, 4096}));
  EXPECT_EQ(list.seq_spec, "512,4096");
  EXPECT_EQ(parse_sweep_config(R"({"seq": "512..2048"})", "my.json").seq_lens,
            (std::vector<int64_t>{512, 1024, 2048}));
  for (const char* json : {R"({"seq": 0})", R"({"seq": []})", R"({"seq": [512, 512]})"}) {
    const std::string message = parse_error(json);
    EXPECT_TRUE(contains(message, "my.json")) << json << ": " << message;
    EXPECT_TRUE(contains(message, "'seq'")) << json << ": " << message;
  }
}

TEST(SweepConfig, BadValuesAreBadInput) {
  for (const char* json :
       {R"({"seq": "512..1000"})", R"({"seq": "0"})", R"({"seq": ""})", R"({"seq": "4096..512"})",
        R"({"batch": 0})", R"({"heads": -16})", R"({"repetitions": 0})", R"({"warmup_runs": -1})",
        R"({"device": -1})", R"({"ops": []})", R"({"max_noise": "1%"})"}) {
    const std::string message = parse_error(json);
    EXPECT_TRUE(contains(message, "my.json")) << json << ": " << message;
  }
  EXPECT_TRUE(contains(parse_error(R"({"seq": "512..1000"})"), "'seq'"));
}

TEST(SweepConfig, AdaptiveSamplingKeys) {
  const SweepConfig fixed = default_sweep_config();
  EXPECT_FALSE(fixed.max_noise);  // fixed --repetitions unless asked for
  EXPECT_EQ(fixed.min_samples, 10);
  EXPECT_DOUBLE_EQ(fixed.max_time_s, 1.0);
  const SweepConfig c = parse_sweep_config(
      R"({"max_noise": 0.01, "min_samples": 20, "min_time_s": 0.5, "max_time_s": 3})", "my.json");
  validate_sweep_config(c);
  ASSERT_TRUE(c.max_noise);
  EXPECT_DOUBLE_EQ(*c.max_noise, 0.01);
  EXPECT_EQ(c.min_samples, 20);
  EXPECT_DOUBLE_EQ(c.min_time_s, 0.5);
  EXPECT_DOUBLE_EQ(c.max_time_s, 3.0);
  const auto invalid = [](const char* json) {
    return validate_error(parse_sweep_config(json, "my.json"));
  };
  EXPECT_TRUE(contains(invalid(R"({"max_noise": 0})"), "max-noise 0"))
      << invalid(R"({"max_noise": 0})");
  EXPECT_TRUE(contains(invalid(R"({"max_noise": 1.5})"), "below 1"));
  EXPECT_TRUE(contains(invalid(R"({"min_samples": 5})"), "min-samples 5"));
  EXPECT_TRUE(contains(invalid(R"({"min_time_s": -1})"), "min-time -1"));
  EXPECT_TRUE(contains(invalid(R"({"max_time_s": 0})"), "max-time 0"));
  EXPECT_TRUE(contains(invalid(R"({"min_time_s": 3, "max_time_s": 2})"), "above max-time"));
}

TEST(SweepConfig, MalformedJsonAndMissingFileAreBadInput) {
  EXPECT_TRUE(contains(parse_error(R"({"batch": 2,)"), "my.json"));
  EXPECT_TRUE(contains(parse_error(R"([1, 2])"), "my.json"));
  try {
    load_sweep_config("/nonexistent/rfl/config.json");
    ADD_FAILURE() << "no Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_TRUE(contains(e.what(), "/nonexistent/rfl/config.json")) << e.what();
  }
}

TEST(SweepConfig, ValidateChecksTheWholeConfig) {
  SweepConfig c = default_sweep_config();
  c.base.kv_heads = 5;  // does not divide 16 heads
  EXPECT_TRUE(contains(validate_error(c), "kv-heads"));

  c = default_sweep_config();
  c.ops = {"gemm", "gelu", "gemm"};
  EXPECT_TRUE(contains(validate_error(c), "'gemm'"));

  c = default_sweep_config();
  c.ops.clear();
  validate_error(c);

  c = default_sweep_config();
  c.seq_lens.clear();
  validate_error(c);

  c = default_sweep_config();
  c.repetitions = 0;
  EXPECT_TRUE(contains(validate_error(c), "repetitions"));
}

TEST(SweepConfig, KvLayoutKeys) {
  SweepConfig c = parse_sweep_config(R"({"ops": ["decode_attention"], "kv_layout": "paged"})", "f");
  EXPECT_EQ(c.base.kv_layout, KvLayout::kPaged);
  EXPECT_EQ(c.base.page_size, kDefaultKvPageSize);  // paged without a page size: 16
  validate_sweep_config(c);
  c = parse_sweep_config(R"({"ops": ["decode_attention"], "kv_layout": "paged", "page_size": 128})",
                         "f");
  EXPECT_EQ(c.base.page_size, 128);
  validate_sweep_config(c);
  EXPECT_EQ(default_sweep_config().base.kv_layout, KvLayout::kContiguous);
  EXPECT_EQ(default_sweep_config().base.page_size, 0);
  EXPECT_TRUE(contains(parse_error(R"({"kv_layout": "ring"})"), "'ring'"));

  c = parse_sweep_config(R"({"ops": ["decode_attention"], "page_size": 64})", "f");
  EXPECT_EQ(validate_error(c),
            "invalid page size 64 (--page-size): needs --kv-layout paged (the KV cache is "
            "contiguous)");
  for (const int64_t page : {0, 8, 24, 256}) {
    c = default_sweep_config();
    c.ops = {"decode_attention"};
    c.base.kv_layout = KvLayout::kPaged;
    c.base.page_size = page;
    EXPECT_EQ(validate_error(c), "invalid page size " + std::to_string(page) +
                                     " (--page-size): allowed 16, 32, 64, 128");
  }
  // Refused, not ignored, beside any other operator (the default runs all six).
  c = default_sweep_config();
  c.base.kv_layout = KvLayout::kPaged;
  c.base.page_size = 32;
  EXPECT_TRUE(contains(validate_error(c),
                       "invalid --kv-layout paged with operator 'naive_attention' (--ops)"));
}

// "gemm_n" and "gemm_k" set the gemm operator's N and K: 0 or absent is the FFN up projection, a
// value must be a multiple of 8, and gemm must be among the operators.
TEST(SweepConfig, GemmDimsKeys) {
  SweepConfig c = parse_sweep_config(R"({"ops": ["gemm"], "gemm_n": 6144, "gemm_k": 4096})", "f");
  EXPECT_EQ(c.base.gemm_n, 6144);
  EXPECT_EQ(c.base.gemm_k, 4096);
  validate_sweep_config(c);
  EXPECT_EQ(default_sweep_config().base.gemm_n, 0);
  EXPECT_EQ(default_sweep_config().base.gemm_k, 0);

  c = parse_sweep_config(R"({"ops": ["gemm"], "gemm_n": 100})", "f");
  EXPECT_EQ(validate_error(c),
            "invalid gemm-n 100 (--gemm-n): allowed 0 (N = d_ff, the FFN width) or a positive "
            "multiple of 8 "
            "(16-byte rows of W and C for cp.async and TMA)");
  c = parse_sweep_config(R"({"ops": ["gemm"], "gemm_k": -8})", "f");
  EXPECT_EQ(validate_error(c),
            "invalid gemm-k -8 (--gemm-k): allowed 0 (K = d_model) or a positive multiple of 8 "
            "(16-byte rows of W and C for cp.async and TMA)");
  c = parse_sweep_config(R"({"ops": ["gelu", "layernorm"], "gemm_k": 14336})", "f");
  EXPECT_EQ(validate_error(c),
            "invalid gemm-k 14336 (--gemm-k): it sets the gemm operator's K, and the operators "
            "(--ops) do not include gemm (add it)");
  // W = K × N past 2^50 elements is refused naming the product.
  c = parse_sweep_config(R"({"ops": ["gemm"], "gemm_n": 1099511627776, "gemm_k": 2048})", "f");
  EXPECT_TRUE(contains(validate_error(c), "K × N (GEMM W) = 2048 × 1099511627776 exceeds"));
  EXPECT_TRUE(contains(parse_error(R"({"gemm_n": "wide"})"), "gemm_n"));
}

TEST(SweepConfig, KvDtypeKeyAndRefusals) {
  EXPECT_EQ(default_sweep_config().base.kv_dtype, KvDtype::kAuto);
  SweepConfig c =
      parse_sweep_config(R"({"ops": ["decode_attention"], "kv_dtype": "fp8_e4m3"})", "f");
  EXPECT_EQ(c.base.kv_dtype, KvDtype::kFp8E4m3);
  EXPECT_TRUE(c.axes.kv_dtype.empty());
  validate_sweep_config(c);
  c = parse_sweep_config(R"({"ops": ["decode_attention"], "kv_dtype": ["auto", "fp8_e4m3"]})", "f");
  EXPECT_EQ(c.axes.kv_dtype, (std::vector<KvDtype>{KvDtype::kAuto, KvDtype::kFp8E4m3}));
  EXPECT_TRUE(
      contains(parse_error(R"({"kv_dtype": "fp8"})"),
               "invalid KV dtype 'fp8' (--kv-dtype): allowed auto (the --dtype), fp8_e4m3"));
  EXPECT_TRUE(contains(parse_error(R"({"kv_dtype": ["fp8_e4m3", "fp8_e4m3"]})"), "kv_dtype"));

  // FP8 only, beside an operator without a KV cache: refused, naming both ways out.
  c = default_sweep_config();
  c.base.kv_dtype = KvDtype::kFp8E4m3;
  EXPECT_EQ(validate_error(c),
            "invalid --kv-dtype fp8_e4m3 with operator 'naive_attention' (--ops): only "
            "decode_attention has a KV cache (run it with --ops decode_attention, or list auto "
            "too: --kv-dtype auto,fp8_e4m3)");
  c.ops = {"decode_attention", "gemm"};
  set_axis_values(c.axes.kv_dtype, c.base.kv_dtype,
                  std::vector<KvDtype>{KvDtype::kFp8E4m3, KvDtype::kAuto});
  validate_sweep_config(c);  // with auto listed, gemm runs as before
  // FP8 with a paged layout is a combination the kernel runs.
  c = default_sweep_config();
  c.ops = {"decode_attention"};
  c.base.kv_dtype = KvDtype::kFp8E4m3;
  c.base.kv_layout = KvLayout::kPaged;
  c.base.page_size = 16;
  validate_sweep_config(c);
}

// nlohmann refuses a number past double's range while parsing with out_of_range (406), not
// parse_error: it must still be bad input naming the file (found by fuzz_report_reader).
// nlohmann keeps the last of two equal keys; a config that says "batch" twice is refused instead,
// naming the key, wherever the object sits.
TEST(SweepConfig, DuplicateKeyIsBadInputNamingTheKey) {
  EXPECT_EQ(parse_error(R"({"batch": 2, "heads": 8, "batch": 4})"),
            "my.json: key 'batch' appears more than once in the document (allowed: each key once)");
  EXPECT_TRUE(contains(parse_error(R"({"ops": ["gemm"], "seq": "512", "ops": ["gelu"]})"),
                       "key 'ops' appears more than once"));
  // Equal keys in different objects are fine; a repeat inside a nested object names its path.
  EXPECT_EQ(parse_json_text(R"({"a": {"x": 1}, "b": [{"x": 1}, {"x": 2}]})", "f.json")["b"][1]["x"],
            2);
  try {
    parse_json_text(R"({"a": 1, "b": [{"x": 1}, [3, {"y": 1, "y": 2}]]})", "f.json");
    ADD_FAILURE() << "duplicate accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_STREQ(e.what(),
                 "f.json: key 'y' appears more than once in object 'b[1][1]' (allowed: each key "
                 "once)");
  }
}

// A syntax error names the file, line and column in words, without nlohmann's
// "[json.exception.parse_error.101]" table id.
TEST(SweepConfig, SyntaxErrorNamesThePositionWithoutTheLibraryId) {
  try {
    parse_json_text("{\"a\": 1,}", "f.json");
    ADD_FAILURE() << "trailing comma accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("f.json: malformed JSON: parse error at line 1, column 9: ", 0), 0u) << m;
    EXPECT_EQ(m.find("json.exception"), std::string::npos) << m;
  }
  EXPECT_EQ(json_error_text("[json.exception.out_of_range.406] number overflow"),
            "number overflow");
  EXPECT_EQ(json_error_text("no id here"), "no id here");
}

TEST(SweepConfig, NumberPastDoubleRangeIsBadInput) {
  EXPECT_TRUE(contains(parse_error(R"({"batch": 1e400})"), "my.json"));
  EXPECT_TRUE(contains(parse_error(R"({"batch": 1e400})"), "overflow"));
}

}  // namespace
}  // namespace rooflinectl

namespace rooflinectl {
namespace {

TEST(SweepConfig, TheModelPresetOperatorsAreNamedNotDefault) {
  const SweepConfig c = parse_sweep_config(
      R"({"ops": ["rmsnorm", "swiglu", "geglu"], "seq": "512", "gelu_form": ["erf", "tanh"]})",
      "f");
  EXPECT_EQ(c.ops, (std::vector<std::string>{"rmsnorm", "swiglu", "geglu"}));
  EXPECT_NO_THROW(validate_sweep_config(c));
  // geglu reads the GELU form, rmsnorm and swiglu do not: 1 + 1 + 2 points.
  EXPECT_EQ(plan_all_points(c).size(), 4u);
  for (const char* op : {"rmsnorm", "swiglu", "geglu"}) {
    EXPECT_EQ(parse_operator_name(op), op);
    EXPECT_TRUE(is_operator_name(op));
  }
  EXPECT_EQ(operator_names().size(), 9u);
  EXPECT_EQ(std::vector<std::string>(operator_names().begin(), operator_names().begin() + 6),
            kSixOps);
  EXPECT_EQ(default_sweep_operator_names(), kSixOps);
  try {
    parse_operator_name("rms_norm");
    ADD_FAILURE() << "rms_norm accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(),
                         "invalid operator 'rms_norm': allowed naive_attention, "
                         "flash_attention, gemm, gelu, layernorm, decode_attention, "
                         "rmsnorm, swiglu, geglu"))
        << e.what();
  }
}

}  // namespace
}  // namespace rooflinectl
