// Counter truth on the GPU, through the real `rooflinectl sweep`: kernels whose outputs fit in L2
// (GELU and LayerNorm, 2 to 17 MB stored into a 60 MiB L2 on the H200) must show, in total, the
// DRAM bytes they move: input read once, and output written once, in the kernel's window or in
// the write-back sweep after it. The in-window figure alone (Nsight Compute's) is about 0 for
// them. Also checks that DRAM bytes came from a one-pass session and never from the replay one,
// with the points sharing range-profiler collections.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "io/json_reader.hpp"
#include "run_rooflinectl.hpp"

namespace rooflinectl {
namespace {

// Tolerance on the write figures: 2%, or 1 MB for small outputs. Every write-back sweep also
// shows writes that no kernel stored: 0.1-0.6 MB on the H200 (docs/counter-method.md; 0.57 MB
// for gelu at L = 1024 on 2026-12-02). An output counted twice would be off by its full size.
constexpr double kRelative = 0.02;
constexpr double kAbsoluteBytes = 1.0e6;
constexpr double kBf16Bytes = 2.0;

bool near(double measured, double expected) {
  return std::abs(measured - expected) <= std::max(kRelative * expected, kAbsoluteBytes);
}

bool has(const std::vector<std::string>& metrics, const std::string& name) {
  return std::find(metrics.begin(), metrics.end(), name) != metrics.end();
}

TEST(CounterTruthEndToEnd, L2ResidentOutputsAreCountedOnceInTotal) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "rooflinectl-counter-truth.json").string();
  std::filesystem::remove(path);
  ASSERT_EQ(run_rooflinectl("sweep --ops gelu,layernorm --seq 512,1024 --repetitions 2 "
                            "--require-counters --output " +
                            path + " > /dev/null"),
            0);
  const Report report = load_report(path);
  ASSERT_EQ(report.points.size(), 4u);
  for (const PointResult& p : report.points) {
    SCOPED_TRACE(p.op + " L=" + std::to_string(p.shape.seq_len));
    ASSERT_EQ(p.status, PointStatus::kOk) << p.reason;
    const CounterResult& c = p.counters;
    ASSERT_FALSE(c.null_reason) << *c.null_reason;
    ASSERT_EQ(c.sessions.size(), 2u);
    EXPECT_EQ(c.sessions[0].role, "bytes");
    EXPECT_EQ(c.sessions[0].passes, 1);
    EXPECT_TRUE(has(c.sessions[0].metrics, "dram__bytes_write.sum"));
    EXPECT_FALSE(has(c.sessions[1].metrics, "dram__bytes_write.sum"));
    EXPECT_FALSE(has(c.sessions[1].metrics, "dram__bytes_read.sum"));
    // The four small points share one collection of each session, each point still flushed
    // before its kernels and swept after them (docs/counter-method.md).
    ASSERT_TRUE(c.sessions[0].points_in_collection && c.sessions[1].points_in_collection);
    EXPECT_EQ(*c.sessions[0].points_in_collection, 4);
    EXPECT_EQ(*c.sessions[1].points_in_collection, 4);

    const double width = p.op == "gelu" ? 4.0 * p.shape.d_model() : 1.0 * p.shape.d_model();
    const double output = static_cast<double>(p.shape.tokens()) * width * kBf16Bytes;
    ASSERT_TRUE(c.dram_writeback_bytes) << c.writeback_null_reason;
    ASSERT_TRUE(c.total.l2_write_bytes);
    const double writes = *c.dram_write_bytes_isolated();
    std::printf(
        "%s L=%lld: output %.3f MB, in-window %.3f MB + write-back %.3f MB, L2 stores %.3f MB\n",
        p.op.c_str(), static_cast<long long>(p.shape.seq_len), output / 1e6,
        *c.total.dram_write_bytes / 1e6, *c.dram_writeback_bytes / 1e6,
        *c.total.l2_write_bytes / 1e6);
    EXPECT_TRUE(near(writes, output)) << writes << " B written for " << output << " B of output";
    EXPECT_TRUE(near(*c.total.l2_write_bytes, output)) << *c.total.l2_write_bytes;
    // Fits in L2 and flushed before: the in-window writes are a small part of the output.
    EXPECT_LT(*c.total.dram_write_bytes, 0.25 * output);
    // The input (LayerNorm: plus gamma and beta) is read once.
    EXPECT_TRUE(near(*c.total.dram_read_bytes, p.analytic.min_dram_bytes - output))
        << *c.total.dram_read_bytes;
    ASSERT_TRUE(p.roofline) << p.roofline_null_reason;
    EXPECT_EQ(p.roofline->bytes_basis, "dram_isolated");
    EXPECT_DOUBLE_EQ(p.roofline->dram_bytes, *c.dram_bytes_isolated());
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rooflinectl
