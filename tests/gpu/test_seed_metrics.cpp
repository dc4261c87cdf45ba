// On the GPU: the per-point seed metrics of a real sweep (peak device memory, SM and DRAM % of
// peak; SM % with --sm-throughput) are measured and plausible, and the report's Markdown carries
// the full conclusion.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "io/json_reader.hpp"
#include "render/attention_summary.hpp"
#include "run_rooflinectl.hpp"

namespace rooflinectl {
namespace {

TEST(SeedMetrics, AttentionSweepMeasuresMemoryAndUtilization) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "rooflinectl-seed.json").string();
  std::filesystem::remove(path);
  ASSERT_EQ(run_rooflinectl("sweep --ops naive_attention,flash_attention --seq 1024,4096 "
                            "--repetitions 3 --sm-throughput --output " +
                            path + " > /dev/null"),
            0);
  const Report report = load_report(path);
  ASSERT_EQ(report.points.size(), 4u);
  for (const PointResult& p : report.points) {
    SCOPED_TRACE(p.op + " L=" + std::to_string(p.shape.seq_len));
    ASSERT_TRUE(p.peak_device_memory_bytes) << p.peak_device_memory_null_reason;
    // At least the operator's own buffers (the analytic count) must show up as used memory.
    EXPECT_GE(*p.peak_device_memory_bytes, 0.9 * static_cast<double>(p.device_bytes_needed));
    ASSERT_TRUE(p.counters.total.sm_throughput_fraction);
    ASSERT_TRUE(p.counters.total.dram_throughput_fraction);
    EXPECT_GT(*p.counters.total.sm_throughput_fraction, 0.0);
    EXPECT_LE(*p.counters.total.sm_throughput_fraction, 1.05);
    EXPECT_GT(*p.counters.total.dram_throughput_fraction, 0.0);
    EXPECT_LE(*p.counters.total.dram_throughput_fraction, 1.05);
  }
  // Naive attention materializes S and P (2·B·H·L²·e bytes): at L = 4096 it must hold more.
  const AttentionSummary summary = summarize_attention(report);
  ASSERT_EQ(summary.comparisons.size(), 2u);
  ASSERT_TRUE(summary.comparisons[1].memory_reduction_fraction);
  EXPECT_GT(*summary.comparisons[1].memory_reduction_fraction, 0.5);
  EXPECT_NE(summary.conclusion.find("and peak memory \u2212"), std::string::npos)
      << summary.conclusion;

  const std::string md = path + ".md";
  ASSERT_EQ(run_rooflinectl("report " + path + " --format md -o " + md + " 2> /dev/null"), 0);
  EXPECT_TRUE(std::filesystem::file_size(md) > 0);
  std::filesystem::remove(md);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rooflinectl
