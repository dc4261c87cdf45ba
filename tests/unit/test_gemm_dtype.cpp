// --gemm-dtype auto|fp8_e4m3 (core/shape.hpp GemmDtype): parsing and its errors, the list axis
// (product order, filter, refusal without gemm), FP8 GEMM bytes in the model, the tensor fp8 roof
// and its ridge.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bad_input_message.hpp"
#include "core/error.hpp"
#include "core/layer_widths.hpp"
#include "core/point_filter.hpp"
#include "core/sweep_axes.hpp"
#include "core/sweep_config.hpp"
#include "core/sweep_plan.hpp"
#include "device/gpu_spec.hpp"
#include "h200_counter_peaks.hpp"
#include "io/json_writer.hpp"
#include "model/operator_model.hpp"
#include "model/prediction.hpp"
#include "peaks/peak_sources.hpp"
#include "peaks/roof_selection.hpp"
#include "result/peak_set.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {
namespace {

SweepConfig config_of(const std::string& json) { return parse_sweep_config(json, "c.json"); }

std::string validation_error(const SweepConfig& c) {
  return bad_input_message([&] { validate_sweep_config(c); });
}

TEST(GemmDtype, ParsesAutoAndFp8AndNamesTheBadValue) {
  EXPECT_EQ(parse_gemm_dtype("auto"), GemmDtype::kAuto);
  EXPECT_EQ(parse_gemm_dtype("fp8_e4m3"), GemmDtype::kFp8E4m3);
  EXPECT_EQ(to_string(GemmDtype::kAuto), "auto");
  EXPECT_EQ(to_string(GemmDtype::kFp8E4m3), "fp8_e4m3");
  EXPECT_EQ(bad_input_message([] { parse_gemm_dtype("fp8"); }),
            "invalid gemm dtype 'fp8' (--gemm-dtype): allowed auto (the --dtype), fp8_e4m3");
  EXPECT_EQ(bad_input_message([] { parse_gemm_dtype("FP8_E4M3"); }),
            "invalid gemm dtype 'FP8_E4M3' (--gemm-dtype): allowed auto (the --dtype), fp8_e4m3");
  EXPECT_EQ(bad_input_message([] { parse_gemm_dtype_list("auto,fp8_e5m2"); }),
            "invalid gemm dtype 'fp8_e5m2' (--gemm-dtype): allowed auto (the --dtype), fp8_e4m3");
  EXPECT_EQ(bad_input_message([] { parse_gemm_dtype_list("fp8_e4m3,fp8_e4m3"); }),
            "invalid --gemm-dtype 'fp8_e4m3,fp8_e4m3': fp8_e4m3 is listed more than once");
  EXPECT_EQ(parse_gemm_dtype_list("fp8_e4m3,auto"),
            (std::vector<GemmDtype>{GemmDtype::kFp8E4m3, GemmDtype::kAuto}));
  Shape s;
  EXPECT_EQ(gemm_dtype_label(s), "");
  EXPECT_EQ(gemm_input_element_bytes(s), 2);
  s.gemm_dtype = GemmDtype::kFp8E4m3;
  EXPECT_EQ(gemm_dtype_label(s), "in=fp8_e4m3");
  EXPECT_EQ(gemm_input_element_bytes(s), 1);
}

// gemm_dtype is gemm's axis only, inside seq_len (both inputs of one shape run side by side);
// the other operators run once, at auto, even when fp8_e4m3 comes first.
TEST(GemmDtype, ListAxisIsGemmsOnlyAndInnerToBatch) {
  EXPECT_TRUE(operator_uses_axis("gemm", SweepAxis::kGemmDtype));
  EXPECT_FALSE(operator_uses_axis("gelu", SweepAxis::kGemmDtype));
  EXPECT_FALSE(operator_uses_axis("decode_attention", SweepAxis::kGemmDtype));
  EXPECT_EQ(axis_name(SweepAxis::kGemmDtype), "gemm_dtype");
  EXPECT_EQ(axis_flag(SweepAxis::kGemmDtype), "--gemm-dtype");
  const SweepConfig c = config_of(
      R"({"ops": ["gemm", "gelu"], "seq": "512,1024", "batch": [1, 8],
          "gemm_dtype": ["fp8_e4m3", "auto"]})");
  EXPECT_NO_THROW(validate_sweep_config(c));
  std::vector<std::string> texts;
  for (const PlannedPoint& p : plan_all_points(c)) {
    texts.push_back(p.op + " B=" + std::to_string(p.shape.batch) + " " +
                    to_string(p.shape.gemm_dtype) + " L=" + std::to_string(p.shape.seq_len));
  }
  EXPECT_EQ(texts,
            (std::vector<std::string>{
                "gemm B=1 fp8_e4m3 L=512", "gemm B=1 fp8_e4m3 L=1024", "gemm B=1 auto L=512",
                "gemm B=1 auto L=1024", "gemm B=8 fp8_e4m3 L=512", "gemm B=8 fp8_e4m3 L=1024",
                "gemm B=8 auto L=512", "gemm B=8 auto L=1024", "gelu B=1 auto L=512",
                "gelu B=1 auto L=1024", "gelu B=8 auto L=512", "gelu B=8 auto L=1024"}));
  Shape s = c.base;
  s.batch = 8;
  EXPECT_EQ(swept_axes_label(c.axes, "gemm", s), "B=8 in=fp8_e4m3");
  s.gemm_dtype = GemmDtype::kAuto;
  s.dtype = Dtype::kFp16;
  EXPECT_EQ(swept_axes_label(c.axes, "gemm", s), "B=8 in=fp16");
  EXPECT_EQ(swept_axes_label(c.axes, "gelu", s), "B=8");
  EXPECT_EQ(axis_summary(c.axes, c.base, SweepAxis::kGemmDtype), "{fp8_e4m3, auto}");
  // The report's config records the list; a worker's config file reads back to the same plan.
  EXPECT_EQ(sweep_config_to_json(c)["gemm_dtype"],
            nlohmann::ordered_json::array({"fp8_e4m3", "auto"}));
  const SweepConfig back = parse_sweep_config(sweep_config_file_json(c).dump(), "workers.json");
  EXPECT_EQ(back.axes.gemm_dtype, c.axes.gemm_dtype);
  EXPECT_FALSE(sweep_config_to_json(default_sweep_config()).contains("gemm_dtype"));
  // --filter gemm_dtype=... keeps one input type of gemm; gelu has no GEMM inputs, so a term on
  // the axis holds for its points (4 of them).
  SweepConfig filtered = c;
  filtered.filter = "gemm_dtype=fp8_e4m3";
  std::vector<PlannedPoint> kept = plan_all_points(filtered);
  EXPECT_EQ(kept.size(), 8u);
  EXPECT_EQ(std::count_if(kept.begin(), kept.end(),
                          [](const PlannedPoint& p) {
                            return p.op == "gemm" && p.shape.gemm_dtype == GemmDtype::kFp8E4m3;
                          }),
            4);
  filtered.filter = "gemm-dtype!=fp8_e4m3,op=gemm";
  kept = plan_all_points(filtered);
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_TRUE(std::all_of(kept.begin(), kept.end(), [](const PlannedPoint& p) {
    return p.shape.gemm_dtype == GemmDtype::kAuto;
  }));
}

