// `compare` on synthetic reports: verdicts, the counter gate, the time gate's noise handling,
// clock normalization, exit codes, the writers, the BMF export and the canary's JSON round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "compare/significance.hpp"
#include "core/error.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "render/bmf_writer.hpp"
#include "render/compare_writer.hpp"

namespace rooflinectl {
namespace {

// Samples around `median_s` with relative spread `spread` (0.01 = ±1%-ish), from a generator
// whose output is fixed by the C++ standard (mt19937_64), so the test sees the same numbers on
// every platform. Irwin-Hall: the sum of 4 uniforms, centred, is close enough to a normal.
std::vector<double> noisy_samples(double median_s, double spread, int count, uint64_t seed) {
  std::mt19937_64 gen(seed);
  auto uniform = [&] { return static_cast<double>(gen() >> 11) * 0x1.0p-53; };
  std::vector<double> out;
  for (int i = 0; i < count; ++i) {
    const double z = uniform() + uniform() + uniform() + uniform() - 2.0;  // variance 1/3
    out.push_back(median_s * (1.0 + spread * z * std::sqrt(3.0)));
  }
  return out;
}

PointResult make_point(const std::string& op, int64_t seq_len, std::vector<double> samples,
                       double dram_bytes = 1e9, double flop = 4e11, double l2_bytes = 2e9) {
  PointResult p;
  p.op = op;
  p.version = op + "_v1";
  p.shape.seq_len = seq_len;
  p.validation = Validation{};
  p.validation->passed = true;
  TimingResult t;
  t.samples_s = std::move(samples);
  std::vector<double> sorted = t.samples_s;
  std::sort(sorted.begin(), sorted.end());
  t.median_s = sorted[sorted.size() / 2];
  t.min_s = sorted.front();
  t.max_s = sorted.back();
  t.sm_clock_hz = 1.98e9;
  p.timing = t;
  p.counters.total.name = "total";
  p.counters.total.dram_read_bytes = dram_bytes * 0.75;
  p.counters.total.dram_write_bytes = dram_bytes * 0.25;
  p.counters.total.l2_bytes = l2_bytes;
  p.counters.total.tensor_bf16_flop = flop;
  for (auto* zero :
       {&p.counters.total.tensor_fp16_flop, &p.counters.total.ffma_inst,
        &p.counters.total.fadd_inst, &p.counters.total.fmul_inst, &p.counters.total.hfma_inst,
        &p.counters.total.hadd_inst, &p.counters.total.hmul_inst}) {
    *zero = 0.0;
  }
  // A memory-bound placement at half its roof: the DRAM roof is twice the achieved bandwidth,
  // the compute roof far above (consistent, as the report reader recomputes it).
  Roof roof;
  roof.pipe = Pipe::kTensor;
  roof.peak_bytes_per_s = dram_bytes / (0.5 * t.median_s);
  roof.peak_flop_per_s = 1e6 * flop / t.median_s;
  roof.source = "test";
  p.roofline = place_on_roofline(roof, flop, dram_bytes, t.median_s, "counters");
  return p;
}

// Places `p` again from its (edited) counters, as the sweep would have: every reader holds the
// stored placement against the counters (check_report_consistency).
void replace_from_counters(PointResult& p) {
  p.roofline = place_on_roofline(p.roofline->roof, *p.counters.total.total_flop(),
                                 *p.counters.total.dram_bytes(), p.timing->median_s, "counters");
}

Report make_report(std::vector<PointResult> points, double canary_bytes_per_s = 3.95e12) {
  Report r;
  r.tool_version = "0.1.0";
  r.git_revision = "abc123";
  r.timestamp_utc = "2025-01-01T00:00:00Z";
  r.device.name = "NVIDIA H200";
  r.device.cc_major = 9;
  r.device.cc_minor = 0;
  r.device.sm_count = 132;
  r.device.counters_available = true;
  r.points = std::move(points);
  CanaryResult canary;
  canary.copy_bytes_per_s = canary_bytes_per_s;
  canary.copy_bytes = 4 * 62914560;
  canary.samples_s = {1e-4, 1.1e-4};
  canary.method = "synthetic";
  r.canary = canary;
  return r;
}

// A sweep-like report: six operators × seven lengths, each with its own median, every point's
// samples drawn with `spread` from `seed`.
Report sweep_report(double spread, uint64_t seed) {
  const char* ops[] = {"naive_attention", "flash_attention", "gemm", "gelu",
                       "layernorm",       "decode_attention"};
  std::vector<PointResult> points;
  uint64_t stream = seed;
  for (int o = 0; o < 6; ++o) {
    for (int k = 0; k < 7; ++k) {
      const double median_s = 1e-4 * (o + 1) * std::pow(2.0, k);
      points.push_back(make_point(ops[o], int64_t{512} << k,
                                  noisy_samples(median_s, spread, 10, ++stream * 7919)));
    }
  }
  return make_report(std::move(points));
}

const PointComparison& find(const CompareResult& r, const std::string& op, int64_t seq_len) {
  for (const auto& p : r.points) {
    if (p.key.op == op && p.key.shape.seq_len == seq_len) return p;
  }
  throw std::runtime_error("point not found: " + op);
}

TEST(Compare, IdenticalReportsAreAllSameAndExitZero) {
  const Report base = sweep_report(0.02, 1);
  const CompareResult r = compare_reports(base, base, CompareOptions{});
  EXPECT_EQ(r.points.size(), 42u);
  EXPECT_EQ(r.count(Verdict::kSame), 42u);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_FALSE(r.canary.machine_changed);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Compare, NoiseOnlyReportsFromOneDistributionHaveNoRegression) {
  // 3% spread, different draws: some medians move by a few percent, none may be called slower.
  // Several seed pairs, so a lucky draw cannot make this pass.
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const CompareResult r =
        compare_reports(sweep_report(0.03, seed), sweep_report(0.03, seed + 1000), {});
    EXPECT_EQ(r.regressions(), 0u) << "seed " << seed;
    EXPECT_EQ(r.count(Verdict::kFaster), 0u) << "seed " << seed;
    EXPECT_EQ(r.exit_code(), 0) << "seed " << seed;
  }
}

TEST(Compare, VeryNoisySamplesBeyondTheThresholdAreInconclusiveNotSlower) {
  // 40% spread with 10 samples: medians wander past 5% without a separable shift.
  size_t inconclusive = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const CompareResult r =
        compare_reports(sweep_report(0.4, seed), sweep_report(0.4, seed + 1000), {});
    EXPECT_EQ(r.regressions(), 0u) << "seed " << seed;
    inconclusive += r.count(Verdict::kInconclusive);
  }
  EXPECT_GT(inconclusive, 0u);  // otherwise this test did not exercise the noisy path
}

