// compare_profiles: kernels of two profile reports matched by key, the time gate on the launch
// durations (threshold, Mann-Whitney with Holm, --min-share, power), the counter gate (DRAM
// bytes, bf16 tensor FLOPs), the refusals (nothing matched, another GPU, no kernel testable),
// and the committed H200 block profile compared with itself. Synthetic reports are built here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compare/compare_power.hpp"
#include "compare/profile_compare.hpp"
#include "compare/significance.hpp"
#include "core/error.hpp"
#include "io/profile_json.hpp"
#include "render/profile_compare_writer.hpp"

namespace rooflinectl {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `n` durations around `median_s`, spread by ±`spread` (relative) in a fixed pattern.
std::vector<double> durations(size_t n, double median_s, double spread = 0.002) {
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) {
    const double step = n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0.5;
    out.push_back(median_s * (1 + spread * (2 * step - 1)));
  }
  return out;
}

std::vector<double> scaled(std::vector<double> values, double factor) {
  for (double& v : values) v *= factor;
  return values;
}

KernelSummary kernel(const std::string& name, std::vector<double> times, double share) {
  KernelSummary k;
  k.name = name;
  k.grid = {128, 1, 1};
  k.block = {256, 1, 1};
  k.nvtx_path = {"step"};
  k.key = name + " grid=(128,1,1) block=(256,1,1) smem=0 nvtx=step";
  k.launches = static_cast<int>(times.size());
  k.durations_s = std::move(times);
  for (const double t : k.durations_s) k.total_time_s += t;
  k.share_of_gpu_time = share;
  return k;
}

// Counters of the median launch: `dram_bytes` read in the window, no write-back, and
// `tensor_flop` bf16 tensor FLOPs.
void set_counters(KernelSummary& k, double dram_bytes, double tensor_flop) {
  CounterResult c;
  c.total.dram_read_bytes = dram_bytes;
  c.total.dram_write_bytes = 0.0;
  c.dram_writeback_bytes = 0.0;
  c.total.tensor_bf16_flop = tensor_flop;
  k.counters = c;
}

void set_compute_bound(KernelSummary& k) {
  RooflinePoint p;
  p.bound = Bound::kCompute;
  p.binding_level = RoofLevel::kCompute;
  p.fraction_of_roof = 0.8;
  k.roofline = p;
}

ProfileReport profile(std::vector<KernelSummary> kernels, const std::string& gpu = "NVIDIA H200") {
  ProfileReport r;
  DeviceRecord d;
  d.name = gpu;
  d.cc_major = 9;
  d.sm_count = 132;
  r.devices = {d};
  r.kernels = std::move(kernels);
  return r;
}

const KernelComparison& find(const ProfileCompareResult& r, const std::string& name) {
  for (const auto& k : r.kernels) {
    if (k.name == name) return k;
  }
  throw std::runtime_error("no kernel " + name);
}

// The bad-input message compare_profiles throws ("" if it does not).
std::string refusal(const ProfileReport& base, const ProfileReport& current,
                    const ProfileCompareOptions& options = {}) {
  try {
    compare_profiles(base, current, options);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    return e.what();
  }
  return "";
}

TEST(PoweredFamily, KeepsTheLargestFamilyEveryMemberOfWhichCanReachAlpha) {
  // 10 vs 10 launches: floor 1.8e-4 (normal approximation at complete separation); 5 vs 5: 0.012.
  EXPECT_EQ(powered_family({{"a", 10, 10}, {"b", 5, 5}, {"c", 10, 10}}),
            (std::vector<size_t>{0, 2}));
  EXPECT_TRUE(powered_family({{"a", 5, 5}, {"b", 3, 3}}).empty());
  EXPECT_TRUE(powered_family({}).empty());
  // 60 kernels of 10 vs 10: 60 x 1.8e-4 >= 0.01, so only the largest k with k x floor < alpha.
  const std::vector<FamilyMember> many(60, FamilyMember{"k", 10, 10});
  const size_t kept = powered_family(many).size();
  EXPECT_LT(min_adjusted_p_value(kept, 10, 10), kMannWhitneyAlpha);
  EXPECT_GE(min_adjusted_p_value(kept + 1, 10, 10), kMannWhitneyAlpha);
}

