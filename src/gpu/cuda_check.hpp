// Checked CUDA runtime calls, for the library and the kernels alike: a failure becomes an
// environment Error (exit 3) naming the call, the file and line, and CUDA's message.
#pragma once

#include <cuda_runtime.h>

#include "core/error.hpp"

namespace rooflinectl {

/// Throws an environment Error naming `what`, the file/line and CUDA's message.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* what, const char* file,
                                   int line);

}  // namespace rooflinectl

#define RFL_CUDA_CHECK(call)                                                   \
  do {                                                                         \
    cudaError_t rfl_status_ = (call);                                          \
    if (rfl_status_ != cudaSuccess)                                            \
      ::rooflinectl::throw_cuda_error(rfl_status_, #call, __FILE__, __LINE__); \
  } while (0)

/// Checks the last kernel launch (configuration errors surface here).
#define RFL_CHECK_LAUNCH() RFL_CUDA_CHECK(cudaGetLastError())
