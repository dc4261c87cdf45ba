// GELU on the FFN activation [batch·seq_len, 4·d_model] (d_model = heads·head_dim), 16-bit in and
// out, fp32 math. Two forms (Hendrycks & Gimpel 2016, "Gaussian Error Linear Units", §2):
//   erf:  gelu(x) = 0.5·x·(1 + erf(x/√2))                          (exact; PyTorch's default)
//   tanh: gelu(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))     (the paper's approximation)
//
// Versions:
//   gelu_v1_vectorized  16-byte loads and stores (8 elements per access), kGeluUnroll independent
//                       16-byte loads in flight per thread before any math, a grid of one full wave
//                       of resident blocks (SM count × occupancy, queried) striding over the
//                       tensor, scalar tail for element counts that are not a multiple of 8.
//
// Analytic model (for src/model):
//   FLOPs per element, counting the arithmetic the formula states and not the special function:
//     erf form  4 FLOP: x·(1/√2), 1 + erf, 0.5·x, and the final product;
//     tanh form 8 FLOP: x·x, ·0.044715, ·x (the cube term), + x, ·√(2/π), 1 + tanh, 0.5·x, product.
//   FLOPs = N × (4 or 8), N = batch·seq_len·4·d_model.
//   Bytes = 2·N·e (x read once, y written once; e = 2).
//   What the fp32 counters (2·FFMA + FADD + FMUL) will show differs: CUDA's accurate erff and tanhf
//   are not single special-function instructions but FMA polynomials (erff: 7 FMA + MUFU.EX2 on
//   one branch; tanhf: 6 FMA and MUFU.EX2 + MUFU.RCP, from CUDA 13's PTX), so about 20 FLOP per
//   element are counted for either form, while the MUFU work is counted nowhere. A counted/analytic
//   ratio of ~5 (erf) or ~2.5 (tanh) is a property of the math library, not a bug.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

constexpr int kGeluThreads = 256;
constexpr int kElemsPerVec = 8;  // one 16-byte access of 16-bit elements
constexpr int kGeluUnroll = 4;   // 64 bytes of loads in flight per thread
// Below this many elements every element is checked on the CPU; above it, a sample (see
// sample_plan) keeps validation to a fraction of a second for 10^8-10^9 element tensors.
constexpr int64_t kFullCheckElements = int64_t{1} << 22;
constexpr int64_t kEdgeElements = 4096;    // always checked at both ends of a sampled tensor
constexpr int64_t kSampleChunks = 16384;   // strided chunks between the two edges
constexpr int64_t kSampleChunkElems = 64;  // contiguous, so every lane of a 16-byte vector is hit
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluCubic = 0.044715;

// ---------------------------------------------------------------------------------------------
// CPU reference (float64, std::erf / std::tanh), applied to the 16-bit input as stored.

double gelu_reference(double x, GeluForm form) {
  if (form == GeluForm::kErf) return 0.5 * x * (1.0 + std::erf(x * kInvSqrt2));
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
}

// ---------------------------------------------------------------------------------------------
// Kernel.

// Pairs of 16-bit values converted to and from float2 (paired conversions are one instruction).
template <class T>
struct Pair16;
template <>
struct Pair16<__nv_bfloat16> {
  using Type = __nv_bfloat162;
  static __device__ __forceinline__ float2 to_float2(Type v) { return __bfloat1622float2(v); }
  static __device__ __forceinline__ Type from_float2(float2 f) { return __float22bfloat162_rn(f); }
};
template <>
struct Pair16<__half> {
  using Type = __half2;
  static __device__ __forceinline__ float2 to_float2(Type v) { return __half22float2(v); }
  static __device__ __forceinline__ Type from_float2(float2 f) { return __float22half2_rn(f); }
};

template <GeluForm kForm>
__device__ __forceinline__ float gelu(float x) {
  if constexpr (kForm == GeluForm::kErf) {
    return 0.5f * x * (1.0f + erff(x * static_cast<float>(kInvSqrt2)));
  } else {
    const float inner =
        static_cast<float>(kSqrt2OverPi) * (x + static_cast<float>(kGeluCubic) * x * x * x);
    return 0.5f * x * (1.0f + tanhf(inner));
  }
}

#ifdef RFL_TEST_SLOWDOWN
// Test-only (CMake -DRFL_TEST_SLOWDOWN=ON, OFF by default, never in a shipped binary): with
// RFL_TEST_SLOWDOWN_GELU_PERCENT=P in the environment, every thread spins on clock64() after its
// work for P% of the cycles that work took, so the kernel runs ~P% longer while its DRAM bytes,
// L2 bytes and FLOPs stay put (the spin is integer-only and touches no memory). It exists to show
// on a GPU that `rooflinectl compare` flags one slowed kernel, alone, through its time gate.
__constant__ int g_test_slowdown_percent;

__device__ __forceinline__ void test_slowdown_spin(long long start) {
  const int percent = g_test_slowdown_percent;
  if (percent <= 0) return;
  const long long now = clock64();
  const long long until = now + (now - start) * percent / 100;
  while (clock64() < until) {
  }
}

