#include "profile/launch_selection.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kEnvOutputDir = "RFL_PROFILE_OUTPUT_DIR";
constexpr const char* kEnvKernelRegex = "RFL_PROFILE_KERNEL_REGEX";
constexpr const char* kEnvNvtxInclude = "RFL_PROFILE_NVTX_INCLUDE";  // one expression per line
constexpr const char* kEnvLaunchSkip = "RFL_PROFILE_LAUNCH_SKIP";
constexpr const char* kEnvLaunchCount = "RFL_PROFILE_LAUNCH_COUNT";
constexpr const char* kEnvSampleEvery = "RFL_PROFILE_SAMPLE_EVERY";
constexpr const char* kEnvCounters = "RFL_PROFILE_COUNTERS";
constexpr const char* kEnvIncludeNccl = "RFL_PROFILE_INCLUDE_NCCL";
constexpr const char* kEnvCounterRun = "RFL_PROFILE_COUNTER_RUN";

uint64_t parse_count(const char* variable, const char* text) {
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (text[0] == '\0' || text[0] == '-' || end == nullptr || *end != '\0') {
    throw bad_input(fmt::format("{}='{}': expected a non-negative integer", variable, text));
  }
  return static_cast<uint64_t>(value);
}

}  // namespace

bool is_nccl_kernel(const std::string& demangled_name) {
  // The function name ends where its parameter or template list begins.
  const size_t end = demangled_name.find_first_of("(<");
  const std::string head = demangled_name.substr(0, end);
  const size_t begin = head.find_last_of(" :");
  const std::string function = begin == std::string::npos ? head : head.substr(begin + 1);
  return function.rfind("ncclKernel", 0) == 0 || function.rfind("ncclDevKernel", 0) == 0;
}

LaunchSelector::LaunchSelector(const ProfileConfig& config) : config_(config) {
  if (config_.sample_every == 0) throw bad_input("--sample-every 0: must be >= 1");
  // ncu's -c takes 1 and up too: profiling at most no launch would time the program and count
  // nothing, which the user did not ask for.
  if (config_.launch_count == 0u) {
    throw bad_input("--launch-count 0: must be >= 1 (leave it out to profile every launch)");
  }
  if (!config_.kernel_regex.empty()) {
    try {
      name_regex_ = std::regex(config_.kernel_regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw bad_input(fmt::format("--kernel-regex '{}': bad regular expression: {}",
                                  config_.kernel_regex, e.what()));
    }
  }
  for (const auto& expression : config_.nvtx_include) nvtx_filters_.emplace_back(expression);
}

bool LaunchSelector::exhausted() const {
  return config_.launch_count.has_value() && kept_ >= *config_.launch_count;
}

LaunchDecision LaunchSelector::decide(const std::string& demangled_name,
                                      const std::vector<std::string>& nvtx) {
  if (!config_.include_nccl && is_nccl_kernel(demangled_name)) {
    return {false, kNcclNotProfiledReason};
  }
  if (name_regex_ && !std::regex_search(demangled_name, *name_regex_)) {
    return {false, "not matched by --kernel-regex"};
  }
  if (!any_nvtx_filter_matches(nvtx_filters_, nvtx)) {
    return {false, "not matched by --nvtx-include"};
  }
  if (candidates_++ < config_.launch_skip) return {false, "skipped by --launch-skip"};
  if (exhausted()) return {false, "after --launch-count launches"};
  const uint64_t seen = seen_per_kernel_[demangled_name]++;
  if (seen % config_.sample_every != 0) return {false, "not sampled by --sample-every"};
  ++kept_;
  return {true, ""};
}

std::vector<std::pair<std::string, std::string>> profile_environment(const ProfileConfig& config,
                                                                     const std::string& output_dir,
                                                                     CounterRun run) {
  std::string nvtx;
  for (const auto& expression : config.nvtx_include)
    nvtx += (nvtx.empty() ? "" : "\n") + expression;
  std::vector<std::pair<std::string, std::string>> out = {
      {kEnvOutputDir, output_dir},
      {kEnvKernelRegex, config.kernel_regex},
      {kEnvNvtxInclude, nvtx},
      {kEnvLaunchSkip, std::to_string(config.launch_skip)},
      {kEnvLaunchCount, config.launch_count ? std::to_string(*config.launch_count) : ""},
      {kEnvSampleEvery, std::to_string(config.sample_every)},
      {kEnvCounters, config.counters ? "1" : "0"},
      {kEnvIncludeNccl, config.include_nccl ? "1" : "0"},
      {kEnvCounterRun, run == CounterRun::kFlops ? "flops" : "bytes"},
  };
  return out;
}

CounterRun counter_run_from_environment(const char* (*lookup)(const char*)) {
  const char* value = lookup(kEnvCounterRun);
  const std::string text = value == nullptr ? "" : value;
  if (text.empty() || text == "bytes") return CounterRun::kBytes;
  if (text == "flops") return CounterRun::kFlops;
  throw bad_input(fmt::format("{}='{}': expected bytes or flops", kEnvCounterRun, text));
}

ProfileConfig profile_config_from_environment(const char* (*lookup)(const char*),
                                              std::string& output_dir) {
  const auto get = [lookup](const char* name) -> std::string {
    const char* value = lookup(name);
    return value == nullptr ? std::string() : std::string(value);
  };
  ProfileConfig config;
  output_dir = get(kEnvOutputDir);
  config.kernel_regex = get(kEnvKernelRegex);
  const std::string nvtx = get(kEnvNvtxInclude);
  size_t begin = 0;
  while (begin < nvtx.size()) {
    const size_t end = nvtx.find('\n', begin);
    config.nvtx_include.push_back(nvtx.substr(begin, end == std::string::npos ? end : end - begin));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  const std::string skip = get(kEnvLaunchSkip);
  if (!skip.empty()) config.launch_skip = parse_count(kEnvLaunchSkip, skip.c_str());
  const std::string count = get(kEnvLaunchCount);
  if (!count.empty()) config.launch_count = parse_count(kEnvLaunchCount, count.c_str());
  const std::string every = get(kEnvSampleEvery);
  if (!every.empty()) config.sample_every = parse_count(kEnvSampleEvery, every.c_str());
  config.counters = get(kEnvCounters) != "0";
  config.include_nccl = get(kEnvIncludeNccl) == "1";
  return config;
}

}  // namespace rooflinectl
