// Console table: columns, units, "-" for missing values, reasons, alignment, footnotes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "render/table_writer.hpp"
#include "result/report.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {
namespace {

PointResult ok_point(const std::string& op, int64_t seq_len, double time_s, double flop,
                     double dram_bytes, const std::string& basis) {
  PointResult p;
  p.op = op;
  p.shape.seq_len = seq_len;
  p.status = PointStatus::kOk;
  Validation v;
  v.passed = true;
  p.validation = v;
  TimingResult t;
  t.samples_s = {time_s};
  t.median_s = t.min_s = t.max_s = time_s;
  p.timing = t;
  Roof roof;
  roof.pipe = Pipe::kTensor;
  roof.peak_flop_per_s = 989e12;
  roof.peak_bytes_per_s = 4.8e12;
  roof.source = "datasheet";
  p.roofline = place_on_roofline(roof, flop, dram_bytes, time_s, basis);
  return p;
}

PointResult skipped_point(const std::string& op, int64_t seq_len, const std::string& reason) {
  PointResult p;
  p.op = op;
  p.shape.seq_len = seq_len;
  p.status = PointStatus::kSkipped;
  p.reason = reason;
  p.roofline_null_reason = "point skipped";
  return p;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t code_points(const std::string& text) {
  size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(TableWriter, HeaderHasEveryColumnInOrder) {
  const std::string header = lines_of(format_console_table(Report{})).at(0);
  size_t at = 0;
  for (const char* title : {"operator", "version", "L", "time", "TFLOP/s", "TB/s", "FLOP/B",
                            "L2 FLOP/B", "bound", "binding", "% of roof", "validation", "status"}) {
    const size_t found = header.find(title, at);
    ASSERT_NE(found, std::string::npos) << title << " in '" << header << "'";
    at = found + 1;
  }
}

TEST(TableWriter, RowNamesTheKernelVersion) {
  Report r;
  PointResult p = ok_point("gemm", 4096, 4e-3, 2e12, 1e10, "counters");
  p.version = "gemm_v2_wgmma_tma";
  r.points = {p, skipped_point("gelu", 512, "short")};
  const std::vector<std::string> lines = lines_of(format_console_table(r));
  ASSERT_EQ(lines.size(), 5u);  // header, rule, two rows, the TFLOP/s basis
  EXPECT_EQ(lines[0].find("version"), lines[2].find("gemm_v2_wgmma_tma")) << lines[2];
  EXPECT_EQ(lines[0].find("version"), lines[3].find("-")) << lines[3];  // skipped: no kernel ran
}

// The report of one `sweep --shard i/n` says it holds that shard's points only.
TEST(TableWriter, ShardReportSaysItIsPartial) {
  Report r;
  r.points = {ok_point("gemm", 4096, 4e-3, 2e12, 1e10, "counters")};
  EXPECT_FALSE(contains(format_console_table(r), "shard"));
  ShardSpec shard;
  shard.index = 2;
  shard.count = 3;
  r.config.shard = shard;
  EXPECT_TRUE(contains(format_console_table(r),
                       "shard 2/3 of the sweep: its points only (`rooflinectl merge` joins the 3 "
                       "shard reports into the whole sweep)"))
      << format_console_table(r);
}

TEST(TableWriter, PagedDecodeRowNamesItsLayout) {
  Report r;
  PointResult paged = ok_point("decode_attention", 4096, 1e-4, 1e9, 1e9, "counters");
  paged.shape.kv_layout = KvLayout::kPaged;
  paged.shape.page_size = 16;
  r.points = {paged, ok_point("decode_attention", 8192, 2e-4, 2e9, 2e9, "counters")};
  const std::vector<std::string> lines = lines_of(format_console_table(r));
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[2].rfind("decode_attention paged/16 ", 0), 0u) << lines[2];
  EXPECT_FALSE(contains(lines[3], "paged")) << lines[3];  // contiguous: the operator alone
}

TEST(TableWriter, Fp8DecodeRowNamesItsKvDtype) {
  Report r;
  PointResult fp8 = ok_point("decode_attention", 4096, 1e-4, 1e9, 1e9, "counters");
  fp8.shape.kv_dtype = KvDtype::kFp8E4m3;
  r.points = {fp8, ok_point("decode_attention", 8192, 2e-4, 2e9, 2e9, "counters")};
  std::vector<std::string> lines = lines_of(format_console_table(r));
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[2].rfind("decode_attention kv=fp8_e4m3 ", 0), 0u) << lines[2];
  EXPECT_FALSE(contains(lines[3], "kv=")) << lines[3];  // auto: the operator alone
  // Swept as an axis, the swept label names it once, both caches alike.
  r.config.axes.kv_dtype = {KvDtype::kAuto, KvDtype::kFp8E4m3};
  lines = lines_of(format_console_table(r));
  EXPECT_EQ(lines[2].rfind("decode_attention kv=fp8_e4m3 ", 0), 0u) << lines[2];
  EXPECT_EQ(lines[2].find("kv=", lines[2].find("kv=") + 1), std::string::npos) << lines[2];
  EXPECT_EQ(lines[3].rfind("decode_attention kv=bf16 ", 0), 0u) << lines[3];
}

TEST(TableWriter, FooterNamesTheRoofValuesNotTheCacheFile) {
  Report r;
  r.config.base.dtype = Dtype::kBf16;
  r.points = {ok_point("gemm", 4096, 4e-3, 2e12, 1e10, "counters")};
  PeaksBlock peaks;
  peaks.used = RoofSource::kMeasured;
  peaks.measured_cache = "/root/.cache/rooflinectl/peaks-GPU-x.json";
  r.peaks = peaks;
  const std::string table = format_console_table(r);
  EXPECT_TRUE(contains(table, "roofs: measured — HBM 4.80 TB/s, bf16 tensor 989 TFLOP/s\n"))
      << table;
  EXPECT_FALSE(contains(table, "/root/.cache")) << table;
}

TEST(TableWriter, L2ColumnsFootnoteAndRoofValue) {
  Report r;
  r.config.base.dtype = Dtype::kBf16;
  PointResult l2 = ok_point("flash_attention", 4096, 4e-3, 1e12, 1e9, "counters");
  Roof roof = l2.roofline->roof;
  roof.l2_bytes_per_s = 8.97e12;
  roof.l2_source = "measured: L2 8.97 TB/s [test]";
  roof.l2_source_kind = RoofSource::kMeasured;
  // I = 1000 (compute side of the DRAM ridge), I_l2 = 50: the L2 slope (449 TFLOP/s) binds.
  l2.roofline = place_on_roofline(roof, 1e12, 1e9, 4e-3, "counters", L2Bytes{2e10, ""});
  r.points = {l2, ok_point("gemm", 4096, 4e-3, 2e12, 1e10, "counters")};
  PeaksBlock peaks;
  peaks.used = RoofSource::kMeasured;
  r.peaks = peaks;
  const std::string table = format_console_table(r);
  const std::vector<std::string> lines = lines_of(table);
  ASSERT_GE(lines.size(), 4u);
  const size_t l2_column = lines[0].find("L2 FLOP/B") + std::string("L2 FLOP/B").size();
  const size_t binding = lines[0].find("binding");
  ASSERT_NE(binding, std::string::npos) << lines[0];
  // Right-aligned under its header, then the binding level under its own.
  EXPECT_EQ(lines[2].substr(l2_column - 4, 4), "50.0") << lines[2];
  EXPECT_EQ(lines[2].substr(binding, 7), "l2     ") << lines[2];
  EXPECT_EQ(lines[2].find("55.7%") + 5, lines[0].find("% of roof") + 9) << lines[2];  // 250/449
  // The gemm point has no L2 bytes: no L2 intensity, judged on DRAM and compute.
  EXPECT_EQ(lines[3].substr(l2_column - 1, 1), "-") << lines[3];
  EXPECT_EQ(lines[3].substr(binding, 6), "dram  ") << lines[3];
  EXPECT_TRUE(contains(table, "\nL2 FLOP/B: FLOPs per L2 byte")) << table;
  EXPECT_TRUE(contains(table, "roofs: measured — HBM 4.80 TB/s, L2 8.97 TB/s (measured), bf16"))
      << table;
}

// Counter roofs differ point by point (each point's own L2 clock): the footer's L2 value is their
// median and says so, with the range, so that a reader does not look for it in every point (a
// trial looked for the footer's 15.4 TB/s in points of 15.23-15.43).
TEST(TableWriter, L2RoofsThatDifferShowTheirMedianAndRange) {
  Report r;
  r.config.base.dtype = Dtype::kBf16;
  for (const double l2_bytes_per_s : {15.23e12, 15.43e12, 15.40e12}) {
    PointResult p = ok_point("flash_attention", 4096, 4e-3, 1e12, 1e9, "counters");
    Roof roof = p.roofline->roof;
    roof.l2_bytes_per_s = l2_bytes_per_s;
    roof.l2_source = "counters: L2 [test]";
    roof.l2_source_kind = RoofSource::kCounters;
    p.roofline = place_on_roofline(roof, 1e12, 1e9, 4e-3, "counters", L2Bytes{2e10, ""});
    r.points.push_back(p);
  }
  PeaksBlock peaks;
  peaks.used = RoofSource::kDatasheet;
  r.peaks = peaks;
  const std::string table = format_console_table(r);
  EXPECT_TRUE(contains(table,
                       "L2 15.4 TB/s (counters; the median of the points' 15.2 TB/s–15.4 TB/s, "
                       "each point under its own)"))
      << table;
}

TEST(TableWriter, OkRowShowsMeasuredValuesWithUnits) {
  Report r;
  // 2e12 FLOP over 1e10 bytes in 4 ms: 500 TFLOP/s, 2.5 TB/s, 200 FLOP/B (just under the ridge).
  r.points = {ok_point("gemm", 4096, 4e-3, 2e12, 1e10, "counters")};
  const std::vector<std::string> lines = lines_of(format_console_table(r));
  // Header, rule, one row, and one footnote: the basis of the TFLOP/s column (counted FLOPs).
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[3].rfind("TFLOP/s: counted FLOPs over the median time", 0), 0u) << lines[3];
  const std::string& row = lines[2];
  EXPECT_TRUE(contains(row, "gemm")) << row;
  EXPECT_TRUE(contains(row, "4096")) << row;
  EXPECT_TRUE(contains(row, "4.00 ms")) << row;
  EXPECT_TRUE(contains(row, "500")) << row;
  EXPECT_TRUE(contains(row, "2.50")) << row;
  EXPECT_TRUE(contains(row, "200")) << row;
  EXPECT_TRUE(contains(row, "memory")) << row;
  EXPECT_TRUE(contains(row, "pass")) << row;
  EXPECT_EQ(row.substr(row.size() - 2), "ok") << row;
}

