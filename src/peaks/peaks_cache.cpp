#include "peaks/peaks_cache.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <system_error>

#include "core/error.hpp"
#include "core/json_input.hpp"
#include "io/atomic_file.hpp"
#include "io/peaks_json.hpp"

namespace rooflinectl {
namespace {

constexpr double kHzPerMHz = 1e6;

std::string safe_file_part(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  return out.empty() ? "_" : out;
}

}  // namespace

std::optional<std::string> peaks_cache_dir(const char* xdg_cache_home, const char* home) {
  // The XDG spec says relative values of XDG_CACHE_HOME are invalid and must be ignored.
  if (xdg_cache_home != nullptr && xdg_cache_home[0] == '/') {
    return (std::filesystem::path(xdg_cache_home) / "rooflinectl").string();
  }
  if (home != nullptr && home[0] != '\0') {
    return (std::filesystem::path(home) / ".cache" / "rooflinectl").string();
  }
  return std::nullopt;
}

std::optional<std::string> default_peaks_cache_dir() {
  return peaks_cache_dir(std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
}

std::string peaks_cache_file_name(const PeaksKey& key) {
  return fmt::format("peaks-{}-{}-{}MHz.json", safe_file_part(key.gpu_uuid),
                     safe_file_part(key.driver),
                     static_cast<long long>(std::llround(key.sm_clock_max_hz / kHzPerMHz)));
}

std::string save_peaks_cache(const std::string& dir, const PeaksRecord& record) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw bad_input(fmt::format("cannot create peaks cache directory '{}': {}", dir, ec.message()));
  }
  const std::string path =
      (std::filesystem::path(dir) / peaks_cache_file_name(record.key)).string();
  write_file_atomically(path, peaks_record_to_json_text(record));
  return path;
}

std::optional<PeaksRecord> load_peaks_cache(const std::string& dir, const PeaksKey& key,
                                            std::string& why_not) {
  const std::string path = (std::filesystem::path(dir) / peaks_cache_file_name(key)).string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    why_not = fmt::format("no cache entry {}", path);
    return std::nullopt;
  }
  try {
    PeaksRecord record = peaks_record_from_json_text(read_text_file(path, "peaks cache"), path);
    if (record.key.gpu_uuid != key.gpu_uuid || record.key.driver != key.driver ||
        record.key.sm_clock_max_hz != key.sm_clock_max_hz) {
      why_not = fmt::format("cache entry {} was written for another GPU, driver or clock", path);
      return std::nullopt;
    }
    return record;
  } catch (const Error& e) {
    why_not = fmt::format("ignoring unreadable cache entry: {}", e.what());
    return std::nullopt;
  }
}

std::optional<std::string> parse_nvidia_module_version(const std::string& proc_text) {
  static const std::regex kModuleVersion(
      R"(Kernel Module\s+(?:for\s+\S+\s+)?([0-9]+(?:\.[0-9]+)+))");
  std::smatch match;
  if (!std::regex_search(proc_text, match, kModuleVersion)) return std::nullopt;
  return match[1].str();
}

}  // namespace rooflinectl
