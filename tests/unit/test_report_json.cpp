// JSON report: writer/reader round trip, the pinned schema version, non-finite handling, error
// exit codes, and the atomic file write.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/error.hpp"
#include "core/statistics.hpp"
#include "io/atomic_file.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "render/markdown_writer.hpp"
#include "result/point_key.hpp"
#include "result/report.hpp"
#include "result/tokens_per_second.hpp"

namespace rooflinectl {
namespace {

namespace fs = std::filesystem;

// Every field gets a distinct value, so a reader that swaps two fields changes the re-written
// text; fractions like 1/3 check that doubles survive the text form bit for bit.
KernelCounters full_counters(const std::string& name, double base) {
  KernelCounters k;
  k.name = name;
  k.dram_read_bytes = base + 1;
  k.dram_write_bytes = base + 2;
  k.l2_bytes = base + 3;
  k.duration_s = (base + 4) * 1e-9 / 3.0;
  k.sm_clock_hz = 1.98e9 + base;
  k.dram_clock_hz = 2.619e9 + base;
  k.tensor_bf16_flop = base + 7;
  k.tensor_fp16_flop = base + 8;
  k.ffma_inst = base + 9;
  k.fadd_inst = base + 10;
  k.fmul_inst = base + 11;
  k.hfma_inst = base + 12;
  k.hadd_inst = base + 13;
  k.hmul_inst = base + 14;
  k.l2_write_bytes = base + 15;
  return k;
}

PointResult full_point() {
  PointResult p;
  p.op = "flash_attention";
  p.version = "flash_attention_v1_mma_sync";
  p.shape.batch = 2;
  p.shape.heads = 32;
  p.shape.kv_heads = 8;
  p.shape.head_dim = 64;
  p.shape.seq_len = 4097;
  p.shape.causal = true;
  p.shape.dtype = Dtype::kFp16;
  p.shape.gelu_form = GeluForm::kTanh;
  p.status = PointStatus::kOk;
  p.reason = "";
  p.seed = std::numeric_limits<uint64_t>::max();
  p.device_bytes_needed = int64_t{3} << 40;

  Validation v;
  v.passed = true;
  v.reference = "gpu-fp32 reference_attention";
  v.tolerance = {1e-2, 7.8125e-3};
  v.checked_elements = 123456789;
  v.failed_elements = 0;
  v.non_finite_elements = 0;
  v.max_abs_error = 0.1 + 0.2;
  v.worst_ratio = 1.0 / 3.0;
  v.detail = "";
  p.validation = v;

  TimingResult t;
  t.samples_s = {1.1e-4, 1.0e-4 / 3.0, 2.5e-5};
  t.median_s = 1.0e-4 / 3.0;  // the roofline below is placed at this median, as a sweep does
  t.min_s = 2.5e-5;
  t.max_s = 1.1e-4;
  t.warmup_runs = 3;
  t.l2_flushed = false;
  t.cache_policy = "L2 left warm between timed samples (--warm-l2)";
  t.sm_clock_hz = 1.755e9;
  p.timing = t;

  p.counters.null_reason = std::nullopt;
  p.counters.passes = 2;
  p.counters.cache_policy = "l2 flushed before each range";
  p.counters.note = "2 ranges for 2 kernels";
  p.counters.kernels = {full_counters("qk_kernel", 100), full_counters("pv_kernel", 200)};
  p.counters.total = full_counters("total", 300);
  p.counters.peaks.dram_bytes_per_cycle = 1536.5;
  p.counters.peaks.ffma_inst_per_cycle = 16896;
  p.counters.peaks.tensor_bf16_per_cycle = 1.0 / 7.0;
  p.counters.sessions = {{"bytes", "user replay, one pass", 1, {"dram__bytes_read.sum"}, 0.037, 9},
                         {"counts", "user replay, one pass", 1, {"c"}, std::nullopt, std::nullopt},
                         {"replay", "kernel replay, 9 passes", 9, {"a", "b"}, 1.0 / 3.0, 1}};
  p.counters.peaks.l2_bytes_per_cycle = 9024.0;
  p.counters.total.l2_clock_hz = 1.6916e9;
  p.counters.dram_writeback_bytes = 1.0e6 / 3.0;
  p.counters.writeback_method = "read-only sweep after the launch";

  p.analytic.flop = 4.0 * 2 * 32 * 4097.0 * 4097.0 * 64;
  p.analytic.min_dram_bytes = 4.0 * 2 * 32 * 4097 * 64 * 2;
  p.analytic.implemented_dram_bytes = 4.0 * 2 * 32 * 4097 * 64 * 2 + 12345;
  p.analytic.flop_formula = "4·B·H·L²·d (causal: visible pairs)";
  p.analytic.bytes_formula = "4·B·H·L·d·e";

  Roof roof;
  roof.pipe = Pipe::kTensor;
  roof.peak_flop_per_s = 989.4e12;
  roof.peak_bytes_per_s = 4.8e12;
  roof.source = "datasheet";
  p.roofline = place_on_roofline(roof, 3.3e12 / 7.0, 2.1e9, 1.0e-4 / 3.0, "counters");
  p.roofline->bytes_basis = "dram_isolated";
  p.roofline_null_reason = "";
  p.tokens_per_s = 2 * 4097 / (1.0e-4 / 3.0);
  return p;
}

PointResult paged_as(PointResult p, int64_t page_size) {
  p.shape.page_size = page_size;
  return p;
}

Report full_report() {
  Report r;
  r.tool_version = "0.1.0";
  r.git_revision = "0123456789ab";
  r.timestamp_utc = "2025-01-02T03:04:05Z";
  r.device.index = 1;
  r.device.name = "NVIDIA H200";
  r.device.cc_major = 9;
  r.device.cc_minor = 0;
  r.device.sm_count = 132;
  r.device.l2_bytes = 52428800;
  r.device.memory_bytes = int64_t{150} << 30;
  r.device.sm_clock_max_hz = 1.98e9;
  r.device.memory_clock_hz = 2.619e9;
  r.device.memory_bus_width_bits = 6144;
  r.device.driver_version = 13000;
  r.device.runtime_version = 12080;
  r.device.counters_available = true;
  r.device.counters_reason = "";
  r.config.ops = {"gemm", "flash_attention"};
  r.config.seq_spec = "1000..3000:1000";
  r.config.seq_lens = {1000, 2000, 3000};
  r.config.base.batch = 2;
  r.config.base.heads = 32;
  r.config.base.kv_heads = 8;
  r.config.base.head_dim = 64;
  r.config.base.dtype = Dtype::kFp16;
  r.config.base.causal = true;
  r.config.base.gelu_form = GeluForm::kTanh;
  r.config.repetitions = 25;
  r.config.warmup_runs = 5;
  r.config.counters = false;
  r.config.warm_l2 = true;
  r.config.device = 1;
  r.points = {full_point()};
  return r;
}

// A skipped point with every std::optional empty (and empty strings/vectors).
Report empty_optionals_report() {
  Report r;
  r.tool_version = "0.1.0";
  r.device.counters_available = false;
  r.device.counters_reason = "ERR_NVGPUCTRPERM";
  r.config.seq_spec = "512";
  r.config.seq_lens = {512};
  r.config.ops = {"gelu"};
  PointResult p;
  p.op = "gelu";
  p.status = PointStatus::kSkipped;
  p.reason = "needs 200 GiB, 140 GiB free";
  p.counters.null_reason = "counters not permitted";
  p.roofline_null_reason = "point skipped";
  r.points = {p};
  return r;
}

TEST(KernelCounters, DerivedValuesNeedEveryInput) {
  const KernelCounters k = full_counters("k", 0);
  EXPECT_EQ(*k.dram_bytes(), 1.0 + 2.0);
  EXPECT_EQ(*k.fp32_flop(), 2 * 9.0 + 10.0 + 11.0);
  EXPECT_EQ(*k.fp16_flop(), 2 * 12.0 + 13.0 + 14.0);
  EXPECT_EQ(*k.tensor_flop(), 7.0 + 8.0);
  EXPECT_EQ(*k.total_flop(), 15.0 + 39.0 + 51.0);

  KernelCounters missing = k;
  missing.fmul_inst.reset();
  EXPECT_FALSE(missing.fp32_flop());
  EXPECT_FALSE(missing.total_flop());
  EXPECT_TRUE(missing.tensor_flop());
  missing = k;
  missing.dram_write_bytes.reset();
  EXPECT_FALSE(missing.dram_bytes());
}

TEST(PointStatus, ParsesWhatItPrints) {
  for (const PointStatus s : {PointStatus::kOk, PointStatus::kSkipped, PointStatus::kFailed}) {
    EXPECT_EQ(parse_point_status(to_string(s)), s);
  }
  EXPECT_THROW(parse_point_status("OK"), Error);
}

// The causal mask's alignment when L_q != L_kv is a convention a reader cannot guess: the
// report states it (FlashAttention-2's bottom-right, as the kernels implement it).
TEST(ReportJson, ConfigRecordsCausalMaskAlignment) {
  const auto json = nlohmann::ordered_json::parse(report_to_json_text(full_report()));
  EXPECT_EQ(json["config"]["mask_alignment"], "bottom-right");
}

TEST(ReportJson, SchemaVersionIsPinnedAndFirstKey) {
  EXPECT_EQ(kReportSchemaVersion, 2);  // bump only with an incompatible layout change
  const auto json = nlohmann::ordered_json::parse(report_to_json_text(full_report()));
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json.begin().key(), "schema_version");
  EXPECT_EQ(json["schema_version"], kReportSchemaVersion);
  std::vector<std::string> keys;
  for (const auto& item : json.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"schema_version", "tool", "timestamp_utc", "device",
                                            "config", "peaks", "points"}));
}