TEST(TableWriter, TimeUnitFollowsMagnitude) {
  Report r;
  r.points = {ok_point("gelu", 512, 41.25e-6, 1e6, 1e6, "counters"),
              ok_point("gelu", 1024, 1.5e-3, 1e6, 1e6, "counters"),
              ok_point("gelu", 2048, 2.0, 1e6, 1e6, "counters")};
  const std::string table = format_console_table(r);
  EXPECT_TRUE(contains(table, "41.2 µs") || contains(table, "41.3 µs")) << table;
  EXPECT_TRUE(contains(table, "1.50 ms")) << table;
  EXPECT_TRUE(contains(table, "2.000 s")) << table;
}

TEST(TableWriter, MissingValuesPrintAsDashAndReasonsAreShortened) {
  Report r;
  const std::string long_reason(200, 'x');
  r.points = {skipped_point("flash_attention", 32768, "needs 80 GiB, 60 GiB free"),
              skipped_point("naive_attention", 32768, long_reason)};
  PointResult failed = skipped_point("layernorm", 512, "validation failed:\nindex 3");
  failed.status = PointStatus::kFailed;
  Validation v;
  v.passed = false;
  failed.validation = v;
  r.points.push_back(failed);

  const std::vector<std::string> lines = lines_of(format_console_table(r));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_TRUE(contains(lines[2], "skipped: needs 80 GiB, 60 GiB free")) << lines[2];
  EXPECT_TRUE(contains(lines[2], " - ")) << lines[2];
  EXPECT_FALSE(contains(lines[3], long_reason));
  EXPECT_TRUE(contains(lines[3], "…")) << lines[3];
  const std::string status = lines[3].substr(lines[3].find("skipped: ") + 9);
  EXPECT_EQ(code_points(status), 60u) << status;
  EXPECT_TRUE(contains(lines[4], "FAIL")) << lines[4];
  EXPECT_TRUE(contains(lines[4], "failed: validation failed: index 3")) << lines[4];
}

