#include "core/kernel_version.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace rooflinectl {

int parse_kernel_version(const std::string& variable, const char* value,
                         const std::vector<KernelVersionChoice>& choices, int default_number) {
  if (value == nullptr || *value == '\0') return default_number;
  const std::string text(value);
  std::string allowed;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (text == std::to_string(choices[i].number)) return choices[i].number;
    if (i > 0) allowed += i + 1 == choices.size() ? " or " : ", ";
    allowed += fmt::format("{} ({})", choices[i].number, choices[i].name);
  }
  throw bad_input(fmt::format("{}={}: must be {}", variable, text, allowed));
}

}  // namespace rooflinectl
