// Single-instruction fp32 approximations (the MUFU unit) for kernels whose 16-bit outputs do not
// need CUDA's accurate exp2f/erff/tanhf, which cost extra instructions for denormals and ranges.
// Device code: include from .cu files only.
// Errors from the PTX ISA reference (ex2, rcp, lg2 with .approx.ftz): subnormal inputs and results
// flush to zero; ex2(−inf) = +0, ex2(+inf) = +inf, rcp(±inf) = ±0, lg2(+0) = −inf.
#pragma once

namespace rooflinectl {

/// 2^v, maximum relative error 2^-22 (ex2.approx.ftz.f32).
__device__ __forceinline__ float ex2_approx(float v) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

/// 1/v, maximum relative error 1 ulp (rcp.approx.ftz.f32).
__device__ __forceinline__ float rcp_approx(float v) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

/// log2(v), maximum absolute error 2^-22 (lg2.approx.ftz.f32).
__device__ __forceinline__ float lg2_approx(float v) {
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

}  // namespace rooflinectl
