#include <fmt/format.h>

#include <cstdint>

#include "core/error.hpp"
#include "gpu/cuda_check.hpp"
#include "measure/clock_probe.hpp"

namespace rooflinectl {
namespace {

// Long enough that the %globaltimer granularity (up to 1 µs on some parts) costs < 0.5%.
constexpr uint64_t kSpinNs = 200000;
constexpr double kNsPerS = 1e9;

// [0] elapsed SM cycles, [1] elapsed ns.
__device__ unsigned long long g_probe_result[2];

__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void clock_probe_kernel(uint64_t spin_ns) {
  if (threadIdx.x != 0) return;
  const uint64_t t0 = global_timer_ns();
  const long long c0 = clock64();
  uint64_t t = t0;
  while (t - t0 < spin_ns) t = global_timer_ns();
  const long long c1 = clock64();
  const uint64_t t1 = global_timer_ns();
  g_probe_result[0] = static_cast<unsigned long long>(c1 - c0);
  g_probe_result[1] = static_cast<unsigned long long>(t1 - t0);
}

}  // namespace

double measure_sm_clock_hz(cudaStream_t stream) {
  clock_probe_kernel<<<1, 32, 0, stream>>>(kSpinNs);
  RFL_CHECK_LAUNCH();
  unsigned long long result[2] = {0, 0};
  RFL_CUDA_CHECK(cudaMemcpyFromSymbolAsync(result, g_probe_result, sizeof(result), 0,
                                           cudaMemcpyDeviceToHost, stream));
  RFL_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (result[1] == 0) {
    throw environment_error(
        fmt::format("SM clock probe: %globaltimer did not advance ({} cycles counted)", result[0]));
  }
  return static_cast<double>(result[0]) / static_cast<double>(result[1]) * kNsPerS;
}

}  // namespace rooflinectl