// A compute-bound placement of `p` (compute roof just above achieved, DRAM roof far above).
void place_compute_bound(PointResult& p) {
  Roof roof;
  roof.pipe = Pipe::kTensor;
  const double flop = *p.counters.total.total_flop();
  roof.peak_flop_per_s = 1.2 * flop / p.timing->median_s;
  roof.peak_bytes_per_s = 1e6 * *p.counters.total.dram_bytes() / p.timing->median_s;
  roof.source = "test";
  p.roofline =
      place_on_roofline(roof, flop, *p.counters.total.dram_bytes(), p.timing->median_s, "counters");
}

TEST(Compare, MoreTrafficAtAComputeBoundPointIsNotARegression) {
  // Flash attention at L = 32768 on the H200: DRAM bytes +11% between two sweeps of one build,
  // time unchanged, compute-bound in both.
  const std::vector<double> samples(10, 1.46e-2);
  PointResult base = make_point("flash_attention", 32768, samples, 6.7e8, 8.8e12);
  PointResult current = make_point("flash_attention", 32768, samples, 7.5e8, 8.8e12);
  place_compute_bound(base);
  place_compute_bound(current);
  ASSERT_EQ(base.roofline->binding_level, RoofLevel::kCompute);
  const CompareResult r = compare_reports(make_report({base}), make_report({current}), {});
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.points[0].verdict, Verdict::kSame) << r.points[0].reason;
  EXPECT_NE(r.points[0].traffic_note.find("dram_bytes +11.9%"), std::string::npos)
      << r.points[0].traffic_note;
  EXPECT_NE(r.points[0].reason.find("traffic not gated"), std::string::npos) << r.points[0].reason;
  // The same change at a memory-bound point (make_point's placement) is a regression.
  const CompareResult memory =
      compare_reports(make_report({make_point("gelu", 4096, samples, 6.7e8)}),
                      make_report({make_point("gelu", 4096, samples, 7.5e8)}), {});
  EXPECT_EQ(memory.points[0].verdict, Verdict::kSlower) << memory.points[0].reason;
}

TEST(Compare, TrafficChangesBelowOneMegabyteAreNotGated) {
  // layernorm at L = 512 on the H200: 4.54 -> 4.27 MB (-6%) between two sweeps of one build.
  const std::vector<double> samples(10, 8.2e-6);
  const CompareResult r =
      compare_reports(make_report({make_point("layernorm", 512, samples, 4.54e6)}),
                      make_report({make_point("layernorm", 512, samples, 4.27e6)}), {});
  EXPECT_EQ(r.points[0].verdict, Verdict::kSame) << r.points[0].reason;
  EXPECT_NE(r.points[0].traffic_note.find("below the 1 MB floor"), std::string::npos)
      << r.points[0].traffic_note;
  // 2 MB more of 20 MB (+10%) is above the floor: a regression.
  const CompareResult big =
      compare_reports(make_report({make_point("layernorm", 512, samples, 20e6)}),
                      make_report({make_point("layernorm", 512, samples, 22e6)}), {});
  EXPECT_EQ(big.points[0].verdict, Verdict::kSlower) << big.points[0].reason;
}

TEST(Compare, AChangeInsideTheMeasuredNoiseIsInconclusive) {
  // 40 samples spread evenly over ±30% of 100 µs: the median's 95% interval (ranks 14 and 27) is
  // ±10%. The new samples are the same times 1.07: more than the 5% threshold, less than the two
  // intervals together (±20%), so the change cannot be told from noise.
  std::vector<double> even;
  for (int i = 0; i < 40; ++i) even.push_back(1e-4 * (0.7 + 0.6 * i / 39.0));
  std::vector<double> slower = even;
  for (double& s : slower) s *= 1.07;
  const CompareResult r = compare_reports(make_report({make_point("gelu", 4096, even)}),
                                          make_report({make_point("gelu", 4096, slower)}), {});
  ASSERT_EQ(r.points.size(), 1u);
  const PointComparison& p = r.points[0];
  EXPECT_EQ(p.verdict, Verdict::kInconclusive) << p.reason;
  EXPECT_NE(p.reason.find("within the measured noise"), std::string::npos) << p.reason;
}

TEST(Compare, OnePointTenPercentSlowerWithTightSamplesIsFlaggedAlone) {
  const Report base = sweep_report(0.005, 7);
  Report current = sweep_report(0.005, 2007);
  for (auto& p : current.points) {
    if (p.op == "gelu" && p.shape.seq_len == 4096) {
      for (double& s : p.timing->samples_s) s *= 1.10;
      p.timing->median_s *= 1.10;
    }
  }
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.regressions(), 1u);
  const PointComparison& slow = find(r, "gelu", 4096);
  EXPECT_EQ(slow.verdict, Verdict::kSlower);
  ASSERT_TRUE(slow.time.has_value());
  EXPECT_NEAR(slow.time->relative_change, 0.10, 0.02);
  EXPECT_LT(*slow.time->p_value_adjusted, kMannWhitneyAlpha);
  EXPECT_EQ(slow.time->family_size, 42u);
  EXPECT_EQ(r.count(Verdict::kSame), 41u);
  EXPECT_EQ(r.exit_code(), 1);
}