TEST(GemmDtype, FilterTermAndItsErrors) {
  Shape fp8;
  fp8.gemm_dtype = GemmDtype::kFp8E4m3;
  EXPECT_TRUE(parse_point_filter("gemm_dtype=fp8_e4m3").keeps("gemm", fp8));
  EXPECT_FALSE(parse_point_filter("gemm_dtype=auto").keeps("gemm", fp8));
  EXPECT_TRUE(parse_point_filter("gemm_dtype=auto").keeps("gemm", Shape{}));
  const auto error_of = [](const std::string& text) {
    return bad_input_message([&] { parse_point_filter(text); });
  };
  EXPECT_EQ(error_of("gemm_dtype=fp8"),
            "invalid --filter 'gemm_dtype=fp8': term 'gemm_dtype=fp8': invalid gemm dtype 'fp8' "
            "(--gemm-dtype): allowed auto (the --dtype), fp8_e4m3");
  EXPECT_NE(error_of("gemm_dtype<fp8_e4m3").find("gemm_dtype takes = or != only"),
            std::string::npos)
      << error_of("gemm_dtype<fp8_e4m3");
}

// Every value FP8 with an operator that has no GEMM inputs: refused, naming the flag, the
// operator and the two ways out. auto among the values, or gemm alone: accepted.
TEST(GemmDtype, Fp8WithoutGemmIsRefused) {
  SweepConfig c = config_of(R"({"ops": ["gelu"], "gemm_dtype": "fp8_e4m3"})");
  EXPECT_EQ(validation_error(c),
            "invalid --gemm-dtype fp8_e4m3 with operator 'gelu' (--ops): only gemm has GEMM "
            "inputs (run it with --ops gemm, or list auto too: --gemm-dtype auto,fp8_e4m3)");
  c = config_of(R"({"ops": ["gemm", "rmsnorm"], "gemm_dtype": "fp8_e4m3"})");
  EXPECT_NE(validation_error(c).find("operator 'rmsnorm'"), std::string::npos);
  c = config_of(R"({"ops": ["gemm", "rmsnorm"], "gemm_dtype": ["fp8_e4m3", "auto"]})");
  EXPECT_NO_THROW(validate_sweep_config(c));
  c = config_of(R"({"ops": ["gemm"], "gemm_dtype": "fp8_e4m3"})");
  EXPECT_NO_THROW(validate_sweep_config(c));
  EXPECT_EQ(c.base.gemm_dtype, GemmDtype::kFp8E4m3);
  EXPECT_TRUE(c.axes.gemm_dtype.empty());
  EXPECT_NE(bad_input_message([] {
              config_of(R"({"gemm_dtype": "int8"})");
            }).find("invalid gemm dtype 'int8'"),
            std::string::npos);
}

