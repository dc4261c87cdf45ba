// A plain CUDA C++ program for `rooflinectl profile --mode full` (tests/cli/
// test_cli_profile_full_gpu.sh): an FP32 kernel of known FLOPs (kElements threads, kChain
// dependent FFMAs each: 2·kElements·kChain FLOP, no other floating-point instruction) and a
// kernel that changes its buffer in place (x += 1: kElements FADDs), each launched kLaunches
// times. Under kernel replay CUPTI runs each kernel several times inside its launch and restores
// the memory it wrote in between, so the buffer must end at its initial value + kLaunches, as it
// does without a profiler: the program checks that and the FFMA results and exits 1 when either
// is wrong. Otherwise it exits with the number given as its first argument (default 0), so the
// test can see the status pass through.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

/// Threads of each kernel, one element each: 4 Mi floats (16 MiB).
constexpr int kElements = 1 << 22;
/// Dependent FFMAs per thread: 2 · 2^22 · 512 = 4.295e9 FP32 FLOP per launch.
constexpr int kChain = 512;
constexpr int kLaunches = 2;
constexpr int kBlock = 256;

/// y[i] = the kChain-fold a·y + b from x[i]. `a` and `b` are arguments, so the compiler cannot
/// fold the chain; one FFMA per step, no FADD or FMUL.
__global__ void ffma_chain(const float* __restrict__ x, float* __restrict__ y, float a, float b,
                           int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
#pragma unroll 8
  for (int step = 0; step < kChain; ++step) v = fmaf(v, a, b);
  y[i] = v;
}

/// x[i] += 1, in place: replaying it without restoring x would add more than 1.
__global__ void add_one(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "full_mode_target: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(90);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int exit_code = argc > 1 ? std::atoi(argv[1]) : 0;
  const float a = 0.999f;
  const float b = 0.001f;
  std::vector<float> host(kElements);
  for (int i = 0; i < kElements; ++i) host[i] = static_cast<float>(i % 1000) * 0.25f;
  float* x = nullptr;
  float* y = nullptr;
  float* counter = nullptr;
  const size_t bytes = sizeof(float) * kElements;
  check(cudaMalloc(&x, bytes), "cudaMalloc x");
  check(cudaMalloc(&y, bytes), "cudaMalloc y");
  check(cudaMalloc(&counter, bytes), "cudaMalloc counter");
  check(cudaMemcpy(x, host.data(), bytes, cudaMemcpyHostToDevice), "copy x");
  check(cudaMemcpy(counter, host.data(), bytes, cudaMemcpyHostToDevice), "copy counter");
  const int grid = (kElements + kBlock - 1) / kBlock;
  for (int launch = 0; launch < kLaunches; ++launch) {
    ffma_chain<<<grid, kBlock>>>(x, y, a, b, kElements);
    check(cudaGetLastError(), "ffma_chain");
    add_one<<<grid, kBlock>>>(counter, kElements);
    check(cudaGetLastError(), "add_one");
  }
  check(cudaDeviceSynchronize(), "synchronize");

  std::vector<float> chained(kElements);
  std::vector<float> counted(kElements);
  check(cudaMemcpy(chained.data(), y, bytes, cudaMemcpyDeviceToHost), "copy y back");
  check(cudaMemcpy(counted.data(), counter, bytes, cudaMemcpyDeviceToHost), "copy counter back");
  int wrong = 0;
  for (int i = 0; i < kElements; ++i) {
    if (counted[i] != host[i] + static_cast<float>(kLaunches)) ++wrong;
  }
  if (wrong > 0) {
    std::fprintf(stderr, "full_mode_target: %d of %d in-place elements are not x + %d\n", wrong,
                 kElements, kLaunches);
    return 1;
  }
  // The device's FFMA and the host's fmaf round alike (IEEE fused multiply-add): exact.
  for (int i = 0; i < kElements; i += 4099) {
    float v = host[i];
    for (int step = 0; step < kChain; ++step) v = std::fmaf(v, a, b);
    if (chained[i] != v) {
      std::fprintf(stderr, "full_mode_target: y[%d] = %.9g, expected %.9g\n", i, chained[i], v);
      return 1;
    }
  }
  std::printf("full_mode_target: in-place and FFMA results correct\n");
  cudaFree(x);
  cudaFree(y);
  cudaFree(counter);
  return exit_code;
}