// A paged decode point writes its layout and page size and reads them back; a contiguous point
// writes neither (absent reads as contiguous), and the point label names the layout.
TEST(ReportJson, PagedKvLayoutRoundTrips) {
  Report original = full_report();
  PointResult paged = original.points[0];
  paged.op = "decode_attention";
  paged.shape.kv_layout = KvLayout::kPaged;
  paged.shape.page_size = 64;
  paged.tokens_per_s = tokens_per_second(paged.op, paged.shape, paged.timing->median_s);
  original.points.push_back(paged);
  const std::string text = report_to_json_text(original);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["points"][0]["shape"].contains("kv_layout"));
  EXPECT_FALSE(j["points"][0]["shape"].contains("page_size"));
  EXPECT_EQ(j["points"][1]["shape"]["kv_layout"], "paged");
  EXPECT_EQ(j["points"][1]["shape"]["page_size"], 64);
  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(report_to_json_text(back), text);
  ASSERT_EQ(back.points.size(), 2u);
  EXPECT_EQ(back.points[0].shape.kv_layout, KvLayout::kContiguous);
  EXPECT_EQ(back.points[0].shape.page_size, 0);
  EXPECT_EQ(back.points[1].shape.kv_layout, KvLayout::kPaged);
  EXPECT_EQ(back.points[1].shape.page_size, 64);
  EXPECT_NE(point_key(back.points[1]).label().find(" paged/64"), std::string::npos);
  EXPECT_FALSE(point_key(back.points[1]).same_point(point_key(paged_as(back.points[1], 16))));

  std::string bad = text;
  const std::string page_64 = "\"page_size\": 64";
  bad.replace(bad.find(page_64), page_64.size(), "\"page_size\": 24");
  try {
    report_from_json_text(bad, "memory");
    ADD_FAILURE() << "page size 24 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid page size 24"), std::string::npos) << e.what();
  }
}

// A point at explicit layer widths writes hidden and ffn_dim and reads them back; a default point
// writes neither (absent reads as 0), and the label names them.
TEST(ReportJson, LayerWidthsRoundTrip) {
  Report original = full_report();
  PointResult norm = original.points[0];
  norm.op = "rmsnorm";
  norm.shape.hidden = 4096;
  norm.shape.ffn_dim = 14336;
  original.points.push_back(norm);
  const std::string text = report_to_json_text(original);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["points"][0]["shape"].contains("hidden"));
  EXPECT_FALSE(j["points"][0]["shape"].contains("ffn_dim"));
  EXPECT_EQ(j["points"][1]["shape"]["hidden"], 4096);
  EXPECT_EQ(j["points"][1]["shape"]["ffn_dim"], 14336);
  EXPECT_EQ(j["points"][1]["shape"]["d_model"], 4096);
  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(report_to_json_text(back), text);
  ASSERT_EQ(back.points.size(), 2u);
  EXPECT_EQ(back.points[0].shape.hidden, 0);
  EXPECT_EQ(back.points[1].shape.hidden, 4096);
  EXPECT_EQ(back.points[1].shape.ffn_dim, 14336);
  EXPECT_NE(point_key(back.points[1]).label().find(" hidden=4096 ffn=14336"), std::string::npos);

  std::string bad = text;
  const std::string hidden = "\"hidden\": 4096";
  bad.replace(bad.find(hidden), hidden.size(), "\"hidden\": -4");
  try {
    report_from_json_text(bad, "memory");
    ADD_FAILURE() << "hidden -4 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid hidden -4 (--hidden)"), std::string::npos)
        << e.what();
  }
}

// A sweep --model report names its preset in config.model and reads it back; without --model the
// key is absent; a config file written from the report leaves it out (CLI only); the markdown
// header names the preset.
TEST(ReportJson, ModelPresetRecordedInConfig) {
  Report original = full_report();
  EXPECT_FALSE(nlohmann::json::parse(report_to_json_text(original))["config"].contains("model"));
  original.config.model_preset = "llama-3.1-8b";
  const std::string text = report_to_json_text(original);
  EXPECT_EQ(nlohmann::json::parse(text)["config"]["model"], "llama-3.1-8b");
  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(back.config.model_preset, "llama-3.1-8b");
  EXPECT_EQ(report_to_json_text(back), text);
  EXPECT_FALSE(sweep_config_file_json(back.config).contains("model"));
  EXPECT_NE(format_markdown_report(back).find("`llama-3.1-8b`'s shapes: B = "), std::string::npos);
}