// M·K + N·K one byte each, M·N·e for C in the dtype, 8 for the two fp32 scales; FLOPs stay
// 2·M·N·K, so the intensity rises against bf16's (M·K + K·N + M·N)·2.
TEST(GemmDtype, Fp8BytesInTheModel) {
  EXPECT_DOUBLE_EQ(gemm_fp8_min_dram_bytes(4096, 4096, 4096, Dtype::kBf16), 67108872.0);
  EXPECT_DOUBLE_EQ(gemm_fp8_min_dram_bytes(4096, 14336, 4096, Dtype::kBf16),
                   4096.0 * 4096 + 14336.0 * 4096 + 4096.0 * 14336 * 2 + 8);
  Shape s;
  s.seq_len = 4096;
  s.gemm_n = 14336;
  s.gemm_k = 4096;
  const AnalyticResult bf16 = analytic_model("gemm", s);
  s.gemm_dtype = GemmDtype::kFp8E4m3;
  const AnalyticResult fp8 = analytic_model("gemm", s);
  EXPECT_DOUBLE_EQ(fp8.flop, 2.0 * 4096 * 14336 * 4096);
  EXPECT_DOUBLE_EQ(fp8.flop, bf16.flop);
  EXPECT_DOUBLE_EQ(fp8.min_dram_bytes, 4096.0 * 4096 + 14336.0 * 4096 + 4096.0 * 14336 * 2 + 8);
  EXPECT_DOUBLE_EQ(fp8.implemented_dram_bytes, fp8.min_dram_bytes);
  EXPECT_LT(fp8.min_dram_bytes, bf16.min_dram_bytes);
  EXPECT_NE(fp8.bytes_formula.find("M*K*1 + N*K*1 + M*N*e + 8"), std::string::npos);
  // Skinny M: the FP8 kernel has no split-K partials.
  s.seq_len = 16;
  const AnalyticResult skinny = analytic_model("gemm", s);
  EXPECT_DOUBLE_EQ(skinny.implemented_dram_bytes,
                   gemm_fp8_min_dram_bytes(16, 14336, 4096, s.dtype));
}

// The datasheet "fp8" key is FP8 points' roof; the ridge moves by the fp8 / bf16 rate ratio.
TEST(GemmDtype, Fp8RoofAndRidgeFromTheDatasheet) {
  const GpuSpec& h200 = find_gpu_spec("h200-sxm");
  ASSERT_TRUE(h200.dense_tensor_flop_per_s.count("fp8"));
  const double fp8_rate = h200.dense_tensor_flop_per_s.at("fp8").value;
  const double bf16_rate = h200.dense_tensor_flop_per_s.at("bf16").value;
  EXPECT_GT(fp8_rate, 1.9 * bf16_rate);
  std::string reason;
  const auto bf16_roof = datasheet_roof(h200, Pipe::kTensor, Dtype::kBf16, reason);
  const auto fp8_roof = datasheet_roof(h200, Pipe::kTensor, Dtype::kBf16, reason, true);
  ASSERT_TRUE(bf16_roof && fp8_roof) << reason;
  EXPECT_DOUBLE_EQ(fp8_roof->peak_flop_per_s, fp8_rate);
  EXPECT_DOUBLE_EQ(fp8_roof->peak_bytes_per_s, bf16_roof->peak_bytes_per_s);
  EXPECT_DOUBLE_EQ(ridge_point_flop_per_byte(*fp8_roof) / ridge_point_flop_per_byte(*bf16_roof),
                   fp8_rate / bf16_rate);

  Shape s;
  s.seq_len = 4096;
  s.gemm_n = 14336;
  s.gemm_k = 4096;
  s.gemm_dtype = GemmDtype::kFp8E4m3;
  const Prediction p = predict("gemm", Pipe::kTensor, s, kernel_layer_widths(s), h200);
  ASSERT_TRUE(p.roof.has_value()) << p.roof_null_reason;
  EXPECT_DOUBLE_EQ(p.roof->peak_flop_per_s, fp8_rate);
  ASSERT_TRUE(p.ridge_flop_per_byte.has_value());
  EXPECT_DOUBLE_EQ(*p.ridge_flop_per_byte, ridge_point_flop_per_byte(*fp8_roof));
  // A GPU whose spec has no fp8 figure gives FP8 points no roof, and says which key is missing.
  GpuSpec no_fp8 = h200;
  no_fp8.dense_tensor_flop_per_s.erase("fp8");
  EXPECT_FALSE(datasheet_roof(no_fp8, Pipe::kTensor, Dtype::kBf16, reason, true));
  EXPECT_NE(reason.find("dense fp8 tensor rate"), std::string::npos) << reason;
}

