// `report A.json B.json`: the same points on different GPUs side by side (render/cross_gpu_writer),
// on the committed H200 report and an edited copy standing in for another GPU.
#include <gtest/gtest.h>

#include <string>

#include "io/json_reader.hpp"
#include "render/cross_gpu_writer.hpp"

namespace rooflinectl {
namespace {

Report h200() {
  return load_report(std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-sweep.json");
}

TEST(CrossGpuReport, TimeRatiosAbsentPointsAndLabels) {
  const Report a = h200();
  Report b = h200();
  b.device.name = "NVIDIA H100 80GB HBM3";
  for (PointResult& p : b.points) {
    if (p.op == "gemm" && p.shape.seq_len == 512) p.timing->median_s *= 1.5;
  }
  b.points.pop_back();  // decode_attention L = 32768 not measured there
  const std::string table = format_cross_gpu_report({{"h200.json", &a}, {"h100.json", &b}}, false);
  EXPECT_NE(table.find("[1] h200.json: NVIDIA H200"), std::string::npos) << table;
  EXPECT_NE(table.find("[2] h100.json: NVIDIA H100 80GB HBM3"), std::string::npos) << table;
  EXPECT_NE(table.find("1.50×"), std::string::npos) << table;
  EXPECT_NE(table.find("1.00×"), std::string::npos) << table;
  EXPECT_NE(table.find("- (absent)"), std::string::npos) << table;
  const std::string md = format_cross_gpu_report({{"h200.json", &a}, {"h100.json", &b}}, true);
  EXPECT_NE(md.find("| operator / shape | [1] time |"), std::string::npos) << md;
  EXPECT_NE(md.find("| --- | ---: |"), std::string::npos) << md;
}

// The single-report table's marks carry over: a point above the DRAM slope by its deferred
// write-back ("~", explained) and one above its roof ("!", an error), each with its footnote;
// without either, neither footnote.
TEST(CrossGpuReport, RoofMarksAndTheirFootnotes) {
  const Report a = h200();
  const std::string plain = format_cross_gpu_report({{"a.json", &a}, {"b.json", &a}}, false);
  EXPECT_EQ(plain.find("~ above the DRAM slope"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("! above the roof"), std::string::npos) << plain;
  Report b = h200();
  b.points[0].roofline->write_back_after_window = true;
  b.points[1].roofline->above_roof = true;
  const std::string marked = format_cross_gpu_report({{"a.json", &a}, {"b.json", &b}}, false);
  EXPECT_NE(marked.find("%~"), std::string::npos) << marked;
  EXPECT_NE(marked.find("%!"), std::string::npos) << marked;
  EXPECT_NE(marked.find("~ above the DRAM slope at the whole-traffic intensity"), std::string::npos)
      << marked;
  EXPECT_NE(marked.find("! above the roof: achieved exceeds attainable"), std::string::npos)
      << marked;
}

TEST(CrossGpuReport, SameGpuTwiceIsToldApartByFile) {
  const Report a = h200();
  const std::vector<std::string> labels =
      cross_gpu_labels({{"monday.json", &a}, {"tuesday.json", &a}});
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_NE(labels[0], labels[1]);
  EXPECT_NE(labels[1].find("tuesday.json"), std::string::npos);
}

TEST(CrossGpuReport, MergedReportPointsNameTheirSourceGpu) {
  Report merged = h200();
  MergeSource first;
  first.device = merged.device;
  MergeSource second = first;
  second.device.name = "NVIDIA A100-SXM4-80GB";
  merged.sources = {first, second};
  for (size_t i = 0; i < merged.points.size(); ++i) merged.points[i].source = i % 2;
  EXPECT_EQ(point_device(merged, merged.points[1]).name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(point_device(merged, merged.points[0]).name, merged.device.name);
}

}  // namespace
}  // namespace rooflinectl