TEST(KernelLabel, ShortensTheNameAndKeepsTheLaunchConfiguration) {
  const std::string name(200, 'x');
  const std::string key = name + " grid=(1,1,1) block=(32,1,1) smem=0 nvtx=a/b";
  EXPECT_EQ(kernel_label(key, name), std::string(kKernelLabelNameChars - 3, 'x') +
                                         "... grid=(1,1,1) block=(32,1,1) smem=0 "
                                         "nvtx=a/b");
  EXPECT_EQ(kernel_label("gemm grid=(1,1,1)", "gemm"), "gemm grid=(1,1,1)");
}

TEST(ProfileCompare, KernelOneAndAHalfTimesSlowerOverTenLaunchesIsARegression) {
  const std::vector<double> base_times = durations(10, 100e-6);
  const auto base =
      profile({kernel("gemm", base_times, 0.9), kernel("copy", durations(10, 5e-6), 0.1)});
  const auto current = profile(
      {kernel("gemm", scaled(base_times, 1.5), 0.9), kernel("copy", durations(10, 5e-6), 0.1)});
  const ProfileCompareResult r = compare_profiles(base, current, {});
  const KernelComparison& gemm = find(r, "gemm");
  EXPECT_EQ(gemm.verdict, Verdict::kSlower) << gemm.reason;
  EXPECT_TRUE(gemm.time_gated);
  ASSERT_TRUE(gemm.time && gemm.time->p_value_adjusted);
  EXPECT_LT(*gemm.time->p_value_adjusted, kMannWhitneyAlpha);
  EXPECT_NEAR(gemm.time->relative_change, 0.5, 1e-9);
  EXPECT_TRUE(contains(gemm.reason, "+50.0%")) << gemm.reason;
  EXPECT_EQ(find(r, "copy").verdict, Verdict::kSame);
  EXPECT_EQ(r.time_family_size, 2u);
  EXPECT_EQ(r.exit_code(), 1);
  const std::string table = format_profile_compare_table(r);
  EXPECT_TRUE(contains(table, "slower: gemm grid=(128,1,1)")) << table;
  EXPECT_TRUE(contains(table, "exit 1")) << table;
}

TEST(ProfileCompare, IdenticalProfilesAreTheSame) {
  const auto base = profile({kernel("gemm", durations(10, 100e-6), 1.0)});
  const ProfileCompareResult r = compare_profiles(base, base, {});
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].verdict, Verdict::kSame) << r.kernels[0].reason;
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(ProfileCompare, NoiseWithinTheThresholdIsTheSame) {
  // ±2% spread and medians 1% apart: separable perhaps, but within the 5% time threshold.
  const auto base = profile({kernel("gemm", durations(20, 100e-6, 0.02), 1.0)});
  const auto current = profile({kernel("gemm", durations(20, 101e-6, 0.02), 1.0)});
  const ProfileCompareResult r = compare_profiles(base, current, {});
  EXPECT_EQ(r.kernels[0].verdict, Verdict::kSame) << r.kernels[0].reason;
  EXPECT_TRUE(contains(r.kernels[0].reason, "within 5%")) << r.kernels[0].reason;
  EXPECT_EQ(r.exit_code(), 0);
}

