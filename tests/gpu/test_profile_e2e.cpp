// `rooflinectl profile` on a plain CUDA C++ program (tests/programs/profile_target.cu) whose
// kernels' traffic and FLOPs are known: the streaming kernel moves 2 × 256 MiB through DRAM,
// the cuBLAS bf16 GEMM does 2·4096³ tensor FLOPs, the graph-launched kernels are timed but not
// profiled, NVTX ranges and filters select launches, and the program's exit status passes
// through.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_rooflinectl.hpp"

#ifndef RFL_PROFILE_TARGET
#error "RFL_PROFILE_TARGET (path of tests/programs/profile_target) must be defined by the build"
#endif

namespace rooflinectl {
namespace {

using Json = nlohmann::json;

constexpr double kScaleDramBytes = 2.0 * 256.0 * 1024 * 1024;  // read once + written once
constexpr double kGemmFlop = 2.0 * 4096.0 * 4096.0 * 4096.0;
constexpr double kBytesTolerance = 0.02;
constexpr double kFlopTolerance = 0.01;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

Json profile(const std::string& options, const std::string& program_args, int expected_status) {
  const std::string path = temp_path("rooflinectl-profile-e2e.json");
  std::filesystem::remove(path);
  EXPECT_EQ(run_rooflinectl("profile --quiet -o " + path + " " + options + " -- " +
                            RFL_PROFILE_TARGET + " " + program_args + " > /dev/null"),
            expected_status);
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return Json::parse(in);
}

std::string nvtx_of(const Json& launch) {
  std::string out;
  for (const auto& range : launch.at("nvtx"))
    out += (out.empty() ? "" : "/") + range.get<std::string>();
  return out;
}

TEST(ProfileEndToEnd, CountsBytesAndFlopsOfAPlainCudaProgram) {
  const Json report = profile("", "", 0);
  EXPECT_EQ(report.at("kind"), "profile");
  EXPECT_EQ(report.at("program").at("exit_code"), 0);
  EXPECT_TRUE(report.at("program").at("complete").get<bool>());
  int scale = 0, unranged = 0, gemm_profiled = 0, graph = 0;
  double gemm_flop = 0;
  for (const Json& launch : report.at("launches")) {
    const std::string name = launch.at("name");
    SCOPED_TRACE(name + " nvtx=" + nvtx_of(launch));
    EXPECT_FALSE(launch.at("duration_s").is_null()) << "every launch is timed";
    if (launch.at("api") == "cuGraphLaunch") {
      ++graph;
      EXPECT_FALSE(launch.at("profiled").get<bool>());
      EXPECT_NE(launch.at("not_profiled_reason").get<std::string>().find("CUDA graph"),
                std::string::npos);
      continue;
    }
    if (name.find("scale_kernel") != std::string::npos) {
      // The launch before the range is the process's first profiled one: it must count the same
      // bytes as the others (the injection's discarded first range).
      if (nvtx_of(launch) == "scale") ++scale;
      if (nvtx_of(launch).empty()) ++unranged;
      ASSERT_TRUE(launch.at("profiled").get<bool>()) << launch.dump();
      const double bytes = launch.at("counters").at("dram_bytes_isolated").get<double>();
      EXPECT_NEAR(bytes, kScaleDramBytes, kBytesTolerance * kScaleDramBytes);
      EXPECT_NE(launch.at("verdict").get<std::string>().find("memory-bound"), std::string::npos)
          << launch.at("verdict");
    } else if (nvtx_of(launch) == "gemm" && launch.at("profiled").get<bool>()) {
      const Json& tensor = launch.at("counters").at("total").at("tensor_bf16_flop");
      if (!tensor.is_null() && tensor.get<double>() > 0) {
        ++gemm_profiled;
        gemm_flop += tensor.get<double>();
        EXPECT_NE(launch.at("verdict").get<std::string>().find("compute-bound"), std::string::npos)
            << launch.at("verdict");
      }
    }
  }
  EXPECT_EQ(scale, 3);
  EXPECT_EQ(unranged, 1);
  EXPECT_EQ(graph, 2);
  ASSERT_GT(gemm_profiled, 0);
  EXPECT_NEAR(gemm_flop / 2.0, kGemmFlop, kFlopTolerance * kGemmFlop) << "two GEMM calls";
  EXPECT_GT(report.at("kernels").size(), 2u);
}

TEST(ProfileEndToEnd, FiltersSelectLaunchesAndTheExitStatusPassesThrough) {
  const Json report = profile("--nvtx-include gemm/ --launch-count 1", "7", 7);
  EXPECT_EQ(report.at("program").at("exit_code"), 7);
  int profiled = 0;
  for (const Json& launch : report.at("launches")) {
    if (!launch.at("profiled").get<bool>()) continue;
    ++profiled;
    EXPECT_EQ(nvtx_of(launch), "gemm");
  }
  EXPECT_EQ(profiled, 1);
}

}  // namespace
}  // namespace rooflinectl
