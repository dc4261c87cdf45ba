// The hierarchical (L2 + DRAM) roofline, as Nsight Compute draws it: placement
// under the L2 ceiling, the binding level, where the L2 ceiling comes from, the L2 bytes a
// placement may use, the above-roof guard and the consistency check of stored L2 bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "h200_counter_peaks.hpp"
#include "peaks/peak_sources.hpp"
#include "peaks/roof_selection.hpp"
#include "result/consistency.hpp"
#include "result/peak_set.hpp"
#include "result/placement_inputs.hpp"
#include "roofline/above_roof_guard.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// H200-like: dense bf16 989.5 TFLOP/s, HBM 4.8 TB/s (ridge 206 FLOP/B), L2 9 TB/s (ridge 110).
Roof hierarchical_roof(RoofSource l2_kind = RoofSource::kMeasured) {
  Roof roof;
  roof.pipe = Pipe::kTensor;
  roof.peak_flop_per_s = 989.5e12;
  roof.peak_bytes_per_s = 4.8e12;
  roof.source = "test";
  roof.source_kind = RoofSource::kDatasheet;
  roof.l2_bytes_per_s = 9e12;
  roof.l2_source = to_string(l2_kind) + ": L2 9 TB/s [test]";
  roof.l2_source_kind = l2_kind;
  return roof;
}

L2Bytes counted(double bytes) { return L2Bytes{bytes, ""}; }

TEST(HierarchicalRoofline, L2BindsRightOfTheDramRidge) {
  // 1e12 FLOP over 1e9 DRAM bytes (I = 1000: compute side of the DRAM ridge) but 2e10 L2 bytes
  // (I_l2 = 50): the L2 slope allows 50 × 9 TB/s = 450 TFLOP/s, below the 989.5 compute roof.
  const RooflinePoint p =
      place_on_roofline(hierarchical_roof(), 1e12, 1e9, 4e-3, "counters", counted(2e10));
  EXPECT_EQ(p.bound, Bound::kCompute);  // the DRAM-ridge verdict is unchanged
  EXPECT_EQ(p.binding_level, RoofLevel::kL2);
  ASSERT_TRUE(p.l2_bytes);
  EXPECT_DOUBLE_EQ(*p.l2_bytes, 2e10);
  ASSERT_TRUE(p.l2_arithmetic_intensity_flop_per_byte);
  EXPECT_DOUBLE_EQ(*p.l2_arithmetic_intensity_flop_per_byte, 50.0);
  ASSERT_TRUE(p.achieved_l2_bytes_per_s);
  EXPECT_DOUBLE_EQ(*p.achieved_l2_bytes_per_s, 5e12);
  ASSERT_TRUE(p.l2_ridge_flop_per_byte);
  EXPECT_NEAR(*p.l2_ridge_flop_per_byte, 989.5 / 9.0, 1e-9);
  ASSERT_TRUE(p.l2_attainable_flop_per_s);
  EXPECT_DOUBLE_EQ(*p.l2_attainable_flop_per_s, 450e12);
  EXPECT_DOUBLE_EQ(p.dram_attainable_flop_per_s, 989.5e12);
  EXPECT_DOUBLE_EQ(p.attainable_flop_per_s, 450e12);
  EXPECT_NEAR(p.fraction_of_roof, 250.0 / 450.0, 1e-12);  // achieved 250 TFLOP/s
  EXPECT_FALSE(p.above_roof);
  EXPECT_TRUE(p.l2_null_reason.empty()) << p.l2_null_reason;
}

TEST(HierarchicalRoofline, DramBindsWhenItsSlopeIsLower) {
  // I = 100 (DRAM allows 480 TFLOP/s), I_l2 = 66.7 (L2 allows 600): DRAM binds.
  const RooflinePoint p =
      place_on_roofline(hierarchical_roof(), 1e11, 1e9, 1e-3, "counters", counted(1.5e9));
  EXPECT_EQ(p.bound, Bound::kMemory);
  EXPECT_EQ(p.binding_level, RoofLevel::kDram);
  EXPECT_DOUBLE_EQ(p.attainable_flop_per_s, 480e12);
  EXPECT_DOUBLE_EQ(p.dram_attainable_flop_per_s, 480e12);
  EXPECT_NEAR(*p.l2_attainable_flop_per_s, 600e12, 1e3);
  EXPECT_NEAR(p.fraction_of_roof, 100.0 / 480.0, 1e-12);
}