// DRAM bytes 8% up with noisy times: the counter gate flags it at the default thresholds. A 3%
// change is within the default 5% traffic threshold (two back-to-back H200 sweeps of one build
// differed by up to 4.0% in DRAM bytes) and is flagged once --traffic-threshold is 1%.
TEST(Compare, CounterGateFlagsMoreDramBytesDespiteNoisyTimes) {
  const Report base = sweep_report(0.3, 11);
  auto with_more_dram = [&](double factor) {
    Report current = sweep_report(0.3, 1011);
    for (auto& p : current.points) {
      if (p.op == "layernorm" && p.shape.seq_len == 2048) {
        *p.counters.total.dram_read_bytes *= factor;
        *p.counters.total.dram_write_bytes *= factor;
        replace_from_counters(p);
      }
    }
    return current;
  };
  const CompareResult r = compare_reports(base, with_more_dram(1.08), {});
  const PointComparison& p = find(r, "layernorm", 2048);
  EXPECT_EQ(p.verdict, Verdict::kSlower);
  ASSERT_EQ(p.counters.size(), 3u);
  EXPECT_EQ(p.counters[0].metric, "dram_bytes");
  EXPECT_TRUE(p.counters[0].beyond_threshold);
  EXPECT_NEAR(*p.counters[0].relative_change, 0.08, 1e-12);
  EXPECT_DOUBLE_EQ(p.counters[0].base, 1e9);
  EXPECT_DOUBLE_EQ(p.counters[0].current, 1.08e9);
  EXPECT_FALSE(p.counters[1].beyond_threshold);  // flop
  EXPECT_NE(p.reason.find("dram_bytes +8.0%"), std::string::npos) << p.reason;
  EXPECT_EQ(r.regressions(), 1u);
  EXPECT_EQ(r.exit_code(), 1);

  const Report three_percent = with_more_dram(1.03);
  const CompareResult within = compare_reports(base, three_percent, {});
  EXPECT_NE(find(within, "layernorm", 2048).verdict, Verdict::kSlower);
  EXPECT_FALSE(find(within, "layernorm", 2048).counters[0].beyond_threshold);
  EXPECT_EQ(within.regressions(), 0u);
  CompareOptions tight;
  tight.traffic_threshold = 0.01;
  const CompareResult flagged = compare_reports(base, three_percent, tight);
  EXPECT_EQ(find(flagged, "layernorm", 2048).verdict, Verdict::kSlower);
  EXPECT_EQ(flagged.exit_code(), 1);
}

TEST(Compare, CounterDecreaseIsAnImprovementAndDoesNotFail) {
  const Report base = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.3, 10, 1))});
  Report current = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.3, 10, 2))});
  *current.points[0].counters.total.tensor_bf16_flop *= 0.9;
  replace_from_counters(current.points[0]);
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.points[0].verdict, Verdict::kFaster);
  EXPECT_EQ(r.exit_code(), 0);
}

TEST(Compare, CounterChangeWithinThresholdIsIgnored) {
  const Report base = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.01, 10, 1))});
  Report current = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.01, 10, 2))});
  *current.points[0].counters.total.l2_bytes *= 1.005;
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.points[0].verdict, Verdict::kSame);
  // L2 bytes have their own threshold: the DRAM one does not gate them.
  CompareOptions tight_dram;
  tight_dram.traffic_threshold = 0.001;
  EXPECT_EQ(compare_reports(base, current, tight_dram).points[0].verdict, Verdict::kSame);
  CompareOptions tight;
  tight.l2_threshold = 0.001;
  EXPECT_EQ(compare_reports(base, current, tight).points[0].verdict, Verdict::kSlower);
}

// L2 bytes 5.5% up (what two back-to-back H200 runs of gemm_v2_wgmma_tma at L = 1024 differed
// by) stay within the default 10% L2 threshold; 12% is flagged.
TEST(Compare, L2ThresholdCoversTheMeasuredRunToRunSpread) {
  const Report base = make_report({make_point("gemm", 1024, noisy_samples(1e-3, 0.01, 10, 3))});
  Report current = make_report({make_point("gemm", 1024, noisy_samples(1e-3, 0.01, 10, 4))});
  const double l2 = *base.points[0].counters.total.l2_bytes;
  current.points[0].counters.total.l2_bytes = l2 * 1.055;
  EXPECT_EQ(compare_reports(base, current, {}).points[0].verdict, Verdict::kSame);
  current.points[0].counters.total.l2_bytes = l2 * 1.12;
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.points[0].verdict, Verdict::kSlower);
  EXPECT_NE(r.points[0].reason.find("l2_bytes +12.0%"), std::string::npos) << r.points[0].reason;
}

TEST(Compare, ImprovementAloneExitsZero) {
  const Report base = sweep_report(0.005, 21);
  Report current = sweep_report(0.005, 2021);
  for (auto& p : current.points) {
    if (p.op == "flash_attention") {
      for (double& s : p.timing->samples_s) s *= 0.8;
    }
  }
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.count(Verdict::kFaster), 7u);
  EXPECT_EQ(r.regressions(), 0u);
  EXPECT_EQ(r.exit_code(), 0);
}

TEST(Compare, SchemaMismatchIsBadInput) {
  const Report base = sweep_report(0.01, 1);
  Report current = base;
  current.schema_version = base.schema_version + 1;
  try {
    compare_reports(base, current, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("schema"), std::string::npos);
  }
}

TEST(Compare, DifferentGpuIsBadInputUnlessAllowed) {
  const Report base = sweep_report(0.01, 1);
  Report current = base;
  current.device.name = "NVIDIA H100 80GB HBM3";
  try {
    compare_reports(base, current, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("H100"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--allow-different-gpu"), std::string::npos);
  }
  CompareOptions allow;
  allow.allow_different_gpu = true;
  const CompareResult r = compare_reports(base, current, allow);
  EXPECT_EQ(r.exit_code(), 0);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("different GPUs"), std::string::npos);
}

TEST(Compare, AddedAndRemovedPoints) {
  Report base = sweep_report(0.01, 3);
  Report current = base;
  current.points.erase(current.points.begin());  // naive_attention L=512 removed
  current.points.back().shape.seq_len = 65536;   // decode L=32768 removed, L=65536 added
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.count(Verdict::kRemoved), 2u);
  EXPECT_EQ(r.count(Verdict::kAdded), 1u);
  EXPECT_EQ(r.count(Verdict::kSame), 40u);
  EXPECT_EQ(r.version_changes(), 0u);
  EXPECT_EQ(r.points.back().verdict, Verdict::kAdded);
  EXPECT_EQ(r.points.back().key.shape.seq_len, 65536);
  EXPECT_EQ(r.exit_code(), 0);
  // A new report that lost points must be able to fail CI: --strict counts removed points.
  CompareOptions strict;
  strict.strict = true;
  EXPECT_EQ(compare_reports(base, current, strict).exit_code(), 1);
  Report empty = base;
  empty.points.clear();
  EXPECT_EQ(compare_reports(base, empty, {}).exit_code(), 0);
  EXPECT_EQ(compare_reports(base, empty, strict).exit_code(), 1);
}

