// Sharding a planned sweep (`sweep --shard i/n`, `--shard auto`) and merging the shards'
// reports (`merge`): the shard spec parser, the scheduler variables, the pinned point key and
// hash, the partition of a plan, and merge_shard_reports on shards cut from the committed H200
// report (stability, every refusal, a missing shard, a point measured twice).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bad_input_message.hpp"
#include "core/error.hpp"
#include "core/shard.hpp"
#include "core/sweep_plan.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "merge/shard_merge.hpp"

namespace rooflinectl {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ShardSpec, ParsesOneBasedIndexOverCount) {
  EXPECT_EQ(parse_shard_spec("2/4", "--shard"), (ShardSpec{2, 4}));
  EXPECT_EQ(parse_shard_spec("1/1", "--shard"), (ShardSpec{1, 1}));
  EXPECT_EQ(parse_shard_spec("2/4", "--shard").text(), "2/4");
}

TEST(ShardSpec, RefusesMalformedAndOutOfRange) {
  for (const char* bad :
       {"0/4", "5/4", "4", "/4", "1/", "a/b", "1/0", "-1/4", "1/4x", "1.5/4", "1/100001", ""}) {
    const std::string message = bad_input_message([&] { parse_shard_spec(bad, "--shard"); });
    EXPECT_NE(message.find(std::string("invalid --shard '") + bad + "'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("1 <= i <= n"), std::string::npos) << message;
  }
}

TEST(ShardFromEnvironment, SlurmArrayIsOneBasedFromItsMinimum) {
  // sbatch --array=0-3: ids 0..3, min 0, count 4 -> shards 1/4..4/4.
  EXPECT_EQ(shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "2"},
                                           {"SLURM_ARRAY_TASK_MIN", "0"},
                                           {"SLURM_ARRAY_TASK_COUNT", "4"}})),
            (ShardSpec{3, 4}));
  // sbatch --array=1-8
  EXPECT_EQ(shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "8"},
                                           {"SLURM_ARRAY_TASK_MIN", "1"},
                                           {"SLURM_ARRAY_TASK_COUNT", "8"},
                                           {"SLURM_ARRAY_TASK_STEP", "1"}})),
            (ShardSpec{8, 8}));
}

TEST(ShardFromEnvironment, KubernetesIndexedJobIsZeroBased) {
  EXPECT_EQ(
      shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "0"}, {"RFL_SHARD_COUNT", "3"}})),
      (ShardSpec{1, 3}));
  EXPECT_EQ(
      shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "2"}, {"RFL_SHARD_COUNT", "3"}})),
      (ShardSpec{3, 3}));
}

TEST(ShardFromEnvironment, RefusesWhatCannotBeAShard) {
  EXPECT_NE(bad_input_message([] {
              shard_from_environment(env_of({}));
            }).find("neither SLURM_ARRAY_TASK_ID"),
            std::string::npos);
  EXPECT_NE(bad_input_message([] {
              shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "0"},
                                             {"SLURM_ARRAY_TASK_MIN", "0"},
                                             {"SLURM_ARRAY_TASK_COUNT", "4"},
                                             {"SLURM_ARRAY_TASK_STEP", "2"}}));
            }).find("SLURM_ARRAY_TASK_STEP=2"),
            std::string::npos);
  EXPECT_NE(bad_input_message([] {
              shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "x"},
                                             {"SLURM_ARRAY_TASK_MIN", "0"},
                                             {"SLURM_ARRAY_TASK_COUNT", "4"}}));
            }).find("SLURM_ARRAY_TASK_ID='x'"),
            std::string::npos);
  EXPECT_NE(bad_input_message([] {
              shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "0"}}));
            }).find("RFL_SHARD_COUNT is not set"),
            std::string::npos);
  EXPECT_NE(
      bad_input_message([] {
        shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "3"}, {"RFL_SHARD_COUNT", "3"}}));
      }).find("gives shard 4/3"),
      std::string::npos);
}