// A gemm point at explicit dims writes gemm_n and gemm_k and reads them back; a default point
// writes neither (absent reads as 0), and the point label names the dims.
TEST(ReportJson, GemmDimsRoundTrip) {
  Report original = full_report();
  PointResult qkv = original.points[0];
  qkv.op = "gemm";
  qkv.shape.gemm_n = 6144;
  qkv.shape.gemm_k = 4096;
  original.points.push_back(qkv);
  const std::string text = report_to_json_text(original);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["points"][0]["shape"].contains("gemm_n"));
  EXPECT_FALSE(j["points"][0]["shape"].contains("gemm_k"));
  EXPECT_EQ(j["points"][1]["shape"]["gemm_n"], 6144);
  EXPECT_EQ(j["points"][1]["shape"]["gemm_k"], 4096);
  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(report_to_json_text(back), text);
  ASSERT_EQ(back.points.size(), 2u);
  EXPECT_EQ(back.points[0].shape.gemm_n, 0);
  EXPECT_EQ(back.points[1].shape.gemm_n, 6144);
  EXPECT_EQ(back.points[1].shape.gemm_k, 4096);
  EXPECT_NE(point_key(back.points[1]).label().find(" N=6144 K=4096"), std::string::npos);
  EXPECT_EQ(point_key(back.points[0]).label().find("N="), std::string::npos);
  PointResult other_k = back.points[1];
  other_k.shape.gemm_k = 14336;
  EXPECT_FALSE(point_key(back.points[1]).same_point(point_key(other_k)));

  std::string bad = text;
  const std::string n_6144 = "\"gemm_n\": 6144";
  bad.replace(bad.find(n_6144), n_6144.size(), "\"gemm_n\": 6100");
  try {
    report_from_json_text(bad, "memory");
    ADD_FAILURE() << "gemm_n 6100 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid gemm-n 6100"), std::string::npos) << e.what();
  }
}

// An FP8 decode point writes "kv_dtype" and its validation's quantization error and reads both
// back; a 16-bit point writes neither (absent reads as auto, and as no quantization), and the
// point label and identity name the KV dtype.
TEST(ReportJson, Fp8KvDtypeAndQuantizationErrorRoundTrip) {
  Report original = full_report();
  ASSERT_TRUE(original.points[0].validation.has_value());
  PointResult fp8 = original.points[0];
  fp8.op = "decode_attention";
  fp8.shape.kv_dtype = KvDtype::kFp8E4m3;
  fp8.validation->quantization = QuantizationError{
      "cpu-float64 on the bf16 K, V before quantization", 4096, 0.0125, 0.003, 0.5};
  fp8.tokens_per_s = tokens_per_second(fp8.op, fp8.shape, fp8.timing->median_s);
  original.points.push_back(fp8);
  const std::string text = report_to_json_text(original);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["points"][0]["shape"].contains("kv_dtype"));
  EXPECT_FALSE(j["points"][0]["validation"].contains("quantization_error"));
  EXPECT_EQ(j["points"][1]["shape"]["kv_dtype"], "fp8_e4m3");
  EXPECT_EQ(j["points"][1]["validation"]["quantization_error"]["max_abs_difference"], 0.0125);
  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(report_to_json_text(back), text);
  ASSERT_EQ(back.points.size(), 2u);
  EXPECT_EQ(back.points[0].shape.kv_dtype, KvDtype::kAuto);
  EXPECT_FALSE(back.points[0].validation->quantization.has_value());
  EXPECT_EQ(back.points[1].shape.kv_dtype, KvDtype::kFp8E4m3);
  ASSERT_TRUE(back.points[1].validation->quantization.has_value());
  const QuantizationError& q = *back.points[1].validation->quantization;
  EXPECT_EQ(q.reference, "cpu-float64 on the bf16 K, V before quantization");
  EXPECT_EQ(q.checked_elements, 4096);
  EXPECT_EQ(q.rms_difference, 0.003);
  EXPECT_EQ(q.max_abs_reference, 0.5);
  EXPECT_NE(point_key(back.points[1]).label().find(" kv=fp8_e4m3"), std::string::npos);
  PointResult same_but_bf16 = back.points[1];
  same_but_bf16.shape.kv_dtype = KvDtype::kAuto;
  EXPECT_FALSE(point_key(back.points[1]).same_point(point_key(same_but_bf16)));

  std::string bad = text;
  const std::string fp8_text = "\"kv_dtype\": \"fp8_e4m3\"";
  bad.replace(bad.find(fp8_text), fp8_text.size(), "\"kv_dtype\": \"int4\"");
  try {
    report_from_json_text(bad, "memory");
    ADD_FAILURE() << "kv_dtype int4 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid KV dtype 'int4'"), std::string::npos) << e.what();
  }
}

// An FP8 GEMM point writes "gemm_dtype" (a 16-bit one does not: absent reads as auto) and its
// counted fp8 tensor FLOPs and fp8 per-cycle peak (a 16-bit point neither), and reads them back;
// label and identity name the input type; a bad value is refused naming it.
TEST(ReportJson, Fp8GemmDtypeRoundTrip) {
  Report original = full_report();
  PointResult fp8 = original.points[0];
  fp8.op = "gemm";
  fp8.shape.gemm_dtype = GemmDtype::kFp8E4m3;
  fp8.counters.total.tensor_fp8_flop = 4.8e14;
  fp8.counters.peaks.tensor_fp8_per_cycle = 2.162688e6;
  original.points.push_back(fp8);
  const std::string text = report_to_json_text(original);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["points"][0]["shape"].contains("gemm_dtype"));
  EXPECT_EQ(j["points"][1]["shape"]["gemm_dtype"], "fp8_e4m3");
  EXPECT_EQ(j["points"][1]["counters"]["total"]["tensor_fp8_flop"], 4.8e14);
  EXPECT_EQ(j["points"][1]["counters"]["peaks"]["tensor_fp8_per_cycle"], 2.162688e6);
  EXPECT_FALSE(j["points"][0]["counters"]["peaks"].contains("tensor_fp8_per_cycle"));
  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(report_to_json_text(back), text);
  ASSERT_EQ(back.points.size(), 2u);
  EXPECT_EQ(back.points[0].shape.gemm_dtype, GemmDtype::kAuto);
  EXPECT_EQ(back.points[1].shape.gemm_dtype, GemmDtype::kFp8E4m3);
  ASSERT_TRUE(back.points[1].counters.total.tensor_fp8_flop.has_value());
  EXPECT_EQ(*back.points[1].counters.total.tensor_fp8_flop, 4.8e14);
  EXPECT_EQ(back.points[1].counters.peaks.tensor_fp8_per_cycle, 2.162688e6);
  EXPECT_FALSE(back.points[0].counters.peaks.tensor_fp8_per_cycle.has_value());
  EXPECT_NE(point_key(back.points[1]).label().find(" in=fp8_e4m3"), std::string::npos);
  PointResult same_but_auto = back.points[1];
  same_but_auto.shape.gemm_dtype = GemmDtype::kAuto;
  EXPECT_FALSE(point_key(back.points[1]).same_point(point_key(same_but_auto)));

  std::string bad = text;
  const std::string fp8_text = "\"gemm_dtype\": \"fp8_e4m3\"";
  ASSERT_NE(bad.find(fp8_text), std::string::npos);
  bad.replace(bad.find(fp8_text), fp8_text.size(), "\"gemm_dtype\": \"fp8\"");
  try {
    report_from_json_text(bad, "memory");
    ADD_FAILURE() << "gemm_dtype fp8 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid gemm dtype 'fp8'"), std::string::npos)
        << e.what();
  }
}

