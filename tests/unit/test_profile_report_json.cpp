// Reading a profile report back (profile_report_from_json): the committed H200 profiles round
// trip byte for byte, and what the reader refuses names the cause (schema version, missing key,
// a placement or count that contradicts its source, a sweep report).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"
#include "core/json_input.hpp"
#include "io/json_reader.hpp"
#include "io/profile_json.hpp"

namespace rooflinectl {
namespace {

const std::string kBlock = std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-profile-block.json";
const std::string kTarget = std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-profile-target.json";
const std::string kTriton = std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-profile-triton.json";
const std::string kSweep = std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-sweep.json";

// The message of the bad-input Error that reading `edit`ed block profile throws ("" if none).
std::string error_after_edit(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json document = nlohmann::json::parse(read_text_file(kBlock, "test"));
  edit(document);
  try {
    profile_report_from_json_text(document.dump(), "edited.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ProfileReportReader, CommittedProfilesRoundTripByteForByte) {
  for (const std::string& path : {kBlock, kTarget, kTriton}) {
    const std::string text = read_text_file(path, "test");
    const ProfileReport report = profile_report_from_json_text(text, path);
    EXPECT_EQ(profile_report_to_json_text(report), text) << path;
  }
  const ProfileReport block = load_profile_report(kBlock);
  EXPECT_EQ(block.launches.size(), 106u);
  ASSERT_EQ(block.kernels.size(), 23u);
  ASSERT_TRUE(block.kernels[0].roofline);
  EXPECT_EQ(block.kernels[0].roofline->bound, Bound::kCompute);
  EXPECT_FALSE(block.kernels[4].roofline);  // the GELU: no tensor FLOPs
  EXPECT_FALSE(block.kernels[4].roofline_null_reason.empty());
  ASSERT_TRUE(block.peaks);
  EXPECT_EQ(block.peaks->used, RoofSource::kDatasheet);
  EXPECT_EQ(block.devices.at(0).name, "NVIDIA H200");
}

// A write-back-inclusive placement's in-window DRAM bytes are the counters' read + write: null or
// another value is an edited report, not a placement to judge (a null would turn a kernel whose
// write-back explains its excess into an above-roof error).
TEST(ProfileReportReader, InWindowBytesMustBeTheCountersReadPlusWrite) {
  for (const nlohmann::json& edited : {nlohmann::json(nullptr), nlohmann::json(1.0)}) {
    const std::string what = error_after_edit([&](nlohmann::json& j) {
      for (auto& kernel : j["kernels"]) {
        if (kernel["roofline"].is_null()) continue;
        kernel["roofline"]["dram_bytes_in_window"] = edited;
        return;
      }
    });
    EXPECT_TRUE(contains(what, "roofline.dram_bytes_in_window")) << what;
    EXPECT_TRUE(contains(what, "differs from the counters' read + write")) << what;
  }
}

TEST(ProfileReportReader, ReportsWithoutIncludeNcclProfiledNcclKernels) {
  nlohmann::json document = nlohmann::json::parse(read_text_file(kBlock, "test"));
  document["config"]["include_nccl"] = false;
  EXPECT_FALSE(profile_report_from_json_text(document.dump(), "edited.json").config.include_nccl);
  document["config"].erase("include_nccl");  // as written before --include-nccl existed
  EXPECT_TRUE(profile_report_from_json_text(document.dump(), "old.json").config.include_nccl);
}

TEST(ProfileReportReader, RefusesAnotherSchemaVersionNamingIt) {
  const std::string what =
      error_after_edit([](nlohmann::json& j) { j["schema_version"] = kProfileSchemaVersion + 1; });
  EXPECT_TRUE(
      contains(what, fmt::format("schema_version {} is not supported", kProfileSchemaVersion + 1)))
      << what;
  EXPECT_TRUE(contains(what, fmt::format("reads version {}", kProfileSchemaVersion))) << what;
}

TEST(ProfileReportReader, NamesAMissingKeyWithItsPath) {
  EXPECT_EQ(error_after_edit([](nlohmann::json& j) { j.erase("devices"); }),
            "edited.json: key 'devices': missing (required)");
  const std::string nested =
      error_after_edit([](nlohmann::json& j) { j["kernels"][3].erase("share_of_gpu_time"); });
  EXPECT_TRUE(contains(nested, "key 'kernels[3].share_of_gpu_time': missing (required)")) << nested;
  const std::string launch =
      error_after_edit([](nlohmann::json& j) { j["launches"][14]["roofline"].erase("roof"); });
  EXPECT_TRUE(contains(launch, "key 'launches[14].roofline.roof': missing")) << launch;
}

TEST(ProfileReportReader, RefusesValuesThatContradictTheirSource) {
  const std::string flop =
      error_after_edit([](nlohmann::json& j) { j["kernels"][0]["roofline"]["flop"] = 5.0e11; });
  EXPECT_TRUE(contains(flop, "kernels[0].roofline.flop")) << flop;
  EXPECT_TRUE(contains(flop, "differs from the counters'")) << flop;
  const std::string count =
      error_after_edit([](nlohmann::json& j) { j["summary"]["launches"] = 105; });
  EXPECT_TRUE(contains(count, "key 'summary.launches': 105 differs from the 106")) << count;
  const std::string share =
      error_after_edit([](nlohmann::json& j) { j["kernels"][1]["share_of_gpu_time"] = -0.5; });
  EXPECT_TRUE(contains(share, "must lie in 0..1")) << share;
  const std::string grid = error_after_edit([](nlohmann::json& j) {
    j["launches"][0]["grid"] = {1, 2};
  });
  EXPECT_TRUE(contains(grid, "launches[0].grid': expected 3 integers")) << grid;
}

TEST(ProfileReportReader, TellsSweepAndProfileReportsApart) {
  const std::string sweep_text = read_text_file(kSweep, "test");
  EXPECT_FALSE(is_profile_report(nlohmann::json::parse(sweep_text)));
  EXPECT_TRUE(is_profile_report_file(kBlock));
  EXPECT_FALSE(is_profile_report_file(kSweep));
  EXPECT_FALSE(is_profile_report_file("/nonexistent/profile.json"));
  try {
    profile_report_from_json_text(sweep_text, "sweep.json");
    ADD_FAILURE() << "a sweep report read as a profile";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "sweep.json: not a profile report")) << e.what();
  }
  // The sweep reader names the kind instead of failing on the missing "device".
  try {
    load_report(kBlock);
    ADD_FAILURE() << "a profile report read as a sweep";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "a `rooflinectl profile` report")) << e.what();
    EXPECT_FALSE(contains(e.what(), "'device'")) << e.what();
  }
}

}  // namespace
}  // namespace rooflinectl
