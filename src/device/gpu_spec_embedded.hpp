// The spec files of configs/gpus/, embedded at configure time by cmake/EmbedJsonFiles.cmake into a
// generated .cpp that defines this function. Internal to src/device/gpu_spec.cpp and its tests.
#pragma once

#include <vector>

#include "core/embedded_file.hpp"

namespace rooflinectl {

/// Every configs/gpus/*.json listed in CMakeLists.txt, in list order.
const std::vector<EmbeddedFile>& embedded_gpu_spec_files();

}  // namespace rooflinectl
