// The preset files of configs/models/, embedded at configure time by cmake/EmbedJsonFiles.cmake
// into a generated .cpp that defines this function. Internal to src/core/model_preset.cpp and its
// tests.
#pragma once

#include <vector>

#include "core/embedded_file.hpp"

namespace rooflinectl {

/// Every configs/models/*.json listed in CMakeLists.txt, in list order.
const std::vector<EmbeddedFile>& embedded_model_preset_files();

}  // namespace rooflinectl