TEST(HierarchicalRoofline, ComputeBindsRightOfBothRidges) {
  // I = 1e4 and I_l2 = 500, both right of their ridges (206 and 110).
  const RooflinePoint p =
      place_on_roofline(hierarchical_roof(), 1e13, 1e9, 20e-3, "counters", counted(2e10));
  EXPECT_EQ(p.bound, Bound::kCompute);
  EXPECT_EQ(p.binding_level, RoofLevel::kCompute);
  EXPECT_DOUBLE_EQ(*p.l2_attainable_flop_per_s, 989.5e12);
  EXPECT_DOUBLE_EQ(p.attainable_flop_per_s, 989.5e12);
  EXPECT_NEAR(p.fraction_of_roof, 500.0 / 989.5, 1e-12);
}

TEST(HierarchicalRoofline, ATieBetweenDramAndL2IsDram) {
  // Exact in binary: I = 100 under 4 TB/s and I_l2 = 50 under 8 TB/s both allow 400 TFLOP/s.
  Roof roof = hierarchical_roof();
  roof.peak_bytes_per_s = 4e12;
  roof.l2_bytes_per_s = 8e12;
  const RooflinePoint p = place_on_roofline(roof, 1e11, 1e9, 1e-3, "counters", counted(2e9));
  EXPECT_EQ(p.binding_level, RoofLevel::kDram);
  EXPECT_DOUBLE_EQ(p.attainable_flop_per_s, 400e12);
}

TEST(HierarchicalRoofline, UnknownL2BytesLeaveEveryL2FigureNullWithTheReason) {
  const RooflinePoint p = place_on_roofline(
      hierarchical_roof(), 1e12, 1e9, 4e-3, "analytic",
      L2Bytes{std::nullopt, "analytic placement: L2 bytes are only counted, never modelled"});
  EXPECT_FALSE(p.l2_bytes);
  EXPECT_FALSE(p.l2_arithmetic_intensity_flop_per_byte);
  EXPECT_FALSE(p.achieved_l2_bytes_per_s);
  EXPECT_FALSE(p.l2_attainable_flop_per_s);
  EXPECT_TRUE(p.l2_ridge_flop_per_byte);  // a property of the roof alone
  EXPECT_EQ(p.l2_null_reason, "analytic placement: L2 bytes are only counted, never modelled");
  // Judged on DRAM and compute only: compute binds at I = 1000, as before the L2 roofline.
  EXPECT_EQ(p.binding_level, RoofLevel::kCompute);
  EXPECT_DOUBLE_EQ(p.attainable_flop_per_s, p.dram_attainable_flop_per_s);
  // The default: a caller that passes no L2 bytes gets a reason too, never a value.
  const RooflinePoint plain = place_on_roofline(hierarchical_roof(), 1e11, 1e9, 1e-3, "counters");
  EXPECT_FALSE(plain.l2_attainable_flop_per_s);
  EXPECT_FALSE(plain.l2_null_reason.empty());
  EXPECT_EQ(plain.binding_level, RoofLevel::kDram);
}

TEST(HierarchicalRoofline, UnknownL2RoofKeepsTheIntensityAndSaysWhy) {
  Roof roof = hierarchical_roof();
  roof.l2_bytes_per_s.reset();
  roof.l2_source_kind.reset();
  roof.l2_source = "datasheet: datasheets give no L2 bandwidth";
  const RooflinePoint p = place_on_roofline(roof, 1e12, 1e9, 4e-3, "counters", counted(2e10));
  ASSERT_TRUE(p.l2_arithmetic_intensity_flop_per_byte);  // the bytes are counted
  EXPECT_DOUBLE_EQ(*p.l2_arithmetic_intensity_flop_per_byte, 50.0);
  EXPECT_FALSE(p.l2_ridge_flop_per_byte);
  EXPECT_FALSE(p.l2_attainable_flop_per_s);
  EXPECT_EQ(p.l2_null_reason, "no L2 roof: datasheet: datasheets give no L2 bandwidth");
  EXPECT_EQ(p.binding_level, RoofLevel::kCompute);
}

TEST(HierarchicalRoofline, InvalidL2InputsAreBadInput) {
  for (const double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(place_on_roofline(hierarchical_roof(), 1e12, 1e9, 1e-3, "counters", counted(bad)),
                 Error)
        << bad;
    Roof roof = hierarchical_roof();
    roof.l2_bytes_per_s = bad;
    EXPECT_THROW(place_on_roofline(roof, 1e12, 1e9, 1e-3, "counters", counted(1e9)), Error) << bad;
  }
}