TEST(ShardAssignment, PointKeyAndHashArePinned) {
  // Changing either moves points between the shards of sweeps already under way on a cluster.
  Shape shape;
  shape.seq_len = 4096;
  EXPECT_EQ(shard_point_key("gelu", shape), "gelu|L=4096|B=1|H=16|Hkv=16|d=128|bf16|0|erf");
  shape.kv_layout = KvLayout::kPaged;
  shape.page_size = 16;
  EXPECT_EQ(shard_point_key("decode_attention", shape),
            "decode_attention|L=4096|B=1|H=16|Hkv=16|d=128|bf16|0|erf|kv=paged/16");
  shape.kv_dtype = KvDtype::kFp8E4m3;
  EXPECT_EQ(shard_point_key("decode_attention", shape),
            "decode_attention|L=4096|B=1|H=16|Hkv=16|d=128|bf16|0|erf|kv=paged/16|kv=fp8_e4m3");
  shape = Shape{};
  shape.seq_len = 4096;
  // FNV-1a 64 test vectors of its published definition: "" and "a".
  EXPECT_EQ(fnv1a_64(""), 14695981039346656037ull);
  EXPECT_EQ(fnv1a_64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(shard_of_point("gelu", shape, 1), 1);
}

TEST(ShardAssignment, ShardsPartitionThePlanAndAddingALengthMovesNothingElse) {
  SweepConfig config = default_sweep_config();
  const std::vector<PlannedPoint> all = plan_all_points(config);
  ASSERT_EQ(all.size(), 42u);
  std::map<std::string, int> owner;
  for (int index = 1; index <= 4; ++index) {
    config.shard = ShardSpec{index, 4};
    for (const PlannedPoint& p : plan_points(config)) {
      EXPECT_TRUE(owner.emplace(shard_point_key(p.op, p.shape), index).second)
          << "point in two shards: " << shard_point_key(p.op, p.shape);
      EXPECT_EQ(p.index, all[p.index - 1].index);
    }
  }
  EXPECT_EQ(owner.size(), all.size());
  std::set<int> used;
  for (const auto& [key, shard] : owner) used.insert(shard);
  EXPECT_EQ(used.size(), 4u) << "42 points should reach every one of 4 shards";

  config.seq_lens.push_back(3000);
  for (int index = 1; index <= 4; ++index) {
    config.shard = ShardSpec{index, 4};
    for (const PlannedPoint& p : plan_points(config)) {
      const auto it = owner.find(shard_point_key(p.op, p.shape));
      if (it != owner.end()) EXPECT_EQ(it->second, index) << it->first;
    }
  }
}

TEST(BalancedAssignment, LongestFirstOntoTheLeastLoadedWorker) {
  // Costs 7 (position 2), 5 (4), 4 (5), 3 (3), 1 (1) over two workers: 7 -> w0; 5 -> w1;
  // 4 -> w1 (5 < 7); 3 -> w0 (7 < 9); 1 -> w1 (9 < 10). Loads 10 and 10.
  const std::vector<double> costs = {1, 7, 3, 5, 4};  // positions 1..5
  const auto shares = balance_plan_positions(costs, 2);
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0], (std::vector<size_t>{2, 3}));
  EXPECT_EQ(shares[1], (std::vector<size_t>{1, 4, 5}));
  // More workers than positions: the extra ones get none.
  const auto wide = balance_plan_positions({2, 1}, 4);
  EXPECT_EQ(wide[0], (std::vector<size_t>{1}));
  EXPECT_EQ(wide[1], (std::vector<size_t>{2}));
  EXPECT_TRUE(wide[2].empty());
  EXPECT_TRUE(wide[3].empty());
}

TEST(BalancedAssignment, ExplicitListsDecideWhichPointsAShardRuns) {
  SweepConfig config = default_sweep_config();
  config.shard = ShardSpec{2, 2, {1, 42}};
  const std::vector<PlannedPoint> mine = plan_points(config);
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_EQ(mine[0].op, "naive_attention");
  EXPECT_EQ(mine[0].shape.seq_len, 512);
  EXPECT_EQ(mine[1].op, "decode_attention");
  EXPECT_EQ(mine[1].shape.seq_len, 32768);
  EXPECT_EQ(config.shard->assignment(), std::string(kBalancedAssignment));
}

