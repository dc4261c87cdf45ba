// End to end on the GPU: runs the real `rooflinectl sweep` binary on a short sweep and checks the
// report it writes (read back with the project's strict reader: no NaN/Inf can pass it).
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "io/json_reader.hpp"
#include "run_rooflinectl.hpp"

namespace rooflinectl {
namespace {

std::string temp_report_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

TEST(SweepEndToEnd, AllOperatorsOkWithCountersAndExpectedBounds) {
  const std::string path = temp_report_path("rooflinectl-e2e.json");
  std::filesystem::remove(path);
  ASSERT_EQ(
      run_rooflinectl("sweep --seq 512,1000 --repetitions 3 --output " + path + " > /dev/null"), 0);
  const Report report = load_report(path);
  ASSERT_EQ(report.points.size(), 12u);
  for (const PointResult& p : report.points) {
    SCOPED_TRACE(p.op + " L=" + std::to_string(p.shape.seq_len));
    EXPECT_EQ(p.status, PointStatus::kOk) << p.reason;
    ASSERT_TRUE(p.validation);
    EXPECT_TRUE(p.validation->passed);
    ASSERT_TRUE(p.timing);
    EXPECT_EQ(p.timing->samples_s.size(), 3u);
    EXPECT_FALSE(p.counters.null_reason) << *p.counters.null_reason;
    ASSERT_TRUE(p.counters.total.dram_bytes());
    EXPECT_GT(*p.counters.total.dram_bytes(), 0.0);
    ASSERT_TRUE(p.roofline) << p.roofline_null_reason;
    EXPECT_FALSE(p.roofline->above_roof);
    EXPECT_EQ(p.roofline->bytes_basis, "dram_isolated");
    ASSERT_TRUE(p.counters.dram_writeback_bytes) << p.counters.writeback_null_reason;
    if (p.op == "gemm") EXPECT_EQ(p.roofline->bound, Bound::kCompute);
    if (p.op == "gelu" || p.op == "layernorm" || p.op == "decode_attention") {
      EXPECT_EQ(p.roofline->bound, Bound::kMemory);
    }
  }
  std::filesystem::remove(path);
}

// Without counters every point is still placed, on the analytic model, and says so.
// Flash attention at L = 4096 is the case that once exited 1: placed on its no-reuse K/V re-reads
// (1.1 GB where the counters read 62 MB) it sat "above the roof"; its analytic bytes are the
// minimum, naive attention's keep S and P.
TEST(SweepEndToEnd, NoCountersPlacesOnTheAnalyticModel) {
  const std::string path = temp_report_path("rooflinectl-e2e-nocounters.json");
  ASSERT_EQ(run_rooflinectl("sweep --ops gelu,flash_attention,naive_attention --seq 4096 "
                            "--repetitions 3 --no-counters --output " +
                            path + " > /dev/null"),
            0);
  const Report report = load_report(path);
  ASSERT_EQ(report.points.size(), 3u);
  for (const PointResult& p : report.points) {
    SCOPED_TRACE(p.op);
    ASSERT_TRUE(p.counters.null_reason);
    EXPECT_NE(p.counters.null_reason->find("--no-counters"), std::string::npos);
    EXPECT_FALSE(p.counters.total.dram_read_bytes);
    ASSERT_TRUE(p.roofline) << p.roofline_null_reason;
    EXPECT_EQ(p.roofline->basis, "analytic");
    EXPECT_FALSE(p.roofline->above_roof);
    if (p.op == "naive_attention") {
      EXPECT_EQ(p.roofline->bytes_basis, "analytic_implemented");
      EXPECT_DOUBLE_EQ(p.roofline->dram_bytes, p.analytic.implemented_dram_bytes);
    } else {
      EXPECT_EQ(p.roofline->bytes_basis, "analytic_min");
      EXPECT_DOUBLE_EQ(p.roofline->dram_bytes, p.analytic.min_dram_bytes);
    }
    if (p.op == "gelu") EXPECT_EQ(p.roofline->bound, Bound::kMemory);
    if (p.op == "flash_attention") EXPECT_EQ(p.roofline->bound, Bound::kCompute);
  }
  std::filesystem::remove(path);
}

// A product of axes (README, "Axes and products"): 2 dtypes × (gelu: 2 batches × 2 lengths +
// flash attention: 2 batches × 2 causal × 2 lengths) = 24 points, in the documented order, each
// ok and counted with its own dtype's tensor metric (one counter engine per dtype).
TEST(SweepEndToEnd, AxisProductRunsEveryCombinationWithItsDtypesCounters) {
  const std::string path = temp_report_path("rooflinectl-e2e-product.json");
  ASSERT_EQ(run_rooflinectl("sweep --ops gelu,flash_attention --seq 512,1024 --batch 1,2 "
                            "--dtype bf16,fp16 --causal off,on --repetitions 3 --output " +
                            path + " > /dev/null"),
            0);
  const Report report = load_report(path);
  ASSERT_EQ(report.points.size(), 24u);
  EXPECT_EQ(report.config.axes.dtype, (std::vector<Dtype>{Dtype::kBf16, Dtype::kFp16}));
  EXPECT_EQ(report.config.axes.batch, (std::vector<int64_t>{1, 2}));
  for (size_t i = 0; i < report.points.size(); ++i) {
    const PointResult& p = report.points[i];
    SCOPED_TRACE(p.op + " B=" + std::to_string(p.shape.batch) + " " + to_string(p.shape.dtype) +
                 (p.shape.causal ? " causal" : "") + " L=" + std::to_string(p.shape.seq_len));
    EXPECT_EQ(p.shape.dtype, i < 12 ? Dtype::kBf16 : Dtype::kFp16);  // dtype outermost
    EXPECT_EQ(p.op, i % 12 < 4 ? "gelu" : "flash_attention");
    if (p.op == "gelu") EXPECT_FALSE(p.shape.causal);  // gelu does not run once per causal value
    EXPECT_EQ(p.status, PointStatus::kOk) << p.reason;
    ASSERT_TRUE(p.validation);
    EXPECT_TRUE(p.validation->passed);
    EXPECT_FALSE(p.counters.null_reason) << *p.counters.null_reason;
    ASSERT_TRUE(p.roofline) << p.roofline_null_reason;
    EXPECT_FALSE(p.roofline->above_roof);
    if (p.op == "flash_attention") {
      // Counted tensor FLOPs on the pipe of the point's own dtype (in its metric set).
      const std::optional<double>& own = p.shape.dtype == Dtype::kBf16
                                             ? p.counters.total.tensor_bf16_flop
                                             : p.counters.total.tensor_fp16_flop;
      ASSERT_TRUE(own) << "the point's own dtype's tensor FLOPs were not counted";
      EXPECT_GT(*own, 0.0);
    }
  }
  std::filesystem::remove(path);
}

// Naive attention at B = 2, H = 32, d = 128, L = 32768 needs 256 GiB for S and P: the point is
// skipped with the needed and free bytes before anything is allocated, and the run is partial.
TEST(SweepEndToEnd, PointLargerThanDeviceMemoryIsSkipped) {
  const std::string path = temp_report_path("rooflinectl-e2e-skip.json");
  ASSERT_EQ(run_rooflinectl("sweep --ops naive_attention,gelu --batch 2 --heads 32 --seq 32768 "
                            "--repetitions 2 --no-counters --output " +
                            path + " > /dev/null"),
            1);
  const Report report = load_report(path);
  ASSERT_EQ(report.points.size(), 2u);
  const PointResult& naive = report.points[0];
  EXPECT_EQ(naive.status, PointStatus::kSkipped);
  EXPECT_NE(naive.reason.find("needs"), std::string::npos) << naive.reason;
  EXPECT_NE(naive.reason.find("free"), std::string::npos) << naive.reason;
  EXPECT_GT(naive.device_bytes_needed, int64_t{256} << 30);
  EXPECT_FALSE(naive.timing);
  EXPECT_EQ(report.points[1].status, PointStatus::kOk);  // the sweep went on
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rooflinectl
