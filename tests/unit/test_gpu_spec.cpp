// GPU spec table: every embedded file loads and validates, validation refuses bad files naming
// the key, devices match by name + compute capability + SM count, ridge points are the textbook
// ones.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "device/gpu_spec.hpp"
#include "device/gpu_spec_embedded.hpp"
#include "roofline/roofline.hpp"

#ifndef RFL_SOURCE_DIR
#error "RFL_SOURCE_DIR (the repository root) must be defined by the build"
#endif

namespace rooflinectl {
namespace {

std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(RFL_SOURCE_DIR) + "/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A minimal valid spec; tests break one thing at a time.
constexpr const char* kValid = R"({
  "id": "test-gpu", "name": "Test GPU", "device_names": ["NVIDIA Test"],
  "compute_capability": "9.0",
  "sm_count": {"value": 132, "source": "test datasheet"},
  "memory_bytes": {"value": 8.0e10, "source": "test datasheet"},
  "hbm_bytes_per_s": {"value": 3.35e12, "source": "test datasheet"},
  "dense_tensor_flop_per_s": {"bf16": {"value": 9.895e14, "source": "test datasheet"}},
  "fp32_flop_per_s": {"value": 6.7e13, "source": "test datasheet"}
})";

std::string error_of(const std::string& text) {
  try {
    parse_gpu_spec(text, "gpus/test.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    return e.what();
  }
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(GpuSpec, ParsesAValidFile) {
  const GpuSpec s = parse_gpu_spec(kValid, "gpus/test.json");
  EXPECT_EQ(s.id, "test-gpu");
  EXPECT_EQ(s.cc_major, 9);
  EXPECT_EQ(s.cc_minor, 0);
  EXPECT_EQ(s.sm_count, 132);
  EXPECT_DOUBLE_EQ(s.hbm_bytes_per_s.value, 3.35e12);
  EXPECT_EQ(s.dense_tensor_flop_per_s.count("bf16"), 1u);
  EXPECT_EQ(s.dense_tensor_flop_per_s.count("fp8"), 0u);  // absent, not zero
  EXPECT_FALSE(is_known(s.l2_bytes));
  EXPECT_FALSE(is_known(s.fp64_flop_per_s));
}

TEST(GpuSpec, ValidationNamesFileAndKey) {
  std::string m = error_of(
      replaced(kValid, R"("hbm_bytes_per_s": {"value": 3.35e12, "source": "test datasheet"})",
               R"("hbm_bytes_per_s": {"value": 3.35e12, "source": ""})"));
  EXPECT_NE(m.find("gpus/test.json"), std::string::npos) << m;
  EXPECT_NE(m.find("hbm_bytes_per_s.source"), std::string::npos) << m;

  m = error_of(replaced(kValid, "3.35e12", "-1"));
  EXPECT_NE(m.find("hbm_bytes_per_s.value"), std::string::npos) << m;
  EXPECT_NE(m.find("> 0"), std::string::npos) << m;

  // 3.35 written in TB/s instead of bytes/s: refused as implausible for the unit.
  m = error_of(replaced(kValid, "3.35e12", "3.35"));
  EXPECT_NE(m.find("bytes/s"), std::string::npos) << m;

  m = error_of(replaced(kValid, "9.895e14", "989.5"));
  EXPECT_NE(m.find("dense_tensor_flop_per_s.bf16.value"), std::string::npos) << m;

  m = error_of(replaced(kValid, R"("bf16")", R"("int8")"));
  EXPECT_NE(m.find("unknown key 'dense_tensor_flop_per_s.int8'"), std::string::npos) << m;

  m = error_of(replaced(kValid, R"("9.0")", R"("nine")"));
  EXPECT_NE(m.find("compute_capability"), std::string::npos) << m;

  m = error_of(replaced(kValid, R"("value": 132)", R"("value": 132.5)"));
  EXPECT_NE(m.find("sm_count.value"), std::string::npos) << m;

  m = error_of(replaced(kValid, R"("device_names": ["NVIDIA Test"])", R"("device_names": [])"));
  EXPECT_NE(m.find("device_names"), std::string::npos) << m;

  m = error_of(
      replaced(kValid, R"("memory_bytes": {"value": 8.0e10, "source": "test datasheet"},)", ""));
  EXPECT_NE(m.find("memory_bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("missing"), std::string::npos) << m;

  m = error_of(replaced(kValid, R"("id": "test-gpu",)", R"("id": "test-gpu", "tdp_w": 700,)"));
  EXPECT_NE(m.find("unknown key 'tdp_w'"), std::string::npos) << m;

  m = error_of("{ not json");
  EXPECT_NE(m.find("malformed JSON"), std::string::npos) << m;
}

TEST(GpuSpec, BuiltinTableLoadsEveryFileAndMatchesTheSourceTree) {
  const auto& specs = builtin_gpu_specs();
  std::set<std::string> ids;
  for (const auto& s : specs) ids.insert(s.id);
  for (const char* id :
       {"a100-sxm4-40gb", "a100-sxm4-80gb", "a100-pcie-40gb", "a100-pcie-80gb", "h100-sxm",
        "h100-pcie", "h100-nvl", "h200-sxm", "h200-nvl", "l40s", "l4", "rtx-4090", "b200"}) {
    EXPECT_EQ(ids.count(id), 1u) << id;
  }
  // The embedded copy is the file in configs/gpus/ (a stale build would differ).
  for (const auto& file : embedded_gpu_spec_files()) {
    EXPECT_EQ(file.json_text, read_source_file(file.path)) << file.path;
  }
  for (const auto& s : specs) {
    EXPECT_TRUE(is_known(s.memory_bytes)) << s.id;
    EXPECT_TRUE(is_known(s.hbm_bytes_per_s)) << s.id;
    for (const auto& [dtype, v] : s.dense_tensor_flop_per_s) {
      EXPECT_GT(v.value, 0) << s.id << " " << dtype;
      EXPECT_FALSE(v.source.empty()) << s.id << " " << dtype;
    }
  }
}

TEST(GpuSpec, MatchesByNameComputeCapabilityAndSmCount) {
  const GpuSpec* h200 = match_gpu_spec("NVIDIA H200", 9, 0, 132);
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->id, "h200-sxm");
  EXPECT_DOUBLE_EQ(h200->dense_tensor_flop_per_s.at("bf16").value, 989.5e12);
  EXPECT_DOUBLE_EQ(h200->hbm_bytes_per_s.value, 4.8e12);
  const GpuSpec* nvl = match_gpu_spec("NVIDIA H200 NVL", 9, 0, 132);
  ASSERT_NE(nvl, nullptr);
  EXPECT_EQ(nvl->id, "h200-nvl");
  // Same name, other SM count (a cut-down or MIG part) or capability: not this datasheet.
  EXPECT_EQ(match_gpu_spec("NVIDIA H200", 9, 0, 114), nullptr);
  EXPECT_EQ(match_gpu_spec("NVIDIA H200", 8, 0, 132), nullptr);
  EXPECT_EQ(match_gpu_spec("NVIDIA Unknown", 9, 0, 132), nullptr);
  ASSERT_NE(match_gpu_spec("NVIDIA A100-SXM4-80GB", 8, 0, 108), nullptr);
  EXPECT_EQ(match_gpu_spec("NVIDIA A100-SXM4-80GB", 8, 0, 108)->id, "a100-sxm4-80gb");
}

Roof bf16_roof(const GpuSpec& s) {
  Roof roof;
  roof.peak_flop_per_s = s.dense_tensor_flop_per_s.at("bf16").value;
  roof.peak_bytes_per_s = s.hbm_bytes_per_s.value;
  return roof;
}

TEST(GpuSpec, RidgePointsAreTheTextbookOnes) {
  // Seeds: A100 312 TFLOP/s over "2 TB/s" ≈ 156; the 80 GB SXM datasheet's 2.039 TB/s gives 153.
  EXPECT_NEAR(ridge_point_flop_per_byte(bf16_roof(find_gpu_spec("a100-sxm4-80gb"))), 156.0,
              156 * 0.03);
  // H100 SXM: 989.5 / 3.35 = 295.4.
  EXPECT_NEAR(ridge_point_flop_per_byte(bf16_roof(find_gpu_spec("h100-sxm"))), 295.0, 1.0);
  // H200 SXM: 989.5 / 4.8 = 206 (performance-anchors.md §1).
  EXPECT_NEAR(ridge_point_flop_per_byte(bf16_roof(find_gpu_spec("h200-sxm"))), 206.1, 0.1);
}

TEST(GpuSpec, IdsIgnoreCase) {
  EXPECT_EQ(&find_gpu_spec("H200-SXM"), &find_gpu_spec("h200-sxm"));
  EXPECT_EQ(&find_gpu_spec("L40S"), &find_gpu_spec("l40s"));
  EXPECT_THROW(find_gpu_spec("h200-sxm "), Error);  // case only, no other leniency
  EXPECT_THROW(find_gpu_spec("h200"), Error);
}

TEST(GpuSpec, UnknownIdIsBadInputListingTheKnownIds) {
  try {
    find_gpu_spec("h300");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    const std::string m = e.what();
    EXPECT_NE(m.find("'h300'"), std::string::npos) << m;
    EXPECT_NE(m.find("h200-sxm"), std::string::npos) << m;
    EXPECT_NE(m.find("a100-sxm4-80gb"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace rooflinectl
