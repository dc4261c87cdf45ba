// Checked CUDA and cuBLAS calls: failures become rooflinectl::Error with the call site.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace rooflinectl {

/// Throws an environment Error naming `what`, the file/line and CUDA's message.
void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line);
/// Throws an environment Error naming `what`, the file/line and cuBLAS's status name.
void throw_cublas_error(cublasStatus_t status, const char* what, const char* file, int line);

}  // namespace rooflinectl

#define RFL_CUDA_CHECK(call)                                                             \
  do {                                                                                   \
    cudaError_t rfl_status_ = (call);                                                    \
    if (rfl_status_ != cudaSuccess)                                                      \
      ::rooflinectl::throw_cuda_error(rfl_status_, #call, __FILE__, __LINE__);           \
  } while (0)

#define RFL_CUBLAS_CHECK(call)                                                           \
  do {                                                                                   \
    cublasStatus_t rfl_status_ = (call);                                                 \
    if (rfl_status_ != CUBLAS_STATUS_SUCCESS)                                            \
      ::rooflinectl::throw_cublas_error(rfl_status_, #call, __FILE__, __LINE__);         \
  } while (0)

/// Checks the last kernel launch (configuration errors surface here).
#define RFL_CHECK_LAUNCH() RFL_CUDA_CHECK(cudaGetLastError())