TEST(HierarchicalRoofline, RoofLevelNamesRoundTrip) {
  for (const RoofLevel level : {RoofLevel::kDram, RoofLevel::kL2, RoofLevel::kCompute}) {
    EXPECT_EQ(parse_roof_level(to_string(level)), level);
  }
  EXPECT_EQ(to_string(RoofLevel::kL2), "l2");
  EXPECT_THROW(parse_roof_level("L2"), Error);
}

TEST(HierarchicalRooflineGuard, AboveTheL2RoofOnlyIsFlaggedAndNamed) {
  // 500 TFLOP/s: under the 989.5 compute roof, above the 450 the L2 slope allows at I_l2 = 50.
  const RooflinePoint p =
      place_on_roofline(hierarchical_roof(), 1e12, 1e9, 2e-3, "counters", counted(2e10));
  ASSERT_TRUE(p.above_roof);
  const auto error = above_roof_error(p);
  ASSERT_TRUE(error);
  EXPECT_TRUE(contains(*error, "above the measured L2 roof")) << *error;
  EXPECT_TRUE(contains(*error, "1.111x")) << *error;
  EXPECT_TRUE(contains(*error, "rooflinectl peaks")) << *error;  // a measured ceiling
  const RooflinePoint theoretical = place_on_roofline(hierarchical_roof(RoofSource::kCounters),
                                                      1e12, 1e9, 2e-3, "counters", counted(2e10));
  const auto bug = above_roof_error(theoretical);
  ASSERT_TRUE(bug);
  EXPECT_TRUE(contains(*bug, "above the counters L2 roof")) << *bug;
  EXPECT_TRUE(contains(*bug, "theoretical")) << *bug;
  // Without the L2 bytes the same timing is under the DRAM-level roof: not flagged.
  EXPECT_FALSE(place_on_roofline(hierarchical_roof(), 1e12, 1e9, 2e-3, "counters").above_roof);
}

// --- where the L2 ceiling comes from ---

PeakBenchmarkRecord l2_bench(double rate) {
  PeakBenchmarkRecord b;
  b.name = "l2_read";
  b.label = "L2 read";
  b.kind = CeilingKind::kL2;
  b.rate = rate;
  b.repetitions = 15;
  return b;
}

PeakSet datasheet_set() {
  PeakSet set;
  set.source = RoofSource::kDatasheet;
  set.dram = Ceiling{4.8e12, "datasheet: HBM"};
  set.tensor_bf16 = Ceiling{989.5e12, "datasheet: bf16"};
  set.l2 = Ceiling{std::nullopt, "datasheets give no L2 bandwidth"};
  return set;
}

PeakSet measured_set(std::optional<double> l2) {
  PeakBenchmarkRecord dram;
  dram.name = "dram_copy";
  dram.label = "DRAM copy";
  dram.kind = CeilingKind::kDram;
  dram.rate = 4.4e12;
  dram.repetitions = 15;
  PeakBenchmarkRecord tensor = dram;
  tensor.name = "tensor_bf16_wgmma";
  tensor.label = "bf16 wgmma";
  tensor.kind = CeilingKind::kTensorBf16;
  tensor.rate = 900e12;
  std::vector<PeakBenchmarkRecord> benchmarks = {dram, tensor};
  if (l2) benchmarks.push_back(l2_bench(*l2));
  return measured_peak_set(benchmarks, "test run");
}

// Counters of one point: a counter-derived roof, and the L2 peak and clock unless told not to.
CounterResult point_counters(bool with_l2) {
  CounterResult c = h200_point_counters();
  if (with_l2) {
    c.peaks.l2_bytes_per_cycle = 5120.0;
    c.total.l2_clock_hz = 1.755e9;
  }
  return c;
}

PeaksBlock block_with(PeakSet measured) {
  PeaksBlock block;
  block.datasheet = datasheet_set();
  block.measured = std::move(measured);
  block.counters = unavailable_peak_set(RoofSource::kCounters, "no point has been measured yet");
  return block;
}

std::optional<Roof> roof_of(RoofSource source, const PeaksBlock& block, const CounterResult& c) {
  std::string reason;
  auto roof = select_point_roof(source, Pipe::kTensor, Dtype::kBf16, block, c, 9, 0, reason);
  EXPECT_TRUE(roof) << reason;
  return roof;
}

