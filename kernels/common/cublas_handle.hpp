// Owning cuBLAS handle, shared by the operator families that call cuBLAS.
#pragma once

#include <cublas_v2.h>

#include <memory>
#include <type_traits>

#include "kernels/common/cublas_check.hpp"
#include "kernels/common/cublas_library.hpp"

namespace rooflinectl {

struct CublasHandleDeleter {
  void operator()(cublasHandle_t handle) const noexcept { cublas_api().destroy(handle); }
};
/// Owning cuBLAS handle (cublasHandle_t is a pointer to the opaque cublasContext).
using CublasHandle = std::unique_ptr<std::remove_pointer_t<cublasHandle_t>, CublasHandleDeleter>;

/// Creates a handle on the current device; throws an environment Error when cuBLAS fails.
inline CublasHandle make_cublas_handle() {
  cublasHandle_t handle = nullptr;
  RFL_CUBLAS_CHECK(cublas_api().create(&handle));
  return CublasHandle(handle);
}

}  // namespace rooflinectl
