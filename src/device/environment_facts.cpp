#include "device/environment_facts.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace rooflinectl {
namespace {

constexpr int kCapSysAdminBit = 21;  // CAP_SYS_ADMIN in linux/capability.h

/// The text after "<key>:" on the line that starts with `key`, leading blanks removed; nullopt
/// when no line starts with it.
std::optional<std::string_view> line_value(std::string_view text, std::string_view key) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':') {
      std::string_view value = line.substr(key.size() + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
        value.remove_prefix(1);
      }
      while (!value.empty() && (value.back() == ' ' || value.back() == '\r'))
        value.remove_suffix(1);
      return value;
    }
    start = end + 1;
  }
  return std::nullopt;
}

std::optional<uint64_t> parse_unsigned(std::string_view text, int base) {
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string read_small_file(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<bool> parse_profiling_admin_only(std::string_view params_text) {
  const auto value = line_value(params_text, "RmProfilingAdminOnly");
  if (!value) return std::nullopt;
  const auto number = parse_unsigned(*value, 10);
  if (!number || *number > 1) return std::nullopt;
  return *number == 1;
}

std::optional<bool> parse_cap_sys_admin(std::string_view status_text) {
  const auto value = line_value(status_text, "CapEff");
  if (!value) return std::nullopt;
  const auto mask = parse_unsigned(*value, 16);
  if (!mask) return std::nullopt;
  return ((*mask >> kCapSysAdminBit) & 1u) != 0;
}

bool device_name_says_mig(std::string_view name) {
  return name.find(" MIG ") != std::string_view::npos;
}

std::string no_device_cause(const std::string& cuda_error_name,
                            const std::string& cuda_error_description, bool driver_loaded) {
  if (!driver_loaded) {
    return fmt::format(
        "no NVIDIA driver is loaded: no /proc/driver/nvidia/version; CUDA reports {}",
        cuda_error_name);
  }
  return fmt::format("{}: {}", cuda_error_name, cuda_error_description);
}

std::string no_device_fix(bool driver_loaded) {
  if (!driver_loaded) {
    return "install or load the NVIDIA driver, then check that nvidia-smi lists the GPU";
  }
  return "check nvidia-smi and CUDA_VISIBLE_DEVICES";
}

bool nvidia_driver_loaded() { return std::filesystem::exists("/proc/driver/nvidia/version"); }

HostProfilingFacts read_host_profiling_facts() {
  HostProfilingFacts facts;
  facts.driver_admin_only =
      parse_profiling_admin_only(read_small_file("/proc/driver/nvidia/params"));
  facts.is_root = ::geteuid() == 0;
  facts.cap_sys_admin = parse_cap_sys_admin(read_small_file("/proc/self/status"));
  if (const char* path = std::getenv("CUDA_INJECTION64_PATH")) facts.injection_path = path;
  return facts;
}

}  // namespace rooflinectl