// Reads RFL_TEST_SLOWDOWN_GELU_PERCENT (0 when unset) into the kernel's constant; says so on
// stderr once when it is not 0, so no report from such a run passes for a real one.
void load_test_slowdown() {
  const char* text = std::getenv("RFL_TEST_SLOWDOWN_GELU_PERCENT");
  int percent = 0;
  if (text != nullptr) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < 0 || value > 1000) {
      throw bad_input(fmt::format(
          "invalid RFL_TEST_SLOWDOWN_GELU_PERCENT '{}': allowed an integer 0..1000", text));
    }
    percent = static_cast<int>(value);
  }
  static bool announced = false;
  if (percent > 0 && !announced) {
    fmt::print(stderr, "warning: test-only build: GELU slowed by {}% on purpose\n", percent);
    announced = true;
  }
  RFL_CUDA_CHECK(cudaMemcpyToSymbol(g_test_slowdown_percent, &percent, sizeof(percent)));
}
#endif

template <class T, GeluForm kForm>
__device__ __forceinline__ uint4 gelu_vec(uint4 in) {
  using P = Pair16<T>;
  const auto* pairs = reinterpret_cast<const typename P::Type*>(&in);
  uint4 out;
  auto* out_pairs = reinterpret_cast<typename P::Type*>(&out);
#pragma unroll
  for (int i = 0; i < kElemsPerVec / 2; ++i) {
    const float2 f = P::to_float2(pairs[i]);
    out_pairs[i] = P::from_float2(make_float2(gelu<kForm>(f.x), gelu<kForm>(f.y)));
  }
  return out;
}

// y[i] = gelu(x[i]) for i < count. x and y are 16-byte aligned (cudaMalloc). Block b starts at
// vector b·blockDim·kGeluUnroll; each pass loads kGeluUnroll vectors blockDim apart (coalesced)
// before converting any, so several 16-byte loads per thread are outstanding. The count % 8
// trailing elements are done by the first threads of the grid.
template <class T, GeluForm kForm>
__global__ void __launch_bounds__(kGeluThreads)
    gelu_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t count) {
#ifdef RFL_TEST_SLOWDOWN
  const long long slowdown_start = clock64();
#endif
  const int64_t vec_count = count / kElemsPerVec;
  const auto* xv = reinterpret_cast<const uint4*>(x);
  auto* yv = reinterpret_cast<uint4*>(y);
  const int64_t pass_stride = static_cast<int64_t>(gridDim.x) * blockDim.x * kGeluUnroll;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x * kGeluUnroll + threadIdx.x;
       base < vec_count; base += pass_stride) {
    uint4 v[kGeluUnroll];
#pragma unroll
    for (int u = 0; u < kGeluUnroll; ++u) {
      const int64_t i = base + static_cast<int64_t>(u) * blockDim.x;
      if (i < vec_count) v[u] = xv[i];
    }
#pragma unroll
    for (int u = 0; u < kGeluUnroll; ++u) {
      const int64_t i = base + static_cast<int64_t>(u) * blockDim.x;
      if (i < vec_count) yv[i] = gelu_vec<T, kForm>(v[u]);
    }
  }
  const int64_t tail_begin = vec_count * kElemsPerVec;
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < count - tail_begin) {
    y[tail_begin + t] = T(gelu<kForm>(static_cast<float>(x[tail_begin + t])));
  }
#ifdef RFL_TEST_SLOWDOWN
  test_slowdown_spin(slowdown_start);
#endif
}

// ---------------------------------------------------------------------------------------------
// Launcher.

// One typed entry point per (dtype, form); erases T so the run object holds a plain pointer.
template <class T, GeluForm kForm>
void launch_typed(const void* x, void* y, int64_t count, int blocks, cudaStream_t stream) {
  gelu_kernel<T, kForm>
      <<<blocks, kGeluThreads, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(y), count);
  RFL_CHECK_LAUNCH();
}

using GeluLauncher = void (*)(const void*, void*, int64_t, int, cudaStream_t);

struct GeluKernelChoice {
  GeluLauncher launch;
  const void* kernel;  // for the occupancy query
};

template <class T>
GeluKernelChoice choose_for_type(GeluForm form) {
  if (form == GeluForm::kErf) {
    return {&launch_typed<T, GeluForm::kErf>,
            reinterpret_cast<const void*>(&gelu_kernel<T, GeluForm::kErf>)};
  }
  return {&launch_typed<T, GeluForm::kTanh>,
          reinterpret_cast<const void*>(&gelu_kernel<T, GeluForm::kTanh>)};
}

GeluKernelChoice choose_gelu_kernel(Dtype dtype, GeluForm form) {
  return dtype == Dtype::kBf16 ? choose_for_type<__nv_bfloat16>(form)
                               : choose_for_type<__half>(form);
}

