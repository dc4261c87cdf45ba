#include "kernels/common/cublas_check.hpp"

#include <fmt/format.h>

namespace rooflinectl {

void throw_cublas_error(cublasStatus_t status, const char* what, const char* file, int line) {
  throw environment_error(
      fmt::format("cuBLAS error {} in {} at {}:{}", cublasGetStatusName(status), what, file, line));
}

}  // namespace rooflinectl
