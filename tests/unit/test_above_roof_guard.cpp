// The above-roof guard: a point above its roof is an error flag in the JSON and the
// table, worded by the roof's source, never a silent "> 100%".
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "render/table_writer.hpp"
#include "roofline/above_roof_guard.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {
namespace {

Roof h200_roof(RoofSource kind) {
  Roof roof;
  roof.pipe = Pipe::kTensor;
  roof.peak_flop_per_s = 989.5e12;
  roof.peak_bytes_per_s = 4.8e12;
  roof.source_kind = kind;
  roof.source = to_string(kind) + ": test";
  return roof;
}

PointResult point_with(const RooflinePoint& r) {
  PointResult p;
  p.op = "gemm";
  p.version = "gemm_v1";
  p.shape.seq_len = 4096;
  p.timing = TimingResult{};
  p.timing->samples_s = {r.time_s};
  p.timing->median_s = p.timing->min_s = p.timing->max_s = r.time_s;
  p.validation = Validation{};
  p.validation->passed = true;
  p.roofline = r;
  return p;
}

TEST(AboveRoofGuard, BelowTheRoofIsNotFlagged) {
  // 1e12 FLOP, 1e9 bytes in 2 ms: 500 TFLOP/s at 1000 FLOP/B, under a 989.5 roof.
  const RooflinePoint p =
      place_on_roofline(h200_roof(RoofSource::kDatasheet), 1e12, 1e9, 2e-3, "counters");
  EXPECT_FALSE(p.above_roof);
  EXPECT_FALSE(above_roof_error(p));
}

TEST(AboveRoofGuard, AboveATheoreticalRoofIsABug) {
  // 1e12 FLOP in 0.5 ms = 2000 TFLOP/s: twice the datasheet peak.
  const RooflinePoint p =
      place_on_roofline(h200_roof(RoofSource::kDatasheet), 1e12, 1e9, 0.5e-3, "counters");
  ASSERT_TRUE(p.above_roof);
  const auto error = above_roof_error(p);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("datasheet roof"), std::string::npos) << *error;
  EXPECT_NE(error->find("bug"), std::string::npos) << *error;
  EXPECT_NE(error->find("2.021x"), std::string::npos) << *error;
}

TEST(AboveRoofGuard, AboveAMeasuredRoofMayBeTheBenchmark) {
  // Memory-bound: 1e9 FLOP over 1e9 bytes in 0.2 ms = 5 TB/s, above 4.8 TB/s.
  const RooflinePoint p =
      place_on_roofline(h200_roof(RoofSource::kMeasured), 1e9, 1e9, 0.2e-3, "counters");
  ASSERT_TRUE(p.above_roof);
  const auto error = above_roof_error(p);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("measured roof"), std::string::npos) << *error;
  EXPECT_NE(error->find("rooflinectl peaks"), std::string::npos) << *error;
}

TEST(AboveRoofGuard, JsonCarriesTheFlagTheMessageAndTheSourceKind) {
  Report report;
  report.tool_version = "0.1.0";
  report.points = {point_with(
      place_on_roofline(h200_roof(RoofSource::kMeasured), 1e12, 1e9, 0.5e-3, "counters"))};
  const std::string text = report_to_json_text(report);
  const auto json = nlohmann::json::parse(text);
  const auto& roofline = json["points"][0]["roofline"];
  EXPECT_TRUE(roofline["above_roof"].get<bool>());
  ASSERT_TRUE(roofline["above_roof_error"].is_string());
  EXPECT_EQ(roofline["roof"]["source_kind"], "measured");
  EXPECT_EQ(roofline["roof"]["source"], "measured: test");
  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(back.points[0].roofline->roof.source_kind, RoofSource::kMeasured);
  EXPECT_TRUE(back.points[0].roofline->above_roof);

  report.points = {point_with(
      place_on_roofline(h200_roof(RoofSource::kDatasheet), 1e12, 1e9, 2e-3, "counters"))};
  EXPECT_TRUE(nlohmann::json::parse(
                  report_to_json_text(report))["points"][0]["roofline"]["above_roof_error"]
                  .is_null());
}

TEST(AboveRoofGuard, TableShowsAnErrorNotJustAPercentage) {
  Report report;
  report.points = {point_with(
      place_on_roofline(h200_roof(RoofSource::kDatasheet), 1e12, 1e9, 0.5e-3, "counters"))};
  const std::string table = format_console_table(report);
  EXPECT_NE(table.find("202.1%!"), std::string::npos) << table;
  EXPECT_NE(table.find("ERROR: above roof"), std::string::npos) << table;
}

TEST(AboveRoofGuard, TableNamesTheRoofSource) {
  Report report;
  report.points = {
      point_with(place_on_roofline(h200_roof(RoofSource::kMeasured), 1e12, 1e9, 2e-3, "counters"))};
  PeaksBlock block;
  block.used = RoofSource::kMeasured;
  block.measured_cache = "/home/u/.cache/rooflinectl/peaks-x.json";
  report.peaks = block;
  const std::string table = format_console_table(report);
  // The roof values, not the cache file (a path on the machine that ran the sweep; JSON only).
  EXPECT_NE(table.find("roofs: measured — HBM "), std::string::npos) << table;
  EXPECT_EQ(table.find("/home/u/.cache"), std::string::npos) << table;
  EXPECT_EQ(table.find("ERROR"), std::string::npos) << table;
}

}  // namespace
}  // namespace rooflinectl