TEST(ReportJson, FullReportRoundTripsExactly) {
  const Report original = full_report();
  const std::string text = report_to_json_text(original);
  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(report_to_json_text(back), text);

  ASSERT_EQ(back.points.size(), 1u);
  const PointResult& p = back.points[0];
  const PointResult& o = original.points[0];
  EXPECT_EQ(p.seed, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(p.device_bytes_needed, o.device_bytes_needed);
  ASSERT_TRUE(p.validation && p.timing && p.roofline && p.tokens_per_s);
  EXPECT_EQ(p.validation->max_abs_error, 0.1 + 0.2);  // exact, not near
  EXPECT_EQ(p.validation->worst_ratio, 1.0 / 3.0);
  EXPECT_EQ(p.timing->samples_s, o.timing->samples_s);
  EXPECT_EQ(p.timing->median_s, o.timing->median_s);
  EXPECT_EQ(*p.timing->sm_clock_hz, *o.timing->sm_clock_hz);
  EXPECT_EQ(p.roofline->fraction_of_roof, o.roofline->fraction_of_roof);
  EXPECT_EQ(p.roofline->bound, o.roofline->bound);
  EXPECT_EQ(p.roofline->roof.pipe, Pipe::kTensor);
  EXPECT_EQ(p.shape.dtype, Dtype::kFp16);
  EXPECT_EQ(p.shape.gelu_form, GeluForm::kTanh);
  EXPECT_TRUE(p.shape.causal);
  ASSERT_EQ(p.counters.kernels.size(), 2u);
  EXPECT_EQ(p.counters.kernels[1].name, "pv_kernel");
  EXPECT_EQ(*p.counters.kernels[1].duration_s, *o.counters.kernels[1].duration_s);
  EXPECT_EQ(*p.counters.peaks.tensor_bf16_per_cycle, 1.0 / 7.0);
  EXPECT_EQ(*p.counters.peaks.l2_bytes_per_cycle, 9024.0);
  EXPECT_EQ(*p.counters.total.l2_clock_hz, 1.6916e9);
  ASSERT_EQ(p.counters.sessions.size(), 3u);
  EXPECT_EQ(p.counters.sessions[1].role, "counts");
  EXPECT_FALSE(p.counters.sessions[1].wall_time_s);
  EXPECT_EQ(*p.counters.sessions[2].wall_time_s, 1.0 / 3.0);
  EXPECT_EQ(*p.counters.sessions[0].points_in_collection, 9);
  EXPECT_FALSE(p.counters.sessions[1].points_in_collection);
  EXPECT_EQ(*p.counters.sessions[2].points_in_collection, 1);
  EXPECT_EQ(p.analytic.flop_formula, o.analytic.flop_formula);
  EXPECT_EQ(back.config.seq_lens, original.config.seq_lens);
  EXPECT_EQ(back.config.ops, original.config.ops);
  EXPECT_EQ(back.device.memory_bytes, original.device.memory_bytes);
}

TEST(ReportJson, SamplingAndNoiseRoundTripAndNoiseIsRecomputed) {
  Report report = full_report();
  report.config.max_noise = 0.01;
  report.config.min_samples = 12;
  report.config.min_time_s = 0.25;
  report.config.max_time_s = 2.0;
  TimingResult& t = *report.points[0].timing;
  const double m = t.median_s;  // the roofline is placed at it
  t.samples_s.clear();
  for (const double x : {1.0, 1.1, 0.9, 1.05, 0.95, 1.0, 1.02, 0.98, 1.01, 0.99}) {
    t.samples_s.push_back(m * x);
  }
  t.min_s = 0.9 * m;
  t.max_s = 1.1 * m;
  t.noise = 0.5;  // a stored value that disagrees with the samples is not trusted
  t.sampling = "adaptive (min 12 samples, min 0.25 s, max 2 s): noise 5.00% <= 1.00%";
  const Report back = report_from_json_text(report_to_json_text(report), "memory");
  ASSERT_TRUE(back.config.max_noise);
  EXPECT_EQ(*back.config.max_noise, 0.01);
  EXPECT_EQ(back.config.min_samples, 12);
  EXPECT_EQ(back.config.min_time_s, 0.25);
  EXPECT_EQ(back.config.max_time_s, 2.0);
  const TimingResult& b = *back.points[0].timing;
  EXPECT_EQ(b.sampling, t.sampling);
  ASSERT_TRUE(b.noise);
  EXPECT_DOUBLE_EQ(*b.noise, *median_noise(t.samples_s));  // ranks 2, 9: (1.05 - 0.95) / 2
  EXPECT_NEAR(*b.noise, 0.05, 1e-12);
}

TEST(ReportJson, AMedianMinOrMaxThatDoesNotFollowTheSamplesIsBadInput) {
  // `report` shows the stored median and `compare` recomputes it from the samples: a file where
  // they differ would give two answers, so the reader refuses it (found by a new-user trial).
  const std::string text = report_to_json_text(full_report());
  for (const char* key : {"median_s", "min_s", "max_s"}) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
    auto& samples = j["points"][0]["timing"]["samples_s"];
    for (auto& v : samples) v = v.get<double>() * 1.2;  // samples edited, summary not
    if (std::string(key) != "median_s") {
      // Keep the median consistent so that the min or max check is the one that fires.
      j["points"][0]["timing"]["median_s"] = median(samples.get<std::vector<double>>());
    }
    try {
      report_from_json_text(j.dump(), "edited.json");
      ADD_FAILURE() << key << ": no Error";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
      EXPECT_NE(std::string(e.what()).find("computed from samples_s"), std::string::npos)
          << e.what();
    }
  }
}

TEST(ReportJson, FixedSamplingConfigWithoutAdaptiveKeysStillReads) {
  Report report = full_report();
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(report_to_json_text(report));
  for (const char* key : {"max_noise", "min_samples", "min_time_s", "max_time_s"}) {
    j["config"].erase(key);
  }
  j["points"][0]["timing"].erase("sampling");
  const Report back = report_from_json_text(j.dump(), "old.json");
  EXPECT_FALSE(back.config.max_noise);
  EXPECT_EQ(back.config.min_samples, 10);
  EXPECT_TRUE(back.points[0].timing->sampling.empty());
}

