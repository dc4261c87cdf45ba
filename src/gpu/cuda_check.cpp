#include "gpu/cuda_check.hpp"

#include <fmt/format.h>

namespace rooflinectl {

void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line) {
  throw environment_error(fmt::format("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(status),
                                      cudaGetErrorString(status), what, file, line));
}

}  // namespace rooflinectl
