// Read-bandwidth exploration for the `peaks` DRAM and L2 ceilings: which read
// kernel streams DRAM at least as fast as any kernel of ours (decode attention reached 4.61 TB/s
// where the read-only benchmark reached 4.52), and which one reads L2-resident data fastest (the
// L2 benchmark reached 6.9 TB/s). Variants: cache hints (ld.global.cs, .nc with
// L1::no_allocate, .nc with the L2::256B prefetch hint, .cg), loads in flight per thread (U),
// threads per block (T), blocks per SM, grid-stride vs one contiguous chunk per block, and for L2
// the buffer size (L2/16 … L2/2, many passes). Prints one line per variant: the buffer, the name,
// the median of 15 CUDA-event samples after 3 warm-ups, TB/s of bytes read. A benchmark, not a
// test. Build and run on the GPU machine:
//   nvcc -std=c++17 -O3 -arch=sm_90 -o /tmp/read_patterns scripts/read_patterns.cu &&
//   /tmp/read_patterns
// (results: docs/perf-notes.md, "Read-pattern exploration").
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                           \
  do {                                                                  \
    cudaError_t e = (x);                                                \
    if (e != cudaSuccess) {                                             \
      printf("error %s at line %d\n", cudaGetErrorString(e), __LINE__); \
      std::exit(1);                                                     \
    }                                                                   \
  } while (0)

enum Hint { kCs = 0, kNc = 1, kNc256 = 2, kCg = 3 };

template <int H>
__device__ __forceinline__ uint4 load(const uint4* p) {
  uint4 v;
  if (H == kCs) {
    asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else if (H == kNc) {
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else if (H == kNc256) {
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else {
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  }
  return v;
}

// Grid-stride over n vectors, `passes` times, U loads in flight per thread.
template <int U, int H>
__global__ void read_gs(const uint4* __restrict__ in, size_t n, int passes, unsigned* sink) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  unsigned acc = 0;
  for (int pass = 0; pass < passes; ++pass) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < n; i += U * stride) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = load<H>(in + i + u * stride);
#pragma unroll
      for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n; i += stride) {
      const uint4 v = load<H>(in + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  if (acc == 0x12345678u) *sink = acc;
}

// Each block reads one contiguous chunk of n / gridDim.x vectors (as a decode block reads its
// KV rows), U loads in flight per thread, `passes` times; a chunk's tail shorter than one step of
// blockDim.x × U vectors is not read (chunk_bytes_read counts what is).
template <int U, int H>
__global__ void read_chunk(const uint4* __restrict__ in, size_t n, int passes, unsigned* sink) {
  const size_t per_block = n / gridDim.x;
  const uint4* base = in + (size_t)blockIdx.x * per_block;
  const size_t step = (size_t)blockDim.x * U;
  unsigned acc = 0;
  for (int pass = 0; pass < passes; ++pass) {
    for (size_t s = 0; s + step <= per_block; s += step) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = load<H>(base + s + threadIdx.x + u * blockDim.x);
#pragma unroll
      for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
  }
  if (acc == 0x12345678u) *sink = acc;
}

// Bytes one read_chunk launch of `grid` blocks of T threads reads (full steps only).
double chunk_bytes_read(size_t n, int grid, int T, int U, int passes) {
  const size_t step = static_cast<size_t>(T) * U;
  return 16.0 * grid * (n / grid / step) * step * passes;
}

template <class F>
double median_ms(F f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int w = 0; w < 3; ++w) f();
  std::vector<float> t;
  for (int r = 0; r < 15; ++r) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

const char* hint_name(int h) {
  static const char* names[] = {"cs", "nc", "nc+L2::256B", "cg"};
  return names[h];
}

int main() {
  int sms = 0, l2 = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  unsigned* sink = nullptr;
  CK(cudaMalloc(&sink, 4));
  char name[160];

  // DRAM: 2 GiB read once per launch.
  const size_t dram_bytes = size_t(2) << 30;
  void* buffer = nullptr;
  CK(cudaMalloc(&buffer, dram_bytes));
  CK(cudaMemset(buffer, 0, dram_bytes));
  const uint4* in = static_cast<const uint4*>(buffer);
  const size_t n = dram_bytes / 16;
  auto show = [&](const char* what, size_t bytes, double ms, double moved) {
    printf("%-5s %8.2f MiB  %-52s %9.4f ms  %6.3f TB/s\n", what, bytes / 1048576.0, name, ms,
           moved / ms / 1e9);
  };
#define DRAM_GS(U, H)                                                                           \
  snprintf(name, sizeof name, "gs U=%d %s T=%d blocks=%dxSM", U, hint_name(H), T, bps);         \
  show("dram", dram_bytes, median_ms([&] { read_gs<U, H><<<sms * bps, T>>>(in, n, 1, sink); }), \
       1.0 * dram_bytes);
#define DRAM_CH(U, H)                                                                              \
  snprintf(name, sizeof name, "chunk U=%d %s T=%d blocks=%dxSM", U, hint_name(H), T, bps);         \
  show("dram", dram_bytes, median_ms([&] { read_chunk<U, H><<<sms * bps, T>>>(in, n, 1, sink); }), \
       chunk_bytes_read(n, sms* bps, T, U, 1));
  for (int T : {256, 512, 1024}) {
    for (int bps : {1, 2, 4, 8}) {
      if (T * bps > 2048) continue;
      DRAM_GS(8, kCs)
      DRAM_GS(8, kNc)
      DRAM_GS(8, kNc256)
      DRAM_GS(16, kNc256) DRAM_GS(4, kNc256) DRAM_CH(8, kNc) DRAM_CH(8, kNc256) DRAM_CH(16, kNc256)
    }
  }

  // L2: buffers of L2/16 … L2/2, passes so that each launch reads about 4 GiB.
  for (int divisor : {16, 8, 4, 2}) {
    const size_t bytes = size_t(l2) / divisor / 4096 * 4096;
    const size_t count = bytes / 16;
    const int passes = static_cast<int>((size_t(4) << 30) / bytes);
    const double moved = static_cast<double>(bytes) * passes;
    for (int T : {256, 512, 1024}) {
      for (int bps : {1, 2, 4}) {
        if (T * bps > 2048) continue;
#define L2_GS(U, H)                                                                               \
  snprintf(name, sizeof name, "gs U=%d %s T=%d blocks=%dxSM passes=%d", U, hint_name(H), T, bps,  \
           passes);                                                                               \
  show("l2", bytes, median_ms([&] { read_gs<U, H><<<sms * bps, T>>>(in, count, passes, sink); }), \
       moved);
#define L2_CH(U, H)                                                                            \
  snprintf(name, sizeof name, "chunk U=%d %s T=%d blocks=%dxSM passes=%d", U, hint_name(H), T, \
           bps, passes);                                                                       \
  show("l2", bytes,                                                                            \
       median_ms([&] { read_chunk<U, H><<<sms * bps, T>>>(in, count, passes, sink); }),        \
       chunk_bytes_read(count, sms* bps, T, U, passes));
        L2_GS(4, kCg)
        L2_GS(8, kCg) L2_GS(16, kCg) L2_GS(8, kNc) L2_CH(8, kCg) L2_CH(16, kCg) L2_CH(8, kNc)
      }
    }
  }
  CK(cudaFree(buffer));
  return 0;
}
