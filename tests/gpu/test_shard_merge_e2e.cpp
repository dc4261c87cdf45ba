// Sharded sweeps on one GPU, end to end: two shards of a small sweep (`sweep --shard 1/2`, `2/2`)
// run one after the other and joined by `merge` hold the same points, statuses and counted
// tensor FLOPs as the unsharded sweep; `sweep --devices 0` is a plain sweep on device 0. The
// commands are those of docs/cluster.md.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "io/json_reader.hpp"
#include "result/point_key.hpp"
#include "run_rooflinectl.hpp"

namespace rooflinectl {
namespace {

// Nine repetitions: the fewest with which `compare` can flag a time regression over 12 points
// (it refuses, exit 2, to compare reports that could never fail its gate).
const std::string kSweep =
    "sweep --ops gemm,gelu,layernorm,decode_attention --seq 512,1024,2048 --repetitions 9";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("rooflinectl-shard-" + name)).string();
}

// The same points in the same order with the same statuses, operator versions and, where both
// counted them, the same tensor FLOPs (counted exactly on every run of a kernel).
void expect_same_points(const Report& expected, const Report& actual) {
  ASSERT_EQ(actual.points.size(), expected.points.size());
  for (size_t i = 0; i < expected.points.size(); ++i) {
    const PointResult& e = expected.points[i];
    const PointResult& a = actual.points[i];
    SCOPED_TRACE(point_key(e).shape_label());
    EXPECT_EQ(point_key(a).shape_label(), point_key(e).shape_label());
    EXPECT_EQ(a.status, e.status) << a.reason;
    EXPECT_EQ(a.status, PointStatus::kOk) << a.reason;
    EXPECT_EQ(a.version, e.version);
    EXPECT_EQ(a.counters.total.tensor_bf16_flop, e.counters.total.tensor_bf16_flop);
  }
}

TEST(ShardMergeEndToEnd, TwoShardsMergedEqualTheUnshardedSweep) {
  const std::string whole = temp_path("whole.json");
  const std::string shard1 = temp_path("1.json");
  const std::string shard2 = temp_path("2.json");
  const std::string merged = temp_path("merged.json");
  for (const std::string& path : {whole, shard1, shard2, merged}) std::filesystem::remove(path);

  ASSERT_EQ(run_rooflinectl(kSweep + " --output " + whole + " > /dev/null"), 0);
  ASSERT_EQ(run_rooflinectl(kSweep + " --shard 1/2 --output " + shard1 + " > /dev/null"), 0);
  ASSERT_EQ(run_rooflinectl(kSweep + " --shard 2/2 --output " + shard2 + " > /dev/null"), 0);
  ASSERT_EQ(run_rooflinectl("merge " + shard2 + " " + shard1 + " --output " + merged), 0);

  const Report a = load_report(shard1);
  const Report b = load_report(shard2);
  EXPECT_EQ(a.points.size() + b.points.size(), 12u);
  EXPECT_GT(a.points.size(), 0u);
  EXPECT_GT(b.points.size(), 0u);
  const Report m = load_report(merged);
  expect_same_points(load_report(whole), m);
  ASSERT_EQ(m.sources.size(), 2u);
  EXPECT_EQ(m.sources[0].file, shard1);
  EXPECT_FALSE(m.device.uuid.empty());
  for (const PointResult& p : m.points) {
    ASSERT_TRUE(p.source);
    EXPECT_EQ(m.sources[*p.source].device.uuid, m.device.uuid);
  }
  // The merged report reads back in `report` and `compare` against the unsharded one.
  EXPECT_EQ(run_rooflinectl("report " + merged + " > /dev/null"), 0);
  EXPECT_NE(run_rooflinectl("compare " + whole + " " + merged + " > /dev/null 2>&1"), 2);
  for (const std::string& path : {whole, shard1, shard2, merged}) std::filesystem::remove(path);
}

TEST(ShardMergeEndToEnd, DevicesZeroIsAPlainSweep) {
  const std::string plain = temp_path("plain.json");
  const std::string devices = temp_path("devices0.json");
  ASSERT_EQ(run_rooflinectl(kSweep + " --output " + plain + " > /dev/null"), 0);
  ASSERT_EQ(run_rooflinectl(kSweep + " --devices 0 --output " + devices + " > /dev/null"), 0);
  const Report d = load_report(devices);
  expect_same_points(load_report(plain), d);
  EXPECT_TRUE(d.sources.empty());
  EXPECT_EQ(d.config.device, 0);
  std::filesystem::remove(plain);
  std::filesystem::remove(devices);
}

// Only where the host has two GPUs or more (issue "Run sweep --devices all on two H200s").
TEST(ShardMergeEndToEnd, DevicesAllUsesEveryGpu) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  if (count < 2) GTEST_SKIP() << "one GPU: --devices all is a plain sweep here";
  const std::string path = temp_path("all.json");
  ASSERT_EQ(run_rooflinectl(kSweep + " --devices all --output " + path + " > /dev/null"), 0);
  const Report r = load_report(path);
  EXPECT_EQ(r.points.size(), 12u);
  ASSERT_EQ(r.sources.size(), static_cast<size_t>(count));
  for (const PointResult& p : r.points) {
    EXPECT_EQ(p.status, PointStatus::kOk) << p.reason;
    ASSERT_TRUE(p.source);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rooflinectl
