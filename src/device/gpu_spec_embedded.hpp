// The spec files of configs/gpus/, embedded at configure time by cmake/EmbedGpuSpecs.cmake into a
// generated .cpp that defines this function. Internal to src/device/gpu_spec.cpp and its tests.
#pragma once

#include <string>
#include <vector>

namespace rooflinectl {

/// One embedded spec file: its path relative to the source tree (for error messages) and its text.
struct EmbeddedSpecFile {
  std::string path;
  std::string json_text;
};

/// Every configs/gpus/*.json listed in CMakeLists.txt, in list order.
const std::vector<EmbeddedSpecFile>& embedded_gpu_spec_files();

}  // namespace rooflinectl