int64_t gelu_element_count(const Shape& s) { return s.tokens() * 4 * s.d_model(); }

// Grid: enough blocks for every vector pass, but no more than one wave of resident blocks
// (SM count × blocks per SM from the occupancy calculator); the kernel strides beyond that.
int gelu_grid_blocks(const void* kernel, int64_t count) {
  int device = 0;
  int sm_count = 0;
  int blocks_per_sm = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  RFL_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kGeluThreads, 0));
  const int64_t per_block = int64_t{kGeluThreads} * kGeluUnroll * kElemsPerVec;
  const int64_t needed = (count + per_block - 1) / per_block;
  const int64_t wave = int64_t{sm_count} * std::max(blocks_per_sm, 1);
  return static_cast<int>(std::max<int64_t>(1, std::min(needed, wave)));
}

// Gathers `rows` chunks of `width` 16-bit elements whose starts are `pitch` elements apart into
// one device buffer (one 2-D copy), then downloads them as double. Synchronous.
std::vector<double> download_strided(const uint16_t* data, int64_t width, int64_t pitch,
                                     int64_t rows, Dtype dtype) {
  DeviceBuffer<uint16_t> gathered(width * rows);
  const size_t e = sizeof(uint16_t);
  RFL_CUDA_CHECK(cudaMemcpy2D(gathered.get(), width * e, data, pitch * e, width * e, rows,
                              cudaMemcpyDeviceToDevice));
  return download_as_double(gathered.get(), gathered.count(), dtype);
}

class GeluRun final : public OperatorRun {
 public:
  explicit GeluRun(const Shape& shape)
      : shape_(shape),
        count_(gelu_element_count(shape)),
        x_(count_),
        y_(count_),
        kernel_(choose_gelu_kernel(shape.dtype, shape.gelu_form)),
        blocks_(gelu_grid_blocks(kernel_.kernel, count_)) {
#ifdef RFL_TEST_SLOWDOWN
    load_test_slowdown();
#endif
  }

  void fill_random(uint64_t seed) override {
    fill_uniform(x_.get(), count_, shape_.dtype, seed, -4.0f, 4.0f);
  }

  Validation validate() override {
    launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> x;
    std::vector<double> y;
    if (count_ <= kFullCheckElements) {
      x = download_as_double(x_.get(), count_, shape_.dtype);
      y = download_as_double(y_.get(), count_, shape_.dtype);
    } else {
      // First and last kEdgeElements, plus kSampleChunks chunks evenly spaced strictly between
      // them.
      const int64_t stride = (count_ - 2 * kEdgeElements) / kSampleChunks;
      const uint16_t* xs = x_.get();
      const uint16_t* ys = y_.get();
      auto append = [](std::vector<double>& to, std::vector<double> from) {
        to.insert(to.end(), from.begin(), from.end());
      };
      for (const auto& [src, dst] : {std::pair{xs, &x}, std::pair{ys, &y}}) {
        append(*dst, download_as_double(src, kEdgeElements, shape_.dtype));
        append(*dst, download_strided(src + kEdgeElements, kSampleChunkElems, stride, kSampleChunks,
                                      shape_.dtype));
        append(*dst, download_as_double(src + count_ - kEdgeElements, kEdgeElements, shape_.dtype));
      }
    }
    std::vector<double> ref(x.size());
    for (size_t i = 0; i < x.size(); ++i) ref[i] = gelu_reference(x[i], shape_.gelu_form);
    const auto checked = static_cast<int64_t>(ref.size());
    return compare_arrays(y.data(), ref.data(), checked, default_tolerance(shape_.dtype),
                          fmt::format("cpu-float64 ({} of {} elements)", checked, count_));
  }

  void launch(cudaStream_t stream) override {
    kernel_.launch(x_.get(), y_.get(), count_, blocks_, stream);
  }

  std::vector<std::string> kernel_names() const override {
    return {shape_.gelu_form == GeluForm::kErf ? "gelu_erf" : "gelu_tanh"};
  }

  std::string version() const override { return "gelu_v1_vectorized"; }

 private:
  Shape shape_;
  int64_t count_;
  DeviceBuffer<uint16_t> x_;
  DeviceBuffer<uint16_t> y_;
  GeluKernelChoice kernel_;
  int blocks_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Registration.

OperatorSpec gelu_spec() {
  OperatorSpec spec;
  spec.name = "gelu";
  spec.summary = "element-wise GELU (erf or tanh form) on the FFN activation [B·L, 4·d_model]";
  spec.pipe = Pipe::kFp32;
  spec.check_shape = [](const Shape& shape) { validate_common_shape(shape); };
  // x and y, N = B·L·4·d_model elements each.
  spec.device_bytes = [](const Shape& shape) {
    return 2 * gelu_element_count(shape) * dtype_size_bytes(shape.dtype);
  };
  spec.create = [](const Shape& shape) -> std::unique_ptr<OperatorRun> {
    return std::make_unique<GeluRun>(shape);
  };
  return spec;
}

}  // namespace rooflinectl