TEST(ProfileCompare, MoreDramBytesOnAMemoryBoundKernelIsARegressionByCounters) {
  KernelSummary b = kernel("gelu", durations(10, 90e-6), 1.0);
  KernelSummary c = b;
  set_counters(b, 256e6, 0);
  set_counters(c, 256e6 * 1.1, 0);
  const ProfileCompareResult r = compare_profiles(profile({b}), profile({c}), {});
  const KernelComparison& k = r.kernels[0];
  EXPECT_EQ(k.verdict, Verdict::kSlower) << k.reason;
  EXPECT_TRUE(contains(k.reason, "counters up: dram_bytes +10.0% (2.56e+08 -> 2.816e+08)"))
      << k.reason;
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(ProfileCompare, DramBytesOfAComputeBoundKernelAreNotGated) {
  KernelSummary b = kernel("gemm", durations(10, 300e-6), 1.0);
  set_compute_bound(b);
  KernelSummary c = b;
  set_counters(b, 300e6, 2.7e11);
  set_counters(c, 300e6 * 1.1, 2.7e11);
  const ProfileCompareResult r = compare_profiles(profile({b}), profile({c}), {});
  const KernelComparison& k = r.kernels[0];
  EXPECT_EQ(k.verdict, Verdict::kSame) << k.reason;
  EXPECT_TRUE(contains(k.traffic_note, "compute-bound")) << k.traffic_note;
}

TEST(ProfileCompare, MoreTensorFlopsIsARegressionAndFewerAnImprovement) {
  KernelSummary b = kernel("gemm", durations(10, 300e-6), 1.0);
  KernelSummary up = b;
  KernelSummary down = b;
  set_counters(b, 300e6, 2.0e11);
  set_counters(up, 300e6, 2.1e11);
  set_counters(down, 300e6, 1.0e11);
  EXPECT_EQ(compare_profiles(profile({b}), profile({up}), {}).kernels[0].verdict, Verdict::kSlower);
  EXPECT_EQ(compare_profiles(profile({b}), profile({down}), {}).kernels[0].verdict,
            Verdict::kFaster);
}

TEST(ProfileCompare, UnderpoweredKernelIsInconclusiveWithTheLaunchesItNeeds) {
  const auto base = profile(
      {kernel("gemm", durations(10, 100e-6), 0.6), kernel("attention", durations(5, 80e-6), 0.4)});
  const ProfileCompareResult r = compare_profiles(base, base, {});
  EXPECT_EQ(find(r, "gemm").verdict, Verdict::kSame);
  const KernelComparison& attention = find(r, "attention");
  EXPECT_EQ(attention.verdict, Verdict::kInconclusive) << attention.reason;
  EXPECT_FALSE(attention.time_gated);
  const size_t needed = equal_samples_needed(2, kMannWhitneyAlpha);
  EXPECT_TRUE(contains(attention.reason, "5 base and 5 new launches")) << attention.reason;
  EXPECT_TRUE(contains(attention.reason, "needs " + std::to_string(needed) + " launches in both"))
      << attention.reason;
  EXPECT_EQ(r.time_family_size, 1u);
  EXPECT_EQ(r.exit_code(), 0);  // inconclusive fails only with --strict
  ProfileCompareOptions strict;
  strict.gate.strict = true;
  EXPECT_EQ(compare_profiles(base, base, strict).exit_code(), 1);
}

TEST(ProfileCompare, RefusesWhenNoKernelCanBeTestedByTime) {
  const auto base = profile({kernel("gemm", durations(3, 100e-6), 1.0)});
  const std::string what = refusal(base, base);
  EXPECT_TRUE(contains(what, "the time gate cannot test any kernel above --min-share 1%")) << what;
  EXPECT_TRUE(contains(what, "has 3 base and 3 new launches")) << what;
  EXPECT_TRUE(contains(what, "needs " + std::to_string(equal_samples_needed(1, kMannWhitneyAlpha)) +
                                 " launches in both reports"))
      << what;
}

TEST(ProfileCompare, NothingMatchedIsRefusedWithKeysOfEachSide) {
  const auto base = profile({kernel("gemm", durations(10, 100e-6), 1.0)});
  const auto current = profile({kernel("gemm_v2", durations(10, 100e-6), 1.0)});
  const std::string what = refusal(base, current);
  EXPECT_TRUE(contains(what, "no kernel of the new profile matches one of the base profile"))
      << what;
  EXPECT_TRUE(contains(what, "the base has 1 kernel e.g. 'gemm grid=(128,1,1)")) << what;
  EXPECT_TRUE(contains(what, "the new 1 e.g. 'gemm_v2 grid=")) << what;
}

TEST(ProfileCompare, DifferentGpusAreRefusedUnlessAllowed) {
  const auto base = profile({kernel("gemm", durations(10, 100e-6), 1.0)});
  const auto current = profile({kernel("gemm", durations(10, 100e-6), 1.0)}, "NVIDIA H100");
  const std::string what = refusal(base, current);
  EXPECT_TRUE(contains(what, "different GPUs: base 'NVIDIA H200'")) << what;
  EXPECT_TRUE(contains(what, "--allow-different-gpu")) << what;
  ProfileCompareOptions allow;
  allow.gate.allow_different_gpu = true;
  const ProfileCompareResult r = compare_profiles(base, current, allow);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_TRUE(contains(r.warnings[0], "different GPUs compared")) << r.warnings[0];
}

TEST(ProfileCompare, DifferentSchemaVersionsAreRefused) {
  const auto base = profile({kernel("gemm", durations(10, 100e-6), 1.0)});
  auto current = base;
  current.schema_version = kProfileSchemaVersion + 1;
  EXPECT_TRUE(contains(refusal(base, current), "different schema versions"));
}

TEST(ProfileCompare, BelowMinShareTimeIsNotGatedButCountersAre) {
  KernelSummary small = kernel("fill", durations(10, 4e-6), 0.005);
  KernelSummary small_new = kernel("fill", scaled(durations(10, 4e-6), 1.5), 0.005);
  const auto base = profile({kernel("gemm", durations(10, 100e-6), 0.995), small});
  const auto current = profile({kernel("gemm", durations(10, 100e-6), 0.995), small_new});
  const ProfileCompareResult r = compare_profiles(base, current, {});
  const KernelComparison& fill = find(r, "fill");
  EXPECT_EQ(fill.verdict, Verdict::kSame) << fill.reason;
  EXPECT_FALSE(fill.time_gated);
  EXPECT_TRUE(contains(fill.reason,
                       "0.5% of the base's GPU time, below --min-share 1%: time not "
                       "gated"))
      << fill.reason;
  EXPECT_EQ(r.time_family_size, 1u);

  set_counters(small, 64e6, 0);
  set_counters(small_new, 64e6 * 1.2, 0);
  const auto more_bytes =
      compare_profiles(profile({kernel("gemm", durations(10, 100e-6), 0.995), small}),
                       profile({kernel("gemm", durations(10, 100e-6), 0.995), small_new}), {});
  EXPECT_EQ(find(more_bytes, "fill").verdict, Verdict::kSlower);

  ProfileCompareOptions every;
  every.min_share = 0;
  EXPECT_EQ(find(compare_profiles(base, current, every), "fill").verdict, Verdict::kSlower);
}

TEST(ProfileCompare, RemovedWarnsAndAddedPasses) {
  const auto base = profile(
      {kernel("gemm", durations(10, 100e-6), 0.9), kernel("old", durations(10, 10e-6), 0.1)});
  const auto current = profile(
      {kernel("gemm", durations(10, 100e-6), 0.9), kernel("new", durations(10, 10e-6), 0.1)});
  const ProfileCompareResult r = compare_profiles(base, current, {});
  EXPECT_EQ(find(r, "old").verdict, Verdict::kRemoved);
  EXPECT_EQ(find(r, "new").verdict, Verdict::kAdded);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_TRUE(contains(r.warnings[0], "missing from the new one")) << r.warnings[0];
  EXPECT_EQ(r.exit_code(), 0);
  ProfileCompareOptions strict;
  strict.gate.strict = true;
  EXPECT_EQ(compare_profiles(base, current, strict).exit_code(), 1);
}

TEST(ProfileCompare, AboveItsRoofInTheNewReportFails) {
  KernelSummary b = kernel("gemm", durations(10, 100e-6), 1.0);
  KernelSummary c = b;
  set_compute_bound(c);
  c.roofline->above_roof = true;
  c.roofline->fraction_of_roof = 1.3;
  const ProfileCompareResult r = compare_profiles(profile({b}), profile({c}), {});
  EXPECT_EQ(r.kernels[0].verdict, Verdict::kFailed);
  EXPECT_TRUE(contains(r.kernels[0].reason, "in the new report: above the")) << r.kernels[0].reason;
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(ProfileCompare, CommittedBlockProfileAgainstItselfHasNoRegression) {
  const ProfileReport block =
      load_profile_report(std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-profile-block.json");
  const ProfileCompareResult r = compare_profiles(block, block, {});
  EXPECT_EQ(r.regressions(), 0u);
  EXPECT_EQ(r.exit_code(), 0);
  // The nine kernels of the 8 timed iterations (8 or 16 launches) reach alpha together after the
  // Holm adjustment; those with 1-5 launches cannot (5 vs 5 launches: p >= 0.012 at best alone).
  EXPECT_EQ(r.time_family_size, 9u);
  EXPECT_EQ(r.count(Verdict::kSame) + r.count(Verdict::kInconclusive), block.kernels.size());
  for (const auto& k : r.kernels) {
    if (k.time_gated) {
      EXPECT_GE(k.base_launches, 8);
      EXPECT_EQ(k.verdict, Verdict::kSame);
    }
    if (k.verdict == Verdict::kInconclusive) EXPECT_TRUE(contains(k.reason, "time not gated"));
  }
  const nlohmann::ordered_json json = profile_compare_to_json(r);
  EXPECT_EQ(json.begin().key(), "profile_compare_schema_version");
  EXPECT_EQ(json["kernels"].size(), block.kernels.size());
  EXPECT_TRUE(contains(format_profile_compare_markdown(r), "no regression"));
}

}  // namespace
}  // namespace rooflinectl
