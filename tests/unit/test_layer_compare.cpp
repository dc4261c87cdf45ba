// The layer comparison's gate (compare/layer_compare.hpp) on hand-built layer times: the interval
// test, the timer floor, unmeasured and failed operators, matching and the refusals.
#include <gtest/gtest.h>

#include "compare/layer_compare.hpp"
#include "core/error.hpp"

namespace rooflinectl {
namespace {

LayerOperatorTime op(const std::string& role, double time_s, double noise) {
  LayerOperatorTime t;
  t.role = role;
  t.sweep_op = role == "attention" ? "decode_attention" : "gemm";
  t.shape_json = R"({"seq_len":512})";
  t.status = "ok";
  t.version = "v1";
  t.validated = true;
  t.time_s = time_s;
  t.median_noise = noise;
  return t;
}

// One point (B = 1, context 512) of two operators: 100 µs and 20 µs, 1% noise each.
LayerTimes layer() {
  LayerTimes t;
  t.model_id = "llama-3.1-8b";
  t.model_name = "Meta Llama 3.1 8B";
  t.phase = "decode";
  t.kv_dtype = "auto";
  t.layers = 32;
  t.device_name = "NVIDIA H200";
  LayerPointTimes p;
  p.batch = 1;
  p.length = 512;
  p.ops = {op("attention", 100e-6, 0.01), op("qkv_proj", 20e-6, 0.01)};
  p.layer_time_s = 120e-6;
  t.points.push_back(p);
  return t;
}

void set_time(LayerTimes& t, size_t i, double time_s, double noise) {
  LayerPointTimes& p = t.points.front();
  p.ops[i].time_s = time_s;
  p.ops[i].median_noise = noise;
  p.layer_time_s = *p.ops[0].time_s + *p.ops[1].time_s;
}

const LayerTimeComparison& row(const LayerCompareResult& r, size_t i) {
  return r.points.front().ops.at(i);
}

TEST(LayerCompare, IdenticalLayersAreTheSame) {
  const LayerCompareResult r = compare_layer_reports(layer(), layer(), {});
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.count(Verdict::kSame), 3u);  // the layer row and two operators
  EXPECT_EQ(r.exit_code(), 0);
}

TEST(LayerCompare, ApartIntervalsBeyondTheThresholdAreSlower) {
  LayerTimes current = layer();
  set_time(current, 0, 110e-6, 0.01);  // +10%, half-widths 1.0 and 1.1 µs: 10 µs apart
  const LayerCompareResult r = compare_layer_reports(layer(), current, {});
  EXPECT_EQ(row(r, 0).verdict, Verdict::kSlower);
  EXPECT_NEAR(*row(r, 0).relative_change, 0.10, 1e-12);
  EXPECT_NEAR(*row(r, 0).current_half_width_s, 1.1e-6, 1e-15);
  // The layer: 120 -> 130 µs (+8.3%), half-widths 1.2 and 1.3 µs summed over its operators.
  EXPECT_EQ(r.points.front().layer->verdict, Verdict::kSlower);
  EXPECT_NEAR(*r.points.front().layer->base_half_width_s, 1.2e-6, 1e-15);
  EXPECT_EQ(r.regressions(), 2u);
  EXPECT_EQ(r.exit_code(), 1);
  // Faster the other way round, which never fails.
  const LayerCompareResult back = compare_layer_reports(current, layer(), {});
  EXPECT_EQ(back.points.front().ops[0].verdict, Verdict::kFaster);
  EXPECT_EQ(back.exit_code(), 0);
}

TEST(LayerCompare, OverlappingIntervalsAreInconclusive) {
  LayerTimes current = layer();
  // +10%: 10 µs apart, half-widths 5 and 5.5 µs together 10.5 µs: they overlap.
  set_time(current, 0, 110e-6, 0.05);
  current.points.front().ops[0].median_noise = 0.05;
  LayerTimes base = layer();
  set_time(base, 0, 100e-6, 0.05);
  const LayerCompareResult r = compare_layer_reports(base, current, {});
  EXPECT_EQ(row(r, 0).verdict, Verdict::kInconclusive);
  EXPECT_NE(row(r, 0).reason.find("intervals overlap"), std::string::npos) << row(r, 0).reason;
  EXPECT_EQ(r.exit_code(), 0);
  LayerCompareOptions strict;
  strict.strict = true;
  EXPECT_EQ(compare_layer_reports(base, current, strict).exit_code(), 1);
  // Within a wider threshold the same change is the same.
  LayerCompareOptions wide;
  wide.time_threshold = 0.15;
  EXPECT_EQ(row(compare_layer_reports(base, current, wide), 0).verdict, Verdict::kSame);
}

TEST(LayerCompare, UnknownNoiseIsInconclusive) {
  LayerTimes current = layer();
  set_time(current, 0, 130e-6, 0.01);
  current.points.front().ops[0].median_noise.reset();
  const LayerCompareResult r = compare_layer_reports(layer(), current, {});
  EXPECT_EQ(row(r, 0).verdict, Verdict::kInconclusive);
  EXPECT_NE(row(r, 0).reason.find("noise is unknown"), std::string::npos);
  EXPECT_EQ(r.points.front().layer->verdict, Verdict::kInconclusive);
}

TEST(LayerCompare, ChangesUnderTheTimerResolutionAreTheSame) {
  LayerTimes base = layer();
  set_time(base, 1, 4e-6, 0.001);
  LayerTimes current = layer();
  set_time(current, 1, 4.8e-6, 0.001);  // +20% but 0.8 µs: under kTimeResolutionFloorS
  const LayerCompareResult r = compare_layer_reports(base, current, {});
  EXPECT_EQ(row(r, 1).verdict, Verdict::kSame);
  EXPECT_NE(row(r, 1).reason.find("resolution"), std::string::npos) << row(r, 1).reason;
}

TEST(LayerCompare, FailedUnmeasuredAndNewlyMeasuredOperators) {
  LayerTimes failed = layer();
  failed.points.front().ops[0].status = "failed";
  failed.points.front().ops[0].time_s.reset();
  failed.points.front().layer_time_s.reset();
  const LayerCompareResult r = compare_layer_reports(layer(), failed, {});
  EXPECT_EQ(row(r, 0).verdict, Verdict::kFailed);
  EXPECT_EQ(r.points.front().layer->verdict, Verdict::kInconclusive);
  EXPECT_EQ(r.exit_code(), 1);

  LayerTimes refused = failed;
  refused.points.front().ops[0].status = "refused";
  refused.points.front().ops[0].null_reason = "head_dim 512 is not supported";
  const LayerCompareResult unmeasured = compare_layer_reports(layer(), refused, {});
  EXPECT_EQ(row(unmeasured, 0).verdict, Verdict::kInconclusive);
  EXPECT_NE(row(unmeasured, 0).reason.find("head_dim 512"), std::string::npos);
  EXPECT_EQ(unmeasured.exit_code(), 0);
  // Measured now but not in the base: added; measured in neither: the same.
  EXPECT_EQ(row(compare_layer_reports(refused, layer(), {}), 0).verdict, Verdict::kAdded);
  const LayerCompareResult neither = compare_layer_reports(refused, refused, {});
  EXPECT_EQ(row(neither, 0).verdict, Verdict::kSame);
  // The layer time unknown on both sides is no change either: --strict passes it.
  EXPECT_EQ(neither.points.front().layer->verdict, Verdict::kSame);
  LayerCompareOptions strict;
  strict.strict = true;
  EXPECT_EQ(compare_layer_reports(refused, refused, strict).exit_code(), 0);
}

// A point's verdict is the row that needs attention first, not only the layer row: an operator
// 20% slower whose layer moved under the threshold still marks its point slower.
TEST(LayerCompare, PointVerdictIsTheWorstRow) {
  LayerTimes current = layer();
  set_time(current, 1, 24e-6, 0.01);  // qkv 20 -> 24 µs; the layer 120 -> 124 µs (+3.3%)
  const LayerCompareResult r = compare_layer_reports(layer(), current, {});
  EXPECT_EQ(r.points.front().layer->verdict, Verdict::kSame);
  EXPECT_EQ(row(r, 1).verdict, Verdict::kSlower);
  EXPECT_EQ(r.points.front().verdict, Verdict::kSlower);
}

TEST(LayerCompare, DifferentShapesAndVersions) {
  LayerTimes current = layer();
  current.points.front().ops[1].shape_json = R"({"seq_len":1024})";
  EXPECT_EQ(row(compare_layer_reports(layer(), current, {}), 1).verdict, Verdict::kInconclusive);
  current = layer();
  current.points.front().ops[1].version = "v2";
  const LayerCompareResult r = compare_layer_reports(layer(), current, {});
  EXPECT_EQ(row(r, 1).new_version, "v2");
  EXPECT_EQ(row(r, 1).reason.rfind("version changed: v1 -> v2; ", 0), 0u) << row(r, 1).reason;
}

TEST(LayerCompare, PointsInOneReportOnly) {
  LayerTimes current = layer();
  current.points.front().length = 1024;
  current.points.insert(current.points.begin(), layer().points.front());
  const LayerCompareResult r = compare_layer_reports(layer(), current, {});
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[1].verdict, Verdict::kAdded);
  EXPECT_EQ(r.points[1].length, 1024);
  EXPECT_FALSE(r.points[1].layer.has_value());
  const LayerCompareResult removed = compare_layer_reports(current, layer(), {});
  EXPECT_EQ(removed.count(Verdict::kRemoved), 1u);
  EXPECT_EQ(removed.warnings.size(), 1u);
  EXPECT_EQ(removed.exit_code(), 0);
  LayerCompareOptions strict;
  strict.strict = true;
  EXPECT_EQ(compare_layer_reports(current, layer(), strict).exit_code(), 1);
}

