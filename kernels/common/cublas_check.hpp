// Checked cuBLAS calls (cuBLAS is the GEMM and attention reference): a failure becomes an
// environment Error (exit 3) naming the call, the file and line, and cuBLAS's status name.
#pragma once

#include <cublas_v2.h>

#include "core/error.hpp"

namespace rooflinectl {

/// Throws an environment Error naming `what`, the file/line and cuBLAS's status name.
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* what, const char* file,
                                     int line);

}  // namespace rooflinectl

#define RFL_CUBLAS_CHECK(call)                                                   \
  do {                                                                           \
    cublasStatus_t rfl_status_ = (call);                                         \
    if (rfl_status_ != CUBLAS_STATUS_SUCCESS)                                    \
      ::rooflinectl::throw_cublas_error(rfl_status_, #call, __FILE__, __LINE__); \
  } while (0)
