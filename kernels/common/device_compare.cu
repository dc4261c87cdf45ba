#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>
#include <math_constants.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/device_compare.hpp"

namespace rooflinectl {
namespace {

/// The sums and maxima one comparison accumulates. The two maxima are non-negative doubles,
/// whose bit patterns order as unsigned integers, so atomicMax on the bits is max on the values.
struct CompareTotals {
  unsigned long long failed;
  unsigned long long non_finite;
  unsigned long long max_abs_error_bits;
  unsigned long long worst_ratio_bits;
  unsigned long long first_failure;  ///< lowest failing index; ULLONG_MAX when none
};

constexpr int kCompareThreads = 256;
constexpr int kCompareBlocksPerSm = 8;

/// A bf16 (`bf16`) or fp16 bit pattern as double; the same conversion on the host (for the detail
/// text) and on the GPU.
__host__ __device__ inline double widen(const uint16_t raw, bool bf16) {
  if (bf16) {
    __nv_bfloat16_raw r;
    r.x = raw;
    return static_cast<double>(__bfloat162float(__nv_bfloat16(r)));
  }
  __half_raw r;
  r.x = raw;
  return static_cast<double>(__half2float(__half(r)));
}

__device__ inline unsigned long long warp_sum(unsigned long long v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__device__ inline double warp_max(double v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v = fmax(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

__device__ inline unsigned long long warp_min(unsigned long long v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, v, offset);
    v = other < v ? other : v;
  }
  return v;
}

// The element test of compare_arrays (src/core/validation.cpp), grid-stride, reduced per warp.
__global__ void compare_kernel(const uint16_t* __restrict__ out, bool bf16,
                               const float* __restrict__ ref, int64_t count, double tol_abs,
                               double tol_rel, CompareTotals* totals) {
  unsigned long long failed = 0;
  unsigned long long non_finite = 0;
  double max_abs_error = 0.0;
  double worst_ratio = 0.0;
  unsigned long long first_failure = ULLONG_MAX;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const double o = widen(out[i], bf16);
    const double r = static_cast<double>(ref[i]);
    if (!isfinite(o) || !isfinite(r)) {
      ++non_finite;
      ++failed;
      first_failure = min(first_failure, static_cast<unsigned long long>(i));
      continue;
    }
    const double err = fabs(o - r);
    // Unfused, as the host computes it: nvcc would contract a + b·c into one FMA.
    const double allowed = __dadd_rn(tol_abs, __dmul_rn(tol_rel, fabs(r)));
    max_abs_error = fmax(max_abs_error, err);
    const double ratio = allowed > 0 ? err / allowed : (err > 0 ? CUDART_INF : 0.0);
    if (isfinite(ratio)) worst_ratio = fmax(worst_ratio, ratio);
    if (err > allowed) {
      ++failed;
      first_failure = min(first_failure, static_cast<unsigned long long>(i));
    }
  }
  failed = warp_sum(failed);
  non_finite = warp_sum(non_finite);
  max_abs_error = warp_max(max_abs_error);
  worst_ratio = warp_max(worst_ratio);
  first_failure = warp_min(first_failure);
  if (threadIdx.x % 32 != 0) return;
  if (failed > 0) atomicAdd(&totals->failed, failed);
  if (non_finite > 0) atomicAdd(&totals->non_finite, non_finite);
  atomicMax(&totals->max_abs_error_bits,
            static_cast<unsigned long long>(__double_as_longlong(max_abs_error)));
  atomicMax(&totals->worst_ratio_bits,
            static_cast<unsigned long long>(__double_as_longlong(worst_ratio)));
  if (first_failure != ULLONG_MAX) atomicMin(&totals->first_failure, first_failure);
}

double bits_to_double(unsigned long long bits) {
  double value = 0;
  static_assert(sizeof(value) == sizeof(bits), "64-bit double");
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

}  // namespace

Validation compare_on_device(const void* out, Dtype out_dtype, const float* ref, int64_t count,
                             Tolerance tol, const std::string& reference_name) {
  Validation v;
  v.reference = reference_name;
  v.tolerance = tol;
  v.checked_elements = count;
  if (count == 0) {
    v.detail = "no elements checked";
    return v;
  }
  DeviceBuffer<CompareTotals> totals(1);
  const CompareTotals start{0, 0, 0, 0, ULLONG_MAX};
  RFL_CUDA_CHECK(cudaMemcpy(totals.get(), &start, sizeof(start), cudaMemcpyHostToDevice));
  int device = 0;
  int sms = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int64_t needed_blocks = (count + kCompareThreads - 1) / kCompareThreads;
  const auto blocks = static_cast<unsigned int>(
      std::min<int64_t>(needed_blocks, int64_t{sms} * kCompareBlocksPerSm));
  const auto* out16 = static_cast<const uint16_t*>(out);
  compare_kernel<<<blocks, kCompareThreads>>>(out16, out_dtype == Dtype::kBf16, ref, count, tol.abs,
                                              tol.rel, totals.get());
  RFL_CUDA_CHECK(cudaGetLastError());
  CompareTotals result{};
  RFL_CUDA_CHECK(cudaMemcpy(&result, totals.get(), sizeof(result), cudaMemcpyDeviceToHost));
  v.failed_elements = static_cast<int64_t>(result.failed);
  v.non_finite_elements = static_cast<int64_t>(result.non_finite);
  v.max_abs_error = bits_to_double(result.max_abs_error_bits);
  v.worst_ratio = bits_to_double(result.worst_ratio_bits);
  v.passed = v.failed_elements == 0;
  if (result.first_failure != ULLONG_MAX) {
    const auto i = static_cast<int64_t>(result.first_failure);
    uint16_t raw = 0;
    float r32 = 0;
    RFL_CUDA_CHECK(cudaMemcpy(&raw, out16 + i, sizeof(raw), cudaMemcpyDeviceToHost));
    RFL_CUDA_CHECK(cudaMemcpy(&r32, ref + i, sizeof(r32), cudaMemcpyDeviceToHost));
    const double o = widen(raw, out_dtype == Dtype::kBf16);
    const double r = static_cast<double>(r32);
    if (!std::isfinite(o) || !std::isfinite(r)) {
      v.detail = fmt::format("index {}: out {} ref {} (non-finite)", i, o, r);
    } else {
      v.detail = fmt::format("index {}: out {:.6g} ref {:.6g} |err| {:.3g} > {:.3g}", i, o, r,
                             std::fabs(o - r), tol.abs + tol.rel * std::fabs(r));
    }
  }
  return v;
}

}  // namespace rooflinectl
