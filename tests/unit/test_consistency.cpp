// The shared consistency check: a stored roofline placement against the raw data it must come
// from (placement_inputs.hpp), for both bases.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "result/consistency.hpp"
#include "result/placement_inputs.hpp"

namespace rooflinectl {
namespace {

PointResult placed_point(const std::string& basis) {
  PointResult p;
  p.op = "gemm";
  p.shape.seq_len = 1024;
  p.counters.total.dram_read_bytes = 6e8;
  p.counters.total.dram_write_bytes = 2e8;
  p.counters.total.tensor_bf16_flop = 3e11;
  p.counters.total.ffma_inst = 1e6;  // fp32 FLOPs: 2 x FFMA
  for (auto* zero : {&p.counters.total.tensor_fp16_flop, &p.counters.total.fadd_inst,
                     &p.counters.total.fmul_inst, &p.counters.total.hfma_inst,
                     &p.counters.total.hadd_inst, &p.counters.total.hmul_inst}) {
    *zero = 0.0;
  }
  p.analytic.flop = 2.9e11;
  p.analytic.implemented_dram_bytes = 7e8;
  Roof roof;
  roof.peak_flop_per_s = 1e15;
  roof.peak_bytes_per_s = 4e12;
  std::string why;
  const auto inputs = expected_placement_inputs(p, basis, "", why);
  EXPECT_TRUE(inputs) << why;
  p.roofline = place_on_roofline(roof, inputs->flop, inputs->dram_bytes, 1e-3, basis);
  return p;
}

Report report_of(const PointResult& p) {
  Report r;
  r.points = {p};
  return r;
}

TEST(PlacementInputs, CountersAndAnalyticBases) {
  std::string why;
  const PointResult p = placed_point("counters");
  const auto counted = expected_placement_inputs(p, "counters", "", why);
  ASSERT_TRUE(counted);
  EXPECT_DOUBLE_EQ(counted->flop, 3e11 + 2e6);
  EXPECT_DOUBLE_EQ(counted->dram_bytes, 8e8);
  const auto analytic = expected_placement_inputs(p, "analytic", "", why);
  ASSERT_TRUE(analytic);
  EXPECT_DOUBLE_EQ(analytic->dram_bytes, 7e8);
  EXPECT_FALSE(expected_placement_inputs(p, "guessed", "", why));
  EXPECT_NE(why.find("'guessed'"), std::string::npos);
  PointResult no_counters = p;
  no_counters.counters.total.dram_write_bytes.reset();
  EXPECT_FALSE(expected_placement_inputs(no_counters, "counters", "", why));
}

TEST(Consistency, ConsistentPlacementsPass) {
  EXPECT_NO_THROW(check_report_consistency(report_of(placed_point("counters")), "r.json"));
  EXPECT_NO_THROW(check_report_consistency(report_of(placed_point("analytic")), "r.json"));
  PointResult unplaced = placed_point("counters");
  unplaced.roofline.reset();
  unplaced.counters.total.dram_read_bytes.reset();
  EXPECT_NO_THROW(check_report_consistency(report_of(unplaced), "r.json"));
}

TEST(Consistency, EditedBytesOrFlopsOrMissingRawDataAreBadInput) {
  auto message = [](const PointResult& p) {
    try {
      check_report_consistency(report_of(p), "r.json");
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
      return std::string(e.what());
    }
    return std::string();
  };
  PointResult bytes = placed_point("counters");
  *bytes.counters.total.dram_write_bytes *= 1.1;  // counters edited, placement not
  EXPECT_NE(message(bytes).find("points[0] (gemm at L = 1024): roofline.dram_bytes"),
            std::string::npos)
      << message(bytes);
  PointResult flop = placed_point("analytic");
  flop.analytic.flop *= 2;
  EXPECT_NE(message(flop).find("roofline.flop"), std::string::npos) << message(flop);
  PointResult missing = placed_point("counters");
  missing.counters.total.tensor_bf16_flop.reset();  // neither tensor pipe counted
  missing.counters.total.tensor_fp16_flop.reset();
  EXPECT_NE(message(missing).find("counted FLOPs or DRAM bytes missing"), std::string::npos)
      << message(missing);
  // Rounding is not an edit.
  PointResult rounded = placed_point("counters");
  rounded.roofline->dram_bytes *= 1 + 1e-12;
  EXPECT_EQ(message(rounded), "");
}

}  // namespace
}  // namespace rooflinectl
