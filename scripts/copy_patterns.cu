// Copy-pattern exploration: which structure of a device-to-device copy kernel reaches cudaMemcpy's
// bandwidth (grid-stride vs full grid, vectors in flight, threads per block, streaming hints), plus
// read-only and write-only variants. Prints one line per variant: buffer size, name, median time
// of 15 CUDA-event samples after 3 warm-ups, TB/s (bytes read + written). A benchmark, not a test.
// Build and run on the GPU machine:  nvcc -std=c++17 -O3 -arch=sm_90 -o /tmp/copy_patterns
//   scripts/copy_patterns.cu && /tmp/copy_patterns   (results: docs/perf-notes.md).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x)                                                      \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      printf("err %s line %d\n", cudaGetErrorString(e), __LINE__); \
      exit(1);                                                     \
    }                                                              \
  } while (0)

template <int U, int HINT>
__global__ void copy_gs(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = HINT ? __ldcs(in + i + u * stride) : in[i + u * stride];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (HINT)
        __stcs(out + i + u * stride, v[u]);
      else
        out[i + u * stride] = v[u];
    }
  }
  for (; i < n; i += stride) out[i] = in[i];
}
// Each block copies a contiguous chunk (block-contiguous), U loads in flight per thread.
template <int U>
__global__ void copy_chunk(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n) {
  size_t per_block = (size_t)blockDim.x * U;
  size_t base = (size_t)blockIdx.x * per_block + threadIdx.x;
  uint4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    size_t j = base + u * blockDim.x;
    if (j < n) v[u] = __ldcs(in + j);
  }
#pragma unroll
  for (int u = 0; u < U; ++u) {
    size_t j = base + u * blockDim.x;
    if (j < n) __stcs(out + j, v[u]);
  }
}
template <int U>
__global__ void read_gs(const uint4* __restrict__ in, size_t n, unsigned* sink) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcs(in + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x12345678u) *sink = acc;
}
template <int U>
__global__ void read_chunk(const uint4* __restrict__ in, size_t n, unsigned* sink) {
  size_t per_block = (size_t)blockDim.x * U;
  size_t base = (size_t)blockIdx.x * per_block + threadIdx.x;
  unsigned acc = 0;
  uint4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    size_t j = base + u * blockDim.x;
    if (j < n)
      v[u] = __ldcs(in + j);
    else
      v[u] = make_uint4(0, 0, 0, 0);
  }
#pragma unroll
  for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  if (acc == 0x12345678u) *sink = acc;
}
__global__ void write_gs(uint4* __restrict__ out, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    __stcs(out + i, make_uint4(i, 1, 2, 3));
}

template <class F>
double time_ms(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int w = 0; w < 3; ++w) f();
  std::vector<float> t;
  for (int r = 0; r < 15; ++r) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
int main() {
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  size_t sizes[] = {size_t(256) << 20, size_t(1) << 30, size_t(2) << 30};
  unsigned* sink;
  CK(cudaMalloc(&sink, 4));
  for (size_t bytes : sizes) {
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 1, bytes));
    CK(cudaMemset(b, 2, bytes));
    size_t n = bytes / 16;
    const uint4* in = (const uint4*)a;
    uint4* out = (uint4*)b;
    auto rep = [&](const char* name, double ms, double moved) {
      printf("%6zu MiB  %-44s %8.4f ms  %6.3f TB/s\n", bytes >> 20, name, ms, moved / ms / 1e9);
    };
    rep("cudaMemcpyAsync D2D",
        time_ms([&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); }), 2.0 * bytes);
    char name[128];
    // The macro benchmark lists below keep their hand layout: clang-format reflows them
    // differently on each pass (not idempotent).
    // clang-format off
    for (int T : {256, 512, 1024}) for (int bps : {1, 2, 4, 8, 16}) {
      if (T * bps > 2048) continue;
      int grid = sms * bps;
#define GS(U, H) snprintf(name, sizeof name, "copy_gs U=%d hint=%d T=%d blocks=%dxSM", U, H, T, bps); rep(name, time_ms([&] { copy_gs<U, H><<<grid, T>>>(in, out, n); }), 2.0 * bytes);
      GS(1, 1) GS(2, 1) GS(4, 1) GS(8, 1) GS(4, 0)
    }
#define CH(U, T) snprintf(name, sizeof name, "copy_chunk U=%d T=%d (full grid)", U, T); rep(name, time_ms([&] { copy_chunk<U><<<(unsigned)((n + T * U - 1) / (T * U)), T>>>(in, out, n); }), 2.0 * bytes);
    CH(1, 256) CH(2, 256) CH(4, 256) CH(8, 256) CH(4, 512) CH(8, 128) CH(16, 128)
    for (int T : {256, 512, 1024}) for (int bps : {1, 2, 4, 8}) {
      if (T * bps > 2048) continue;
      int grid = sms * bps;
#define RG(U) snprintf(name, sizeof name, "read_gs U=%d T=%d blocks=%dxSM", U, T, bps); rep(name, time_ms([&] { read_gs<U><<<grid, T>>>(in, n, sink); }), 1.0 * bytes);
      RG(2) RG(4) RG(8)
      snprintf(name, sizeof name, "write_gs T=%d blocks=%dxSM", T, bps); rep(name, time_ms([&] { write_gs<<<grid, T>>>(out, n); }), 1.0 * bytes);
    }
#define RC(U, T) snprintf(name, sizeof name, "read_chunk U=%d T=%d (full grid)", U, T); rep(name, time_ms([&] { read_chunk<U><<<(unsigned)((n + T * U - 1) / (T * U)), T>>>(in, n, sink); }), 1.0 * bytes);
    RC(4, 256) RC(8, 256) RC(16, 128)
        // clang-format on
        rep("cudaMemsetAsync (write)", time_ms([&] { cudaMemsetAsync(b, 3, bytes); }), 1.0 * bytes);
    CK(cudaFree(a));
    CK(cudaFree(b));
  }
  return 0;
}