TEST(TableWriter, ColumnsAreAligned) {
  Report r;
  r.points = {ok_point("decode_attention", 512, 3.2e-6, 1e6, 1e6, "counters"),
              ok_point("gemm", 32768, 123.0e-3, 2e12, 1e10, "counters"),
              skipped_point("gelu", 8192, "short")};
  const std::vector<std::string> lines = lines_of(format_console_table(r));
  ASSERT_EQ(lines.size(), 6u);  // header, rule, three rows, the TFLOP/s basis
  // Everything before the status column has the same display width on every line.
  const std::vector<std::string> statuses = {"status", std::string(14, '-'), "ok", "ok",
                                             "skipped: short"};
  const size_t prefix = code_points(lines[0]) - statuses[0].size();
  for (size_t i = 1; i < statuses.size(); ++i) {
    ASSERT_GE(code_points(lines[i]), statuses[i].size());
    EXPECT_EQ(code_points(lines[i]) - statuses[i].size(), prefix) << lines[i];
    EXPECT_EQ(lines[i].substr(lines[i].size() - statuses[i].size()), statuses[i]) << lines[i];
  }
  // The right-aligned L column ends at the same place on every row.
  const size_t l_end = lines[0].find(" L ") + 2;
  EXPECT_EQ(lines[2].substr(l_end - 3, 3), "512");
  EXPECT_EQ(lines[3].substr(l_end - 5, 5), "32768");
  EXPECT_EQ(lines[4].substr(l_end - 4, 4), "8192");
}

