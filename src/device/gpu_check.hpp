// Checked CUDA runtime calls for the library side (src/). src/ may not include kernels/, so the
// kernels' RFL_CUDA_CHECK is not reachable from here; these macros behave the same way under a
// different name so that a translation unit can include both headers.
#pragma once

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"

namespace rooflinectl::detail {

/// Throws an environment Error naming the failed call, the file/line and CUDA's message.
[[noreturn]] inline void throw_gpu_error(cudaError_t status, const char* what, const char* file,
                                         int line) {
  throw environment_error(fmt::format("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(status),
                                      cudaGetErrorString(status), what, file, line));
}

}  // namespace rooflinectl::detail

#define RFL_GPU_CHECK(call)                                                               \
  do {                                                                                    \
    cudaError_t rfl_gpu_status_ = (call);                                                 \
    if (rfl_gpu_status_ != cudaSuccess)                                                   \
      ::rooflinectl::detail::throw_gpu_error(rfl_gpu_status_, #call, __FILE__, __LINE__); \
  } while (0)

/// Checks the last kernel launch (configuration errors surface here).
#define RFL_GPU_CHECK_LAUNCH() RFL_GPU_CHECK(cudaGetLastError())
