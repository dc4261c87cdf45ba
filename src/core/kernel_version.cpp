#include "core/kernel_version.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"

namespace rooflinectl {

const KernelVersion& find_kernel_version(const std::string& op,
                                         const std::vector<KernelVersion>& versions,
                                         const std::string& default_key, const std::string& key) {
  const std::string& wanted = key.empty() ? default_key : key;
  std::vector<std::string> keys;
  for (const KernelVersion& version : versions) {
    if (version.key == wanted) return version;
    keys.push_back(version.key);
  }
  throw bad_input(fmt::format("invalid --kernel '{}={}': unknown version '{}' of {} (allowed: {})",
                              op, wanted, wanted, op, fmt::join(keys, ", ")));
}

KernelRequests parse_kernel_requests(const std::vector<std::string>& values) {
  KernelRequests requests;
  for (const std::string& value : values) {
    size_t start = 0;
    while (true) {
      const size_t comma = value.find(',', start);
      const std::string item =
          value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const size_t equals = item.find('=');
      if (equals == std::string::npos || item.find('=', equals + 1) != std::string::npos) {
        throw bad_input(
            fmt::format("invalid --kernel '{}': '{}' is not OP=VERSION (e.g. flash_attention=v2)",
                        value, item));
      }
      const std::string op = item.substr(0, equals);
      const std::string key = item.substr(equals + 1);
      if (op.empty() || key.empty()) {
        throw bad_input(
            fmt::format("invalid --kernel '{}': '{}' has an empty {} (e.g. "
                        "flash_attention=v2)",
                        value, item, op.empty() ? "operator" : "version"));
      }
      if (!requests.emplace(op, key).second) {
        throw bad_input(fmt::format(
            "invalid --kernel '{}': {} is given a version more than once (allowed: once)", value,
            op));
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return requests;
}

}  // namespace rooflinectl
