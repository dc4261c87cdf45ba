// cuBLAS is loaded on first use, not linked (kernels/common/cublas_library.hpp): the library of
// the build's CUDA is found and every entry point the GEMM and attention references call
// resolves. No GPU needed: nothing here creates a handle.
#include <gtest/gtest.h>

#include <string>

#include "kernels/common/cublas_library.hpp"

namespace rooflinectl {
namespace {

TEST(CublasLibrary, LoadsOnFirstUseWithEveryEntryPoint) {
  const CublasApi& api = cublas_api();
  EXPECT_NE(api.create, nullptr);
  EXPECT_NE(api.destroy, nullptr);
  EXPECT_NE(api.set_stream, nullptr);
  EXPECT_NE(api.set_workspace, nullptr);
  EXPECT_NE(api.gemm_ex, nullptr);
  EXPECT_NE(api.gemm_strided_batched_ex, nullptr);
  ASSERT_NE(api.status_name, nullptr);
  EXPECT_EQ(std::string(api.status_name(CUBLAS_STATUS_SUCCESS)), "CUBLAS_STATUS_SUCCESS");
  EXPECT_EQ(&cublas_api(), &api);  // loaded once
}

}  // namespace
}  // namespace rooflinectl
