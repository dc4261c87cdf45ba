// A memory-bound shape that fits in L2: LayerNorm of 4096 × 1024 bf16 (8 MiB in, 8 MiB
// out, inside the H200's 60 MiB L2) through the normal `rooflinectl sweep` path with counters.
// With L2 flushed before every sample, the effective bandwidth (model bytes / median time) cannot
// exceed the HBM datasheet peak, and the DRAM bytes the counters saw must agree with the model
// bytes within 10% (same time, so the two bandwidths agree within 10%). The DRAM bytes are the
// isolated kernel's (in-window reads and writes plus the write-back of its output after the
// window): the 8 MiB output stays dirty in L2 when the kernel ends, so the in-window writes alone
// are about zero. A warm L2 would break
// both: the input would come from L2. The report must also say how L2 was treated.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "io/json_reader.hpp"
#include "run_rooflinectl.hpp"

namespace rooflinectl {
namespace {

constexpr double kCounterAgreement = 0.10;

TEST(L2ResidentLayerNorm, EffectiveBandwidthStaysUnderHbmAndMatchesDramCounters) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "rooflinectl-l2-resident.json").string();
  std::filesystem::remove(path);
  // Rows B·L = 4096, d_model = H·d = 8 × 128 = 1024; the datasheet roof so that the peak is HBM's.
  ASSERT_EQ(run_rooflinectl("sweep --ops layernorm --seq 4096 --heads 8 --kv-heads 8 "
                            "--head-dim 128 --dtype bf16 --repetitions 20 --roof datasheet "
                            "--require-counters --output " +
                            path + " > /dev/null"),
            0);
  const Report report = load_report(path);
  ASSERT_EQ(report.points.size(), 1u);
  const PointResult& p = report.points[0];
  ASSERT_EQ(p.status, PointStatus::kOk) << p.reason;
  ASSERT_TRUE(p.timing);

  // The report states the L2 policy of both passes.
  EXPECT_TRUE(p.timing->l2_flushed);
  EXPECT_NE(p.timing->cache_policy.find("flushed before each timed sample"), std::string::npos)
      << p.timing->cache_policy;
  EXPECT_NE(p.counters.cache_policy.find("flushed"), std::string::npos) << p.counters.cache_policy;

  ASSERT_TRUE(report.peaks);
  const auto& hbm = report.peaks->datasheet.dram.value;
  if (!hbm) GTEST_SKIP() << "no datasheet HBM figure: " << report.peaks->datasheet.dram.source;
  const double model_bytes = p.analytic.min_dram_bytes;
  const double time_s = p.timing->median_s;
  const double effective = model_bytes / time_s;
  ASSERT_TRUE(p.counters.dram_bytes_isolated())
      << p.counters.null_reason.value_or("") << p.counters.writeback_null_reason;
  const double counted = *p.counters.dram_bytes_isolated();
  const double counted_bandwidth = counted / time_s;
  std::printf(
      "layernorm 4096 x 1024 bf16: median %.3f us; effective (model %.3f MB / time) %.4g TB/s; "
      "DRAM counters, isolated (read %.3f + write %.3f MB) / time %.4g TB/s; ratio %.3f; datasheet "
      "HBM "
      "%.4g TB/s\n  timing: %s\n  counters: %s\n",
      time_s * 1e6, model_bytes / 1e6, effective / 1e12,
      p.counters.total.dram_read_bytes.value_or(0) / 1e6,
      p.counters.dram_write_bytes_isolated().value_or(0) / 1e6, counted_bandwidth / 1e12,
      counted / model_bytes, *hbm / 1e12, p.timing->cache_policy.c_str(),
      p.counters.cache_policy.c_str());
  EXPECT_LE(effective, *hbm);
  EXPECT_NEAR(counted_bandwidth / effective, 1.0, kCounterAgreement);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rooflinectl