// A new kernel version of an operator is matched with the old one at the same shape: judged by
// the time gate only, the counter changes shown but not gated.
TEST(Compare, VersionChangeIsMatchedAndJudgedByTimeOnly) {
  const Report base = sweep_report(0.005, 31);
  Report current = sweep_report(0.005, 2031);
  for (auto& p : current.points) {
    if (p.op != "flash_attention") continue;
    p.version = "flash_attention_v3";
    for (double& s : p.timing->samples_s) s /= 2.5;  // 2.5x faster
    *p.counters.total.l2_bytes *= 1.5;               // ... while moving more bytes
    p.counters.total.dram_read_bytes = *p.counters.total.dram_read_bytes * 1.3;
    replace_from_counters(p);
  }
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.points.size(), 42u);
  EXPECT_EQ(r.count(Verdict::kRemoved), 0u);
  EXPECT_EQ(r.count(Verdict::kAdded), 0u);
  EXPECT_EQ(r.count(Verdict::kFaster), 7u);
  EXPECT_EQ(r.count(Verdict::kSame), 35u);
  EXPECT_EQ(r.version_changes(), 7u);
  EXPECT_EQ(r.exit_code(), 0);
  const PointComparison& flash = find(r, "flash_attention", 4096);
  EXPECT_TRUE(flash.version_changed());
  EXPECT_EQ(flash.key.version, "flash_attention_v1");
  EXPECT_EQ(flash.new_version, "flash_attention_v3");
  EXPECT_EQ(flash.reason.rfind("version changed: flash_attention_v1 -> flash_attention_v3; "
                               "counters not gated",
                               0),
            0u)
      << flash.reason;
  EXPECT_NE(flash.reason.find("l2_bytes +50.0%"), std::string::npos) << flash.reason;
  EXPECT_NE(flash.reason.find("median"), std::string::npos) << flash.reason;
  ASSERT_EQ(flash.counters.size(), 3u);  // shown, beyond their thresholds, yet not a regression
  EXPECT_TRUE(flash.counters[2].beyond_threshold);
  EXPECT_NE(flash.counter_note.find("counters not gated"), std::string::npos);
  EXPECT_FALSE(find(r, "gemm", 4096).version_changed());

  const std::string table = format_compare_table(r);
  EXPECT_NE(table.find("flash_attention_v1 -> flash_attention_v3"), std::string::npos) << table;
  EXPECT_NE(table.find("7 matched across a kernel version change (time gate only)"),
            std::string::npos)
      << table;
  const nlohmann::ordered_json j = compare_to_json(r);
  EXPECT_EQ(j["summary"]["version_changed"], 7);
  for (const auto& p : j["points"]) {
    const bool flash_point = p["op"] == "flash_attention";
    EXPECT_EQ(p["version_changed"].get<bool>(), flash_point);
    EXPECT_EQ(p["new_version"], flash_point ? "flash_attention_v3" : p["version"]);
  }
}

// Across a version change a counter increase with unchanged times is "same", and a slower time
// is still a regression.
TEST(Compare, VersionChangeCountersNeverGateButTimeStillDoes) {
  const Report base = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.005, 10, 1)),
                                   make_point("gelu", 512, noisy_samples(1e-3, 0.005, 10, 2))});
  Report current = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.005, 10, 3)),
                                make_point("gelu", 512, noisy_samples(1.3e-3, 0.005, 10, 4))});
  for (auto& p : current.points) {
    p.version = p.op + "_v2";
    *p.counters.total.tensor_bf16_flop *= 2;
    replace_from_counters(p);
  }
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.points[0].verdict, Verdict::kSame) << r.points[0].reason;
  EXPECT_NE(r.points[0].reason.find("flop +100.0%"), std::string::npos) << r.points[0].reason;
  EXPECT_EQ(r.points[1].verdict, Verdict::kSlower) << r.points[1].reason;
  EXPECT_EQ(r.version_changes(), 2u);
  EXPECT_EQ(r.exit_code(), 1);
  // The same counter change without a version change is a regression, as before.
  Report same_version = current;
  for (auto& p : same_version.points) p.version = p.op + "_v1";
  const CompareResult gated = compare_reports(base, same_version, {});
  EXPECT_EQ(gated.points[0].verdict, Verdict::kSlower);
  EXPECT_EQ(gated.version_changes(), 0u);
  EXPECT_FALSE(gated.points[0].version_changed());
  EXPECT_EQ(gated.points[0].reason.find("version changed"), std::string::npos);
}

TEST(Compare, ShapeAndDtypeArePartOfTheMatch) {
  const Report base = make_report({make_point("gelu", 512, noisy_samples(1e-3, 0.01, 10, 1)),
                                   make_point("gemm", 512, noisy_samples(1e-3, 0.01, 10, 2))});
  Report current = base;
  current.points[0].shape.dtype = Dtype::kFp16;
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.count(Verdict::kRemoved), 1u);
  EXPECT_EQ(r.count(Verdict::kAdded), 1u);
  EXPECT_EQ(r.count(Verdict::kSame), 1u);
}

// A pull request that changes the sweep's settings must not turn the gate off: nothing matched
// is bad input, and the error says which axes differ.
TEST(Compare, NothingMatchedIsBadInputNamingTheDifference) {
  const Report base = sweep_report(0.01, 3);
  Report current = base;
  for (auto& p : current.points) p.shape.batch = 2;
  try {
    compare_reports(base, current, {});
    ADD_FAILURE() << "a comparison with nothing matched passed";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("batch: base 1, new 2"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("dtype"), std::string::npos) << e.what();
  }
}