PeakBenchmarkRecord bench(const char* name, CeilingKind kind, std::optional<double> rate) {
  PeakBenchmarkRecord b;
  b.name = name;
  b.label = name;
  b.kind = kind;
  b.rate = rate;
  b.repetitions = 20;
  if (!rate) b.null_reason = "not supported here";
  return b;
}

// FP8 points take the tensor fp8 ceiling of a peak set (datasheet or measured), 16-bit points
// keep theirs.
TEST(GemmDtype, Fp8CeilingChosenForFp8Points) {
  EXPECT_EQ(compute_ceiling_kind(Pipe::kTensor, Dtype::kBf16, true), CeilingKind::kTensorFp8);
  EXPECT_EQ(compute_ceiling_kind(Pipe::kTensor, Dtype::kFp16, true), CeilingKind::kTensorFp8);
  EXPECT_EQ(compute_ceiling_kind(Pipe::kTensor, Dtype::kBf16, false), CeilingKind::kTensorBf16);
  EXPECT_EQ(compute_ceiling_kind(Pipe::kFp32, Dtype::kBf16, true), CeilingKind::kFp32);
  EXPECT_EQ(ceiling_key(CeilingKind::kTensorFp8), "tensor_fp8_flop_per_s");
  const PeakSet measured =
      measured_peak_set({bench("dram_copy", CeilingKind::kDram, 4.2e12),
                         bench("tensor_bf16_wgmma", CeilingKind::kTensorBf16, 900e12),
                         bench("tensor_fp8_wgmma", CeilingKind::kTensorFp8, 1700e12)},
                        "test run");
  std::string reason;
  const auto fp8 = roof_from_peak_set(measured, Pipe::kTensor, Dtype::kBf16, reason, true);
  const auto bf16 = roof_from_peak_set(measured, Pipe::kTensor, Dtype::kBf16, reason, false);
  ASSERT_TRUE(fp8 && bf16) << reason;
  EXPECT_DOUBLE_EQ(fp8->peak_flop_per_s, 1700e12);
  EXPECT_DOUBLE_EQ(bf16->peak_flop_per_s, 900e12);
  EXPECT_NE(fp8->source.find("tensor_fp8_wgmma"), std::string::npos) << fp8->source;
  // No fp8 benchmark: null, naming the ceiling.
  const PeakSet without =
      measured_peak_set({bench("dram_copy", CeilingKind::kDram, 4.2e12),
                         bench("tensor_bf16_wgmma", CeilingKind::kTensorBf16, 900e12)},
                        "test run");
  EXPECT_FALSE(roof_from_peak_set(without, Pipe::kTensor, Dtype::kBf16, reason, true));
  EXPECT_NE(reason.find("tensor fp8"), std::string::npos) << reason;
}

// Under --roof counters an FP8 point is placed under the fp8 pipe's per-cycle peak its own
// counters read, a 16-bit point of the same sweep under the bf16 one.
TEST(GemmDtype, CountersRoofOfFp8PointsIsTheFp8PipesPeak) {
  CounterResult counters = h200_point_counters();
  counters.peaks.tensor_fp8_per_cycle = 2.162688e6;
  const PeaksBlock block;
  std::string reason;
  const auto fp8 = select_point_roof(RoofSource::kCounters, Pipe::kTensor, Dtype::kBf16, block,
                                     counters, 9, 0, reason, true);
  const auto bf16 = select_point_roof(RoofSource::kCounters, Pipe::kTensor, Dtype::kBf16, block,
                                      counters, 9, 0, reason, false);
  ASSERT_TRUE(fp8 && bf16) << reason;
  EXPECT_NEAR(fp8->peak_flop_per_s / bf16->peak_flop_per_s, 2.0, 1e-12);
  EXPECT_NE(fp8->source.find("tensor fp8"), std::string::npos) << fp8->source;
  counters.peaks.tensor_fp8_per_cycle.reset();
  EXPECT_FALSE(select_point_roof(RoofSource::kCounters, Pipe::kTensor, Dtype::kBf16, block,
                                 counters, 9, 0, reason, true));
  EXPECT_EQ(reason, "tensor fp8 peak not measured");
}

}  // namespace
}  // namespace rooflinectl
