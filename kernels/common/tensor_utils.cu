#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "core/parallel_for.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/common/tensor_utils.hpp"

namespace rooflinectl {
namespace {

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
__global__ void fill_uniform_kernel(T* data, int64_t count, uint64_t seed, float lo, float hi) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const uint64_t bits = splitmix64(seed ^ splitmix64(static_cast<uint64_t>(i)));
    const float u = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);  // 24 bits in [0,1)
    const float v = lo + (hi - lo) * u;
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      data[i] = __float2bfloat16(v);
    } else {
      data[i] = __float2half(v);
    }
  }
}

}  // namespace

void fill_uniform(void* data, int64_t count, Dtype dtype, uint64_t seed, float lo, float hi) {
  if (count <= 0) return;
  const int threads = 256;
  const int64_t wanted = (count + threads - 1) / threads;
  const int blocks = static_cast<int>(wanted < 65536 ? wanted : 65536);
  if (dtype == Dtype::kBf16) {
    fill_uniform_kernel<<<blocks, threads>>>(static_cast<__nv_bfloat16*>(data), count, seed, lo,
                                             hi);
  } else {
    fill_uniform_kernel<<<blocks, threads>>>(static_cast<__half*>(data), count, seed, lo, hi);
  }
  RFL_CHECK_LAUNCH();
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
}

std::vector<double> download_as_double(const void* data, int64_t count, Dtype dtype) {
  std::vector<uint16_t> raw(static_cast<size_t>(count));
  RFL_CUDA_CHECK(
      cudaMemcpy(raw.data(), data, raw.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost));
  std::vector<double> out(raw.size());
  parallel_for(count, int64_t{1} << 20, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if (dtype == Dtype::kBf16) {
        __nv_bfloat16_raw r;
        r.x = raw[static_cast<size_t>(i)];
        out[static_cast<size_t>(i)] = static_cast<double>(__bfloat162float(__nv_bfloat16(r)));
      } else {
        __half_raw r;
        r.x = raw[static_cast<size_t>(i)];
        out[static_cast<size_t>(i)] = static_cast<double>(__half2float(__half(r)));
      }
    }
  });
  return out;
}

std::vector<double> download_row_as_double(const uint16_t* data, int64_t row, int64_t width,
                                           Dtype dtype) {
  return download_as_double(data + row * width, width, dtype);
}

std::vector<int64_t> checked_rows(int64_t rows, int64_t width) {
  constexpr int64_t kMaxCheckedRows = 4096;
  constexpr int64_t kMaxCheckedElements = int64_t{1} << 22;
  if (rows < 1 || width < 1) return {};
  const int64_t count = std::max<int64_t>(
      std::min({rows, kMaxCheckedRows, kMaxCheckedElements / width}), std::min<int64_t>(rows, 2));
  std::vector<int64_t> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    out[static_cast<size_t>(i)] = count == 1 ? 0 : i * (rows - 1) / (count - 1);
  }
  return out;
}

std::vector<double> download_fp32_as_double(const float* data, int64_t count) {
  std::vector<float> raw(static_cast<size_t>(count));
  RFL_CUDA_CHECK(cudaMemcpy(raw.data(), data, raw.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return std::vector<double>(raw.begin(), raw.end());
}

double round_to_dtype(double value, Dtype dtype) {
  const float f = static_cast<float>(value);
  if (dtype == Dtype::kBf16) return static_cast<double>(__bfloat162float(__float2bfloat16(f)));
  return static_cast<double>(__half2float(__float2half(f)));
}

Tolerance default_tolerance(Dtype dtype) {
  return dtype == Dtype::kBf16 ? Tolerance{1.0 / 128, 1.0 / 128} : Tolerance{1.0 / 512, 1.0 / 512};
}

}  // namespace rooflinectl
