// The per-point seed metrics added to schema 1 (peak device memory, SM and DRAM % of peak): they
// round-trip through the JSON report, and reports written before them still read.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "io/json_reader.hpp"
#include "io/json_writer.hpp"

namespace rooflinectl {
namespace {

Report one_point_report() {
  Report r;
  r.tool_version = "0.1.0";
  r.device.name = "test GPU";
  r.config.ops = {"gelu"};
  r.config.seq_lens = {1024};
  PointResult p;
  p.op = "gelu";
  p.version = "gelu_v1";
  p.shape.seq_len = 1024;
  p.validation = Validation{};
  p.validation->passed = true;  // an ok point loads only with a passed validation and timing
  p.timing = TimingResult{};
  p.timing->samples_s = {1e-3};
  p.timing->median_s = p.timing->min_s = p.timing->max_s = 1e-3;
  p.peak_device_memory_bytes = 3.0 * 1024 * 1024 * 1024 / 7.0;  // not a round number
  p.counters.total.sm_throughput_fraction = 0.123456789;
  p.counters.total.dram_throughput_fraction = 1.0 / 3.0;
  r.points.push_back(p);
  return r;
}

TEST(SeedMetricsJson, RoundTripExactly) {
  const Report original = one_point_report();
  const std::string text = report_to_json_text(original);
  const Report back = report_from_json_text(text, "memory");
  const PointResult& p = back.points.at(0);
  EXPECT_EQ(p.peak_device_memory_bytes, original.points[0].peak_device_memory_bytes);
  EXPECT_EQ(p.counters.total.sm_throughput_fraction, 0.123456789);
  EXPECT_EQ(p.counters.total.dram_throughput_fraction, 1.0 / 3.0);
  EXPECT_TRUE(p.peak_device_memory_null_reason.empty());
  EXPECT_EQ(report_to_json_text(back), text);
  EXPECT_FALSE(
      nlohmann::json::parse(text)["points"][0].contains("peak_device_memory_bytes_null_reason"));
}

TEST(SeedMetricsJson, UnmeasuredMemoryIsNullWithItsReason) {
  Report r = one_point_report();
  r.points[0].peak_device_memory_bytes.reset();
  r.points[0].peak_device_memory_null_reason = "cudaMemGetInfo free bytes did not drop";
  const std::string text = report_to_json_text(r);
  const auto json = nlohmann::json::parse(text);
  EXPECT_TRUE(json["points"][0]["peak_device_memory_bytes"].is_null());
  EXPECT_EQ(json["points"][0]["peak_device_memory_bytes_null_reason"],
            "cudaMemGetInfo free bytes did not drop");
  const Report back = report_from_json_text(text, "memory");
  EXPECT_FALSE(back.points[0].peak_device_memory_bytes);
  EXPECT_EQ(back.points[0].peak_device_memory_null_reason,
            "cudaMemGetInfo free bytes did not drop");
}

TEST(SeedMetricsJson, ReportsWrittenBeforeTheFieldsStillRead) {
  auto json = nlohmann::json::parse(report_to_json_text(one_point_report()));
  auto& point = json["points"][0];
  point.erase("peak_device_memory_bytes");
  point["counters"]["total"].erase("sm_throughput_fraction");
  point["counters"]["total"].erase("dram_throughput_fraction");
  const Report back = report_from_json_text(json.dump(), "old report");
  const PointResult& p = back.points.at(0);
  EXPECT_FALSE(p.peak_device_memory_bytes);
  EXPECT_NE(p.peak_device_memory_null_reason.find("not in this report"), std::string::npos);
  EXPECT_FALSE(p.counters.total.sm_throughput_fraction);
  EXPECT_FALSE(p.counters.total.dram_throughput_fraction);
}

}  // namespace
}  // namespace rooflinectl