TEST(L2RoofSelection, MeasuredRoofTakesTheMeasuredL2Ceiling) {
  const auto roof =
      roof_of(RoofSource::kMeasured, block_with(measured_set(8.97e12)), point_counters(true));
  ASSERT_TRUE(roof && roof->l2_bytes_per_s);
  EXPECT_DOUBLE_EQ(*roof->l2_bytes_per_s, 8.97e12);
  EXPECT_EQ(roof->l2_source_kind, RoofSource::kMeasured);
  EXPECT_EQ(roof->l2_source.rfind("measured: L2 8.97 TB/s [measured: L2 read", 0), 0u)
      << roof->l2_source;
  EXPECT_FALSE(contains(roof->l2_source, "none from")) << roof->l2_source;
}

TEST(L2RoofSelection, CounterRoofTakesThePointsOwnL2PeakAndClock) {
  const auto roof =
      roof_of(RoofSource::kCounters, block_with(measured_set(8.97e12)), point_counters(true));
  ASSERT_TRUE(roof && roof->l2_bytes_per_s);
  EXPECT_DOUBLE_EQ(*roof->l2_bytes_per_s, 5120.0 * 1.755e9);
  EXPECT_EQ(roof->l2_source_kind, RoofSource::kCounters);
  EXPECT_EQ(roof->l2_source, "counters: L2 5120 B/cycle x L2 1.755 GHz");
}

TEST(L2RoofSelection, DatasheetRoofFallsBackToCountersThenToMeasured) {
  const auto from_counters =
      roof_of(RoofSource::kDatasheet, block_with(measured_set(8.97e12)), point_counters(true));
  ASSERT_TRUE(from_counters && from_counters->l2_bytes_per_s);
  EXPECT_EQ(from_counters->source_kind, RoofSource::kDatasheet);  // the rest of the roof
  EXPECT_EQ(from_counters->l2_source_kind, RoofSource::kCounters);
  EXPECT_EQ(from_counters->l2_source,
            "counters: L2 5120 B/cycle x L2 1.755 GHz (none from datasheet: datasheets give no L2 "
            "bandwidth)");

  const auto from_measured =
      roof_of(RoofSource::kDatasheet, block_with(measured_set(8.97e12)), point_counters(false));
  ASSERT_TRUE(from_measured && from_measured->l2_bytes_per_s);
  EXPECT_DOUBLE_EQ(*from_measured->l2_bytes_per_s, 8.97e12);
  EXPECT_EQ(from_measured->l2_source_kind, RoofSource::kMeasured);
  EXPECT_TRUE(contains(from_measured->l2_source,
                       "(none from datasheet: datasheets give no L2 bandwidth; counters: counter "
                       "peak_sustained not collected)"))
      << from_measured->l2_source;
}

TEST(L2RoofSelection, MeasuredRoofWithoutAnL2BenchmarkFallsBackToCounters) {
  const auto roof =
      roof_of(RoofSource::kMeasured, block_with(measured_set(std::nullopt)), point_counters(true));
  ASSERT_TRUE(roof && roof->l2_bytes_per_s);
  EXPECT_EQ(roof->l2_source_kind, RoofSource::kCounters);
  EXPECT_TRUE(contains(roof->l2_source, "none from measured: no L2 benchmark succeeded"))
      << roof->l2_source;
}

TEST(L2RoofSelection, NoSourceGivesNullWithEachReason) {
  const PeaksBlock block =
      block_with(unavailable_peak_set(RoofSource::kMeasured, "no cache entry for GPU-x"));
  const auto roof = roof_of(RoofSource::kDatasheet, block, point_counters(false));
  ASSERT_TRUE(roof);
  EXPECT_FALSE(roof->l2_bytes_per_s);
  EXPECT_FALSE(roof->l2_source_kind);
  EXPECT_EQ(roof->l2_source,
            "datasheet: datasheets give no L2 bandwidth; counters: counter peak_sustained not "
            "collected; measured: no cache entry for GPU-x");
  // Without counters (--no-counters) the counters' reason is theirs, and a cached measured L2
  // ceiling still gives the roof one.
  CounterResult off;
  off.null_reason = "counters disabled (--no-counters)";
  const auto no_counters = roof_of(RoofSource::kDatasheet, block, off);
  ASSERT_TRUE(no_counters);
  EXPECT_TRUE(contains(no_counters->l2_source, "counters: counters disabled (--no-counters)"))
      << no_counters->l2_source;
  const auto cached = roof_of(RoofSource::kDatasheet, block_with(measured_set(8.97e12)), off);
  ASSERT_TRUE(cached && cached->l2_bytes_per_s);
  EXPECT_EQ(cached->l2_source_kind, RoofSource::kMeasured);
}

