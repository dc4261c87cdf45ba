// Markdown, CSV and console-table writers against golden files made from a fixed report
// (tests/unit/data/). report_fixed.json is a subset of the committed H200 sweep with fixture values
// added for the fields that sweep lacks (peak memory, SM/DRAM %, and the L2 roofline: the measured
// H200 L2 ceiling over each point's counted L2 bytes, on every placed point but gelu L = 4096,
// which stays as written before the L2 roofline existed), one point without counters and one
// skipped point. To accept an intended change: RFL_UPDATE_GOLDEN=1
// build/release/tests/rfl_unit_tests --gtest_filter='*Golden*', then review the diff of
// tests/unit/data/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/json_input.hpp"
#include "io/json_reader.hpp"
#include "render/compare_common.hpp"
#include "render/csv_writer.hpp"
#include "render/markdown_writer.hpp"
#include "render/table_writer.hpp"
#include "result/placement_inputs.hpp"

namespace rooflinectl {
namespace {

const std::string kDataDir = std::string(RFL_SOURCE_DIR) + "/tests/unit/data/";

void expect_matches_golden(const std::string& actual, const std::string& golden_name) {
  const std::string path = kDataDir + golden_name;
  if (std::getenv("RFL_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "golden file rewritten: " << path;
  }
  const std::string expected = read_text_file(path, "golden file");
  EXPECT_EQ(actual, expected) << "output differs from " << path;
}

// Splits one CSV line into fields (RFC 4180: quoted fields may hold commas and doubled quotes).
std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == sep && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

TEST(MarkdownWriter, MatchesGoldenFile) {
  expect_matches_golden(format_markdown_report(load_report(kDataDir + "report_fixed.json")),
                        "report_fixed.md");
}

TEST(CsvWriter, MatchesGoldenFile) {
  expect_matches_golden(format_csv_report(load_report(kDataDir + "report_fixed.json")),
                        "report_fixed.csv");
}

TEST(TableWriter, MatchesGoldenFile) {
  expect_matches_golden(format_console_table(load_report(kDataDir + "report_fixed.json")),
                        "report_fixed.txt");
}

// The hierarchical columns: L2 intensity only where the point was placed under an L2 roof, the
// binding level beside the DRAM-ridge bound, and the L2 roof named in the notes.
TEST(MarkdownWriter, ShowsL2IntensityAndTheBindingLevel) {
  const std::string md = format_markdown_report(load_report(kDataDir + "report_fixed.json"));
  EXPECT_NE(md.find("| FLOP/B | L2 FLOP/B | bound | binding | % of roof |"), std::string::npos);
  // flash attention L = 16384: 7773 FLOP per DRAM byte (compute side of the DRAM ridge), 43.1
  // per L2 byte, so the L2 slope (43.1 × 8.97 TB/s = 386 TFLOP/s) binds, not the tensor roof.
  EXPECT_NE(
      md.find("| 16384 | 9.70 ms | 1.69 M | 229 | 0.029 | 7773 | 43.1 | compute | l2 | 59.3% |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("the L2 roof binds at every L"), std::string::npos) << md;
  EXPECT_NE(md.find("- L2 roof: measured."), std::string::npos) << md;
  // gelu L = 4096 has no L2 keys (written before the L2 roofline): no L2 intensity, DRAM binds.
  EXPECT_NE(md.find("| 5.02 | - | memory | dram |"), std::string::npos) << md;
}

// The SM % column is '-' wherever sm__throughput was not collected; when no point has it, the
// notes say why (an opt-in metric) instead of leaving a column of dashes unexplained.
TEST(MarkdownWriter, ExplainsAnSmColumnNoPointHas) {
  Report report = load_report(kDataDir + "report_fixed.json");
  const std::string note = "SM % of peak: not collected at any point (`sweep --sm-throughput`";
  ASSERT_TRUE(std::any_of(report.points.begin(), report.points.end(), [](const auto& p) {
    return p.counters.total.sm_throughput_fraction.has_value();
  }));
  EXPECT_EQ(format_markdown_report(report).find(note), std::string::npos);
  for (auto& p : report.points) p.counters.total.sm_throughput_fraction.reset();
  EXPECT_NE(format_markdown_report(report).find(note), std::string::npos);
}

TEST(MarkdownWriter, HasOneTablePerOperatorAndTheConclusion) {
  const std::string md = format_markdown_report(load_report(kDataDir + "report_fixed.json"));
  for (const char* heading :
       {"### `naive_attention` (`", "### `flash_attention` (`", "### `gelu` (`",
        "### `decode_attention` (`", "### Flash vs naive attention",
        "**Conclusion:** FlashAttention's gain is significant at every L compared, from L ="}) {
    EXPECT_NE(md.find(heading), std::string::npos) << heading;
  }
  EXPECT_NE(md.find("not compared: L = 32768: naive_attention skipped"), std::string::npos);
}

TEST(MarkdownWriter, PagedDecodeHeadingNamesTheLayout) {
  Report report = load_report(kDataDir + "report_fixed.json");
  for (PointResult& p : report.points) {
    if (p.op != "decode_attention") continue;
    p.shape.kv_layout = KvLayout::kPaged;
    p.shape.page_size = 128;
  }
  const std::string md = format_markdown_report(report);
  EXPECT_NE(md.find("### `decode_attention` paged/128 (`"), std::string::npos) << md;
  EXPECT_NE(md.find("### `gelu` (`"), std::string::npos);
}

TEST(MarkdownWriter, Fp8DecodeHeadingNamesTheKvDtype) {
  Report report = load_report(kDataDir + "report_fixed.json");
  for (PointResult& p : report.points) {
    if (p.op == "decode_attention") p.shape.kv_dtype = KvDtype::kFp8E4m3;
  }
  const std::string md = format_markdown_report(report);
  EXPECT_NE(md.find("### `decode_attention` kv=fp8_e4m3 (`"), std::string::npos) << md;
  EXPECT_NE(md.find("### `gelu` (`"), std::string::npos);
}

TEST(MarkdownWriter, MixedBoundsAreNamedAsRunsOfL) {
  const std::string md = format_markdown_report(
      load_report(std::string(RFL_SOURCE_DIR) + "/tests/unit/data/h200-sweep-first-run.json"));
  EXPECT_NE(
      md.find("### `flash_attention` (`flash_attention_v1_mma_sync`): memory-bound at L = 512, "
              "compute-bound at L = 1024–32768, "
              "11.7–23.9% of attainable (the lower of the tensor peak and the DRAM slope)\n"),
      std::string::npos);
}

TEST(CsvWriter, OneRowPerPointSameWidthUnitsInHeader) {
  const Report report = load_report(kDataDir + "report_fixed.json");
  std::istringstream in(format_csv_report(report));
  std::string header;
  std::getline(in, header);
  const auto columns = split(header, ',');
  EXPECT_EQ(columns, csv_columns());
  for (const char* named : {"time_median_s", "tokens_per_s", "achieved_flop_per_s",
                            "arithmetic_intensity_flop_per_byte", "peak_device_memory_bytes",
                            "sm_throughput_fraction", "prefill_latency_s"}) {
    EXPECT_NE(header.find(named), std::string::npos) << named;
  }
  size_t rows = 0;
  for (std::string line; std::getline(in, line); ++rows) {
    EXPECT_EQ(split(line, ',').size(), columns.size()) << line;
  }
  EXPECT_EQ(rows, report.points.size());
}

// A chunked-prefill sweep (--q-len) names the query lengths in the header, each chunk section its
// own ("`flash_attention` q=512" through the swept label), and the CSV gives every attention
// point its L_q (L for the full prefill); a sweep without --q-len says nothing of it.
TEST(MarkdownWriter, QueryLengthsAreNamed) {
  Report report = load_report(kDataDir + "report_fixed.json");
  EXPECT_EQ(format_markdown_report(report).find("L_q"), std::string::npos);
  report.config.axes.q_len = {512, 0};
  report.config.base.q_len = 512;
  for (auto& p : report.points) {
    if (p.op == "flash_attention" && p.shape.seq_len > 512) p.shape.q_len = 512;
  }
  const std::string md = format_markdown_report(report);
  EXPECT_NE(md.find(", L_q = {512, L} (attention);"), std::string::npos) << md.substr(0, 600);
  EXPECT_NE(md.find("`flash_attention` q=512"), std::string::npos);
  const std::string csv = format_csv_report(report);
  EXPECT_NE(csv.find(",512,ok,"), std::string::npos);
}

TEST(CsvWriter, QuotesFieldsWithCommasAndQuotes) {
  Report report;
  PointResult p;
  p.op = "gemm";
  p.status = PointStatus::kFailed;
  p.reason = "bad \"value\", then more";
  report.points.push_back(p);
  const std::string csv = format_csv_report(report);
  EXPECT_NE(csv.find(",\"bad \"\"value\"\", then more\","), std::string::npos) << csv;
  const std::string row = csv.substr(csv.find('\n') + 1);
  const auto cells = split(row.substr(0, row.size() - 1), ',');
  ASSERT_EQ(cells.size(), csv_columns().size());
  const auto& names = csv_columns();
  const size_t reason = std::find(names.begin(), names.end(), "reason") - names.begin();
  ASSERT_LT(reason, names.size());
  EXPECT_EQ(cells[reason], "bad \"value\", then more");
}

TEST(CsvWriter, MissingValuesAreEmptyNeverZeroOrNan) {
  Report report;
  PointResult p;
  p.op = "gelu";
  p.status = PointStatus::kSkipped;
  p.analytic.flop = std::numeric_limits<double>::quiet_NaN();
  report.points.push_back(p);
  const std::string csv = format_csv_report(report);
  EXPECT_EQ(csv.find("nan"), std::string::npos) << csv;
  const std::string row = csv.substr(csv.find('\n') + 1);
  const auto cells = split(row.substr(0, row.size() - 1), ',');
  ASSERT_EQ(cells.size(), csv_columns().size());
  const auto& names = csv_columns();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "time_median_s" || names[i] == "tokens_per_s" || names[i] == "analytic_flop") {
      EXPECT_EQ(cells.at(i), "") << names[i];
    }
  }
}

// The row of a one-point report as {column name: cell}.
std::map<std::string, std::string> only_row(const Report& report) {
  std::istringstream in(format_csv_report(report));
  std::string header;
  std::string row;
  std::getline(in, header);
  std::getline(in, row);
  const auto names = split(header, ',');
  const auto cells = split(row, ',');
  EXPECT_EQ(cells.size(), names.size()) << row;
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < names.size() && i < cells.size(); ++i) out[names[i]] = cells[i];
  return out;
}

// The axes that tell points of one operator apart beyond the common shape: the KV layout and page
// size of decode, the GEMM's effective M, N, K, and the FFN width of the element-wise FFN
// operators, each empty where the operator does not have it.
TEST(CsvWriter, CarriesLayoutGemmDimsAndFfnWidth) {
  Report report;
  PointResult gemm;
  gemm.op = "gemm";
  gemm.shape.batch = 2;
  gemm.shape.seq_len = 8;
  gemm.shape.gemm_n = 6144;  // K stays the default d_model = 16 * 128
  report.points.push_back(gemm);
  auto row = only_row(report);
  EXPECT_EQ(row["gemm_m"], "16");
  EXPECT_EQ(row["gemm_n"], "6144");
  EXPECT_EQ(row["gemm_k"], "2048");
  EXPECT_EQ(row["ffn_dim"], "");
  EXPECT_EQ(row["kv_layout"], "contiguous");
  EXPECT_EQ(row["page_size"], "");

  report.points[0].op = "swiglu";
  report.points[0].shape.ffn_dim = 14336;
  row = only_row(report);
  EXPECT_EQ(row["ffn_dim"], "14336");
  EXPECT_EQ(row["gemm_n"], "");

  report.points[0].op = "decode_attention";
  report.points[0].shape.kv_layout = KvLayout::kPaged;
  report.points[0].shape.page_size = 32;
  row = only_row(report);
  EXPECT_EQ(row["kv_layout"], "paged");
  EXPECT_EQ(row["page_size"], "32");
  EXPECT_EQ(row["ffn_dim"], "");
}

TEST(CsvWriter, NamesTheDeviceShapeRoofSourceAndByteBasis) {
  Report report;
  report.device.name = "NVIDIA H200, test";  // a comma: the cell must be quoted
  PointResult p;
  p.op = "gelu";
  p.shape.heads = 8;
  p.shape.head_dim = 64;
  p.shape.gelu_form = GeluForm::kTanh;
  RooflinePoint placed;
  placed.roof.source_kind = RoofSource::kMeasured;
  placed.above_roof = true;
  placed.bytes_basis = kBytesIsolated;
  p.roofline = placed;
  report.points.push_back(p);
  EXPECT_NE(format_csv_report(report).find(",\"NVIDIA H200, test\","), std::string::npos);
  auto row = only_row(report);
  EXPECT_EQ(row["device"], "NVIDIA H200, test");
  EXPECT_EQ(row["d_model"], "512");
  EXPECT_EQ(row["gelu_form"], "tanh");
  EXPECT_EQ(row["roof_source"], "measured");
  EXPECT_EQ(row["above_roof"], "true");
  EXPECT_EQ(row["bytes_basis"], "dram_isolated");

  // Without a placement the roof's columns are empty, not a default value.
  report.points[0].roofline.reset();
  row = only_row(report);
  EXPECT_EQ(row["roof_source"], "");
  EXPECT_EQ(row["above_roof"], "");
  EXPECT_EQ(row["bytes_basis"], "");
  EXPECT_EQ(row["gelu_form"], "tanh");
}

// The folded rows of a comparison's Markdown stop before GitHub's 65,536-character comment limit
// and say how many were left out; rows that fit are all shown, with no such line.
TEST(MarkdownFold, RowsStopUnderTheCommentLimit) {
  const std::vector<std::string> rows(2000, "| " + std::string(60, 'x') + " |\n");
  std::string out = "### heading\n\n";
  append_folded_rows(out, "All points", "| a |\n|---|\n", rows, "points");
  EXPECT_LT(out.size(), 65536u);
  EXPECT_NE(out.find("more points not shown (a GitHub comment holds 65,536 characters)"),
            std::string::npos);
  EXPECT_EQ(out.substr(out.size() - 11), "</details>\n");
  std::string small = "x\n";
  append_folded_rows(small, "All rows", "| a |\n", {"| 1 |\n", "| 2 |\n"}, "rows");
  EXPECT_EQ(small,
            "x\n<details><summary>All rows</summary>\n\n| a |\n| 1 |\n| 2 |\n\n</details>\n");
}

}  // namespace
}  // namespace rooflinectl
