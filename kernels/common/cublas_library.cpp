#include "kernels/common/cublas_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <string>
#include <type_traits>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

// The members' types are cublas_api.h's declarations (checked in unevaluated contexts, so
// nothing here links cuBLAS).
static_assert(std::is_same_v<decltype(CublasApi::create), decltype(&cublasCreate_v2)>);
static_assert(std::is_same_v<decltype(CublasApi::destroy), decltype(&cublasDestroy_v2)>);
static_assert(std::is_same_v<decltype(CublasApi::set_stream), decltype(&cublasSetStream_v2)>);
static_assert(std::is_same_v<decltype(CublasApi::set_workspace), decltype(&cublasSetWorkspace_v2)>);
static_assert(std::is_same_v<decltype(CublasApi::status_name), decltype(&cublasGetStatusName)>);
// The GEMMs are overloaded in C++ (cudaDataType compute-type wrappers): static_cast picks the
// declaration of exactly this signature, or fails to compile.
static_assert(std::is_same_v<decltype(static_cast<decltype(CublasApi::gemm_ex)>(&cublasGemmEx)),
                             decltype(CublasApi::gemm_ex)>);
static_assert(std::is_same_v<decltype(static_cast<decltype(CublasApi::gemm_strided_batched_ex)>(
                                 &cublasGemmStridedBatchedEx)),
                             decltype(CublasApi::gemm_strided_batched_ex)>);

// The soname of the cuBLAS the headers belong to (libcublas.so.13), the one a link would name.
std::string library_name() { return fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR); }

[[noreturn]] void throw_load_error(const std::string& what) {
  throw environment_error(fmt::format(
      "cannot load cuBLAS ({}): {}; the GEMM and attention references need it (NVIDIA's package "
      "libcublas-{}-*, or LD_LIBRARY_PATH naming its directory)",
      library_name(), what, CUBLAS_VER_MAJOR));
}

// Entry point `name` of `library`, as the member type `Fn`.
template <typename Fn>
void resolve(void* library, const char* name, Fn& out) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr) throw_load_error(fmt::format("no entry point {}", name));
  out = reinterpret_cast<Fn>(symbol);
}

CublasApi load_cublas() {
  void* library = dlopen(library_name().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    throw_load_error(reason != nullptr ? reason : "dlopen failed");
  }
  CublasApi api{};
  resolve(library, "cublasCreate_v2", api.create);
  resolve(library, "cublasDestroy_v2", api.destroy);
  resolve(library, "cublasSetStream_v2", api.set_stream);
  resolve(library, "cublasSetWorkspace_v2", api.set_workspace);
  resolve(library, "cublasGemmEx", api.gemm_ex);
  resolve(library, "cublasGemmStridedBatchedEx", api.gemm_strided_batched_ex);
  resolve(library, "cublasGetStatusName", api.status_name);
  return api;
}

}  // namespace

const CublasApi& cublas_api() {
  static const CublasApi api = load_cublas();
  return api;
}

}  // namespace rooflinectl
