#include "cli/output_extension.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"

namespace rooflinectl {

void check_output_extension(const std::string& path, const std::string& extension,
                            const std::string& what, const std::string& flag) {
  if (path.empty()) throw bad_input(fmt::format("invalid {} '': an empty file name", flag));
  const std::filesystem::path name = std::filesystem::path(path).filename();
  std::string upper = extension;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  // std::filesystem reads ".json" as a stem with no extension: a hidden file, not a JSON name.
  if (name == extension || name == upper) {
    throw bad_input(
        fmt::format("invalid {} '{}': needs a file name before {}", flag, path, extension));
  }
  const std::string found = name.extension().string();
  if (found != extension && found != upper) {
    throw bad_input(fmt::format("invalid {} '{}': {}, the file name must end in {}", flag, path,
                                what, extension));
  }
}

std::string output_name_extension(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  std::string extension =
      name.size() > 1 && name[0] == '.' && name.find('.', 1) == std::string::npos
          ? name
          : std::filesystem::path(name).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

void check_output_is_not_input(const std::string& output, const std::string& input) {
  std::error_code ec;
  bool same = std::filesystem::exists(output, ec) && std::filesystem::exists(input, ec) &&
              std::filesystem::equivalent(output, input, ec);
  if (!same) {
    const std::filesystem::path out = std::filesystem::weakly_canonical(output, ec);
    const std::filesystem::path in = std::filesystem::weakly_canonical(input, ec);
    same = !ec && out == in;
  }
  if (same) {
    throw bad_input(
        fmt::format("invalid --output '{}': is the input report '{}', which would be overwritten",
                    output, input));
  }
}

}  // namespace rooflinectl
