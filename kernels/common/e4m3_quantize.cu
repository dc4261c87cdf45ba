#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "core/fp8_e4m3.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/e4m3_quantize.hpp"

namespace rooflinectl {
namespace {

/// E4M3 scale of a group whose largest |x| is `amax`: amax / 448, so that the largest element
/// maps to E4M3's largest finite value; 1 for an all-zero group.
__device__ __forceinline__ float e4m3_scale(float amax) {
  return amax > 0.0f ? amax / static_cast<float>(kE4m3Max) : 1.0f;
}

constexpr int kQuantThreads = 256;

// Largest |x| of each group of a [rows, row_elems] 16-bit tensor (row r in group r % groups),
// into amax_bits[groups] (zeroed before): block (x, y) scans rows y, y + gridDim.y, ..., reduces,
// and raises the group's entry with atomicMax on the float's bits (non-negative floats order as
// their bits).
template <class T>
__global__ void group_amax_kernel(const T* __restrict__ x, int64_t rows, int64_t row_elems,
                                  int64_t groups, unsigned int* __restrict__ amax_bits) {
  __shared__ float warp_max[kQuantThreads / 32];
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const T* base = x + row * row_elems;
    float m = 0.0f;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < row_elems;
         i += int64_t{gridDim.x} * blockDim.x) {
      m = fmaxf(m, fabsf(static_cast<float>(base[i])));
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
    }
    if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < kQuantThreads / 32; ++w) m = fmaxf(m, warp_max[w]);
      atomicMax(amax_bits + row % groups, __float_as_uint(m));
    }
    __syncthreads();  // before warp_max is written for the next row
  }
}

// E4M3 of x / scale(group), saturating, for the `count` elements of the same layout; the first
// `groups` threads also store the scales.
template <class T>
__global__ void quantize_e4m3_kernel(const T* __restrict__ x, int64_t count, int64_t row_elems,
                                     int64_t groups, const unsigned int* __restrict__ amax_bits,
                                     uint8_t* __restrict__ out, float* __restrict__ scales) {
  const int64_t first = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (first < groups) scales[first] = e4m3_scale(__uint_as_float(amax_bits[first]));
  for (int64_t i = first; i < count; i += int64_t{gridDim.x} * blockDim.x) {
    const float scale = e4m3_scale(__uint_as_float(amax_bits[(i / row_elems) % groups]));
    out[i] = __nv_cvt_float_to_fp8(static_cast<float>(x[i]) / scale, __NV_SATFINITE, __NV_E4M3);
  }
}

// out[i] = E4M3 byte in[i] as T, exactly (through fp16, cuda_fp8.h's __nv_cvt_fp8_to_halfraw).
template <class T>
__global__ void widen_e4m3_kernel(const uint8_t* __restrict__ in, int64_t count,
                                  T* __restrict__ out) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    const __half h(__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(in[i]), __NV_E4M3));
    out[i] = static_cast<T>(__half2float(h));
  }
}

}  // namespace

template <class T>
void widen_e4m3(const uint8_t* in, int64_t count, T* out) {
  const int64_t blocks = std::min<int64_t>((count + kQuantThreads - 1) / kQuantThreads, 65535);
  widen_e4m3_kernel<<<static_cast<unsigned>(std::max<int64_t>(blocks, 1)), kQuantThreads>>>(
      in, count, out);
  RFL_CHECK_LAUNCH();
}

template void widen_e4m3<__nv_bfloat16>(const uint8_t*, int64_t, __nv_bfloat16*);
template void widen_e4m3<__half>(const uint8_t*, int64_t, __half*);

template <class T>
void quantize_e4m3_grouped(const T* x, int64_t rows, int64_t row_elems, int64_t groups,
                           uint8_t* out, float* scales) {
  DeviceBuffer<unsigned int> amax_bits(groups);
  RFL_CUDA_CHECK(cudaMemset(amax_bits.get(), 0, static_cast<size_t>(amax_bits.bytes())));
  const dim3 amax_grid(static_cast<unsigned>(std::min<int64_t>(
                           (row_elems + kQuantThreads - 1) / kQuantThreads, 1024)),
                       static_cast<unsigned>(std::min<int64_t>(rows, 65535)));
  group_amax_kernel<<<amax_grid, kQuantThreads>>>(x, rows, row_elems, groups, amax_bits.get());
  RFL_CHECK_LAUNCH();
  const int64_t count = rows * row_elems;
  const int64_t blocks = std::min<int64_t>((count + kQuantThreads - 1) / kQuantThreads, 65535);
  quantize_e4m3_kernel<<<static_cast<unsigned>(blocks), kQuantThreads>>>(
      x, count, row_elems, groups, amax_bits.get(), out, scales);
  RFL_CHECK_LAUNCH();
  RFL_CUDA_CHECK(cudaDeviceSynchronize());  // before amax_bits is freed
}

template void quantize_e4m3_grouped<__nv_bfloat16>(const __nv_bfloat16*, int64_t, int64_t, int64_t,
                                                   uint8_t*, float*);
template void quantize_e4m3_grouped<__half>(const __half*, int64_t, int64_t, int64_t, uint8_t*,
                                            float*);

}  // namespace rooflinectl
