// `rooflinectl profile` on the CPU: NVTX filters, launch selection, the environment that carries
// the filters to the injection library, raw records, the report assembled from synthetic
// records, and the exit status passed through.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "cupti/metrics.hpp"
#include "device/gpu_spec.hpp"
#include "io/profile_json.hpp"
#include "peaks/peak_sources.hpp"
#include "profile/demangle.hpp"
#include "profile/launch_selection.hpp"
#include "profile/nvtx_filter.hpp"
#include "profile/placed_verdict.hpp"
#include "program/child_process.hpp"
#include "program/profile_assembly.hpp"

namespace rooflinectl {
namespace {

using Stack = std::vector<std::string>;

TEST(NvtxFilter, MatchesNsightComputeStyleExpressions) {
  EXPECT_TRUE(NvtxFilter("A/").matches({"A"}));
  EXPECT_TRUE(NvtxFilter("A/").matches({"outer", "A", "inner"}));
  EXPECT_FALSE(NvtxFilter("A/").matches({"B"}));
  EXPECT_FALSE(NvtxFilter("A/").matches({}));
  EXPECT_TRUE(NvtxFilter("A/B/").matches({"A", "B"}));
  EXPECT_FALSE(NvtxFilter("A/B/").matches({"A", "x", "B"}));
  EXPECT_TRUE(NvtxFilter("A/*/B").matches({"A", "B"}));
  EXPECT_TRUE(NvtxFilter("A/*/B").matches({"A", "x", "y", "B"}));
  EXPECT_TRUE(NvtxFilter("A/+/B").matches({"A", "x", "B"}));
  EXPECT_FALSE(NvtxFilter("A/+/B").matches({"A", "B"}));
  EXPECT_FALSE(NvtxFilter("A/+/B").matches({"A", "x", "y", "B"}));
  EXPECT_TRUE(NvtxFilter("[A").matches({"A", "B"}));
  EXPECT_FALSE(NvtxFilter("[B").matches({"A", "B"}));
  EXPECT_TRUE(NvtxFilter("B]").matches({"A", "B"}));
  EXPECT_FALSE(NvtxFilter("A]").matches({"A", "B"}));
  EXPECT_TRUE(NvtxFilter("regex:lay.r_[0-9]+/").matches({"model", "layer_12"}));
  EXPECT_FALSE(NvtxFilter("regex:layer_[0-9]/").matches({"layer_12"}));
}

TEST(NvtxFilter, RefusesWhatItDoesNotSupportNamingTheExpression) {
  for (const char* bad : {"", "/", "A//B", "dom@A/", "A,B", "*/A", "A/+", "regex:(/"}) {
    try {
      NvtxFilter filter(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
      EXPECT_NE(std::string(e.what()).find(std::string("--nvtx-include '") + bad + "'"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_TRUE(any_nvtx_filter_matches({}, {}));
  EXPECT_TRUE(any_nvtx_filter_matches({NvtxFilter("A/"), NvtxFilter("B/")}, {"B"}));
  // An anchor alone ("regex:[") says why nothing is left of the expression.
  try {
    NvtxFilter filter("regex:[");
    ADD_FAILURE() << "accepted 'regex:['";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a leading '[' and a trailing ']' anchor the range stack"),
              std::string::npos)
        << e.what();
  }
}

TEST(LaunchSelector, AppliesRegexNvtxSkipSampleAndCountInOrder) {
  ProfileConfig config;
  config.kernel_regex = "gemm";
  config.launch_skip = 1;
  config.sample_every = 2;
  config.launch_count = 2;
  LaunchSelector selector(config);
  EXPECT_EQ(selector.decide("gelu_kernel", {}).reason, "not matched by --kernel-regex");
  EXPECT_EQ(selector.decide("sm90_gemm", {}).reason, "skipped by --launch-skip");
  EXPECT_TRUE(selector.decide("sm90_gemm", {}).profile);  // 1st of sm90_gemm after the skip
  EXPECT_EQ(selector.decide("sm90_gemm", {}).reason, "not sampled by --sample-every");
  EXPECT_TRUE(selector.decide("other_gemm", {}).profile);  // sampled per kernel name
  EXPECT_TRUE(selector.exhausted());
  EXPECT_EQ(selector.decide("sm90_gemm", {}).reason, "after --launch-count launches");

  ProfileConfig nvtx;
  nvtx.nvtx_include = {"mlp/"};
  LaunchSelector by_range(nvtx);
  EXPECT_FALSE(by_range.decide("k", {"attention"}).profile);
  EXPECT_TRUE(by_range.decide("k", {"block", "mlp"}).profile);

  ProfileConfig zero;
  zero.sample_every = 0;
  EXPECT_THROW(LaunchSelector{zero}, Error);
  ProfileConfig bad_regex;
  bad_regex.kernel_regex = "(";
  EXPECT_THROW(LaunchSelector{bad_regex}, Error);
}

TEST(LaunchSelector, LeavesOutNcclKernelsUnlessAsked) {
  EXPECT_TRUE(
      is_nccl_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_TRUE(
      is_nccl_kernel("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long)"));
  EXPECT_TRUE(is_nccl_kernel("void ncclKernel<1, 2>(ncclWork*)"));
  EXPECT_TRUE(is_nccl_kernel("void nccl::ncclDevKernel_Generic(int)"));
  EXPECT_FALSE(is_nccl_kernel("void my_ncclKernel_like(int)"));
  EXPECT_FALSE(is_nccl_kernel("void gemm<ncclKernel>(int)"));  // only in a template argument
  EXPECT_FALSE(is_nccl_kernel("nccl_pack_kernel"));

  ProfileConfig config;
  config.launch_skip = 1;
  LaunchSelector selector(config);
  const std::string all_reduce = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(int)";
  EXPECT_EQ(selector.decide(all_reduce, {}).reason, kNcclNotProfiledReason);
  // Not a candidate: --launch-skip 1 skips the next kernel, not the NCCL launch.
  EXPECT_EQ(selector.decide("gemm", {}).reason, "skipped by --launch-skip");
  EXPECT_TRUE(selector.decide("gemm", {}).profile);

  config.launch_skip = 0;
  config.include_nccl = true;
  LaunchSelector including(config);
  EXPECT_TRUE(including.decide(all_reduce, {}).profile);
}

std::map<std::string, std::string> g_environment;
const char* fake_getenv(const char* name) {
  const auto found = g_environment.find(name);
  return found == g_environment.end() ? nullptr : found->second.c_str();
}

TEST(ProfileEnvironment, CarriesTheConfigToTheLibraryAndBack) {
  ProfileConfig config;
  config.kernel_regex = "flash.*";
  config.nvtx_include = {"block/attention/", "regex:mlp_[0-9]/"};
  config.launch_skip = 3;
  config.launch_count = 10;
  config.sample_every = 4;
  config.counters = false;
  config.include_nccl = true;
  g_environment.clear();
  for (const auto& [name, value] : profile_environment(config, "/tmp/records")) {
    g_environment[name] = value;
  }
  std::string dir;
  const ProfileConfig back = profile_config_from_environment(fake_getenv, dir);
  EXPECT_EQ(dir, "/tmp/records");
  EXPECT_EQ(back.kernel_regex, config.kernel_regex);
  EXPECT_EQ(back.nvtx_include, config.nvtx_include);
  EXPECT_EQ(back.launch_skip, 3u);
  EXPECT_EQ(back.launch_count, std::optional<uint64_t>(10));
  EXPECT_EQ(back.sample_every, 4u);
  EXPECT_FALSE(back.counters);
  EXPECT_TRUE(back.include_nccl);
  g_environment["RFL_PROFILE_INCLUDE_NCCL"] = "0";
  EXPECT_FALSE(profile_config_from_environment(fake_getenv, dir).include_nccl);

  // The counter set of the run: the byte set unless full mode's run 2 asks for the FLOP set.
  EXPECT_EQ(counter_run_from_environment(fake_getenv), CounterRun::kBytes);
  for (const auto& [name, value] :
       profile_environment(config, "/tmp/records", CounterRun::kFlops)) {
    g_environment[name] = value;
  }
  EXPECT_EQ(counter_run_from_environment(fake_getenv), CounterRun::kFlops);
  g_environment["RFL_PROFILE_COUNTER_RUN"] = "both";
  EXPECT_THROW(counter_run_from_environment(fake_getenv), Error);
  g_environment.erase("RFL_PROFILE_COUNTER_RUN");
  EXPECT_EQ(counter_run_from_environment(fake_getenv), CounterRun::kBytes);

  g_environment["RFL_PROFILE_LAUNCH_COUNT"] = "";
  EXPECT_FALSE(profile_config_from_environment(fake_getenv, dir).launch_count);
  g_environment["RFL_PROFILE_LAUNCH_SKIP"] = "-1";
  EXPECT_THROW(profile_config_from_environment(fake_getenv, dir), Error);
}

TEST(Demangle, ReadableNamesAndUnmangledNamesUnchanged) {
  EXPECT_EQ(demangle_kernel_name("_Z6vecAddPKfS0_Pfi"),
            "vecAdd(float const*, float const*, float*, int)");
  EXPECT_EQ(demangle_kernel_name("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
}

TEST(ChildExit, StatusPassesThroughAsAShellReportsIt) {
  ChildExit exited;
  exited.exit_code = 7;
  EXPECT_EQ(pass_through_status(exited), 7);
  ChildExit killed;
  killed.signal = 9;
  EXPECT_EQ(pass_through_status(killed), 137);
}

/// check_runnable's message for `command`, or "" when it accepts it.
std::string runnable_error(const std::vector<std::string>& command) {
  try {
    check_runnable(command);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput) << e.what();
    return e.what();
  }
  return "";
}

TEST(ChildRunnable, FindsProgramsOnPathAndRefusesWhatExecWouldRefuse) {
  EXPECT_EQ(runnable_error({"sh", "-c", "true"}), "");
  EXPECT_EQ(runnable_error({"/bin/sh"}), "");
  EXPECT_EQ(runnable_error({"rfl-no-such-program"}),
            "cannot run 'rfl-no-such-program': No such file or directory");
  EXPECT_EQ(runnable_error({"/nonexistent/program"}),
            "cannot run '/nonexistent/program': No such file or directory");
  EXPECT_EQ(runnable_error({"/etc"}), "cannot run '/etc': Permission denied");
  EXPECT_EQ(runnable_error({"/etc/passwd"}), "cannot run '/etc/passwd': Permission denied");
  EXPECT_EQ(runnable_error({""}), "cannot run '': No such file or directory");
  EXPECT_NE(runnable_error({}).find("no program given"), std::string::npos);
  // A PATH without the program's directory does not find it; an explicit path still runs.
  const char* saved = std::getenv("PATH");
  const std::string path = saved ? saved : "";
  setenv("PATH", "/nonexistent", 1);
  EXPECT_EQ(runnable_error({"sh"}), "cannot run 'sh': No such file or directory");
  EXPECT_EQ(runnable_error({"/bin/sh"}), "");
  setenv("PATH", path.c_str(), 1);
}

constexpr double kH200Hbm = 4.8e12;
constexpr double kH200Bf16 = 989e12;

LaunchRecord launch(uint64_t sequence, uint32_t correlation, const std::string& name) {
  LaunchRecord l;
  l.sequence = sequence;
  l.pid = 42;
  l.correlation = correlation;
  l.api = "cuLaunchKernel";
  l.mangled_name = name;
  l.grid = {132, 1, 1};
  l.block = {256, 1, 1};
  return l;
}

KernelActivity activity(uint32_t correlation, const std::string& name, uint64_t ns,
                        uint32_t graph_id = 0) {
  KernelActivity a;
  a.correlation = correlation;
  a.pid = 42;
  a.name = name;
  a.start_ns = 1000000;
  a.end_ns = 1000000 + ns;
  a.graph_id = graph_id;
  a.grid = {132, 1, 1};
  a.block = {256, 1, 1};
  return a;
}

/// The two ranges of a profiled launch: the kernel, then the write-back sweep.
std::vector<std::map<std::string, double>> ranges(double read, double write, double writeback,
                                                  double tensor_flop, double ns) {
  std::map<std::string, double> kernel = {{kMetricDramReadBytes, read},
                                          {kMetricDramWriteBytes, write},
                                          {kMetricDurationNs, ns},
                                          {kMetricL2WriteSectors, (write + writeback) / 32},
                                          {kMetricL2Bytes, 3 * (read + write)},
                                          {kMetricTensorBf16Ops, tensor_flop},
                                          {kMetricTensorPipeInst, tensor_flop > 0 ? 1e6 : 0}};
  std::map<std::string, double> sweep = {
      {kMetricDramReadBytes, 2.4e8}, {kMetricDramWriteBytes, writeback}, {kMetricDurationNs, 5e4}};
  return {kernel, sweep};
}

ProfileInputs synthetic_inputs() {
  ProcessRecords p;
  p.pid = 42;
  p.complete = true;
  p.cache_policy = "flushed";
  p.sweep_method = "sweep";
  CounterSession bytes;
  bytes.role = "bytes";
  bytes.passes = 1;
  p.sessions = {bytes};
  // A GEMM: 1.1e11 FLOP over 0.2 GB in 0.2 ms → compute-bound on a 989 TFLOP/s, 4.8 TB/s roof.
  LaunchRecord gemm = launch(0, 10, "_Z4gemmv");
  gemm.nvtx_path = {"block", "mlp"};
  gemm.profiled = true;
  gemm.ranges = ranges(1.5e8, 2e7, 3e7, 1.1e11, 2e5);
  // A streaming kernel: 1 GB in 0.25 ms = 4 TB/s, 83% of the DRAM roof, no tensor work.
  LaunchRecord copy = launch(1, 11, "copy_kernel");
  copy.profiled = true;
  copy.ranges = ranges(5e8, 4.5e8, 5e7, 0, 2.5e5);
  LaunchRecord skipped = launch(2, 12, "copy_kernel");
  skipped.not_profiled_reason = "not sampled by --sample-every";
  LaunchRecord captured = launch(3, 14, "copy_kernel");
  captured.captured = true;
  captured.not_profiled_reason = "captured into a CUDA graph";
  p.launches = {gemm, copy, skipped, captured};
  p.activities = {activity(10, "_Z4gemmv", 200000), activity(11, "copy_kernel", 250000),
                  activity(12, "copy_kernel", 150000), activity(13, "graph_node", 400000, 5),
                  activity(99, "rooflinectl_flush", 1000000),
                  // The library's flush and sweep inside a launch's callback share its correlation.
                  activity(10, "rooflinectl_flush", 1000000), activity(11, "WaitNs", 3000)};
  p.tool_correlations = {10, 10, 11, 11, 99};

  ProfileInputs inputs;
  inputs.processes = {p};
  inputs.program.command = {"./app"};
  inputs.program.exit_code = 0;
  DeviceRecord device;
  device.name = "NVIDIA Test";
  device.cc_major = 9;
  device.cc_minor = 0;
  inputs.devices[0] = device;
  GpuSpec spec;
  spec.id = "test-gpu";
  spec.name = "Test GPU";
  spec.cc_major = 9;
  spec.sm_count = 132;
  spec.hbm_bytes_per_s = {kH200Hbm, "test datasheet"};
  spec.dense_tensor_flop_per_s["bf16"] = {kH200Bf16, "test datasheet, bf16 dense"};
  spec.fp32_flop_per_s = {67e12, "test datasheet, fp32"};
  PeaksBlock block;
  block.used = RoofSource::kDatasheet;
  block.datasheet = datasheet_peak_set(&spec, "NVIDIA Test", 9, 0, 132);
  inputs.peaks[0] = block;
  return inputs;
}

TEST(ProfileAssembly, JoinsPlacesAndGroupsLaunches) {
  const ProfileReport report = assemble_profile(synthetic_inputs());
  ASSERT_EQ(report.launches.size(), 4u) << "three recorded launches and one graph node; no flush";
  EXPECT_DOUBLE_EQ(report.total_kernel_time_s, 1e-3);  // 0.2 + 0.25 + 0.15 + 0.4 ms
  const ProfiledLaunch& gemm = report.launches[0];
  EXPECT_EQ(gemm.name, "gemm()");
  ASSERT_TRUE(gemm.duration_s);
  EXPECT_DOUBLE_EQ(*gemm.duration_s, 2e-4);
  ASSERT_TRUE(gemm.roofline) << gemm.roofline_null_reason;
  EXPECT_EQ(gemm.roofline->bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(gemm.roofline->dram_bytes, 1.5e8 + 2e7 + 3e7);  // isolated: + write-back
  EXPECT_EQ(gemm.roofline->bytes_basis, "dram_isolated");
  EXPECT_DOUBLE_EQ(gemm.roofline->flop, 1.1e11);
  EXPECT_NE(gemm.verdict.find("compute-bound"), std::string::npos) << gemm.verdict;

  const ProfiledLaunch& copy = report.launches[1];
  EXPECT_FALSE(copy.roofline);
  // 0.95 GB in its window over 0.25 ms: 79% of the DRAM roof (the write-back comes after it).
  EXPECT_NE(copy.verdict.find("memory-bound, DRAM at 79%"), std::string::npos) << copy.verdict;
  EXPECT_EQ(report.launches[2].verdict, "not profiled");
  const ProfiledLaunch& node = report.launches[3];
  EXPECT_EQ(node.record.api, "cuGraphLaunch");
  EXPECT_NE(node.record.not_profiled_reason.find("CUDA graph 5"), std::string::npos);

  ASSERT_EQ(report.kernels.size(), 3u);
  EXPECT_EQ(report.kernels[0].name, "copy_kernel");  // 0.4 ms in two launches: longest first
  EXPECT_EQ(report.kernels[0].launches, 2);
  EXPECT_EQ(report.kernels[0].profiled_launches, 1);
  EXPECT_DOUBLE_EQ(report.kernels[0].share_of_gpu_time, 0.4);
  ASSERT_TRUE(report.kernels[0].median_time_s);
  EXPECT_DOUBLE_EQ(*report.kernels[0].median_time_s, 2e-4);
  EXPECT_EQ(report.kernels[0].key, "copy_kernel grid=(132,1,1) block=(256,1,1) smem=0 nvtx=-");
  EXPECT_EQ(report.kernels[2].key, "gemm() grid=(132,1,1) block=(256,1,1) smem=0 nvtx=block/mlp");
  EXPECT_TRUE(report.complete);
  EXPECT_NE(report.warnings.back().find("1 kernel launch call(s) were captured"), std::string::npos)
      << report.warnings.back();
}

TEST(VerdictPercent, WholePercentAndLessThanOneForTinyFractions) {
  EXPECT_EQ(verdict_percent(0.834), "83%");
  EXPECT_EQ(verdict_percent(1.009), "101%");
  EXPECT_EQ(verdict_percent(0.0051), "1%");
  EXPECT_EQ(verdict_percent(0.0049), "<1%");  // 28 KiB in 912 ns: moved something, not 0%
  EXPECT_EQ(verdict_percent(1e-9), "<1%");
  EXPECT_EQ(verdict_percent(0.0), "0%");
}

TEST(ProfileAssembly, NamesWhatItCouldNotDo) {
  ProfileInputs inputs = synthetic_inputs();
  inputs.processes[0].complete = false;
  inputs.processes[0].launches[0].ranges.pop_back();  // the sweep range is missing
  inputs.processes[0].launches[1].ranges[0][kMetricTensorPipeInst] = 5e5;  // fp16 tensor work
  inputs.processes[0].activities.erase(inputs.processes[0].activities.begin());
  const ProfileReport report = assemble_profile(inputs);
  EXPECT_FALSE(report.complete);
  EXPECT_NE(report.launches[0].roofline_null_reason.find("1 counter ranges"), std::string::npos);
  EXPECT_FALSE(report.launches[0].duration_s);
  EXPECT_NE(report.launches[0].duration_null_reason.find("did not exit normally"),
            std::string::npos);
  EXPECT_NE(report.launches[1].verdict.find("non-bf16 tensor work"), std::string::npos);

  ProfileInputs nccl = synthetic_inputs();
  for (int i = 0; i < 2; ++i) {
    LaunchRecord all_reduce = launch(10 + i, 90 + i, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    all_reduce.not_profiled_reason = kNcclNotProfiledReason;
    nccl.processes[0].launches.push_back(all_reduce);
  }
  const ProfileReport with_nccl = assemble_profile(nccl);
  ASSERT_FALSE(with_nccl.warnings.empty());
  EXPECT_EQ(
      with_nccl.warnings.back(),
      "2 launch(es) of NCCL kernels timed, not profiled (ncclDevKernel_AllReduce_Sum_f32_RING_LL): "
      "serializing a collective's launches can hang it; --include-nccl profiles them");

  ProfileInputs empty;
  empty.program.exit_code = 0;
  const ProfileReport none = assemble_profile(empty);
  ASSERT_EQ(none.warnings.size(), 1u);
  EXPECT_EQ(none.warnings[0], "the program launched no CUDA kernel");
}

TEST(ProfileRawRecords, RoundTripAndACutOffLastLine) {
  LaunchRecord l = launch(3, 77, "_Z1kv");
  l.nvtx_path = {"a", "b"};
  l.profiled = true;
  l.ranges = ranges(1, 2, 3, 4, 5);
  const KernelActivity a = activity(77, "_Z1kv", 1234);
  const std::string text = simple_line(kRawProcess, "pid", 42) + "\n" + launch_record_line(l) +
                           "\n" + kernel_activity_line(a) + "\n" +
                           simple_line(kRawToolLaunch, "correlation", 5) + "\n" +
                           simple_line(kRawGraphLaunch, "correlation", 6) + "\n" +
                           simple_line(kRawEnd, "launches", 1) + "\n";
  const ProcessRecords r = parse_process_records(text, "raw.jsonl");
  EXPECT_EQ(r.pid, 42);
  ASSERT_EQ(r.launches.size(), 1u);
  EXPECT_EQ(r.launches[0].nvtx_path, l.nvtx_path);
  EXPECT_EQ(r.launches[0].ranges, l.ranges);
  EXPECT_EQ(r.launches[0].grid, l.grid);
  ASSERT_EQ(r.activities.size(), 1u);
  EXPECT_EQ(r.activities[0].end_ns - r.activities[0].start_ns, 1234u);
  EXPECT_EQ(r.tool_correlations, std::vector<uint32_t>{5});
  EXPECT_EQ(r.graph_launches, 1u);
  EXPECT_TRUE(r.complete);

  const ProcessRecords cut = parse_process_records(text.substr(0, text.size() - 10), "raw.jsonl");
  EXPECT_FALSE(cut.complete);
  ASSERT_EQ(cut.warnings.size(), 1u);
  EXPECT_NE(cut.warnings[0].find("line 6 is cut off"), std::string::npos) << cut.warnings[0];
  EXPECT_THROW(parse_process_records("{\"record\": \"launch\"}\n", "raw.jsonl"), Error);
  EXPECT_THROW(parse_process_records("not json\n", "raw.jsonl"), Error);
}

TEST(ProfileReportJson, CarriesProgramSummaryKernelsAndLaunches) {
  const ProfileReport report = assemble_profile(synthetic_inputs());
  const auto j = profile_report_to_json(report);
  EXPECT_EQ(j.at("kind"), "profile");
  EXPECT_EQ(j.at("schema_version"), kProfileSchemaVersion);
  EXPECT_EQ(j.at("program").at("exit_code"), 0);
  EXPECT_TRUE(j.at("program").at("signal").is_null());
  EXPECT_EQ(j.at("summary").at("launches"), 4);
  EXPECT_EQ(j.at("summary").at("profiled_launches"), 2);
  EXPECT_EQ(j.at("kernels").size(), 3u);
  EXPECT_EQ(j.at("launches").at(0).at("roofline").at("bound"), "compute");
  EXPECT_TRUE(j.at("launches").at(1).at("roofline").is_null());
  EXPECT_FALSE(j.at("launches").at(1).at("roofline_null_reason").get<std::string>().empty());
  EXPECT_DOUBLE_EQ(j.at("launches").at(0).at("counters").at("dram_bytes_isolated").get<double>(),
                   2e8);
}

}  // namespace
}  // namespace rooflinectl
