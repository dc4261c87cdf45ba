// The current device's compute capability, read here from the CUDA runtime so that the GPU tests
// can work out which kernel version must have run without asking the code under test.
#pragma once

#include <cuda_runtime.h>

#include "gpu/cuda_check.hpp"

namespace rooflinectl {

/// True when the current CUDA device is compute capability 9.0 (H100/H200), where the sm_90a
/// kernels (GEMM v2/v3, flash v3) run. Throws (throw_cuda_error, src/gpu/cuda_check.hpp) when a
/// runtime call fails.
inline bool test_device_is_sm90() {
  int device = 0;
  int major = 0;
  int minor = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major == 9 && minor == 0;
}

}  // namespace rooflinectl