TEST(ReportJson, EmptyOptionalsRoundTripAsNull) {
  const Report original = empty_optionals_report();
  const std::string text = report_to_json_text(original);
  const auto json = nlohmann::json::parse(text);
  const auto& point = json["points"][0];
  EXPECT_TRUE(point["validation"].is_null());
  EXPECT_TRUE(point["timing"].is_null());
  EXPECT_TRUE(point["roofline"].is_null());
  EXPECT_EQ(point["roofline_null_reason"], "point skipped");
  EXPECT_TRUE(point["tokens_per_s"].is_null());
  EXPECT_EQ(point["counters"]["null_reason"], "counters not permitted");
  EXPECT_TRUE(point["counters"]["total"]["dram_read_bytes"].is_null());
  EXPECT_TRUE(point["counters"]["total"]["total_flop"].is_null());
  EXPECT_TRUE(point["counters"]["peaks"]["dram_bytes_per_cycle"].is_null());

  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(report_to_json_text(back), text);
  const PointResult& p = back.points.at(0);
  EXPECT_EQ(p.status, PointStatus::kSkipped);
  EXPECT_EQ(p.reason, original.points[0].reason);
  EXPECT_FALSE(p.validation);
  EXPECT_FALSE(p.timing);
  EXPECT_FALSE(p.roofline);
  EXPECT_FALSE(p.tokens_per_s);
  EXPECT_EQ(p.counters.null_reason, std::optional<std::string>("counters not permitted"));
  EXPECT_FALSE(p.counters.total.dram_read_bytes);
  EXPECT_FALSE(p.counters.peaks.ffma_inst_per_cycle);
}

TEST(ReportJson, NonFiniteValuesBecomeNullWithReason) {
  Report r = full_report();
  PointResult& p = r.points[0];
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  p.timing->median_s = nan;
  p.timing->samples_s[1] = inf;
  p.validation->max_abs_error = -inf;
  p.roofline->fraction_of_roof = nan;
  p.counters.total.l2_bytes = inf;
  p.tokens_per_s = nan;
  r.device.sm_clock_max_hz = nan;

  const std::string text = report_to_json_text(r);
  EXPECT_EQ(text.find("NaN"), std::string::npos) << text;
  EXPECT_EQ(text.find("Infinity"), std::string::npos) << text;
  const auto json = nlohmann::json::parse(text);  // strict JSON
  const auto& point = json["points"][0];
  EXPECT_TRUE(point["timing"]["median_s"].is_null());
  EXPECT_EQ(point["timing"]["median_s_null_reason"], "non-finite value (not a number)");
  EXPECT_TRUE(point["timing"]["samples_s"][1].is_null());
  EXPECT_EQ(point["timing"]["samples_s_null_reason"], "non-finite value (+infinite) at index 1");
  EXPECT_TRUE(point["validation"]["max_abs_error"].is_null());
  EXPECT_EQ(point["validation"]["max_abs_error_null_reason"], "non-finite value (-infinite)");
  EXPECT_TRUE(point["roofline"]["fraction_of_roof"].is_null());
  EXPECT_TRUE(point["roofline"].contains("fraction_of_roof_null_reason"));
  EXPECT_TRUE(point["counters"]["total"]["l2_bytes"].is_null());
  EXPECT_TRUE(point["counters"]["total"].contains("l2_bytes_null_reason"));
  EXPECT_TRUE(point["tokens_per_s"].is_null());
  EXPECT_TRUE(point.contains("tokens_per_s_null_reason"));
  EXPECT_TRUE(json["device"]["sm_clock_max_hz"].is_null());

  // Read back: an optional field is empty again; a time stored as null is refused (a sweep
  // never keeps a non-finite time in an ok point).
  Report optional_only = full_report();
  optional_only.points[0].counters.total.l2_bytes = inf;
  optional_only.points[0].tokens_per_s = nan;
  const Report back = report_from_json_text(report_to_json_text(optional_only), "memory");
  EXPECT_FALSE(back.points[0].counters.total.l2_bytes);
  EXPECT_FALSE(back.points[0].tokens_per_s);
  EXPECT_THROW(report_from_json_text(text, "memory"), Error);
}

TEST(ReportJson, DerivedPlacementIsRecomputedNotTrusted) {
  const Report original = full_report();
  const RooflinePoint& o = *original.points[0].roofline;
  auto json = nlohmann::ordered_json::parse(report_to_json_text(original));
  auto& placed = json["points"][0]["roofline"];
  placed["fraction_of_roof"] = 5.0;  // a hand edit: would print 500% without the flag
  placed["above_roof"] = !o.above_roof;
  placed["achieved_flop_per_s"] = 1.0;
  placed["arithmetic_intensity_flop_per_byte"] = 1e9;
  placed["bound"] = o.bound == Bound::kMemory ? "compute" : "memory";
  const RooflinePoint back = *report_from_json_text(json.dump(), "edited.json").points[0].roofline;
  EXPECT_EQ(back.fraction_of_roof, o.fraction_of_roof);
  EXPECT_EQ(back.above_roof, o.above_roof);
  EXPECT_EQ(back.achieved_flop_per_s, o.achieved_flop_per_s);
  EXPECT_EQ(back.arithmetic_intensity_flop_per_byte, o.arithmetic_intensity_flop_per_byte);
  EXPECT_EQ(back.bound, o.bound);

  // Editing a measured value moves the point, and above the roof it is flagged.
  // (The time is the timing median's, so both are edited, as the roofline is placed there.)
  const double faster = o.time_s * o.fraction_of_roof / 5.0;
  placed["time_s"] = faster;
  json["points"][0]["timing"]["median_s"] = faster;
  json["points"][0]["timing"]["min_s"] = faster;
  json["points"][0]["timing"]["max_s"] = faster;
  json["points"][0]["timing"]["samples_s"] = nlohmann::json::array({faster, faster, faster});
  const RooflinePoint fast = *report_from_json_text(json.dump(), "edited.json").points[0].roofline;
  EXPECT_NEAR(fast.fraction_of_roof, 5.0, 1e-9);
  EXPECT_TRUE(fast.above_roof);
}

ExitCode exit_code_of(const std::string& text, std::string* message) {
  try {
    report_from_json_text(text, "bad.json");
  } catch (const Error& e) {
    *message = e.what();
    return e.exit_code();
  }
  ADD_FAILURE() << "no Error thrown";
  return ExitCode::kOk;
}

// full_report() with its point placed under an L2 roof too, where the L2 slope binds.
Report l2_report() {
  Report report = full_report();
  PointResult& p = report.points[0];
  p.counters.total.l2_bytes = 9.9e10 / 7.0;
  Roof roof = p.roofline->roof;
  roof.l2_bytes_per_s = 1e13 / 3.0;
  roof.l2_source = "measured: L2 3.333 TB/s [test]";
  roof.l2_source_kind = RoofSource::kMeasured;
  p.roofline = place_on_roofline(roof, p.roofline->flop, p.roofline->dram_bytes, p.roofline->time_s,
                                 "counters", L2Bytes{p.counters.total.l2_bytes, ""});
  p.roofline->bytes_basis = "dram_isolated";
  return report;
}

