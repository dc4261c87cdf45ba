// cuBLAS, loaded on first use instead of linked. A linked libcublas made every start of
// rooflinectl pay for cuBLAS's and cuBLASLt's load-time initialization (about 0.5 s and 220 MB
// resident on the 2-core CPU machine), `report` and `merge` as much as a sweep; now only the GEMM
// and attention references, which call cuBLAS, load it.
#pragma once

#include <cublas_v2.h>

#include <cstddef>

namespace rooflinectl {

/// The cuBLAS entry points rooflinectl calls, with cublas_api.h's signatures (the compute-type
/// forms of the GEMMs).
struct CublasApi {
  cublasStatus_t (*create)(cublasHandle_t* handle);
  cublasStatus_t (*destroy)(cublasHandle_t handle);
  cublasStatus_t (*set_stream)(cublasHandle_t handle, cudaStream_t stream);
  cublasStatus_t (*set_workspace)(cublasHandle_t handle, void* workspace, size_t bytes);
  cublasStatus_t (*gemm_ex)(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void* alpha,
                            const void* a, cudaDataType a_type, int lda, const void* b,
                            cudaDataType b_type, int ldb, const void* beta, void* c,
                            cudaDataType c_type, int ldc, cublasComputeType_t compute_type,
                            cublasGemmAlgo_t algo);
  cublasStatus_t (*gemm_strided_batched_ex)(
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
      int k, const void* alpha, const void* a, cudaDataType a_type, int lda, long long stride_a,
      const void* b, cudaDataType b_type, int ldb, long long stride_b, const void* beta, void* c,
      cudaDataType c_type, int ldc, long long stride_c, int batch_count,
      cublasComputeType_t compute_type, cublasGemmAlgo_t algo);
  const char* (*status_name)(cublasStatus_t status);
};

/// cuBLAS, loaded by the first call (thread-safe; never unloaded) from the library of the
/// version the build's headers declare (libcublas.so.13), found as the dynamic linker finds a
/// linked library (LD_LIBRARY_PATH, the binary's RUNPATH, ld.so.cache). Throws an environment Error
/// (exit 3) naming the library and the loader's reason when it is missing or lacks an entry point.
const CublasApi& cublas_api();

}  // namespace rooflinectl