TEST(TableWriter, FootnotesMarkAnalyticBasisAndAboveRoof) {
  Report r;
  PointResult above = ok_point("gemm", 512, 1e-3, 2e12, 1e10, "analytic");
  above.roofline->fraction_of_roof = 1.25;
  above.roofline->above_roof = true;
  r.points = {above};
  const std::vector<std::string> lines = lines_of(format_console_table(r));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_TRUE(contains(lines[2], "200*")) << lines[2];
  EXPECT_TRUE(contains(lines[2], "125.0%!")) << lines[2];
  EXPECT_EQ(lines[3].rfind("* ", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4].rfind("! ", 0), 0u) << lines[4];
}

TEST(TableWriter, NonFiniteValuesPrintAsDash) {
  Report r;
  PointResult p = ok_point("gemm", 512, 1e-3, 2e12, 1e10, "counters");
  p.timing->median_s = std::numeric_limits<double>::quiet_NaN();
  p.roofline->achieved_flop_per_s = std::numeric_limits<double>::infinity();
  p.roofline->fraction_of_roof = std::numeric_limits<double>::quiet_NaN();
  r.points = {p};
  const std::string row = lines_of(format_console_table(r)).at(2);
  EXPECT_FALSE(contains(row, "nan")) << row;
  EXPECT_FALSE(contains(row, "inf")) << row;
}

}  // namespace
}  // namespace rooflinectl
