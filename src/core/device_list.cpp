#include "core/device_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "core/error.hpp"

namespace rooflinectl {

std::vector<int> parse_device_list(std::string_view text, int device_count, std::string_view flag,
                                   const std::string& no_device_text) {
  const auto no_device = [&] { return environment_error(no_device_text); };
  if (text == "all") {
    if (device_count == 0) throw no_device();
    std::vector<int> all(static_cast<size_t>(device_count));
    for (int i = 0; i < device_count; ++i) all[static_cast<size_t>(i)] = i;
    return all;
  }
  std::vector<int> devices;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    int index = -1;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), index);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || index < 0) {
      throw bad_input(fmt::format(
          "invalid {} '{}': item '{}' (allowed: all, or distinct device indices 0, 1, ... "
          "separated by commas)",
          flag, text, item));
    }
    if (std::find(devices.begin(), devices.end(), index) != devices.end()) {
      throw bad_input(
          fmt::format("invalid {} '{}': device {} is listed more than once", flag, text, index));
    }
    devices.push_back(index);
    start = comma + 1;
  }
  if (device_count == 0) throw no_device();
  for (const int index : devices) {
    if (index >= device_count) {
      throw bad_input(
          fmt::format("invalid {} '{}': device {} does not exist (allowed: 0..{}, or "
                      "all)",
                      flag, text, index, device_count - 1));
    }
  }
  return devices;
}

}  // namespace rooflinectl
