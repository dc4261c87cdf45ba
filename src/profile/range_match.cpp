#include "profile/range_match.hpp"

#include "profile/demangle.hpp"

namespace rooflinectl {

bool range_names_kernel(const std::string& range_name, const std::string& mangled) {
  if (range_name.empty()) return false;
  if (range_name == mangled) return true;
  return demangle_kernel_name(mangled).find(range_name) != std::string::npos;
}

std::optional<size_t> find_launch_range(const std::vector<std::string>& names, size_t from,
                                        const std::vector<std::string>& flush_names,
                                        const std::string& sweep_name, const std::string& mangled) {
  const size_t flush = flush_names.size();
  for (size_t j = from + flush; j + 1 < names.size(); ++j) {
    if (names[j + 1] != sweep_name || !range_names_kernel(names[j], mangled)) continue;
    bool after_flush = true;
    for (size_t f = 0; f < flush && after_flush; ++f) {
      after_flush = names[j - flush + f] == flush_names[f];
    }
    if (after_flush) return j;
  }
  return std::nullopt;
}

}  // namespace rooflinectl
