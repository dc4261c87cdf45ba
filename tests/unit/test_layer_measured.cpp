// The measured transformer-layer view (`rooflinectl layer` without --analytic) on the CPU: the
// sweep points it plans for a preset and phase (every operator, its M, N, K and length, shared
// points), and the report it assembles from a hand-made sweep Report (layer time, TTFT and
// tokens/s arithmetic, an unmeasured operator as null with its reason, the JSON).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/model_preset.hpp"
#include "core/operator_names.hpp"
#include "device/gpu_spec.hpp"
#include "model/layer_measured.hpp"
#include "model/layer_plan.hpp"
#include "render/layer_writer.hpp"

namespace rooflinectl {
namespace {

const ModelPreset& llama() { return find_model_preset("llama-3.1-8b"); }

std::string runs_everything(const std::string&, const Shape&) { return ""; }

// The source of layer operator `name` at layer point `point`.
const LayerOperatorSource& source(const LayerMeasurementPlan& plan, size_t point,
                                  const std::string& name) {
  for (const auto& s : plan.sources.at(point)) {
    if (s.name == name) return s;
  }
  throw std::runtime_error("no operator " + name);
}

TEST(LayerPlan, LlamaPrefillPointsHaveTheOperatorsShapes) {
  const LayerMeasurementPlan plan = plan_layer_measurement(
      llama(), LayerPhase::kPrefill, {2}, {512, 4096}, KvDtype::kAuto, runs_everything);
  ASSERT_EQ(plan.sources.size(), 2u);
  // Per L: rmsnorm (both norms), qkv, flash, o_proj, gate/up (one GEMM), swiglu, down = 7.
  EXPECT_EQ(plan.points.size(), 14u);
  for (size_t i = 0; i < plan.points.size(); ++i) EXPECT_EQ(plan.points[i].index, i + 1);
  for (size_t p = 0; p < 2; ++p) {
    const int64_t l = p == 0 ? 512 : 4096;
    std::vector<std::string> names;
    for (const auto& s : plan.sources[p]) {
      names.push_back(s.name);
      ASSERT_TRUE(s.point) << s.name;
      EXPECT_EQ(plan.points[*s.point].op, s.op);
      EXPECT_EQ(s.shape.batch, 2);
      EXPECT_EQ(s.shape.heads, 32);
      EXPECT_EQ(s.shape.kv_heads, 8);
      EXPECT_EQ(s.shape.head_dim, 128);
      EXPECT_EQ(s.shape.dtype, Dtype::kBf16);
      EXPECT_EQ(s.shape.seq_len, l) << s.name;  // M = B·L for every GEMM, norm, activation
    }
    EXPECT_EQ(names, (std::vector<std::string>{"input_norm", "qkv_proj", "attention", "o_proj",
                                               "post_attention_norm", "ffn_gate", "ffn_up",
                                               "ffn_gated_act", "ffn_down"}));
    const auto gemm = [&](const std::string& name, int64_t n, int64_t k) {
      const LayerOperatorSource& s = source(plan, p, name);
      EXPECT_EQ(s.op, kGemmOp) << name;
      EXPECT_EQ(s.shape.gemm_dims().m, 2 * l) << name;
      EXPECT_EQ(s.shape.gemm_n, n) << name;
      EXPECT_EQ(s.shape.gemm_k, k) << name;
    };
    gemm("qkv_proj", 6144, 4096);
    gemm("o_proj", 4096, 4096);
    gemm("ffn_gate", 14336, 4096);
    gemm("ffn_up", 14336, 4096);
    gemm("ffn_down", 4096, 14336);
    const LayerOperatorSource& attention = source(plan, p, "attention");
    EXPECT_EQ(attention.op, kFlashAttentionOp);
    EXPECT_TRUE(attention.shape.causal);
    const LayerOperatorSource& norm = source(plan, p, "input_norm");
    EXPECT_EQ(norm.op, kRmsnormOp);
    EXPECT_EQ(norm.shape.hidden, 4096);
    EXPECT_EQ(norm.shape.ffn_dim, 14336);
    EXPECT_EQ(norm.point, source(plan, p, "post_attention_norm").point);
    EXPECT_EQ(source(plan, p, "ffn_gate").point, source(plan, p, "ffn_up").point);
    const LayerOperatorSource& act = source(plan, p, "ffn_gated_act");
    EXPECT_EQ(act.op, kSwigluOp);
    EXPECT_EQ(act.shape.ffn_width(), 14336);
  }
  EXPECT_EQ(plan.points[*source(plan, 0, "ffn_gate").point].label,
            "prefill B=2 L=512 ffn_gate/ffn_up (gemm N=14336 K=4096)");
}

TEST(LayerPlan, DecodeSharesTheContextFreeOperators) {
  const LayerMeasurementPlan plan =
      plan_layer_measurement(llama(), LayerPhase::kDecode, {1, 16}, {512, 8192, 131072},
                             KvDtype::kFp8E4m3, runs_everything);
  ASSERT_EQ(plan.sources.size(), 6u);
  // Per batch: 6 context-free points (rmsnorm, qkv, o, gate/up, swiglu, down) + 3 attentions.
  EXPECT_EQ(plan.points.size(), 2u * (6 + 3));
  for (size_t p = 0; p < 6; ++p) {
    const int64_t batch = p < 3 ? 1 : 16;
    const int64_t context = std::vector<int64_t>{512, 8192, 131072}[p % 3];
    for (const auto& s : plan.sources[p]) {
      SCOPED_TRACE(s.name);
      EXPECT_EQ(s.shape.batch, batch);
      if (s.name == "attention") {
        EXPECT_EQ(s.op, kDecodeAttentionOp);
        EXPECT_EQ(s.shape.seq_len, context);
        EXPECT_EQ(s.shape.kv_dtype, KvDtype::kFp8E4m3);
      } else {
        EXPECT_EQ(s.shape.seq_len, 1);  // M = B
        EXPECT_EQ(s.shape.kv_dtype, KvDtype::kAuto);
      }
    }
    // The GEMMs of every context of a batch are one point.
    EXPECT_EQ(source(plan, p, "qkv_proj").point, source(plan, p - p % 3, "qkv_proj").point);
  }
  EXPECT_EQ(plan.points[*source(plan, 4, "attention").point].label,
            "decode B=16 context=8192 attention (decode_attention kv=fp8_e4m3)");
  EXPECT_EQ(plan.points[*source(plan, 4, "qkv_proj").point].label,
            "decode B=16 qkv_proj (gemm N=6144 K=4096)");
}

TEST(LayerPlan, RefusedOperatorsGetNoPoint) {
  const auto refuse_flash = [](const std::string& op, const Shape& s) -> std::string {
    return op == kFlashAttentionOp
               ? "flash_attention: unsupported head-dim " + std::to_string(s.head_dim)
               : "";
  };
  const LayerMeasurementPlan plan =
      plan_layer_measurement(find_model_preset("gemma-2-9b"), LayerPhase::kPrefill, {1}, {512},
                             KvDtype::kAuto, refuse_flash);
  const LayerOperatorSource& attention = source(plan, 0, "attention");
  EXPECT_FALSE(attention.point);
  EXPECT_EQ(attention.unmeasured_reason, "flash_attention: unsupported head-dim 256");
  for (const auto& p : plan.points) EXPECT_NE(p.op, kFlashAttentionOp);
  // Gemma's GeGLU at its widths.
  EXPECT_EQ(source(plan, 0, "ffn_gated_act").op, kGegluOp);
  EXPECT_EQ(source(plan, 0, "input_norm").shape.hidden, 3584);
}

// A sweep report whose every planned point ran in `seconds_of(op)` seconds, placed memory-bound
// except the prefill GEMMs and flash attention.
Report fake_sweep(const LayerMeasurementPlan& plan,
                  const std::map<std::string, double>& seconds_of) {
  Report r;
  r.tool_version = "test";
  r.timestamp_utc = "2026-12-06T00:00:00Z";
  r.device.name = "NVIDIA H200";
  r.device.counters_available = true;
  for (const PlannedPoint& planned : plan.points) {
    PointResult p;
    p.op = planned.op;
    p.shape = planned.shape;
    p.version = planned.op + "_v1";
    p.validation = Validation{};
    p.validation->passed = true;
    TimingResult t;
    t.median_s = seconds_of.at(planned.op);
    p.timing = t;
    RooflinePoint placed;
    placed.bound =
        (planned.op == kGemmOp && planned.shape.seq_len > 1) || planned.op == kFlashAttentionOp
            ? Bound::kCompute
            : Bound::kMemory;
    placed.fraction_of_roof = 0.5;
    placed.basis = "counters";
    p.roofline = placed;
    r.points.push_back(p);
  }
  return r;
}

const std::map<std::string, double> kSeconds = {{kRmsnormOp, 10e-6},
                                                {kGemmOp, 100e-6},
                                                {kFlashAttentionOp, 200e-6},
                                                {kDecodeAttentionOp, 50e-6},
                                                {kSwigluOp, 20e-6}};

TEST(LayerMeasured, PrefillTtftIsLayersTimesTheSumOfMedians) {
  const LayerMeasurementPlan plan = plan_layer_measurement(
      llama(), LayerPhase::kPrefill, {1}, {512, 1024}, KvDtype::kAuto, runs_everything);
  const LayerReport analytic = build_layer_report(llama(), find_gpu_spec("h200-sxm"),
                                                  LayerPhase::kPrefill, {1}, {512, 1024});
  const LayerReport r = assemble_measured_layer_report(analytic, plan, fake_sweep(plan, kSeconds));
  ASSERT_TRUE(r.measurement);
  EXPECT_EQ(r.basis(), "measured");
  ASSERT_EQ(r.measurement->points.size(), 2u);
  // 2 norms + 5 GEMMs + attention + swiglu.
  const double layer_s = 2 * 10e-6 + 5 * 100e-6 + 200e-6 + 20e-6;
  const MeasuredLayerPoint& m = r.measurement->points[0];
  ASSERT_TRUE(m.layer_time_s);
  EXPECT_NEAR(*m.layer_time_s, layer_s, 1e-15);
  EXPECT_NEAR(*m.ttft_s, 32 * layer_s, 1e-12);
  EXPECT_FALSE(m.decode_tokens_per_s);
  EXPECT_NEAR(*m.compute_bound_time_share, (5 * 100e-6 + 200e-6) / layer_s, 1e-12);
  EXPECT_NEAR(*m.weight_time_share + *m.kv_cache_time_share + *m.activation_time_share +
                  *m.compute_bound_time_share,
              1.0, 1e-12);
  EXPECT_NEAR(*m.ops[2].share_of_layer, 200e-6 / layer_s, 1e-12);
  EXPECT_EQ(m.ops[2].status, "ok");
  EXPECT_TRUE(m.ops[2].validated);
  EXPECT_EQ(m.ops[2].bound, Bound::kCompute);
  EXPECT_EQ(r.measurement->conclusion_scope, "every point");
  ASSERT_FALSE(r.conclusion.empty());
  EXPECT_EQ(r.conclusion.front().rfind("prefill, B = 1:", 0), 0u) << r.conclusion.front();
  // The analytic figures stay beside the measured ones.
  EXPECT_DOUBLE_EQ(r.points[0].layer_time_s, analytic.points[0].layer_time_s);
}

TEST(LayerMeasured, DecodeTokensPerSecond) {
  const LayerMeasurementPlan plan = plan_layer_measurement(llama(), LayerPhase::kDecode, {16},
                                                           {512}, KvDtype::kAuto, runs_everything);
  const LayerReport analytic =
      build_layer_report(llama(), find_gpu_spec("h200-sxm"), LayerPhase::kDecode, {16}, {512});
  const LayerReport r = assemble_measured_layer_report(analytic, plan, fake_sweep(plan, kSeconds));
  const MeasuredLayerPoint& m = r.measurement->points[0];
  const double layer_s = 2 * 10e-6 + 5 * 100e-6 + 50e-6 + 20e-6;
  ASSERT_TRUE(m.decode_tokens_per_s);
  EXPECT_NEAR(*m.decode_tokens_per_s, 16 / (32 * layer_s), 1e-6);
  EXPECT_FALSE(m.ttft_s);
  EXPECT_EQ(*m.compute_bound_time_share, 0.0);
  EXPECT_EQ(r.conclusion.front(),
            "decode: every operator is memory-bound at every point: the time is reading weights "
            "and the KV cache");
}

TEST(LayerMeasured, UnmeasuredOperatorIsNullWithItsReason) {
  const auto refuse_flash = [](const std::string& op, const Shape&) -> std::string {
    return op == kFlashAttentionOp ? "flash_attention: unsupported head-dim 256" : "";
  };
  const ModelPreset& gemma = find_model_preset("gemma-2-9b");
  const LayerMeasurementPlan plan =
      plan_layer_measurement(gemma, LayerPhase::kPrefill, {1}, {512}, KvDtype::kAuto, refuse_flash);
  const LayerReport analytic =
      build_layer_report(gemma, find_gpu_spec("h200-sxm"), LayerPhase::kPrefill, {1}, {512});
  std::map<std::string, double> seconds = kSeconds;
  seconds[kGegluOp] = 20e-6;
  Report sweep = fake_sweep(plan, seconds);
  // The down projection's point was skipped for memory.
  const size_t down = *source(plan, 0, "ffn_down").point;
  sweep.points[down].status = PointStatus::kSkipped;
  sweep.points[down].reason = "does not fit in device memory";
  sweep.points[down].timing.reset();
  sweep.points[down].roofline.reset();
  const LayerReport r = assemble_measured_layer_report(analytic, plan, sweep);
  const MeasuredLayerPoint& m = r.measurement->points[0];
  EXPECT_FALSE(m.layer_time_s);
  EXPECT_FALSE(m.ttft_s);
  EXPECT_NE(m.null_reason.find("attention (not measured: the kernel cannot run this shape: "
                               "flash_attention: unsupported head-dim 256)"),
            std::string::npos)
      << m.null_reason;
  EXPECT_NE(m.null_reason.find("ffn_down (not measured: sweep point skipped: does not fit"),
            std::string::npos)
      << m.null_reason;
  const LayerOperatorMeasurement& attention = m.ops[2];
  EXPECT_EQ(attention.status, "refused");
  EXPECT_FALSE(attention.time_s);
  EXPECT_FALSE(attention.sweep_point);
  EXPECT_FALSE(m.ops[0].share_of_layer);  // no layer time, no share
  EXPECT_EQ(r.measurement->conclusion_scope, "none: no point has every operator measured");
  ASSERT_EQ(r.conclusion.size(), 1u);

  const nlohmann::ordered_json j = layer_report_to_json(r);
  EXPECT_EQ(j["basis"], "measured");
  const auto& point = j["points"][0];
  EXPECT_TRUE(point["measured"]["layer_time_s"].is_null());
  EXPECT_TRUE(point["measured"]["ttft_s"].is_null());
  EXPECT_TRUE(point["operators"][2]["measured"]["time_s"].is_null());
  EXPECT_EQ(point["operators"][2]["measured"]["status"], "refused");
  EXPECT_NE(point["operators"][2]["measured"]["time_null_reason"].get<std::string>().find(
                "unsupported head-dim 256"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(point["operators"][0]["measured"]["time_s"].get<double>(), 10e-6);
  EXPECT_NE(format_layer_table(r).find("  attention: not measured: the kernel cannot run"),
            std::string::npos);
}

TEST(LayerMeasured, AnalyticReportSaysSo) {
  const LayerReport r =
      build_layer_report(llama(), find_gpu_spec("h200-sxm"), LayerPhase::kDecode, {1}, {512});
  const nlohmann::ordered_json j = layer_report_to_json(r);
  EXPECT_EQ(j["basis"], "analytic");
  EXPECT_TRUE(j["measurement"].is_null());
  EXPECT_TRUE(j["points"][0]["measured"].is_null());
  EXPECT_TRUE(j["points"][0]["operators"][0]["measured"].is_null());
}

TEST(LayerMeasured, MismatchedSweepIsAnInternalError) {
  const LayerMeasurementPlan plan = plan_layer_measurement(llama(), LayerPhase::kDecode, {1}, {512},
                                                           KvDtype::kAuto, runs_everything);
  const LayerReport analytic =
      build_layer_report(llama(), find_gpu_spec("h200-sxm"), LayerPhase::kDecode, {1}, {512});
  EXPECT_THROW(assemble_measured_layer_report(analytic, plan, Report{}), std::logic_error);
}

}  // namespace
}  // namespace rooflinectl