TEST(BalancedAssignment, PlanIndicesParser) {
  EXPECT_EQ(parse_plan_indices("7,1,3", 42, "--plan-indices"), (std::vector<size_t>{1, 3, 7}));
  EXPECT_NE(bad_input_message([] {
              parse_plan_indices("1,43", 42, "--plan-indices");
            }).find("item '43' (allowed: plan positions 1..42)"),
            std::string::npos);
  EXPECT_NE(bad_input_message([] {
              parse_plan_indices("3,3", 42, "--plan-indices");
            }).find("listed more than once"),
            std::string::npos);
  EXPECT_NE(bad_input_message([] { parse_plan_indices("", 42, "--plan-indices"); }).find("item ''"),
            std::string::npos);
}

// --- merge_shard_reports on shards cut from the committed H200 sweep -------------------------

const Report& h200_report() {
  static const Report report =
      load_report(std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-sweep.json");
  return report;
}

// The H200 report cut into `count` shard reports as `sweep --shard i/count` would have written
// them: each with its shard's points and config.shard, the current schema version.
std::vector<MergeInput> cut(int count) {
  std::vector<MergeInput> shards;
  for (int index = 1; index <= count; ++index) {
    Report shard = h200_report();
    shard.schema_version = kReportSchemaVersion;
    shard.config.shard = ShardSpec{index, count};
    shard.points.clear();
    for (const PointResult& p : h200_report().points) {
      if (shard_of_point(p.op, p.shape, count) == index) shard.points.push_back(p);
    }
    shards.push_back({"shard" + std::to_string(index) + ".json", shard});
  }
  return shards;
}

TEST(ShardMerge, JoinsShardsBackIntoTheSweepInRunOrder) {
  std::vector<MergeInput> shards = cut(3);
  std::swap(shards[0], shards[2]);  // any input order
  const MergeResult merged = merge_shard_reports(shards, {});
  const Report& original = h200_report();
  ASSERT_EQ(merged.report.points.size(), original.points.size());
  for (size_t i = 0; i < original.points.size(); ++i) {
    const PointResult& p = merged.report.points[i];
    EXPECT_EQ(p.op, original.points[i].op);
    EXPECT_EQ(p.shape.seq_len, original.points[i].shape.seq_len);
    EXPECT_EQ(p.timing->median_s, original.points[i].timing->median_s);
    ASSERT_TRUE(p.source.has_value());
    EXPECT_EQ(merged.report.sources[*p.source].shard.index, shard_of_point(p.op, p.shape, 3));
  }
  ASSERT_EQ(merged.report.sources.size(), 3u);
  EXPECT_EQ(merged.report.sources[0].file, "shard1.json");  // shard order, not input order
  EXPECT_FALSE(merged.report.config.shard.has_value());
  EXPECT_TRUE(merged.warnings.empty());
}

// The H200 report cut as `sweep --devices` cuts it: explicit balanced lists.
std::vector<MergeInput> cut_balanced(const std::vector<std::vector<size_t>>& shares) {
  std::vector<MergeInput> shards;
  const int count = static_cast<int>(shares.size());
  for (int index = 1; index <= count; ++index) {
    Report shard = h200_report();
    shard.config.shard = ShardSpec{index, count, shares[static_cast<size_t>(index - 1)]};
    shard.points.clear();
    for (const size_t position : shares[static_cast<size_t>(index - 1)]) {
      shard.points.push_back(h200_report().points[position - 1]);
    }
    shards.push_back({"worker" + std::to_string(index) + ".json", shard});
  }
  return shards;
}

TEST(ShardMerge, JoinsBalancedWorkerShards) {
  std::vector<double> costs;
  for (const PointResult& p : h200_report().points) costs.push_back(p.timing->median_s);
  const MergeResult merged =
      merge_shard_reports(cut_balanced(balance_plan_positions(costs, 3)), {});
  ASSERT_EQ(merged.report.points.size(), h200_report().points.size());
  for (size_t i = 0; i < merged.report.points.size(); ++i) {
    EXPECT_EQ(merged.report.points[i].timing->median_s, h200_report().points[i].timing->median_s);
  }
  // Round trip of a worker's report keeps its list.
  const MergeInput worker = cut_balanced(balance_plan_positions(costs, 3))[1];
  const Report back = report_from_json_text(report_to_json_text(worker.report), "worker");
  EXPECT_EQ(back.config.shard->plan_indices, worker.report.config.shard->plan_indices);
}

TEST(ShardMerge, BalancedListsThatOverlapOrLeaveAPointOutAreRefused) {
  std::vector<size_t> first;
  std::vector<size_t> second;
  for (size_t k = 1; k <= 42; ++k) (k % 2 == 1 ? first : second).push_back(k);
  {
    std::vector<size_t> overlapping = second;
    overlapping.insert(overlapping.begin(), 1);
    std::vector<MergeInput> shards = cut_balanced({first, overlapping});
    EXPECT_NE(bad_input_message([&] { merge_shard_reports(shards, {}); }).find("is assigned too"),
              std::string::npos);
  }
  {
    std::vector<size_t> short_second(second.begin(), second.end() - 1);
    std::vector<MergeInput> shards = cut_balanced({first, short_second});
    EXPECT_NE(
        bad_input_message([&] { merge_shard_reports(shards, {}); }).find("no shard is assigned"),
        std::string::npos);
  }
  {
    std::vector<MergeInput> shards = cut_balanced({first, second});
    shards[1] = cut(2)[1];  // a hash shard beside a balanced one
    EXPECT_NE(bad_input_message([&] { merge_shard_reports(shards, {}); }).find("were assigned by"),
              std::string::npos);
  }
}

TEST(ShardMerge, AShardOfNoPointsMergesAndTheTimestampIsTheLastShards) {
  // The default sweep cut 8 ways (docs/cluster.md's recipes) leaves shard 5/8 empty.
  std::vector<MergeInput> shards = cut(8);
  ASSERT_TRUE(shards[4].report.points.empty());
  shards[6].report.timestamp_utc = "2026-12-06T01:02:03Z";
  const MergeResult merged = merge_shard_reports(shards, {});
  EXPECT_EQ(merged.report.points.size(), h200_report().points.size());
  EXPECT_EQ(merged.report.timestamp_utc, "2026-12-06T01:02:03Z");
}

TEST(ShardMerge, MissingShardIsNamed) {
  std::vector<MergeInput> shards = cut(3);
  shards.erase(shards.begin() + 1);
  EXPECT_NE(
      bad_input_message([&] { merge_shard_reports(shards, {}); }).find("missing shard 2/3 of 3"),
      std::string::npos);
}

TEST(ShardMerge, ShardGivenTwiceIsRefused) {
  std::vector<MergeInput> shards = cut(2);
  shards.push_back(shards[0]);
  shards.back().file = "again.json";
  EXPECT_NE(
      bad_input_message([&] { merge_shard_reports(shards, {}); }).find("shard 1/2 is given twice"),
      std::string::npos);
}

TEST(ShardMerge, PointOfAnotherShardIsRefused) {
  std::vector<MergeInput> shards = cut(2);
  shards[0].report.points.push_back(shards[1].report.points.front());
  EXPECT_NE(
      bad_input_message([&] { merge_shard_reports(shards, {}); }).find("belongs to shard 2/2"),
      std::string::npos);
}

TEST(ShardMerge, PointMissingFromItsShardIsNamed) {
  std::vector<MergeInput> shards = cut(2);
  shards[1].report.points.pop_back();
  const std::string message = bad_input_message([&] { merge_shard_reports(shards, {}); });
  EXPECT_NE(message.find("shard2.json has no point"), std::string::npos) << message;
}

TEST(ShardMerge, PointMeasuredTwiceIsRefused) {
  std::vector<MergeInput> shards = cut(2);
  shards[0].report.points.push_back(shards[0].report.points.front());
  EXPECT_NE(bad_input_message([&] { merge_shard_reports(shards, {}); }).find("shard1.json"),
            std::string::npos);
}

TEST(ShardMerge, RefusesShardsOfDifferentSweepsBuildsAndCounts) {
  {
    std::vector<MergeInput> shards = cut(2);
    shards[1].report.config.base.batch = 2;
    EXPECT_NE(bad_input_message([&] { merge_shard_reports(shards, {}); }).find("config.batch is 2"),
              std::string::npos);
  }
  {
    std::vector<MergeInput> shards = cut(2);
    shards[1].report.git_revision = "0123456789ab";
    EXPECT_NE(bad_input_message([&] { merge_shard_reports(shards, {}); }).find("from one build"),
              std::string::npos);
  }
  {
    std::vector<MergeInput> shards = cut(2);
    std::vector<MergeInput> other = cut(3);
    shards[1] = other[1];
    EXPECT_NE(bad_input_message([&] { merge_shard_reports(shards, {}); }).find("shard 2/3"),
              std::string::npos);
  }
  {
    std::vector<MergeInput> shards = cut(2);
    shards[1].report.config.counters = false;
    const std::string message = bad_input_message([&] { merge_shard_reports(shards, {}); });
    EXPECT_NE(message.find("config.counters"), std::string::npos) << message;
  }
  {
    std::vector<MergeInput> shards = cut(2);
    shards[1].report.config.shard.reset();
    EXPECT_NE(
        bad_input_message([&] { merge_shard_reports(shards, {}); }).find("not a shard report"),
        std::string::npos);
  }
}

TEST(ShardMerge, DifferentGpuModelsOnlyWhenAllowed) {
  std::vector<MergeInput> shards = cut(2);
  shards[1].report.device.name = "NVIDIA A100-SXM4-80GB";
  shards[1].report.device.cc_major = 8;
  shards[1].report.device.cc_minor = 0;
  EXPECT_NE(
      bad_input_message([&] { merge_shard_reports(shards, {}); }).find("--allow-different-gpus"),
      std::string::npos);
  MergeOptions allow;
  allow.allow_different_gpus = true;
  const MergeResult merged = merge_shard_reports(shards, allow);
  EXPECT_EQ(merged.report.sources[1].device.name, "NVIDIA A100-SXM4-80GB");
  for (const PointResult& p : merged.report.points) {
    EXPECT_EQ(merged.report.sources[*p.source].shard.index, shard_of_point(p.op, p.shape, 2));
  }
}

TEST(ShardMerge, MergedReportRoundTripsThroughJson) {
  const MergeResult merged = merge_shard_reports(cut(2), {});
  const Report back = report_from_json_text(report_to_json_text(merged.report), "merged");
  ASSERT_EQ(back.sources.size(), 2u);
  EXPECT_EQ(back.sources[1].shard, (ShardSpec{2, 2}));
  ASSERT_EQ(back.points.size(), merged.report.points.size());
  for (size_t i = 0; i < back.points.size(); ++i) {
    EXPECT_EQ(back.points[i].source, merged.report.points[i].source);
  }
  EXPECT_NE(bad_input_message([&] {
              merge_shard_reports({{"merged.json", back}}, {});
            }).find("already a merged report"),
            std::string::npos);
}

TEST(ShardMerge, ShardReportRoundTripsAndItsPlanSizeIsChecked) {
  const MergeInput shard = cut(3)[1];
  const std::string text = report_to_json_text(shard.report);
  const Report back = report_from_json_text(text, "shard");
  EXPECT_EQ(back.config.shard, (ShardSpec{2, 3}));
  std::string edited = text;
  const std::string planned = "\"planned_points\": 42";
  const size_t at = edited.find(planned);
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, planned.size(), "\"planned_points\": 41");
  EXPECT_NE(
      bad_input_message([&] { report_from_json_text(edited, "edited"); }).find("planned_points"),
      std::string::npos);
}

}  // namespace
}  // namespace rooflinectl
