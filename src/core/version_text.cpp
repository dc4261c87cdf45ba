#include "core/version_text.hpp"

#include <fmt/format.h>

namespace rooflinectl {

std::string cuda_version_text(int cuda_runtime_version) {
  return fmt::format("{}.{}", cuda_runtime_version / 1000, cuda_runtime_version % 1000 / 10);
}

std::string version_text(const BuildVersions& versions) {
  const std::string revision = versions.git_revision.empty()
                                   ? "unknown (built without git; set RFL_GIT_REVISION)"
                                   : versions.git_revision;
  return fmt::format(
      "rooflinectl {}\ngit revision: {}\nbuilt against: CUDA {} runtime, CUPTI API {}",
      versions.tool_version, revision, cuda_version_text(versions.cuda_runtime_version),
      versions.cupti_api_version);
}

}  // namespace rooflinectl
