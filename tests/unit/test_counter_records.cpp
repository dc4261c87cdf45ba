// The records of the counter sessions: merging the one-pass byte session with the replay
// session, the write-back, the isolated-launch bytes, the roofline's inputs (counted or, without
// counters, analytic), the write check, and schema-1 reports still reading.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "cupti/metrics.hpp"
#include "io/json_reader.hpp"
#include "model/reconcile.hpp"
#include "result/placement_inputs.hpp"

namespace rooflinectl {
namespace {

using Range = std::map<std::string, double>;

Range byte_range(double read, double write, double l2_write_sectors) {
  return {{kMetricDramReadBytes, read},
          {kMetricDramWriteBytes, write},
          {kMetricL2WriteSectors, l2_write_sectors},
          {kMetricDurationNs, 1000.0}};
}

Range replay_range(double tensor) {
  Range r;
  for (const auto& name :
       follow_up_metric_names({kMetricDurationNs, kMetricL2WriteSectors}, Dtype::kBf16, true)) {
    r[name] = 0.0;
  }
  r[kMetricTensorBf16Ops] = tensor;
  return r;
}

// What an engine counting FP8 GEMM points, or bf16 decode over an FP8 KV cache, asks for.
constexpr MmaInputs fp8_gemm{false, false, true};
constexpr MmaInputs fp8_kv_decode{false, true, false};

std::vector<CounterSession> two_sessions() {
  return {{"bytes", "user replay, one pass", 1, {}}, {"replay", "kernel replay, 9 passes", 9, {}}};
}

TEST(FollowUpMetricNames, NeverHoldDramBytesAndSkipTheByteSet) {
  const auto later = follow_up_metric_names({kMetricDurationNs}, Dtype::kBf16, true);
  for (const char* dram : {kMetricDramReadBytes, kMetricDramWriteBytes, kMetricDurationNs}) {
    EXPECT_EQ(std::count(later.begin(), later.end(), dram), 0) << dram;
  }
  EXPECT_EQ(std::count(later.begin(), later.end(), kMetricTensorBf16Ops), 1);
  // Every metric lands in exactly one set, but the other dtypes' tensor pipes (fp16, tf32, fp8),
  // the fp8 per-cycle peak and the fp64 instruction counters (profile --mode full only) in none.
  EXPECT_EQ(later.size() + 4 + 2 + 3 + 1, counter_metric_names().size());
  for (const char* profile_only :
       {kMetricTensorTf32Ops, kMetricTensorFp8Ops, kMetricTensorFp8PeakPerCycle, kMetricDfmaInst,
        kMetricDaddInst, kMetricDmulInst}) {
    EXPECT_EQ(std::count(later.begin(), later.end(), profile_only), 0) << profile_only;
  }
  // With FP8 GEMM points the fp8 pipe's ops and per-cycle peak (their counters roof) too.
  const auto with_fp8 = follow_up_metric_names({kMetricDurationNs}, Dtype::kBf16, true, fp8_gemm);
  EXPECT_EQ(with_fp8.size(), later.size() + 2);
  EXPECT_EQ(std::count(with_fp8.begin(), with_fp8.end(), kMetricTensorFp8Ops), 1);
  EXPECT_EQ(std::count(with_fp8.begin(), with_fp8.end(), kMetricTensorFp8PeakPerCycle), 1);
  // Decode attention over an FP8 KV cache multiplies in fp16 at a bf16 dtype: the fp16 pipe too,
  // else its tensor FLOPs read as the bf16 pipe's 0.
  const auto with_fp16 =
      follow_up_metric_names({kMetricDurationNs}, Dtype::kBf16, true, fp8_kv_decode);
  EXPECT_EQ(with_fp16.size(), later.size() + 1);
  EXPECT_EQ(std::count(with_fp16.begin(), with_fp16.end(), kMetricTensorFp16Ops), 1);
  EXPECT_EQ(std::count(with_fp16.begin(), with_fp16.end(), kMetricTensorBf16Ops), 1);
  // An fp16 engine whose points also feed bf16 MMAs counts the bf16 pipe as well.
  const auto fp16_with_bf16 =
      follow_up_metric_names({kMetricDurationNs}, Dtype::kFp16, true, mma_inputs_of(Dtype::kBf16));
  EXPECT_EQ(std::count(fp16_with_bf16.begin(), fp16_with_bf16.end(), kMetricTensorBf16Ops), 1);
  EXPECT_EQ(std::count(fp16_with_bf16.begin(), fp16_with_bf16.end(), kMetricTensorFp16Ops), 1);
}

TEST(FollowUpMetricNames, OnlyTheSweepDtypesTensorPipe) {
  const auto bf16 = follow_up_metric_names({}, Dtype::kBf16, false);
  const auto fp16 = follow_up_metric_names({}, Dtype::kFp16, false);
  EXPECT_EQ(std::count(bf16.begin(), bf16.end(), kMetricTensorFp16Ops), 0);
  EXPECT_EQ(std::count(bf16.begin(), bf16.end(), kMetricTensorBf16Ops), 1);
  EXPECT_EQ(std::count(fp16.begin(), fp16.end(), kMetricTensorFp16Ops), 1);
  EXPECT_EQ(std::count(fp16.begin(), fp16.end(), kMetricTensorBf16Ops), 0);
  const auto candidates = byte_metric_candidates(Dtype::kFp16);
  EXPECT_EQ(std::count(candidates.begin(), candidates.end(), kMetricTensorFp16Ops), 1);
  EXPECT_EQ(std::count(candidates.begin(), candidates.end(), kMetricTensorBf16Ops), 0);
}

// The FLOP set of profile --mode full: every FLOP counter of the table, each once, no DRAM bytes.
TEST(FlopMetricNames, EveryFlopCounterOnceAndNoBytes) {
  const auto& flops = flop_metric_names();
  for (const char* metric :
       {kMetricTensorBf16Ops, kMetricTensorFp16Ops, kMetricTensorTf32Ops, kMetricTensorFp8Ops,
        kMetricFfmaInst, kMetricFaddInst, kMetricFmulInst, kMetricHfmaInst, kMetricHaddInst,
        kMetricHmulInst, kMetricDfmaInst, kMetricDaddInst, kMetricDmulInst, kMetricSmThroughputPct,
        kMetricFfmaPeakPerCycle}) {
    EXPECT_EQ(std::count(flops.begin(), flops.end(), metric), 1) << metric;
  }
  for (const char* bytes : {kMetricDramReadBytes, kMetricDramWriteBytes, kMetricL2Bytes}) {
    EXPECT_EQ(std::count(flops.begin(), flops.end(), bytes), 0) << bytes;
  }
}

// sm__ops_path_tensor_src_fp8.sum: a kMayBeAbsent counter, scaled by the named factor that the
// GPU decides, summed into tensor_flop, and collected only by engines counting FP8 points.
TEST(FollowUpMetricNames, Fp8TensorCounterOnlyForFp8GemmSweeps) {
  const CounterField& f = counter_field(&KernelCounters::tensor_fp8_flop);
  EXPECT_STREQ(f.metric, "sm__ops_path_tensor_src_fp8.sum");
  EXPECT_STREQ(f.json_key, "tensor_fp8_flop");
  EXPECT_EQ(f.presence, KeyPresence::kMayBeAbsent);
  EXPECT_EQ(f.kind, CounterKind::kCount);
  EXPECT_EQ(f.per_metric_unit, kTensorFp8FlopPerMetricUnit);
  EXPECT_TRUE(kTensorFp8FlopPerMetricUnit == 1.0 || kTensorFp8FlopPerMetricUnit == 2.0);

  KernelCounters k;
  EXPECT_FALSE(k.tensor_flop().has_value());
  k.tensor_fp8_flop = 4.8e14;
  ASSERT_TRUE(k.tensor_flop().has_value());
  EXPECT_DOUBLE_EQ(*k.tensor_flop(), 4.8e14);
  k.tensor_bf16_flop = 1e12;
  EXPECT_DOUBLE_EQ(*k.tensor_flop(), 4.8e14 + 1e12);

  const auto count = [](const std::vector<std::string>& names) {
    return std::count(names.begin(), names.end(), std::string(kMetricTensorFp8Ops));
  };
  EXPECT_EQ(count(follow_up_metric_names({}, Dtype::kBf16, false)), 0);
  EXPECT_EQ(count(follow_up_metric_names({}, Dtype::kBf16, false, fp8_gemm)), 1);
  EXPECT_EQ(count(follow_up_metric_names({}, Dtype::kFp16, true, fp8_gemm)), 1);
  EXPECT_EQ(count(counter_metric_names()), 1);
}

TEST(FollowUpMetricNames, SmThroughputOnlyWhenAskedFor) {
  const auto with = follow_up_metric_names({kMetricDurationNs}, Dtype::kBf16, true);
  const auto without = follow_up_metric_names({kMetricDurationNs}, Dtype::kBf16, false);
  EXPECT_EQ(std::count(with.begin(), with.end(), kMetricSmThroughputPct), 1);
  EXPECT_EQ(std::count(without.begin(), without.end(), kMetricSmThroughputPct), 0);
  EXPECT_EQ(without.size() + 1, with.size());
}

// Pass counts as measured with cuptiProfilerHostGetNumOfPasses for GH100 (2026-12-02): the SASS
// counters share one pass, fp16 tensor ops need 2 alone, sm__throughput 8; a SASS counter with
// the bf16 tensor counter needs 2.
int gh100_passes(const std::vector<std::string>& metrics) {
  int sass = 0;
  int most = 1;
  for (const auto& m : metrics) {
    if (m == kMetricTensorFp16Ops) most = std::max(most, 2);
    if (m == kMetricSmThroughputPct) most = std::max(most, 8);
    if (m.rfind("sm__sass_", 0) == 0 && m.find("peak_sustained") == std::string::npos) {
      ++sass;
    }
  }
  const bool mixed =
      sass > 0 && std::count(metrics.begin(), metrics.end(), std::string(kMetricTensorBf16Ops)) > 0;
  return std::max(most, mixed ? 2 : 1);
}

TEST(PlanFollowUpSets, OnePassSetsFirstFitAndMultiPassApart) {
  const std::vector<std::string> metrics = {kMetricTensorBf16Ops, kMetricFfmaInst,
                                            kMetricTensorFp16Ops, kMetricFaddInst,
                                            kMetricSmThroughputPct};
  const FollowUpSets plan = plan_follow_up_sets(metrics, gh100_passes);
  ASSERT_EQ(plan.one_pass.size(), 2u);
  EXPECT_EQ(plan.one_pass[0], (std::vector<std::string>{kMetricTensorBf16Ops}));
  EXPECT_EQ(plan.one_pass[1], (std::vector<std::string>{kMetricFfmaInst, kMetricFaddInst}));
  EXPECT_EQ(plan.multi_pass,
            (std::vector<std::string>{kMetricTensorFp16Ops, kMetricSmThroughputPct}));
}

TEST(PlanFollowUpSets, TheDefaultBf16ListIsOneOnePassSet) {
  // The H200's byte set takes the bf16 tensor counter, so what follows is the SASS counters and
  // the FFMA peak: one pass, no replay, no memory save/restore.
  std::vector<std::string> byte_set = byte_metric_candidates(Dtype::kBf16);
  const FollowUpSets plan =
      plan_follow_up_sets(follow_up_metric_names(byte_set, Dtype::kBf16, false), gh100_passes);
  EXPECT_EQ(plan.one_pass.size(), 1u);
  EXPECT_TRUE(plan.multi_pass.empty());
}

TEST(PlanFollowUpSets, AZeroPassCountIsRejected) {
  EXPECT_THROW(plan_follow_up_sets({"x"}, [](const std::vector<std::string>&) { return 0; }),
               Error);
}

TEST(TensorFlop, SumsTheCountedPipesOnly) {
  KernelCounters k;
  EXPECT_FALSE(k.tensor_flop());  // neither pipe counted
  k.tensor_bf16_flop = 3e9;
  ASSERT_TRUE(k.tensor_flop());
  EXPECT_DOUBLE_EQ(*k.tensor_flop(), 3e9);  // a bf16 sweep does not count the fp16 pipe
  k.tensor_fp16_flop = 1e9;
  EXPECT_DOUBLE_EQ(*k.tensor_flop(), 4e9);
}

TEST(CountersFromPasses, EveryFollowUpSessionIsMergedAndTimed) {
  CounterPassRanges ranges;
  ranges.bytes = {byte_range(4e6, 0.1e6, 1), byte_range(125e6, 2e6, 0)};
  ranges.follow_up = {{{{kMetricTensorBf16Ops, 5e9}}}, {{{kMetricFfmaInst, 7.0}}}};
  ranges.session_wall_times_s = {0.05, 0.02, 0.30};
  ranges.session_points = {7, 5, 1};
  std::vector<CounterSession> sessions = {{"bytes", "one pass", 1, {}},
                                          {"counts", "one pass", 1, {}},
                                          {"replay", "kernel replay, 2 passes", 2, {}}};
  const CounterResult c = counters_from_passes(ranges, {"k"}, sessions, "flushed", "sweep");
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(*c.total.tensor_bf16_flop, 5e9);
  EXPECT_DOUBLE_EQ(*c.total.ffma_inst, 7.0);
  EXPECT_DOUBLE_EQ(*c.dram_writeback_bytes, 2e6);
  EXPECT_EQ(c.passes, 2);
  ASSERT_EQ(c.sessions.size(), 3u);
  EXPECT_DOUBLE_EQ(*c.sessions[2].wall_time_s, 0.30);
  EXPECT_EQ(*c.sessions[0].points_in_collection, 7);
  EXPECT_EQ(*c.sessions[1].points_in_collection, 5);
}

TEST(CountersFromPasses, AFollowUpSessionWithOtherRangesLeavesWriteBackUnknown) {
  CounterPassRanges ranges;
  ranges.bytes = {byte_range(4e6, 0.1e6, 1), byte_range(125e6, 2e6, 0)};
  ranges.follow_up = {{Range{}}, {Range{}, Range{}}};
  const CounterResult c = counters_from_passes(ranges, {"k"}, {}, "flushed", "sweep");
  EXPECT_FALSE(c.dram_writeback_bytes);
  EXPECT_NE(c.writeback_null_reason.find("byte session 2, then 1, 2"), std::string::npos)
      << c.writeback_null_reason;
  EXPECT_TRUE(c.sessions.empty());
}

TEST(CountersFromPasses, LastByteRangeIsTheWriteBack) {
  CounterPassRanges ranges;
  ranges.bytes = {byte_range(4e6, 0.1e6, 62500), byte_range(2e6, 0.2e6, 31250),
                  byte_range(125e6, 5.7e6, 0)};
  ranges.follow_up = {{replay_range(1e9), replay_range(2e9)}};
  const CounterResult c =
      counters_from_passes(ranges, {"a", "b"}, two_sessions(), "flushed", "sweep after");
  ASSERT_EQ(c.kernels.size(), 2u);
  EXPECT_EQ(c.passes, 9);
  EXPECT_EQ(c.sessions.size(), 2u);
  EXPECT_EQ(c.writeback_method, "sweep after");
  ASSERT_TRUE(c.dram_writeback_bytes);
  EXPECT_DOUBLE_EQ(*c.dram_writeback_bytes, 5.7e6);  // the sweep's writes, not its reads
  EXPECT_DOUBLE_EQ(*c.total.dram_read_bytes, 6e6);   // the sweep's reads are not the kernels'
  EXPECT_DOUBLE_EQ(*c.total.dram_write_bytes, 0.3e6);
  EXPECT_DOUBLE_EQ(*c.total.l2_write_bytes, 93750 * 32.0);
  EXPECT_DOUBLE_EQ(*c.total.tensor_bf16_flop, 3e9);
  EXPECT_DOUBLE_EQ(*c.dram_write_bytes_isolated(), 6.0e6);
  EXPECT_DOUBLE_EQ(*c.dram_bytes_isolated(), 12.0e6);
  EXPECT_TRUE(c.note.empty());
}

TEST(CountersFromPasses, RangeCountMismatchLeavesWriteBackUnknown) {
  CounterPassRanges ranges;
  ranges.bytes = {byte_range(4e6, 0.1e6, 1), byte_range(1, 2, 3)};
  ranges.follow_up = {{replay_range(1e9), replay_range(1e9)}};
  const CounterResult c =
      counters_from_passes(ranges, {"a", "b"}, two_sessions(), "flushed", "sweep after");
  EXPECT_FALSE(c.dram_writeback_bytes);
  EXPECT_NE(c.writeback_null_reason.find("byte session 2, then 2"), std::string::npos)
      << c.writeback_null_reason;
  EXPECT_NE(c.note.find("write-back not measured"), std::string::npos) << c.note;
  EXPECT_FALSE(c.dram_bytes_isolated());
}

PointResult counted_point() {
  PointResult p;
  p.op = "gelu";
  p.analytic.flop = 1e9;
  p.analytic.min_dram_bytes = 2e7;
  p.analytic.implemented_dram_bytes = 2e7;
  p.counters.total.dram_read_bytes = 1e7;
  p.counters.total.dram_write_bytes = 1e6;
  p.counters.total.l2_write_bytes = 1e7;
  p.counters.dram_writeback_bytes = 9e6;
  p.counters.total.tensor_bf16_flop = 0;
  p.counters.total.tensor_fp16_flop = 0;
  p.counters.total.ffma_inst = 4e8;
  p.counters.total.fadd_inst = 1e8;
  p.counters.total.fmul_inst = 1e8;
  p.counters.total.hfma_inst = 0;
  p.counters.total.hadd_inst = 0;
  p.counters.total.hmul_inst = 0;
  return p;
}

TEST(PlacementInputs, CountedBytesIncludeTheWriteBack) {
  const PlacementInputs in = placement_inputs(counted_point());
  EXPECT_EQ(in.basis, "counters");
  EXPECT_EQ(in.bytes_basis, kBytesIsolated);
  EXPECT_DOUBLE_EQ(*in.dram_bytes, 2e7);
  EXPECT_DOUBLE_EQ(*in.flop, 2 * 4e8 + 1e8 + 1e8);
}

TEST(PlacementInputs, ExpectedFiguresFollowTheStoredBytesBasis) {
  std::string why;
  const PointResult p = counted_point();
  EXPECT_DOUBLE_EQ(expected_placement_inputs(p, "counters", kBytesIsolated, why)->dram_bytes, 2e7);
  EXPECT_DOUBLE_EQ(expected_placement_inputs(p, "counters", kBytesInWindow, why)->dram_bytes,
                   1.1e7);
  EXPECT_DOUBLE_EQ(expected_placement_inputs(p, "counters", "", why)->dram_bytes, 1.1e7);
  EXPECT_FALSE(expected_placement_inputs(p, "counters", kBytesAnalytic, why));
  EXPECT_NE(why.find("does not go with"), std::string::npos) << why;
  EXPECT_FALSE(expected_placement_inputs(p, "analytic", kBytesIsolated, why));
}

TEST(PlacementInputs, WithoutTheWriteBackTheInWindowBytesAreUsedAndSaid) {
  PointResult p = counted_point();
  p.counters.dram_writeback_bytes.reset();
  const PlacementInputs in = placement_inputs(p);
  EXPECT_EQ(in.bytes_basis, kBytesInWindow);
  EXPECT_DOUBLE_EQ(*in.dram_bytes, 1.1e7);
}

TEST(PlacementInputs, NoCountersFallsBackToTheAnalyticMinimumBytes) {
  PointResult p = counted_point();
  p.op = "flash_attention";
  p.counters = CounterResult{};
  p.counters.null_reason = "counters disabled (--no-counters)";
  p.analytic.implemented_dram_bytes = 3e8;  // K and V re-read per query tile: L2 serves them
  const PlacementInputs in = placement_inputs(p);
  EXPECT_EQ(in.basis, "analytic");
  EXPECT_EQ(in.bytes_basis, kBytesAnalyticMin);
  EXPECT_DOUBLE_EQ(*in.flop, 1e9);
  EXPECT_DOUBLE_EQ(*in.dram_bytes, 2e7);  // the minimum, not the no-reuse re-reads
}

TEST(PlacementInputs, NaiveAttentionWithoutCountersKeepsItsScoreMatrixBytes) {
  PointResult p = counted_point();
  p.op = "naive_attention";
  p.counters = CounterResult{};
  p.counters.null_reason = "counters disabled (--no-counters)";
  p.analytic.implemented_dram_bytes = 3e7;  // + S and P, written and read between kernels
  const PlacementInputs in = placement_inputs(p);
  EXPECT_EQ(in.bytes_basis, kBytesAnalytic);
  EXPECT_DOUBLE_EQ(*in.dram_bytes, 3e7);
}

TEST(PlacementInputs, AnalyticBasisIsMinimumForAllButNaiveAttention) {
  EXPECT_STREQ(analytic_bytes_basis("naive_attention"), kBytesAnalytic);
  for (const char* op : {"flash_attention", "gemm", "gelu", "layernorm", "decode_attention"}) {
    EXPECT_STREQ(analytic_bytes_basis(op), kBytesAnalyticMin) << op;
  }
  std::string why;
  PointResult p = counted_point();
  p.analytic.implemented_dram_bytes = 5e7;
  EXPECT_DOUBLE_EQ(expected_placement_inputs(p, "analytic", kBytesAnalyticMin, why)->dram_bytes,
                   2e7);
  EXPECT_DOUBLE_EQ(expected_placement_inputs(p, "analytic", kBytesAnalytic, why)->dram_bytes, 5e7);
  p.analytic.min_dram_bytes = 0;
  EXPECT_FALSE(expected_placement_inputs(p, "analytic", kBytesAnalyticMin, why));
  EXPECT_NE(why.find("minimum DRAM bytes"), std::string::npos) << why;
}

TEST(PlacementInputs, CountersWithoutBytesAreNullNotAnalytic) {
  PointResult p = counted_point();
  p.counters.total.dram_read_bytes.reset();
  const PlacementInputs in = placement_inputs(p);
  EXPECT_FALSE(in.dram_bytes);
  EXPECT_FALSE(in.flop);
  EXPECT_EQ(in.basis, "counters");
  EXPECT_FALSE(in.null_reason.empty());
}

TEST(PlacementInputs, NoCountersAndNoModelIsNullWithBothReasons) {
  PointResult p;
  p.counters.null_reason = "point skipped";
  const PlacementInputs in = placement_inputs(p);
  EXPECT_FALSE(in.dram_bytes);
  EXPECT_NE(in.null_reason.find("point skipped"), std::string::npos) << in.null_reason;
}

const ReconcileCheck* find_check(const Reconciliation& r, const std::string& quantity) {
  for (const auto& c : r.checks) {
    if (c.quantity == quantity) return &c;
  }
  return nullptr;
}

TEST(WriteCheck, IsolatedWritesMatchingTheStoresPass) {
  const Reconciliation r = reconcile(counted_point(), Pipe::kFp32, DeviceRecord{});
  const ReconcileCheck* c = find_check(r, "dram_write_bytes_isolated");
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->ratio, 1.0);
  EXPECT_FALSE(c->flagged);
  // The DRAM-bytes check uses the isolated total: 2e7 against the 2e7 minimum.
  const ReconcileCheck* dram = find_check(r, "dram_bytes");
  ASSERT_NE(dram, nullptr);
  EXPECT_DOUBLE_EQ(dram->measured, 2e7);
}

TEST(WriteCheck, MoreThanTwoPercentApartIsFlaggedAndExplained) {
  PointResult p = counted_point();
  p.counters.dram_writeback_bytes = 9.3e6;  // 10.3 MB written for 10 MB stored: 1.03x
  const ReconcileCheck* c =
      find_check(reconcile(p, Pipe::kFp32, DeviceRecord{}), "dram_write_bytes_isolated");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->flagged);
  EXPECT_NE(c->explanation.find("did not store"), std::string::npos) << c->explanation;
  p.counters.dram_writeback_bytes = 8.7e6;  // 0.97x
  const ReconcileCheck* low =
      find_check(reconcile(p, Pipe::kFp32, DeviceRecord{}), "dram_write_bytes_isolated");
  ASSERT_NE(low, nullptr);
  EXPECT_TRUE(low->flagged);
  EXPECT_NE(low->explanation.find("more than once"), std::string::npos) << low->explanation;
}

