// `rooflinectl profile --mode full` on the CPU: run 2's selected launches matched to run 1's,
// the FLOP set merged into launches and kernels, placement on the roof of the pipe the FLOPs ran
// on, and the report's JSON round trip with the mode, the FLOP sources and run 2's outcome.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "cupti/metrics.hpp"
#include "device/gpu_spec.hpp"
#include "io/profile_json.hpp"
#include "peaks/peak_sources.hpp"
#include "profile/full_mode.hpp"
#include "program/profile_assembly.hpp"
#include "render/svg/svg_profile_roofline.hpp"

namespace rooflinectl {
namespace {

using Range = std::map<std::string, double>;

LaunchRecord selected(uint64_t sequence, const std::string& name, uint32_t grid_x = 132) {
  LaunchRecord l;
  l.sequence = sequence;
  l.pid = 42;
  l.correlation = static_cast<uint32_t>(100 + sequence);
  l.api = "cuLaunchKernel";
  l.mangled_name = name;
  l.grid = {grid_x, 1, 1};
  l.block = {256, 1, 1};
  l.selected = true;
  return l;
}

TEST(MatchFlopRun, EqualSequencesMatchByIndex) {
  const std::vector<LaunchRecord> run = {selected(0, "a"), selected(3, "b"), selected(4, "a")};
  const std::vector<FlopMatch> matches = match_flop_run(run, run);
  ASSERT_EQ(matches.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(matches[i].run2_index) << matches[i].null_reason;
    EXPECT_EQ(*matches[i].run2_index, i);
    EXPECT_EQ(matches[i].null_reason, "");
  }
}

TEST(MatchFlopRun, AShorterRunTwoLeavesTheRestWithoutACounterpart) {
  const std::vector<LaunchRecord> run1 = {selected(0, "a"), selected(1, "b"), selected(2, "c")};
  const std::vector<LaunchRecord> run2 = {selected(0, "a")};
  const std::vector<FlopMatch> matches = match_flop_run(run1, run2);
  ASSERT_EQ(matches.size(), 3u);
  EXPECT_TRUE(matches[0].run2_index);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_FALSE(matches[i].run2_index);
    EXPECT_EQ(matches[i].null_reason, "run 2 made only 1 selected launch(es) in this process");
  }
}

TEST(MatchFlopRun, ADifferingLaunchNamesWhatRunTwoLaunched) {
  const std::vector<LaunchRecord> run1 = {selected(0, "_Z4gemmv"), selected(1, "copy")};
  std::vector<LaunchRecord> run2 = {selected(0, "_Z4gemmv", 66), selected(1, "copy")};
  run2[0].dynamic_shared_bytes = 1024;
  const std::vector<FlopMatch> matches = match_flop_run(run1, run2);
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_FALSE(matches[0].run2_index);
  EXPECT_EQ(matches[0].null_reason,
            "run 2 launched gemm() grid=(66,1,1) block=(256,1,1) smem=1024 at this index");
  // Matching is by index: the launch after a differing one still matches.
  EXPECT_TRUE(matches[1].run2_index);
}

TEST(DominantFlopPipe, TheLargestCountedClassAndItsRoof) {
  KernelCounters simt;
  simt.ffma_inst = 1e9;
  simt.fadd_inst = 0;
  simt.fmul_inst = 0;
  simt.tensor_bf16_flop = 0;
  auto pipe = dominant_flop_pipe(simt);
  ASSERT_TRUE(pipe);
  EXPECT_EQ(pipe->label, "fp32 SIMT");
  EXPECT_DOUBLE_EQ(pipe->flop, 2e9);  // an FFMA is 2 FLOPs
  EXPECT_EQ(pipe->pipe, Pipe::kFp32);

  KernelCounters gemm = simt;
  gemm.tensor_fp16_flop = 1e12;
  pipe = dominant_flop_pipe(gemm);
  ASSERT_TRUE(pipe);
  EXPECT_EQ(pipe->label, "fp16 tensor");
  EXPECT_EQ(pipe->pipe, Pipe::kTensor);
  EXPECT_EQ(pipe->dtype, Dtype::kFp16);

  KernelCounters tf32;
  tf32.tensor_tf32_flop = 5e9;
  pipe = dominant_flop_pipe(tf32);
  ASSERT_TRUE(pipe);
  EXPECT_EQ(pipe->label, "tf32 tensor");
  EXPECT_FALSE(pipe->pipe) << "the peak sets have no tf32 ceiling";

  KernelCounters none;
  none.tensor_bf16_flop = 0;
  EXPECT_FALSE(dominant_flop_pipe(none));
  EXPECT_FALSE(dominant_flop_pipe(KernelCounters{}));
}

/// Run 1's two ranges of a launch: the kernel (DRAM bytes, duration, bf16 tensor ops), then the
/// write-back sweep.
std::vector<Range> byte_ranges(double read, double write, double tensor, double ns) {
  return {{{kMetricDramReadBytes, read},
           {kMetricDramWriteBytes, write},
           {kMetricDurationNs, ns},
           {kMetricL2Bytes, 2 * (read + write)},
           {kMetricTensorBf16Ops, tensor}},
          {{kMetricDramReadBytes, 2e8}, {kMetricDramWriteBytes, 1e6}, {kMetricDurationNs, 5e4}}};
}

/// Run 2's one range of a launch: the FLOP set.
std::vector<Range> flop_ranges(double ffma, double tensor_bf16) {
  Range r;
  for (const auto& metric : flop_metric_names()) r[metric] = 0;
  r[kMetricFfmaInst] = ffma;
  r[kMetricTensorBf16Ops] = tensor_bf16;
  r[kMetricSmThroughputPct] = 60;
  return {r};
}

ProcessRecords process(int64_t pid, const std::string& role, int passes) {
  ProcessRecords p;
  p.pid = pid;
  p.complete = true;
  CounterSession session;
  session.role = role;
  session.passes = passes;
  session.replay = passes == 1 ? "user replay, one pass" : "kernel replay";
  p.sessions = {session};
  if (role == "bytes") {
    p.cache_policy = "flushed";
    p.sweep_method = "sweep";
  }
  return p;
}

KernelActivity activity_of(const LaunchRecord& l, uint64_t ns) {
  KernelActivity a;
  a.correlation = l.correlation;
  a.pid = l.pid;
  a.name = l.mangled_name;
  a.start_ns = 1000;
  a.end_ns = 1000 + ns;
  a.grid = {static_cast<int32_t>(l.grid[0]), 1, 1};
  a.block = {256, 1, 1};
  return a;
}

/// Run 1: a bf16 GEMM, an FFMA kernel (2·2^28·64 = 3.4e10 FLOP, no tensor work) twice, and an
/// unselected launch; run 2: the same selected launches with their FLOP set.
ProfileInputs full_mode_inputs() {
  ProcessRecords run1 = process(42, "bytes", 1);
  LaunchRecord gemm = selected(0, "_Z4gemmv");
  gemm.profiled = true;
  gemm.ranges = byte_ranges(1.5e8, 2e7, 1.1e11, 2e5);
  LaunchRecord ffma = selected(1, "_Z4ffmav");
  ffma.profiled = true;
  // 0.5 GB over 2 ms: 0.25 TB/s; 1.7e10 FFMA = 3.4e10 FLOP at I = 68 FLOP/B.
  ffma.ranges = byte_ranges(2.5e8, 2.5e8, 0, 2e6);
  LaunchRecord other = selected(2, "copy");
  other.selected = false;
  other.not_profiled_reason = "not matched by --kernel-regex";
  LaunchRecord ffma_again = ffma;
  ffma_again.sequence = 3;
  ffma_again.correlation = 103;
  run1.launches = {gemm, ffma, other, ffma_again};
  for (const auto& l : run1.launches) run1.activities.push_back(activity_of(l, 200000));

  ProcessRecords run2 = process(77, "flops", 9);
  LaunchRecord gemm2 = gemm;
  gemm2.ranges = flop_ranges(1e6, 1.1e11);
  LaunchRecord ffma2 = ffma;
  ffma2.ranges = flop_ranges(1.7e10, 0);
  LaunchRecord ffma2_again = ffma_again;
  ffma2_again.ranges = flop_ranges(1.7e10, 0);
  run2.launches = {gemm2, ffma2, other, ffma2_again};

  ProfileInputs inputs;
  inputs.processes = {run1};
  inputs.program.command = {"./app"};
  inputs.program.exit_code = 0;
  inputs.config.mode = kModeFull;
  inputs.flop_run = FlopRunInputs{{run2}, FlopRunOutcome{}};
  inputs.flop_run->outcome.exit_code = 0;
  inputs.flop_run->outcome.wall_time_s = 7.5;
  DeviceRecord device;
  device.name = "NVIDIA Test";
  device.cc_major = 9;
  inputs.devices[0] = device;
  GpuSpec spec;
  spec.id = "test-gpu";
  spec.name = "Test GPU";
  spec.cc_major = 9;
  spec.sm_count = 132;
  spec.hbm_bytes_per_s = {4.8e12, "test datasheet"};
  spec.dense_tensor_flop_per_s["bf16"] = {989e12, "test datasheet, bf16 dense"};
  spec.fp32_flop_per_s = {67e12, "test datasheet, fp32"};
  PeaksBlock block;
  block.used = RoofSource::kDatasheet;
  block.datasheet = datasheet_peak_set(&spec, "NVIDIA Test", 9, 0, 132);
  inputs.peaks[0] = block;
  return inputs;
}

TEST(FullModeAssembly, MergesRunTwoFlopsIntoLaunchesAndKernels) {
  const ProfileReport report = assemble_profile(full_mode_inputs());
  ASSERT_EQ(report.launches.size(), 4u);
  ASSERT_TRUE(report.flop_run);
  EXPECT_DOUBLE_EQ(report.flop_run->wall_time_s, 7.5);
  EXPECT_TRUE(report.warnings.empty()) << report.warnings.front();

  const ProfiledLaunch& gemm = report.launches[0];
  EXPECT_EQ(gemm.flop_source, "counted, run 2, kernel replay, 9 passes");
  ASSERT_TRUE(gemm.counters);
  // Bytes from run 1 only; FLOPs of every pipe from run 2; both sessions listed.
  EXPECT_DOUBLE_EQ(*gemm.counters->total.dram_read_bytes, 1.5e8);
  EXPECT_DOUBLE_EQ(*gemm.counters->total.ffma_inst, 1e6);
  ASSERT_EQ(gemm.counters->sessions.size(), 2u);
  EXPECT_EQ(gemm.counters->sessions[0].role, "bytes");
  EXPECT_EQ(gemm.counters->sessions[1].role, "flops");
  EXPECT_EQ(gemm.counters->passes, 9);
  ASSERT_TRUE(gemm.roofline) << gemm.roofline_null_reason;
  EXPECT_DOUBLE_EQ(gemm.roofline->flop, 1.1e11 + 2e6);  // every pipe's FLOPs, counted
  EXPECT_NE(gemm.verdict.find("(bf16 tensor FLOPs)"), std::string::npos) << gemm.verdict;

  // The SIMT-only kernel is placed on the fp32 roof: I = 3.4e10 FLOP / 5.01e8 B.
  const ProfiledLaunch& ffma = report.launches[1];
  ASSERT_TRUE(ffma.roofline) << ffma.roofline_null_reason;
  EXPECT_EQ(ffma.roofline->roof.pipe, Pipe::kFp32);
  EXPECT_DOUBLE_EQ(ffma.roofline->flop, 3.4e10);
  EXPECT_DOUBLE_EQ(ffma.roofline->roof.peak_flop_per_s, 67e12);
  EXPECT_NE(ffma.verdict.find("(fp32 SIMT FLOPs)"), std::string::npos) << ffma.verdict;
  ASSERT_TRUE(ffma.counters->total.sm_throughput_fraction);
  EXPECT_DOUBLE_EQ(*ffma.counters->total.sm_throughput_fraction, 0.6);

  EXPECT_EQ(report.launches[2].flop_source, "");
  EXPECT_EQ(report.launches[2].verdict, "not profiled");

  // The kernel table shows the placement of the median profiled launch.
  bool found = false;
  for (const KernelSummary& k : report.kernels) {
    if (k.name != "ffma()") continue;
    found = true;
    EXPECT_EQ(k.profiled_launches, 2);
    ASSERT_TRUE(k.roofline);
    EXPECT_EQ(k.roofline->roof.pipe, Pipe::kFp32);
  }
  EXPECT_TRUE(found);
}

// The chart draws the fp32 roof once a kernel is placed on it, from the report's roof source.
TEST(FullModeChart, DrawsTheFp32RoofOfSimtKernels) {
  const ProfileReport report = assemble_profile(full_mode_inputs());
  const ProfileChartRoofs roofs = profile_chart_roofs(report);
  ASSERT_TRUE(roofs.fp32_flop_per_s);
  EXPECT_DOUBLE_EQ(*roofs.fp32_flop_per_s, 67e12);
  ASSERT_TRUE(roofs.tensor_flop_per_s);
  EXPECT_DOUBLE_EQ(*roofs.tensor_flop_per_s, 989e12);
  const std::string svg = profile_roofline_svg(report);
  EXPECT_NE(svg.find(R"(data-pipe="fp32")"), std::string::npos);
  EXPECT_NE(svg.find("fp32 (SIMT) roof 67"), std::string::npos);
  EXPECT_FALSE(profile_chart_roofs(assemble_profile(ProfileInputs{})).fp32_flop_per_s);
}

TEST(FullModeAssembly, ALaunchRunTwoDidNotRepeatHasNoFlopsAndOneWarning) {
  ProfileInputs inputs = full_mode_inputs();
  // Run 2 launched another kernel at selected index 1 and stopped before index 2.
  auto& run2 = inputs.flop_run->processes[0].launches;
  run2[1].mangled_name = "_Z5otherv";
  run2.pop_back();
  const ProfileReport report = assemble_profile(inputs);
  const ProfiledLaunch& ffma = report.launches[1];
  EXPECT_EQ(ffma.flop_source, "");
  EXPECT_EQ(ffma.flop_null_reason,
            "run 2 launched other() grid=(132,1,1) block=(256,1,1) smem=0 at this index");
  EXPECT_FALSE(ffma.roofline);
  EXPECT_FALSE(ffma.counters->total.ffma_inst) << "never 0: null";
  EXPECT_NE(ffma.roofline_null_reason.find("no run-2 FLOPs: run 2 launched other()"),
            std::string::npos)
      << ffma.roofline_null_reason;
  EXPECT_EQ(report.launches[3].flop_null_reason,
            "run 2 made only 2 selected launch(es) in this process");
  EXPECT_TRUE(report.launches[0].roofline) << "the GEMM still matches";
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("full mode: 2 selected launch(es) have no FLOPs"),
            std::string::npos)
      << report.warnings[0];
}