TEST(ReportJson, L2RooflineRoundTripsAndItsDerivedValuesAreRecomputed) {
  const Report original = l2_report();
  const RooflinePoint& o = *original.points[0].roofline;
  ASSERT_EQ(o.binding_level, RoofLevel::kL2);
  const std::string text = report_to_json_text(original);
  auto json = nlohmann::ordered_json::parse(text);
  auto& placed = json["points"][0]["roofline"];
  EXPECT_EQ(placed["roof"]["l2_bytes_per_s"].get<double>(), 1e13 / 3.0);
  EXPECT_EQ(placed["roof"]["l2_source"], "measured: L2 3.333 TB/s [test]");
  EXPECT_EQ(placed["roof"]["l2_source_kind"], "measured");
  EXPECT_EQ(placed["l2_bytes"].get<double>(), 9.9e10 / 7.0);
  EXPECT_EQ(placed["l2_arithmetic_intensity_flop_per_byte"].get<double>(),
            *o.l2_arithmetic_intensity_flop_per_byte);
  EXPECT_EQ(placed["achieved_l2_bytes_per_s"].get<double>(), *o.achieved_l2_bytes_per_s);
  EXPECT_EQ(placed["l2_ridge_flop_per_byte"].get<double>(), *o.l2_ridge_flop_per_byte);
  EXPECT_EQ(placed["l2_attainable_flop_per_s"].get<double>(), *o.l2_attainable_flop_per_s);
  EXPECT_EQ(placed["dram_attainable_flop_per_s"].get<double>(), o.dram_attainable_flop_per_s);
  EXPECT_EQ(placed["attainable_flop_per_s"].get<double>(), *o.l2_attainable_flop_per_s);
  EXPECT_EQ(placed["binding_level"], "l2");
  EXPECT_EQ(placed["l2_null_reason"], "");

  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(report_to_json_text(back), text);
  const RooflinePoint& b = *back.points[0].roofline;
  EXPECT_EQ(b.roof.l2_bytes_per_s, o.roof.l2_bytes_per_s);
  EXPECT_EQ(b.roof.l2_source_kind, RoofSource::kMeasured);
  EXPECT_EQ(b.l2_bytes, o.l2_bytes);
  EXPECT_EQ(b.l2_attainable_flop_per_s, o.l2_attainable_flop_per_s);
  EXPECT_EQ(b.binding_level, RoofLevel::kL2);

  // Derived: an edited verdict is recomputed, not trusted.
  placed["binding_level"] = "compute";
  placed["l2_attainable_flop_per_s"] = 1.0;
  const RooflinePoint edited =
      *report_from_json_text(json.dump(), "edited.json").points[0].roofline;
  EXPECT_EQ(edited.binding_level, RoofLevel::kL2);
  EXPECT_EQ(edited.l2_attainable_flop_per_s, o.l2_attainable_flop_per_s);
}

TEST(ReportJson, L2NullsKeepTheirReasons) {
  Report report = full_report();  // placed without L2 bytes, under a roof without L2
  report.points[0].roofline->roof.l2_source = "datasheet: datasheets give no L2 bandwidth";
  const std::string text = report_to_json_text(report);
  const auto json = nlohmann::ordered_json::parse(text);
  const auto& placed = json["points"][0]["roofline"];
  EXPECT_TRUE(placed["l2_bytes"].is_null());
  EXPECT_TRUE(placed["l2_attainable_flop_per_s"].is_null());
  EXPECT_TRUE(placed["roof"]["l2_bytes_per_s"].is_null());
  EXPECT_TRUE(placed["roof"]["l2_source_kind"].is_null());
  EXPECT_EQ(placed["l2_null_reason"], "no L2 bytes given to the placement");
  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(back.points[0].roofline->l2_null_reason, "no L2 bytes given to the placement");
  EXPECT_EQ(back.points[0].roofline->roof.l2_source, "datasheet: datasheets give no L2 bandwidth");
  EXPECT_EQ(report_to_json_text(back), text);
}

TEST(ReportJson, ReportWithoutL2RooflineKeysStillReads) {
  const Report original = l2_report();
  auto json = nlohmann::ordered_json::parse(report_to_json_text(original));
  auto& placed = json["points"][0]["roofline"];
  for (const char* key :
       {"l2_bytes", "l2_arithmetic_intensity_flop_per_byte", "achieved_l2_bytes_per_s",
        "l2_ridge_flop_per_byte", "dram_attainable_flop_per_s", "l2_attainable_flop_per_s",
        "binding_level", "l2_null_reason"}) {
    placed.erase(key);
  }
  for (const char* key : {"l2_bytes_per_s", "l2_source", "l2_source_kind"}) {
    placed["roof"].erase(key);
  }
  const RooflinePoint back = *report_from_json_text(json.dump(), "old.json").points[0].roofline;
  EXPECT_FALSE(back.l2_bytes);
  EXPECT_FALSE(back.roof.l2_bytes_per_s);
  EXPECT_FALSE(back.l2_attainable_flop_per_s);
  EXPECT_EQ(back.l2_null_reason, "report written before the L2 roofline existed");
  EXPECT_EQ(back.roof.l2_source, "report written before the L2 roofline existed");
  // Judged as before: against the DRAM level alone.
  EXPECT_EQ(back.attainable_flop_per_s, original.points[0].roofline->dram_attainable_flop_per_s);
  EXPECT_NE(back.binding_level, RoofLevel::kL2);
}

TEST(ReportJson, InvalidL2RoofOrBytesAreBadInput) {
  const std::string text = report_to_json_text(l2_report());
  std::string message;
  auto json = nlohmann::ordered_json::parse(text);
  json["points"][0]["roofline"]["roof"]["l2_bytes_per_s"] = -1.0;
  EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("l2_bytes_per_s"), std::string::npos) << message;
  json = nlohmann::ordered_json::parse(text);
  json["points"][0]["roofline"]["roof"]["l2_source_kind"] = nullptr;  // a value needs its source
  EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("l2_source_kind"), std::string::npos) << message;
  json = nlohmann::ordered_json::parse(text);
  json["points"][0]["roofline"]["l2_bytes"] = 0.0;
  EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("l2_bytes"), std::string::npos) << message;
}

TEST(ReportJson, WrongSchemaVersionIsBadInput) {
  for (const int version : {0, kReportSchemaVersion + 1}) {
    auto json = nlohmann::ordered_json::parse(report_to_json_text(full_report()));
    json["schema_version"] = version;
    std::string message;
    EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput);
    EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
    EXPECT_NE(message.find(fmt::format("schema_version {}", version)), std::string::npos)
        << message;
    EXPECT_NE(message.find("versions 1 to 2"), std::string::npos) << message;
  }
}

TEST(ReportJson, MissingKeyIsBadInputNamingOriginAndKey) {
  auto json = nlohmann::ordered_json::parse(report_to_json_text(full_report()));
  json["points"][0]["timing"].erase("median_s");
  std::string message;
  EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
  EXPECT_NE(message.find("points[0].timing.median_s"), std::string::npos) << message;
}

TEST(ReportJson, WrongTypeAndMalformedJsonAreBadInput) {
  auto json = nlohmann::ordered_json::parse(report_to_json_text(full_report()));
  json["points"][0]["shape"]["batch"] = "two";
  std::string message;
  EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("points[0].shape.batch"), std::string::npos) << message;

  EXPECT_EQ(exit_code_of("{\"schema_version\": 1,", &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("bad.json"), std::string::npos) << message;

  json = nlohmann::ordered_json::parse(report_to_json_text(full_report()));
  json["points"][0]["status"] = "maybe";
  EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("points[0].status"), std::string::npos) << message;
}

TEST(ReportJson, TimingStatesItsL2PolicyAndOlderReportsWithoutItLoad) {
  const std::string text = report_to_json_text(full_report());
  auto json = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(json["points"][0]["timing"]["cache_policy"],
            "L2 left warm between timed samples (--warm-l2)");
  EXPECT_EQ(report_from_json_text(text, "memory").points[0].timing->cache_policy,
            "L2 left warm between timed samples (--warm-l2)");
  json["points"][0]["timing"].erase("cache_policy");
  EXPECT_EQ(report_from_json_text(json.dump(), "old").points[0].timing->cache_policy, "");
}