TEST(Compare, RemovedPointsWarnWithoutStrict) {
  const Report base = sweep_report(0.01, 3);
  Report current = base;
  current.points.pop_back();  // decode_attention L=32768
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.exit_code(), 0);
  const auto warning = std::find_if(r.warnings.begin(), r.warnings.end(), [](const auto& w) {
    return w.find("1 point of the base report is missing") != std::string::npos;
  });
  ASSERT_NE(warning, r.warnings.end());
  EXPECT_NE(warning->find("decode_attention"), std::string::npos) << *warning;
  EXPECT_EQ(compare_reports(base, base, {}).warnings.size(), 0u);
}

// A new point above its roof is an error in the measurement, not an improvement: it would
// otherwise pass as "faster" and become the next baseline.
TEST(Compare, AboveRoofNewPointFailsTheGateWithItsReason) {
  const Report base = sweep_report(0.005, 41);
  Report current = sweep_report(0.005, 2041);
  for (auto& p : current.points) {
    if (p.op != "gemm" || p.shape.seq_len != 1024) continue;
    for (double& t : p.timing->samples_s) t /= 2.5;  // the DRAM roof was 2x the achieved rate
    p.timing->median_s /= 2.5;
    replace_from_counters(p);
    ASSERT_TRUE(p.roofline->above_roof);
  }
  const CompareResult r = compare_reports(base, current, {});
  const PointComparison& gemm = find(r, "gemm", 1024);
  EXPECT_EQ(gemm.verdict, Verdict::kFailed);
  EXPECT_NE(gemm.reason.find("above the counters roof"), std::string::npos) << gemm.reason;
  EXPECT_EQ(r.regressions(), 1u);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(Compare, FailedAddedPointFails) {
  const Report base = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.01, 10, 1))});
  Report current = base;
  PointResult failed = make_point("gelu", 512, noisy_samples(1e-3, 0.01, 10, 2));
  failed.status = PointStatus::kFailed;
  failed.reason = "validation failed: 3 of 4096 elements";
  current.points.push_back(failed);
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.points.back().verdict, Verdict::kFailed);
  EXPECT_NE(r.points.back().reason.find("validation failed"), std::string::npos);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(Compare, InconsistentPlacementIsBadInput) {
  const Report base = sweep_report(0.01, 3);
  Report current = base;
  current.points[5].roofline->dram_bytes *= 0.5;  // edited: counters still say 1e9
  EXPECT_THROW(compare_reports(base, current, {}), Error);
}

TEST(Compare, DuplicatePointIsBadInput) {
  const Report base =
      make_report({make_point("gelu", 512, {1e-3}), make_point("gelu", 512, {1e-3})});
  EXPECT_THROW(compare_reports(base, base, {}), Error);
  // Two versions of one operator at one shape are the same point: which would be compared?
  Report two_versions = base;
  two_versions.points[1].version = "gelu_v2";
  EXPECT_THROW(compare_reports(two_versions, make_report({make_point("gelu", 512, {1e-3})}), {}),
               Error);
}

TEST(Compare, FailedNewPointIsARegression) {
  const Report base = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.01, 10, 1))});
  Report current = base;
  current.points[0].status = PointStatus::kFailed;
  current.points[0].reason = "validation failed: 12 of 1000 elements";
  current.points[0].timing.reset();
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.points[0].verdict, Verdict::kFailed);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(Compare, TooFewSamplesAreRefusedBeforeAnyVerdict) {
  // 3 vs 3 samples can never reach p < 0.01 (minimum p is 0.1): no verdict, bad input.
  const Report base = make_report({make_point("gemm", 512, {1.00e-3, 1.01e-3, 1.02e-3})});
  const Report current = make_report({make_point("gemm", 512, {1.20e-3, 1.21e-3, 1.22e-3})});
  try {
    compare_reports(base, current, {});
    ADD_FAILURE() << "3 + 3 samples were compared";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("--repetitions 6 or more"), std::string::npos) << e.what();
  }
}

// The case: 5 samples per point over the 42-point sweep, every GEMM point 1.5x slower.
// Holm over 42 points lifts the best p = 2/252 to 0.33: the comparison is refused, not passed.
TEST(Compare, TooFewSamplesOverASweepAreRefusedAndTenFlagTheRegression) {
  auto with_samples = [](int count, double gemm_scale, uint64_t seed) {
    Report r = sweep_report(0.01, seed);
    for (auto& p : r.points) {
      p.timing->samples_s.resize(static_cast<size_t>(count));
      if (p.op == "gemm") {
        for (double& s : p.timing->samples_s) s *= gemm_scale;
      }
      std::vector<double> sorted = p.timing->samples_s;
      std::sort(sorted.begin(), sorted.end());
      p.timing->median_s = sorted[sorted.size() / 2];
      p.roofline = place_on_roofline(p.roofline->roof, p.roofline->flop, p.roofline->dram_bytes,
                                     p.timing->median_s, "counters");
    }
    return r;
  };
  EXPECT_THROW(compare_reports(with_samples(5, 1.0, 1), with_samples(5, 1.5, 2), {}), Error);
  // 8 + 8 is enough for the exact test (42 x 2/12870 = 0.0065) but not for the approximation
  // that tied samples get (42 x 9.4e-4): refused too.
  EXPECT_THROW(compare_reports(with_samples(8, 1.0, 1), with_samples(8, 1.5, 2), {}), Error);
  const CompareResult ten = compare_reports(with_samples(10, 1.0, 1), with_samples(10, 1.5, 2), {});
  EXPECT_EQ(ten.count(Verdict::kSlower), 7u);
  EXPECT_EQ(ten.exit_code(), 1);
}

TEST(Compare, StrictMakesInconclusiveFail) {
  // 40% spread with 10 samples: a 20% shift of the median is not separable from that noise.
  const Report base = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.4, 10, 5))});
  const Report current = make_report({make_point("gemm", 512, noisy_samples(1.2e-3, 0.4, 10, 6))});
  const CompareResult lenient = compare_reports(base, current, {});
  ASSERT_EQ(lenient.points[0].verdict, Verdict::kInconclusive) << lenient.points[0].reason;
  EXPECT_EQ(lenient.exit_code(), 0);
  CompareOptions strict;
  strict.strict = true;
  EXPECT_EQ(compare_reports(base, current, strict).exit_code(), 1);
}

