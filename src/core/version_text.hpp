// The text of `rooflinectl --version`: the tool's version, the git revision it was built from and
// the CUDA runtime and CUPTI API versions of the toolkit it was built against.
#pragma once

#include <string>

namespace rooflinectl {

/// What `--version` prints, from the build (core/version.hpp and the toolkit's headers).
struct BuildVersions {
  std::string tool_version;  ///< project version, e.g. "0.1.0"
  std::string git_revision;  ///< short hash, maybe with "-dirty"; empty when it was not known
  int cuda_runtime_version;  ///< CUDART_VERSION: 1000·major + 10·minor, e.g. 13000 for 13.0
  int cupti_api_version;     ///< CUPTI_API_VERSION, e.g. 130001
};

/// "13.0" for 13000, "12.4" for 12040 (CUDART_VERSION's encoding).
std::string cuda_version_text(int cuda_runtime_version);

/// Three lines, without a final newline (CLI11 adds it): "rooflinectl 0.1.0", "git revision:
/// 1a2b3c4d5e6f" (or "unknown (built without git; set RFL_GIT_REVISION)"), "built against:
/// CUDA 13.0 runtime, CUPTI API 130001".
std::string version_text(const BuildVersions& versions);

}  // namespace rooflinectl