TEST(FullModeAssembly, KernelReplayRefusedOrRunTwoFailedGivesReasonsNotZeros) {
  ProfileInputs refused = full_mode_inputs();
  LaunchRecord& twin = refused.flop_run->processes[0].launches[1];
  twin.profiled = false;
  twin.ranges.clear();
  twin.not_profiled_reason =
      "counter session failed: cuptiRangeProfilerStop failed: CUPTI_ERROR_OUT_OF_MEMORY";
  const ProfileReport with_refusal = assemble_profile(refused);
  EXPECT_EQ(with_refusal.launches[1].flop_null_reason,
            "run 2 (kernel replay): counter session failed: cuptiRangeProfilerStop failed: "
            "CUPTI_ERROR_OUT_OF_MEMORY");
  EXPECT_FALSE(with_refusal.launches[1].counters->total.fp32_flop());
  ASSERT_EQ(with_refusal.warnings.size(), 1u);
  EXPECT_NE(with_refusal.warnings[0].find("1 launch(es) have no FLOPs: the FLOP set failed"),
            std::string::npos);

  ProfileInputs failed = full_mode_inputs();
  failed.flop_run->outcome.exit_code = 1;
  failed.flop_run->outcome.failure = "the program exited with 1 in run 2";
  const ProfileReport without = assemble_profile(failed);
  for (const ProfiledLaunch& l : without.launches) {
    EXPECT_EQ(l.flop_source, "") << l.name;
    if (l.record.profiled) EXPECT_EQ(l.flop_null_reason, "the program exited with 1 in run 2");
  }
  EXPECT_TRUE(without.launches[0].roofline) << "run 1's bf16 tensor FLOPs still place the GEMM";
  ASSERT_EQ(without.warnings.size(), 1u);
  EXPECT_EQ(without.warnings[0],
            "full mode: no launch has FLOPs from run 2: the program exited with 1 in run 2");
}