TEST(ReportJson, UnknownGitRevisionIsNullWithReasonNeverEmpty) {
  Report r = full_report();
  r.git_revision.clear();  // built from a copy without .git and no RFL_GIT_REVISION
  const std::string text = report_to_json_text(r);
  const auto json = nlohmann::json::parse(text);
  EXPECT_TRUE(json["tool"]["git_revision"].is_null());
  EXPECT_EQ(json["tool"]["git_revision_null_reason"], kGitRevisionNullReason);
  EXPECT_EQ(text.find("\"git_revision\": \"\""), std::string::npos);
  EXPECT_EQ(report_from_json_text(text, "memory").git_revision, "");
  EXPECT_EQ(report_to_json_text(report_from_json_text(text, "memory")), text);
  // A known revision has no reason key.
  const auto known = nlohmann::json::parse(report_to_json_text(full_report()));
  EXPECT_EQ(known["tool"]["git_revision"], "0123456789ab");
  EXPECT_FALSE(known["tool"].contains("git_revision_null_reason"));
  // Reports written before the rule hold "": still readable.
  auto old = nlohmann::ordered_json::parse(text);
  old["tool"]["git_revision"] = "";
  EXPECT_EQ(report_from_json_text(old.dump(), "old").git_revision, "");
}

TEST(ReportJson, RooflineInputsThatCannotBePlacedAreBadInputNamingTheKey) {
  const struct {
    const char* path;
    double value;
  } cases[] = {{"time_s", 0.0}, {"flop", -1.0}, {"dram_bytes", 0.0}};
  for (const auto& c : cases) {
    auto json = nlohmann::ordered_json::parse(report_to_json_text(full_report()));
    json["points"][0]["roofline"][c.path] = c.value;
    std::string message;
    EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput) << c.path;
    EXPECT_NE(message.find(std::string("points[0].roofline.") + c.path), std::string::npos)
        << message;
  }
  auto json = nlohmann::ordered_json::parse(report_to_json_text(full_report()));
  json["points"][0]["roofline"]["roof"]["peak_bytes_per_s"] = 0.0;
  std::string message;
  EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("points[0].roofline.roof.peak_bytes_per_s"), std::string::npos) << message;
}

// Values no sweep can write are refused on loading, naming the point (index, op, L) and the key,
// so that report, plot and compare never judge them.
TEST(ReportJson, ImpossibleStoredValuesAreBadInputNamingPointAndKey) {
  using Json = nlohmann::ordered_json;
  const struct {
    const char* key;  // JSON pointer inside points[0]
    Json value;
    const char* expect;  // in the message besides "points[0]" and the op
  } cases[] = {
      {"/timing/median_s", -1.0, "timing.median_s"},
      {"/timing/median_s", 0.0, "timing.median_s"},
      {"/timing/median_s", nullptr, "timing.median_s"},
      {"/timing/median_s", 1e300, "timing.median_s"},
      {"/timing/median_s", 2e-4, "outside min_s"},  // above max_s 1.1e-4
      {"/roofline/time_s", 9e-5, "differs from timing.median_s"},
      {"/timing/median_s", 1e-5, "outside min_s"},  // below min_s
      {"/timing/min_s", -1e-5, "timing.min_s"},
      {"/timing/max_s", 1e300, "timing.max_s"},
      {"/timing/samples_s", Json::array(), "timing.samples_s"},
      {"/timing/samples_s/1", -1e-5, "timing.samples_s[1]"},
      {"/timing/samples_s/1", 0.0, "timing.samples_s[1]"},
      {"/timing/samples_s/1", nullptr, "timing.samples_s[1]"},
      {"/timing", nullptr, "timing"},
      {"/shape/seq_len", 0, "shape.seq_len"},
      {"/shape/batch", -2, "shape.batch"},
      {"/shape/heads", 0, "shape.heads"},
      {"/shape/head_dim", -64, "shape.head_dim"},
      {"/op", "softmax", "'softmax': allowed naive_attention"},
      {"/op", "GEMM", "points[0].op"},
      {"/version", "", "points[0].version"},
      {"/counters/total/dram_read_bytes", -1.0, "counters.total.dram_read_bytes"},
      {"/counters/kernels/1/l2_bytes", -3.0, "counters.kernels[1].l2_bytes"},
      {"/counters/total/tensor_bf16_flop", -1.0, "counters.total.tensor_bf16_flop"},
      {"/counters/kernels/0/duration_s", -1e-6, "counters.kernels[0].duration_s"},
      {"/counters/sessions/0/points_in_collection", 0, "points_in_collection"},
      {"/analytic/flop", -1.0, "analytic.flop"},
      {"/tokens_per_s", -5.0, "tokens_per_s"},
      {"/validation/passed", false, "passed is false"},
      {"/validation", nullptr, "points[0].validation"},
  };
  for (const auto& c : cases) {
    Json json = Json::parse(report_to_json_text(full_report()));
    json["points"][0][Json::json_pointer(c.key)] = c.value;
    std::string message;
    EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput) << c.key;
    EXPECT_NE(message.find(c.expect), std::string::npos) << c.key << ": " << message;
    EXPECT_NE(message.find("points[0]"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    if (std::string(c.key).rfind("/op", 0) != 0 && std::string(c.key).rfind("/shape", 0) != 0) {
      EXPECT_NE(message.find("flash_attention at L = "), std::string::npos) << message;
    }
  }
  Json json = Json::parse(report_to_json_text(full_report()));
  json["tool"]["version"] = "";
  std::string message;
  EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("tool.version"), std::string::npos) << message;
}

// A skipped point never ran a kernel: no version, timing or validation, and it still loads.
TEST(ReportJson, SkippedPointWithoutVersionOrValidationLoads) {
  EXPECT_NO_THROW(report_from_json_text(report_to_json_text(empty_optionals_report()), "memory"));
}

// The committed reports (tests/unit/data, docs/examples) stay loadable under the stricter reader.
TEST(ReportJson, CommittedReportsStillLoad) {
  for (const char* path : {RFL_SOURCE_DIR "/tests/unit/data/h200-sweep-first-run.json",
                           RFL_SOURCE_DIR "/tests/unit/data/report_fixed.json",
                           RFL_SOURCE_DIR "/docs/examples/h200-sweep.json",
                           RFL_SOURCE_DIR "/tests/fuzz/corpus/report_reader/two-points.json"}) {
    EXPECT_NO_THROW(load_report(path)) << path;
  }
}

