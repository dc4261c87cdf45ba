#include "output_extension.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/error.hpp"

namespace rooflinectl {

void check_output_extension(const std::string& path, const std::string& extension,
                            const std::string& what) {
  const std::string found = std::filesystem::path(path).extension().string();
  std::string upper = extension;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (found != extension && found != upper) {
    throw bad_input(fmt::format("invalid --output '{}': {}, the file name must end in {}", path,
                                what, extension));
  }
}

}  // namespace rooflinectl