TEST(Compare, ChangesBelowTheEventResolutionFloorAreSame) {
  // 10 µs kernel, 8% slower = 0.8 µs: below the 1 µs floor even with tight samples.
  const Report base =
      make_report({make_point("layernorm", 512, noisy_samples(10e-6, 0.001, 10, 1))});
  Report current =
      make_report({make_point("layernorm", 512, noisy_samples(10.8e-6, 0.001, 10, 2))});
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.points[0].verdict, Verdict::kSame);
  EXPECT_NE(r.points[0].reason.find("resolution"), std::string::npos);
}

TEST(Compare, ComputeBoundTimesAreNormalizedToTheBaseClock) {
  // New run at 1.80 GHz instead of 1.98 GHz, same cycles: 10% longer in seconds.
  Report base = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.002, 10, 1))});
  Report current =
      make_report({make_point("gemm", 512, noisy_samples(1e-3 * 1.98 / 1.80, 0.002, 10, 2))});
  base.points[0].roofline->bound = Bound::kCompute;
  current.points[0].roofline->bound = Bound::kCompute;
  current.points[0].timing->sm_clock_hz = 1.80e9;
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.points[0].verdict, Verdict::kSame) << r.points[0].reason;
  ASSERT_TRUE(r.points[0].time->clock_scale.has_value());
  EXPECT_NEAR(*r.points[0].time->clock_scale, 1.80 / 1.98, 1e-12);

  // Memory-bound: the SM clock does not set its time, so nothing is scaled and it is slower.
  base.points[0].roofline->bound = Bound::kMemory;
  const CompareResult memory = compare_reports(base, current, {});
  EXPECT_FALSE(memory.points[0].time->clock_scale.has_value());
  EXPECT_EQ(memory.points[0].verdict, Verdict::kSlower);
}

TEST(Compare, ThrottledSamplesAreNotClockNormalized) {
  // Power-capped in every sample (flash attention L = 16384 on the H200): the clocks read after
  // the samples differ (1.98 vs 1.68 GHz) while the medians agree; scaling would invent a change.
  Report base =
      make_report({make_point("flash_attention", 16384, noisy_samples(3.26e-3, 0.002, 10, 1))});
  Report current =
      make_report({make_point("flash_attention", 16384, noisy_samples(3.26e-3, 0.002, 10, 2))});
  base.points[0].roofline->bound = Bound::kCompute;
  current.points[0].roofline->bound = Bound::kCompute;
  current.points[0].timing->sm_clock_hz = 1.68e9;
  current.points[0].timing->sample_clocks =
      std::vector<ClockReading>(10, make_clock_reading(1.68e9, 3.2e9, kClockEventSwPowerCap));
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_EQ(r.points[0].verdict, Verdict::kSame) << r.points[0].reason;
  EXPECT_FALSE(r.points[0].time->clock_scale.has_value());
  EXPECT_NE(r.points[0].time->clock_scale_skipped.find("throttled"), std::string::npos);
}

TEST(Compare, ByRoofComparesFractionsOfTheRoof) {
  // 10% slower with the same roof: the fraction of the roof drops by 1 - 1/1.1 = 9.1%.
  Report base = make_report({make_point("gemm", 512, noisy_samples(1e-3, 0.002, 10, 1))});
  Report current = make_report({make_point("gemm", 512, noisy_samples(1.1e-3, 0.002, 10, 2))});
  current.points[0].roofline->fraction_of_roof =
      0.5 * base.points[0].timing->median_s / current.points[0].timing->median_s;
  CompareOptions by_roof;
  by_roof.by = CompareBy::kRoof;
  const CompareResult r = compare_reports(base, current, by_roof);
  EXPECT_EQ(r.points[0].verdict, Verdict::kSlower);
  EXPECT_NEAR(r.points[0].time->base_median, 0.5, 0.005);
  EXPECT_NEAR(r.points[0].time->relative_change, 1 / 1.1 - 1, 0.01);

  current.points[0].roofline.reset();
  current.points[0].roofline_null_reason = "no counters";
  EXPECT_EQ(compare_reports(base, current, by_roof).points[0].verdict, Verdict::kInconclusive);
}

TEST(Compare, ByRoofMarksAPlacementAboveTheSlopeByWriteBack) {
  // The H100 full-mode block's bf16 adds: 100.9% of the DRAM roof on whole traffic, explained by
  // write-back after the window; the mark and its note follow the point into compare's outputs.
  Report base = make_report({make_point("gelu", 4096, noisy_samples(1e-3, 0.002, 10, 1))});
  Report current = make_report({make_point("gelu", 4096, noisy_samples(1e-3, 0.002, 10, 2))});
  base.points[0].roofline->fraction_of_roof = 1.009;
  current.points[0].roofline->fraction_of_roof = 0.98;
  base.points[0].roofline->write_back_after_window = true;
  CompareOptions by_roof;
  by_roof.by = CompareBy::kRoof;
  const CompareResult r = compare_reports(base, current, by_roof);
  ASSERT_TRUE(r.points[0].time);
  EXPECT_TRUE(r.points[0].time->base_write_back_after_window);
  EXPECT_FALSE(r.points[0].time->current_write_back_after_window);
  const std::string table = format_compare_table(r);
  EXPECT_NE(table.find("100.9% roof~"), std::string::npos) << table;
  EXPECT_EQ(table.find("98.0% roof~"), std::string::npos) << table;
  EXPECT_NE(table.find("~ after a fraction of the roof: above the DRAM slope"), std::string::npos);
  EXPECT_NE(format_compare_markdown(r).find("~ after a fraction of the roof"), std::string::npos);
  const auto json = compare_to_json(r);
  EXPECT_TRUE(json["points"][0]["time"]["base_write_back_after_window"].get<bool>());
  EXPECT_FALSE(json["points"][0]["time"]["new_write_back_after_window"].get<bool>());

  // Neither side marked (or by time): no mark, no note, no keys.
  base.points[0].roofline->write_back_after_window = false;
  const CompareResult plain = compare_reports(base, current, by_roof);
  EXPECT_EQ(format_compare_table(plain).find('~'), std::string::npos);
  const CompareResult by_time = compare_reports(base, current, {});
  EXPECT_FALSE(
      compare_to_json(by_time)["points"][0]["time"].contains("base_write_back_after_window"));
}