// The seed is written twice: as the integer and as text that readers holding numbers as doubles
// keep exactly (2^64 - 1 as a double rounds to 2^64). A text that is not the seed is refused; a
// report written before the text existed reads.
TEST(ReportJson, SeedTextIsExactAndCheckedAgainstTheSeed) {
  const std::string text = report_to_json_text(full_report());
  auto json = nlohmann::ordered_json::parse(text);
  auto& point = json["points"][0];
  EXPECT_EQ(point["seed_hex"], "0xffffffffffffffff");
  for (const char* bad : {"0xfffffffffffffffe", "0xFFFFFFFFFFFFFFFF", "ffffffffffffffff", "0x1"}) {
    point["seed_hex"] = bad;
    std::string message;
    EXPECT_EQ(exit_code_of(json.dump(), &message), ExitCode::kBadInput) << bad;
    EXPECT_NE(message.find("seed_hex"), std::string::npos) << message;
    EXPECT_NE(message.find(bad), std::string::npos) << message;
  }
  point.erase("seed_hex");
  EXPECT_EQ(report_from_json_text(json.dump(), "old").points[0].seed,
            std::numeric_limits<uint64_t>::max());
}

TEST(ReportJson, SweepConfigRoundTrips) {
  const SweepConfig original = full_report().config;
  const nlohmann::json json = nlohmann::json::parse(sweep_config_to_json(original).dump());
  const SweepConfig back = sweep_config_from_json(json, "memory", "config");
  EXPECT_EQ(sweep_config_to_json(back), sweep_config_to_json(original));
}

// The kernel versions asked for are on record; a report without them (written before the key)
// reads back and is written again without the key, byte for byte.
TEST(ReportJson, KernelRequestsRoundTripAndTheirAbsenceToo) {
  Report with = full_report();
  with.config.kernels = {{"flash_attention", "v2"}, {"gemm", "v3"}};
  const std::string text = report_to_json_text(with);
  const auto json = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(json["config"]["kernels"],
            (nlohmann::ordered_json{{"flash_attention", "v2"}, {"gemm", "v3"}}));
  EXPECT_EQ(report_from_json_text(text, "memory").config.kernels, with.config.kernels);

  Report without = full_report();
  without.config.kernels.clear();
  const std::string old_text = report_to_json_text(without);
  EXPECT_FALSE(nlohmann::ordered_json::parse(old_text)["config"].contains("kernels"));
  const Report back = report_from_json_text(old_text, "memory");
  EXPECT_TRUE(back.config.kernels.empty());
  EXPECT_EQ(report_to_json_text(back), old_text);
}

TEST(ReportJson, KernelRequestsOfTheWrongTypeAreBadInputNamingTheKey) {
  auto json = nlohmann::ordered_json::parse(report_to_json_text(full_report()));
  json["config"]["kernels"] = {{"gemm", 1}};
  try {
    report_from_json_text(json.dump(), "r.json");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("config.kernels.gemm"), std::string::npos) << e.what();
  }
}

std::set<std::string> directory_entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("rfl_atomic_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  fs::path dir_;
};

TEST_F(AtomicFileTest, WritesAndReplacesLeavingNoTemporaryFile) {
  const fs::path target = dir_ / "report.json";
  write_file_atomically(target.string(), "first\n");
  EXPECT_EQ(read(target), "first\n");
  write_file_atomically(target.string(), "second, longer\n");
  EXPECT_EQ(read(target), "second, longer\n");
  EXPECT_EQ(directory_entries(dir_), std::set<std::string>{"report.json"});
}

TEST_F(AtomicFileTest, MissingDirectoryThrowsAndLeavesNothing) {
  const fs::path target = dir_ / "no_such_dir" / "report.json";
  try {
    write_file_atomically(target.string(), "x");
    FAIL() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    const std::string message = e.what();
    EXPECT_NE(message.find(target.string()), std::string::npos) << message;
    EXPECT_NE(message.find("directory '" + (dir_ / "no_such_dir").string() + "' does not exist"),
              std::string::npos)
        << message;
  }
  EXPECT_FALSE(fs::exists(dir_ / "no_such_dir"));
  EXPECT_TRUE(directory_entries(dir_).empty());
}

TEST_F(AtomicFileTest, FailedRenameRemovesTheTemporaryFile) {
  // The temporary file is created, but rename(2) cannot replace a non-empty directory.
  const fs::path target = dir_ / "occupied";
  fs::create_directories(target / "child");
  EXPECT_THROW(write_file_atomically(target.string(), "x"), Error);
  EXPECT_EQ(directory_entries(dir_), std::set<std::string>{"occupied"});
}

// `layer -o R.json --chart C.svg`: a chart that cannot be written leaves no report either, and
// files that can be written all appear together.
TEST_F(AtomicFileTest, FilesThatBelongTogetherAreWrittenAllOrNone) {
  const fs::path report = dir_ / "layer.json";
  const fs::path chart = dir_ / "occupied.svg";  // a non-empty directory: its rename fails
  fs::create_directories(chart / "child");
  EXPECT_THROW(write_files_atomically({{report.string(), "{}"}, {chart.string(), "<svg/>"}}),
               Error);
  EXPECT_FALSE(fs::exists(report));
  const fs::path missing = dir_ / "no_such_dir" / "c.svg";
  EXPECT_THROW(write_files_atomically({{report.string(), "{}"}, {missing.string(), "<svg/>"}}),
               Error);
  EXPECT_EQ(directory_entries(dir_), std::set<std::string>{"occupied.svg"});
  fs::remove_all(chart);
  write_files_atomically({{report.string(), "{}\n"}, {chart.string(), "<svg/>\n"}});
  EXPECT_EQ(read(report), "{}\n");
  EXPECT_EQ(read(chart), "<svg/>\n");
  EXPECT_EQ(directory_entries(dir_), (std::set<std::string>{"layer.json", "occupied.svg"}));
}

TEST(OutputFileError, FullDiskReadOnlyAndIoErrorsAreTheEnvironmentsTheRestBadInput) {
  struct Case {
    int error_number;
    ExitCode code;
    const char* fix;  // what the line tells the user to do; "" for a bad path
  };
  const Case cases[] = {
      {ENOSPC, ExitCode::kEnvironment, "free space"},
      {EDQUOT, ExitCode::kEnvironment, "free space"},
      {EROFS, ExitCode::kEnvironment, "writable filesystem"},
      {EIO, ExitCode::kEnvironment, "check the disk"},
      {EACCES, ExitCode::kBadInput, ""},
      {EISDIR, ExitCode::kBadInput, ""},
      {ENOENT, ExitCode::kBadInput, ""},
      {ENOTDIR, ExitCode::kBadInput, ""},
      {EPERM, ExitCode::kBadInput, ""},
  };
  for (const Case& c : cases) {
    const Error e = output_file_error("/out/report.json", "write", c.error_number);
    const std::string message = e.what();
    EXPECT_EQ(e.exit_code(), c.code) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    const std::string head = std::string("cannot write '/out/report.json': write failed: ") +
                             std::strerror(c.error_number);
    EXPECT_EQ(message.rfind(head, 0), 0u) << message;
    if (*c.fix != '\0') {
      EXPECT_NE(message.find(c.fix), std::string::npos) << message;
    } else {
      EXPECT_EQ(message, head);
    }
  }
}

TEST_F(AtomicFileTest, LoadReportReadsWhatWasWritten) {
  const fs::path target = dir_ / "report.json";
  const std::string text = report_to_json_text(full_report());
  write_file_atomically(target.string(), text);
  EXPECT_EQ(report_to_json_text(load_report(target.string())), text);

  try {
    load_report((dir_ / "absent.json").string());
    FAIL() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("absent.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace rooflinectl
