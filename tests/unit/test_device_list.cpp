// `sweep --devices`: the device list parser, and the config file `sweep --devices` hands each of
// its workers (sweep_config_file_json), read back by the config loader unchanged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/device_list.hpp"
#include "core/error.hpp"
#include "core/sweep_config.hpp"
#include "io/json_writer.hpp"

namespace rooflinectl {
namespace {

ExitCode code_of(const std::string& text, int count, std::string* message = nullptr) {
  try {
    parse_device_list(text, count, "--devices", "no GPU: install the driver");
  } catch (const Error& e) {
    if (message != nullptr) *message = e.what();
    return e.exit_code();
  }
  return ExitCode::kOk;
}

TEST(DeviceList, AllAndListsInTheOrderGiven) {
  EXPECT_EQ(parse_device_list("all", 4, "--devices", ""), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parse_device_list("2,0", 4, "--devices", ""), (std::vector<int>{2, 0}));
  EXPECT_EQ(parse_device_list("1", 2, "--devices", ""), (std::vector<int>{1}));
}

TEST(DeviceList, BadItemsAreBadInputNamingTheItem) {
  std::string message;
  EXPECT_EQ(code_of("0,x", 2, &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("invalid --devices '0,x': item 'x'"), std::string::npos) << message;
  EXPECT_EQ(code_of("0,,1", 2, &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("item ''"), std::string::npos) << message;
  EXPECT_EQ(code_of("-1", 2), ExitCode::kBadInput);
  EXPECT_EQ(code_of("", 2), ExitCode::kBadInput);
  EXPECT_EQ(code_of("1.0", 2), ExitCode::kBadInput);
  EXPECT_EQ(code_of("0,1,0", 2, &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("device 0 is listed more than once"), std::string::npos) << message;
  EXPECT_EQ(code_of("0,2", 2, &message), ExitCode::kBadInput);
  EXPECT_NE(message.find("device 2 does not exist (allowed: 0..1, or all)"), std::string::npos)
      << message;
}

TEST(DeviceList, NoGpuIsAnEnvironmentProblemOnceTheTextIsWellFormed) {
  std::string message;
  EXPECT_EQ(code_of("all", 0, &message), ExitCode::kEnvironment);
  EXPECT_NE(message.find("no GPU: install the driver"), std::string::npos) << message;
  EXPECT_EQ(code_of("0,1", 0), ExitCode::kEnvironment);
  EXPECT_EQ(code_of("0,y", 0), ExitCode::kBadInput);
}

TEST(WorkerConfigFile, ReadsBackEveryFieldAConfigFileHolds) {
  SweepConfig config = default_sweep_config();
  config.ops = {"gelu", "decode_attention"};
  config.seq_spec = "1000..4000:1000";
  config.seq_lens = {1000, 2000, 3000, 4000};
  config.base.batch = 3;
  config.base.heads = 32;
  config.base.kv_heads = 8;
  config.base.head_dim = 64;
  config.base.dtype = Dtype::kFp16;
  config.base.causal = true;
  config.base.gelu_form = GeluForm::kTanh;
  config.base.kv_layout = KvLayout::kPaged;
  config.base.page_size = 64;
  config.max_noise = 0.02;
  config.min_samples = 12;
  config.min_time_s = 0.5;
  config.max_time_s = 2.0;
  config.warmup_runs = 5;
  config.warm_l2 = true;
  config.sm_throughput = true;
  config.kernels = {{"gelu", "v1"}};
  config.device = 3;               // not a config-file key: each worker gets its own --device
  config.lock_clocks = "base";     // CLI only: passed as --lock-clocks
  config.require_counters = true;  // CLI only: passed as --require-counters
  const SweepConfig back =
      parse_sweep_config(sweep_config_file_json(config).dump(2), "worker config");
  EXPECT_EQ(back.ops, config.ops);
  EXPECT_EQ(back.seq_spec, config.seq_spec);
  EXPECT_EQ(back.seq_lens, config.seq_lens);
  EXPECT_EQ(back.base.batch, 3);
  EXPECT_EQ(back.base.heads, 32);
  EXPECT_EQ(back.base.kv_heads, 8);
  EXPECT_EQ(back.base.head_dim, 64);
  EXPECT_EQ(back.base.dtype, Dtype::kFp16);
  EXPECT_TRUE(back.base.causal);
  EXPECT_EQ(back.base.gelu_form, GeluForm::kTanh);
  EXPECT_EQ(back.base.kv_layout, KvLayout::kPaged);
  EXPECT_EQ(back.base.page_size, 64);
  EXPECT_EQ(back.max_noise, config.max_noise);
  EXPECT_EQ(back.min_samples, 12);
  EXPECT_EQ(back.min_time_s, 0.5);
  EXPECT_EQ(back.max_time_s, 2.0);
  EXPECT_EQ(back.warmup_runs, 5);
  EXPECT_TRUE(back.warm_l2);
  EXPECT_TRUE(back.sm_throughput);
  EXPECT_EQ(back.kernels, config.kernels);
  EXPECT_EQ(back.device, 0);
  EXPECT_TRUE(back.lock_clocks.empty());
  // Fixed sampling stays fixed: no max_noise key at all.
  config.max_noise.reset();
  EXPECT_FALSE(sweep_config_file_json(config).contains("max_noise"));
}

}  // namespace
}  // namespace rooflinectl
