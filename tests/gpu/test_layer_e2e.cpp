// On the GPU, through the real `rooflinectl layer` (measured, no --analytic): Llama-3.1-8B's
// decode layer at batch 1 and context 512, every operator validated and timed as a sweep point;
// the JSON says "measured", each operator carries its median time, and the layer time, model time
// and tokens/s follow from them (tokens/s = B / (layers × layer time)); `compare` reads it back.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_rooflinectl.hpp"

namespace rooflinectl {
namespace {

TEST(LayerEndToEnd, LlamaDecodeIsMeasured) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "rooflinectl-layer-decode.json").string();
  std::filesystem::remove(path);
  ASSERT_EQ(run_rooflinectl("layer --model llama-3.1-8b --phase decode --context 512 --batch 1 "
                            "--repetitions 3 -o " +
                            path + " > /dev/null"),
            0);
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["basis"], "measured");
  ASSERT_TRUE(doc["measurement"].is_object());
  // rmsnorm, qkv, decode attention, o_proj, gate/up, swiglu, down.
  EXPECT_EQ(doc["measurement"]["sweep_points"], 7);
  ASSERT_EQ(doc["points"].size(), 1u);
  const nlohmann::json& point = doc["points"][0];
  double sum = 0;
  for (const nlohmann::json& op : point["operators"]) {
    SCOPED_TRACE(op["name"].get<std::string>());
    const nlohmann::json& m = op["measured"];
    ASSERT_EQ(m["status"], "ok") << m["time_null_reason"];
    EXPECT_TRUE(m["validated"].get<bool>());
    ASSERT_TRUE(m["time_s"].is_number());
    EXPECT_GT(m["time_s"].get<double>(), 0);
    sum += m["time_s"].get<double>();
    if (op["kind"] == "gemm") {
      EXPECT_EQ(m["shape"]["seq_len"], 1);  // M = B = 1
      EXPECT_EQ(m["shape"]["gemm_n"], op["gemm_mnk"][1]);
      EXPECT_EQ(m["shape"]["gemm_k"], op["gemm_mnk"][2]);
    }
    // A measured time is never below the datasheet's lower bound by more than noise.
    EXPECT_GT(m["time_s"].get<double>(), 0.5 * op["time_lower_bound_s"].get<double>());
  }
  const nlohmann::json& measured = point["measured"];
  ASSERT_TRUE(measured["layer_time_s"].is_number()) << measured["null_reason"];
  EXPECT_NEAR(measured["layer_time_s"].get<double>(), sum, 1e-12);
  EXPECT_NEAR(measured["decode_tokens_per_s"].get<double>(),
              1.0 / (32 * measured["layer_time_s"].get<double>()),
              1e-9 * measured["decode_tokens_per_s"].get<double>());
  std::printf("llama-3.1-8b decode B=1 context 512: layer %.1f us, %.0f tokens/s\n",
              1e6 * measured["layer_time_s"].get<double>(),
              measured["decode_tokens_per_s"].get<double>());
  EXPECT_FALSE(doc["conclusion"].empty());
  // The report is a baseline `compare` reads: against itself every row is the same (exit 0).
  EXPECT_EQ(run_rooflinectl("compare " + path + " " + path + " > /dev/null"), 0);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rooflinectl