void expect_refused(const LayerTimes& base, const LayerTimes& current, const std::string& what,
                    const LayerCompareOptions& options = {}) {
  try {
    compare_layer_reports(base, current, options);
    ADD_FAILURE() << "not refused: " << what;
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(LayerCompare, Refusals) {
  LayerTimes other = layer();
  other.model_id = "mistral-7b";
  expect_refused(layer(), other, "differ in model: base 'llama-3.1-8b', new 'mistral-7b'");
  other = layer();
  other.phase = "prefill";
  expect_refused(layer(), other, "differ in phase");
  other = layer();
  other.kv_dtype = "fp8_e4m3";
  expect_refused(layer(), other, "differ in kv_dtype");
  other = layer();
  other.points.front().ops[1].role = "o_proj";
  expect_refused(layer(), other, "differ in operators: base 'attention,qkv_proj'");
  other = layer();
  other.device_name = "NVIDIA H100 80GB HBM3";
  expect_refused(layer(), other, "measured on different GPUs");
  LayerCompareOptions allow;
  allow.allow_different_gpu = true;
  EXPECT_EQ(compare_layer_reports(layer(), other, allow).warnings.size(), 1u);
  other = layer();
  other.points.front().length = 2048;
  expect_refused(
      layer(), other,
      "share no (batch, length): base B in {1}, context in {512}; new B in {1}, context in {2048}");
  other = layer();
  other.points.push_back(other.points.front());
  expect_refused(other, layer(), "the base report lists B = 1 context = 512 twice");
  LayerCompareOptions bad;
  bad.time_threshold = 1.5;
  expect_refused(layer(), layer(), "invalid --time-threshold 1.5", bad);
}

}  // namespace
}  // namespace rooflinectl