// --- which L2 bytes a placement uses ---

TEST(PlacementL2Bytes, CountedOnlyNeverModelled) {
  PointResult p;
  p.counters.total.l2_bytes = 3e9;
  const L2Bytes counted_bytes = placement_l2_bytes(p, "counters");
  ASSERT_TRUE(counted_bytes.bytes);
  EXPECT_DOUBLE_EQ(*counted_bytes.bytes, 3e9);
  const L2Bytes analytic = placement_l2_bytes(p, "analytic");
  EXPECT_FALSE(analytic.bytes);
  EXPECT_TRUE(contains(analytic.null_reason, "analytic")) << analytic.null_reason;
  p.counters.total.l2_bytes = 0.0;
  EXPECT_TRUE(contains(placement_l2_bytes(p, "counters").null_reason, "zero"));
  p.counters.total.l2_bytes.reset();
  const L2Bytes missing = placement_l2_bytes(p, "counters");
  EXPECT_FALSE(missing.bytes);
  EXPECT_TRUE(contains(missing.null_reason, "not measured")) << missing.null_reason;
}

// A gemm point with every counter a counted placement needs, and 5e9 L2 bytes.
PointResult counted_gemm() {
  PointResult p;
  p.op = "gemm";
  p.counters.total.dram_read_bytes = 6e8;
  p.counters.total.dram_write_bytes = 2e8;
  p.counters.total.tensor_bf16_flop = 3e11;
  for (auto* zero :
       {&p.counters.total.tensor_fp16_flop, &p.counters.total.ffma_inst,
        &p.counters.total.fadd_inst, &p.counters.total.fmul_inst, &p.counters.total.hfma_inst,
        &p.counters.total.hadd_inst, &p.counters.total.hmul_inst}) {
    *zero = 0.0;
  }
  p.counters.total.l2_bytes = 5e9;
  return p;
}

TEST(PlacementL2Bytes, PlacementInputsCarryTheCountedL2Bytes) {
  const PointResult p = counted_gemm();
  const PlacementInputs in = placement_inputs(p);
  ASSERT_TRUE(in.flop) << in.null_reason;
  ASSERT_TRUE(in.l2.bytes) << in.l2.null_reason;
  EXPECT_DOUBLE_EQ(*in.l2.bytes, 5e9);
  PointResult no_counters = p;
  no_counters.op = "gelu";
  no_counters.counters.null_reason = "counters disabled (--no-counters)";
  no_counters.analytic.flop = 1e9;
  no_counters.analytic.min_dram_bytes = 1e8;
  const PlacementInputs analytic = placement_inputs(no_counters);
  ASSERT_TRUE(analytic.flop) << analytic.null_reason;
  EXPECT_FALSE(analytic.l2.bytes);  // the counted 5e9 is not used for an analytic placement
}

TEST(PlacementL2Bytes, StoredL2BytesMustBeTheCountedOnes) {
  PointResult p = counted_gemm();
  const PlacementInputs in = placement_inputs(p);
  ASSERT_TRUE(in.flop) << in.null_reason;
  p.roofline =
      place_on_roofline(hierarchical_roof(), *in.flop, *in.dram_bytes, 1e-3, in.basis, in.l2);
  p.roofline->bytes_basis = in.bytes_basis;
  Report report;
  report.points = {p};
  EXPECT_NO_THROW(check_report_consistency(report, "r.json"));
  report.points[0].counters.total.l2_bytes = 6e9;  // edited after the placement
  try {
    check_report_consistency(report, "r.json");
    ADD_FAILURE() << "edited L2 bytes were accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "roofline.l2_bytes 5000000000 differs")) << e.what();
  }
  // A placement without L2 bytes (written before the L2 roofline) is consistent as it is.
  report.points[0].roofline->l2_bytes.reset();
  EXPECT_NO_THROW(check_report_consistency(report, "r.json"));
}

}  // namespace
}  // namespace rooflinectl
