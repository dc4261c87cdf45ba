// A plain CUDA C++ program for `rooflinectl profile` to measure (tests/gpu/test_profile_e2e.cpp):
// a streaming kernel of known DRAM traffic inside NVTX range "scale", a cuBLAS bf16 GEMM of
// known FLOPs inside NVTX range "gemm", and the streaming kernel again from a CUDA graph. Exits
// with the number given as its first argument (default 0), so the test can see the status pass
// through.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>

namespace {

/// Elements of the streaming kernel's input and output: 64 Mi floats, 256 MiB each, so both
/// are far larger than any L2 (read once, written once: 512 MiB of DRAM traffic).
constexpr size_t kScaleElements = size_t{64} << 20;
/// The GEMM is kGemmSize³: 2·4096³ = 1.374e11 FLOP.
constexpr int kGemmSize = 4096;
constexpr int kScaleLaunches = 3;
constexpr int kGemmLaunches = 2;

__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, float a,
                             size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    y[i] = a * x[i];
  }
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "profile_target: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(90);
  }
}

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "profile_target: %s: cuBLAS status %d\n", what, static_cast<int>(status));
    std::exit(91);
  }
}

void launch_scale(const float* x, float* y, cudaStream_t stream) {
  scale_kernel<<<1024, 256, 0, stream>>>(x, y, 2.0f, kScaleElements);
  check(cudaGetLastError(), "scale_kernel launch");
}

}  // namespace

int main(int argc, char** argv) {
  const int exit_code = argc > 1 ? std::atoi(argv[1]) : 0;
  float* x = nullptr;
  float* y = nullptr;
  check(cudaMalloc(&x, kScaleElements * sizeof(float)), "cudaMalloc x");
  check(cudaMalloc(&y, kScaleElements * sizeof(float)), "cudaMalloc y");
  check(cudaMemset(x, 0, kScaleElements * sizeof(float)), "cudaMemset x");
  check(cudaMemset(y, 0, kScaleElements * sizeof(float)), "cudaMemset y");
  // One launch outside every NVTX range: its record must carry no range. (It was also the launch
  // that absorbed the first counter range's 28 MiB of extra DRAM writes before the injection
  // began discarding one range of its own: src/inject/launch_counters.cpp.)
  launch_scale(x, y, nullptr);

  nvtxRangePushA("scale");
  for (int i = 0; i < kScaleLaunches; ++i) launch_scale(x, y, nullptr);
  nvtxRangePop();

  const size_t gemm_elements = static_cast<size_t>(kGemmSize) * kGemmSize;
  __nv_bfloat16 *a = nullptr, *b = nullptr, *c = nullptr;
  check(cudaMalloc(&a, gemm_elements * sizeof(__nv_bfloat16)), "cudaMalloc a");
  check(cudaMalloc(&b, gemm_elements * sizeof(__nv_bfloat16)), "cudaMalloc b");
  check(cudaMalloc(&c, gemm_elements * sizeof(__nv_bfloat16)), "cudaMalloc c");
  check(cudaMemset(a, 0, gemm_elements * sizeof(__nv_bfloat16)), "cudaMemset a");
  check(cudaMemset(b, 0, gemm_elements * sizeof(__nv_bfloat16)), "cudaMemset b");
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate");
  const float alpha = 1.0f;
  const float beta = 0.0f;
  nvtxRangePushA("gemm");
  for (int i = 0; i < kGemmLaunches; ++i) {
    check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, kGemmSize, kGemmSize, kGemmSize, &alpha, a,
                       CUDA_R_16BF, kGemmSize, b, CUDA_R_16BF, kGemmSize, &beta, c, CUDA_R_16BF,
                       kGemmSize, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }
  nvtxRangePop();

  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "begin capture");
  launch_scale(x, y, stream);
  launch_scale(y, x, stream);
  check(cudaStreamEndCapture(stream, &graph), "end capture");
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

  check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  check(cublasDestroy(handle), "cublasDestroy");
  check(cudaFree(a), "cudaFree a");
  check(cudaFree(b), "cudaFree b");
  check(cudaFree(c), "cudaFree c");
  check(cudaFree(x), "cudaFree x");
  check(cudaFree(y), "cudaFree y");
  return exit_code;
}