TEST(Compare, CanaryChangeBeyondTheTimeThresholdSaysTheMachineChanged) {
  const Report base = sweep_report(0.01, 5);
  Report current = base;
  current.canary->copy_bytes_per_s = 3.95e12 * 0.9;
  const CompareResult r = compare_reports(base, current, {});
  EXPECT_TRUE(r.canary.machine_changed);
  EXPECT_NEAR(*r.canary.relative_change, -0.1, 1e-12);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("machine changed"), std::string::npos);
  EXPECT_NE(format_compare_markdown(r).find("machine changed"), std::string::npos);
  EXPECT_EQ(r.exit_code(), 0);  // a warning, not a verdict

  current.canary->copy_bytes_per_s = 3.95e12 * 0.98;  // within 5%
  EXPECT_FALSE(compare_reports(base, current, {}).canary.machine_changed);

  current.canary.reset();
  const CompareResult missing = compare_reports(base, current, {});
  ASSERT_EQ(missing.warnings.size(), 1u);
  EXPECT_NE(missing.warnings[0].find("cannot tell"), std::string::npos);
}

TEST(Compare, ParseThreshold) {
  EXPECT_DOUBLE_EQ(parse_threshold("5%", "--time-threshold"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("0.05", "--time-threshold"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("0.5%", "--counter-threshold"), 0.005);
  for (const char* bad : {"5", "0", "0%", "100%", "-1%", "abc", "%", "", "5%%", "nan"}) {
    try {
      parse_threshold(bad, "--time-threshold");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
      EXPECT_NE(std::string(e.what()).find("--time-threshold"), std::string::npos);
    }
  }
  EXPECT_EQ(parse_compare_by("roof"), CompareBy::kRoof);
  EXPECT_THROW(parse_compare_by("speed"), Error);
}

// The message says whether the token is not a number or out of range, with what is allowed.
TEST(Compare, ParseThresholdNamesTheProblem) {
  const auto message = [](const std::string& text) -> std::string {
    try {
      parse_threshold(text, "--l2-threshold");
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "accepted '" << text << "'";
    return "";
  };
  const std::string allowed =
      "(allowed: a percentage like 5% or a fraction like 0.05, above 0 and below 1)";
  EXPECT_EQ(message("1.5x"), "--l2-threshold: '1.5x' is not a number " + allowed);
  EXPECT_EQ(message("inf%"), "--l2-threshold: 'inf%' is not a number " + allowed);
  // strtod would read these as 0.0625 and 0.05; they are not decimal numbers.
  EXPECT_EQ(message("0x0.1"), "--l2-threshold: '0x0.1' is not a number " + allowed);
  EXPECT_EQ(message(" 0.05"), "--l2-threshold: ' 0.05' is not a number " + allowed);
  EXPECT_EQ(message("150%"), "--l2-threshold: '150%' is out of range " + allowed);
  EXPECT_EQ(message("5"),
            "--l2-threshold: '5' is out of range (allowed: a percentage like 5% or "
            "a fraction like 0.05, above 0 and below 1; for 5 percent write 5%)");
}

TEST(CompareWriters, TableMarkdownAndJsonCarryTheVerdicts) {
  const Report base = sweep_report(0.005, 7);
  Report current = sweep_report(0.005, 2007);
  for (auto& p : current.points) {
    if (p.op == "gelu" && p.shape.seq_len == 512) {
      for (double& s : p.timing->samples_s) s *= 1.2;
    }
  }
  const CompareResult r = compare_reports(base, current, {});
  ASSERT_EQ(r.regressions(), 1u);

  const std::string table = format_compare_table(r);
  EXPECT_NE(table.find("slower: gelu gelu_v1 L=512"), std::string::npos) << table;
  EXPECT_NE(table.find("1 regression"), std::string::npos);
  EXPECT_NE(table.find("exit 1"), std::string::npos);

  const std::string md = format_compare_markdown(r);
  EXPECT_NE(md.find("1 regression"), std::string::npos);
  EXPECT_NE(md.find("| **slower** | `gelu` | 512 |"), std::string::npos) << md;
  EXPECT_NE(md.find("<details>"), std::string::npos);

  const nlohmann::ordered_json j = compare_to_json(r);
  EXPECT_EQ(j["compare_schema_version"], kCompareSchemaVersion);
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["summary"]["slower"], 1);
  EXPECT_EQ(j["summary"]["same"], 41);
  bool found = false;
  for (const auto& p : j["points"]) {
    if (p["verdict"] == "slower") {
      found = true;
      EXPECT_EQ(p["op"], "gelu");
      EXPECT_EQ(p["shape"]["seq_len"], 512);
      EXPECT_TRUE(p["regression"].get<bool>());
      EXPECT_GT(p["time"]["relative_change"].get<double>(), 0.15);
    }
  }
  EXPECT_TRUE(found);
}

TEST(CompareWriters, AddedAndRemovedPointsAreListedOnce) {
  const PointResult matched = make_point("gemm", 512, noisy_samples(1e-3, 0.01, 10, 3));
  const Report base = make_report({make_point("gelu", 512, {1e-3, 1e-3, 1e-3}), matched});
  const Report current = make_report({make_point("gelu", 1024, {1e-3, 1e-3, 1e-3}), matched});
  const CompareResult r = compare_reports(base, current, {});
  const std::string table = format_compare_table(r);
  EXPECT_NE(table.find("removed  gelu"), std::string::npos) << table;
  EXPECT_NE(table.find("added    gelu"), std::string::npos) << table;
  EXPECT_EQ(table.find("removed: "), std::string::npos) << table;
  EXPECT_EQ(table.find("added: "), std::string::npos) << table;
  const std::string md = format_compare_markdown(r);
  EXPECT_EQ(md.find("- **removed**"), std::string::npos) << md;
  EXPECT_NE(md.find("| removed | `gelu` | 512 |"), std::string::npos) << md;
}

// Points that differ only in an axis the short tables leave out (an FP8 KV cache, explicit GEMM
// dims, a paged cache) are told apart in the table, the Markdown and the JSON.
TEST(CompareWriters, KvCacheAndGemmDimsAreNamed) {
  PointResult decode16 = make_point("decode_attention", 512, {1e-3, 1e-3, 1e-3});
  PointResult decode8 = decode16;
  decode8.shape.kv_dtype = KvDtype::kFp8E4m3;
  PointResult paged = decode16;
  paged.shape.kv_layout = KvLayout::kPaged;
  paged.shape.page_size = 16;
  PointResult qkv = make_point("gemm", 512, {1e-3, 1e-3, 1e-3});
  qkv.shape.gemm_n = 6144;
  qkv.shape.gemm_k = 4096;
  const PointResult matched = make_point("gelu", 512, noisy_samples(1e-3, 0.01, 10, 3));
  const CompareResult r = compare_reports(make_report({matched, decode16, qkv}),
                                          make_report({matched, decode8, paged}), {});
  const std::string table = format_compare_table(r);
  EXPECT_NE(table.find("added    decode_attention kv=fp8_e4m3"), std::string::npos) << table;
  EXPECT_NE(table.find("added    decode_attention paged/16"), std::string::npos) << table;
  EXPECT_NE(table.find("removed  gemm N=6144 K=4096"), std::string::npos) << table;
  const std::string md = format_compare_markdown(r);
  EXPECT_NE(md.find("| added | `decode_attention` kv=fp8_e4m3 | 512 |"), std::string::npos) << md;
  const nlohmann::ordered_json j = compare_to_json(r);
  bool fp8 = false, gemm = false, paged_seen = false;
  for (const auto& p : j["points"]) {
    fp8 = fp8 || p["shape"].value("kv_dtype", "") == "fp8_e4m3";
    gemm = gemm || (p["shape"].value("gemm_n", 0) == 6144 && p["shape"].value("gemm_k", 0) == 4096);
    paged_seen = paged_seen || p["shape"].value("page_size", 0) == 16;
  }
  EXPECT_TRUE(fp8 && gemm && paged_seen) << j.dump(1);
}

TEST(CompareWriters, CleanMarkdownSaysNoRegression) {
  const Report base = sweep_report(0.01, 9);
  const std::string md = format_compare_markdown(compare_reports(base, base, {}));
  EXPECT_NE(md.find("✅ no regression"), std::string::npos) << md;
}

TEST(BmfWriter, OneBenchmarkPerOkPointWithLatencyInNanoseconds) {
  Report report = make_report(
      {make_point("gelu", 512, {1e-5, 2e-5, 3e-5}), make_point("gemm", 1024, {1e-3, 1e-3, 1e-3})});
  report.points[1].status = PointStatus::kSkipped;
  report.points[0].counters.total.l2_bytes.reset();
  const nlohmann::ordered_json bmf = report_to_bmf(report);
  ASSERT_EQ(bmf.size(), 1u);
  const auto& bench = bmf.begin().value();
  // Named without the kernel version, so a dashboard's history survives a kernel change.
  EXPECT_EQ(bmf.begin().key(), "gelu L=512 B=1 H=16/16 d=128 bf16 erf");
  EXPECT_DOUBLE_EQ(bench["latency"]["value"].get<double>(), 2e4);
  EXPECT_DOUBLE_EQ(bench["latency"]["lower_value"].get<double>(), 1e4);
  EXPECT_DOUBLE_EQ(bench["latency"]["upper_value"].get<double>(), 3e4);
  EXPECT_DOUBLE_EQ(bench["dram-bytes"]["value"].get<double>(), 1e9);
  EXPECT_DOUBLE_EQ(bench["flop"]["value"].get<double>(), 4e11);
  EXPECT_FALSE(bench.contains("l2-bytes"));  // not measured: left out, BMF has no null
  EXPECT_DOUBLE_EQ(bench["fraction-of-roof"]["value"].get<double>(), 0.5);
}

TEST(BmfWriter, DramBytesIncludeTheWriteBackWhenMeasured) {
  Report report = make_report({make_point("gelu", 512, {1e-5, 2e-5, 3e-5})});
  report.points[0].counters.dram_writeback_bytes = 3e8;
  const nlohmann::ordered_json bmf = report_to_bmf(report);
  const double expected = *report.points[0].counters.total.dram_bytes() + 3e8;
  EXPECT_DOUBLE_EQ(bmf.begin().value()["dram-bytes"]["value"].get<double>(), expected);
}

TEST(CanaryJson, RoundTripsAndIsOptional) {
  const Report report = make_report({make_point("gelu", 512, {1e-5})});
  const Report back = report_from_json_text(report_to_json_text(report), "test");
  ASSERT_TRUE(back.canary.has_value());
  EXPECT_EQ(back.canary->copy_bytes_per_s, report.canary->copy_bytes_per_s);
  EXPECT_EQ(back.canary->copy_bytes, report.canary->copy_bytes);
  EXPECT_EQ(back.canary->samples_s, report.canary->samples_s);
  EXPECT_EQ(back.canary->method, "synthetic");

  Report failed = report;
  failed.canary->copy_bytes_per_s.reset();
  failed.canary->null_reason = "CUDA error: out of memory";
  const Report failed_back = report_from_json_text(report_to_json_text(failed), "test");
  EXPECT_FALSE(failed_back.canary->copy_bytes_per_s.has_value());
  EXPECT_EQ(failed_back.canary->null_reason, "CUDA error: out of memory");

  Report old = report;
  old.canary.reset();  // reports written before the canary have no key at all
  const std::string text = report_to_json_text(old);
  EXPECT_EQ(text.find("canary"), std::string::npos);
  EXPECT_FALSE(report_from_json_text(text, "test").canary.has_value());
}

TEST(CompareOnRealReport, CommittedH200ReportAgainstItselfIsClean) {
  const Report report =
      load_report(std::string(RFL_SOURCE_DIR) + "/tests/unit/data/h200-sweep-first-run.json");
  const CompareResult r = compare_reports(report, report, {});
  EXPECT_EQ(r.points.size(), 42u);
  EXPECT_EQ(r.count(Verdict::kSame), 42u);
  EXPECT_EQ(r.exit_code(), 0);
}

}  // namespace
}  // namespace rooflinectl
