// A data file embedded in the binary at configure time (cmake/EmbedJsonFiles.cmake): the GPU
// datasheet table (configs/gpus/) and the model presets (configs/models/).
#pragma once

#include <string>

namespace rooflinectl {

/// One embedded file: its path relative to the source tree (for error messages) and its text.
struct EmbeddedFile {
  std::string path;
  std::string json_text;
};

}  // namespace rooflinectl
