#include "kernels/common/cublas_check.hpp"

#include <fmt/format.h>

#include "kernels/common/cublas_library.hpp"

namespace rooflinectl {

void throw_cublas_error(cublasStatus_t status, const char* what, const char* file, int line) {
  throw environment_error(fmt::format("cuBLAS error {} in {} at {}:{}",
                                      cublas_api().status_name(status), what, file, line));
}

}  // namespace rooflinectl