TEST(SchemaOne, CommittedFirstRunReportStillReads) {
  std::ifstream in(std::string(RFL_SOURCE_DIR) + "/tests/unit/data/h200-sweep-first-run.json");
  std::stringstream text;
  text << in.rdbuf();
  const Report report = report_from_json_text(text.str(), "h200-sweep-first-run.json");
  ASSERT_FALSE(report.points.empty());
  EXPECT_EQ(report.schema_version, 1);
  for (const auto& p : report.points) {
    EXPECT_TRUE(p.counters.sessions.empty());
    EXPECT_FALSE(p.counters.dram_writeback_bytes);
    if (p.roofline) {
      EXPECT_EQ(p.roofline->bytes_basis,
                p.roofline->basis == "analytic" ? kBytesAnalytic : kBytesInWindow);
    }
  }
}

}  // namespace
}  // namespace rooflinectl

namespace rooflinectl {
namespace {

Range byte_range(double dram_write, double l2_store_bytes) {
  return {{kMetricDramWriteBytes, dram_write}, {kMetricL2WriteSectors, l2_store_bytes / 32.0}};
}

TEST(ForeignWrites, WritesUpToTheStoresPlusSlackAreTheKernels) {
  // A 2 MB output: 0.1 MB in the window, 2.4 MB written back (0.4 MB stray, inside the 1 MB).
  EXPECT_FALSE(byte_session_has_foreign_writes({byte_range(1e5, 2e6), byte_range(2.4e6, 0)}));
  // TMA stores count above the output (flash: 1.65 × O): fewer writes than stores is fine.
  EXPECT_FALSE(byte_session_has_foreign_writes({byte_range(0, 3.5e6), byte_range(2.1e6, 0)}));
  // 2% + 1 MB of 100 MB: 103 MB is the edge.
  EXPECT_FALSE(byte_session_has_foreign_writes({byte_range(5e7, 1e8), byte_range(5.29e7, 0)}));
  EXPECT_TRUE(byte_session_has_foreign_writes({byte_range(5e7, 1e8), byte_range(5.31e7, 0)}));
}

TEST(ForeignWrites, WritesNoKernelStoredAreFlagged) {
  // Flash attention at L = 512 on the H200: 5.7 MB in the window and 32.2 MB written back for a
  // 2.1 MB output (3.5 MB of TMA stores).
  EXPECT_TRUE(byte_session_has_foreign_writes({byte_range(5.7e6, 3.5e6), byte_range(3.22e7, 0)}));
  // The sweep's own stores do not count as the kernels'.
  EXPECT_TRUE(byte_session_has_foreign_writes({byte_range(0, 1e6), byte_range(3e7, 4e7)}));
}

TEST(ForeignWrites, NothingToCheckWithoutBothMetricsOrAKernel) {
  EXPECT_FALSE(byte_session_has_foreign_writes({byte_range(9e9, 0)}));
  EXPECT_FALSE(byte_session_has_foreign_writes({{{kMetricDramWriteBytes, 9e9}}, byte_range(0, 0)}));
}

TEST(ForeignWrites, RepeatedByteSessionsAreNoted) {
  CounterPassRanges ranges;
  ranges.bytes = {byte_range(0, 2e6), byte_range(2e6, 0)};
  ranges.follow_up = {{Range{}}};
  ranges.byte_attempts = 2;
  const CounterResult result = counters_from_passes(ranges, {"k"}, {}, "flushed", "sweep");
  EXPECT_NE(result.note.find("byte session run 2 times"), std::string::npos) << result.note;
  EXPECT_EQ(result.note.find("still in the last run"), std::string::npos) << result.note;
}

}  // namespace
}  // namespace rooflinectl