TEST(FullModeReportJson, RoundTripsModeSourcesAndRunTwo) {
  ProfileReport report = assemble_profile(full_mode_inputs());
  report.tool_version = "0.0.0";
  report.timestamp_utc = "2026-12-05T00:00:00Z";
  const std::string text = profile_report_to_json_text(report);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("schema_minor_version"), kProfileSchemaMinorVersion);
  EXPECT_EQ(j.at("config").at("mode"), "full");
  EXPECT_DOUBLE_EQ(j.at("flop_run").at("wall_time_s").get<double>(), 7.5);
  EXPECT_EQ(j.at("launches").at(1).at("flop_source"), "counted, run 2, kernel replay, 9 passes");
  EXPECT_TRUE(j.at("launches").at(2).at("flop_source").is_null());
  EXPECT_EQ(j.at("launches").at(1).at("roofline").at("pipe"), "fp32");

  const ProfileReport back = profile_report_from_json_text(text, "memory");
  EXPECT_EQ(back.config.mode, kModeFull);
  ASSERT_TRUE(back.flop_run);
  EXPECT_EQ(back.launches[1].flop_source, report.launches[1].flop_source);
  EXPECT_EQ(back.launches[2].flop_null_reason, report.launches[2].flop_null_reason);
  EXPECT_EQ(profile_report_to_json_text(back), text);

  // A newer minor version is refused with both versions named; a bad mode names the key.
  nlohmann::json newer = j;
  newer["schema_minor_version"] = kProfileSchemaMinorVersion + 1;
  try {
    profile_report_from_json(newer, "newer.json");
    ADD_FAILURE() << "a newer minor version was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("schema_minor_version"), std::string::npos) << e.what();
  }
  nlohmann::json bad_mode = j;
  bad_mode["config"]["mode"] = "triple";
  EXPECT_THROW(profile_report_from_json(bad_mode, "bad.json"), Error);
  // A minor-0 report (no minor version, no FLOP sources, no run 2) still reads.
  nlohmann::json older = j;
  older.erase("schema_minor_version");
  older.erase("flop_run");
  older["config"]["mode"] = "single-pass";
  for (auto& l : older["launches"]) {
    l.erase("flop_source");
    l.erase("flop_null_reason");
  }
  const ProfileReport old = profile_report_from_json(older, "older.json");
  EXPECT_EQ(old.schema_minor_version, 0);
  EXPECT_FALSE(old.flop_run);
}

}  // namespace
}  // namespace rooflinectl
