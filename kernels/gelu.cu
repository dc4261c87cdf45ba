// GELU on the FFN activation [batch·seq_len, d_ff] (d_ff = Shape::ffn_width(): ffn_dim, else
// 4·d_model), 16-bit in and out, fp32 math. Two forms (Hendrycks & Gimpel 2016, "Gaussian Error
// Linear Units", §2):
//   erf:  gelu(x) = 0.5·x·(1 + erf(x/√2)) = x·Φ(x)                   (exact; PyTorch's default)
//   tanh: gelu(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))     (the paper's approximation)
// gelu_v2_full_grid: a full grid of short-lived 256-thread blocks, each thread ONE 16-byte vector
// (8 elements) read with ld.global.cs and written with st.global.cs, no grid-stride loop (the
// pattern that matches cudaMemcpy on the H200, docs/perf-notes.md); the thread after the last
// vector does the count % 8 tail. The math takes few issue slots per element:
//   erf:  Φ from Abramowitz & Stegun 7.1.26, 15 instructions;
//   tanh: 0.5·(1 + tanh(u)) = 1/(1 + e^(−2u)), 7 instructions;
// both with the MUFU ex2.approx.ftz and rcp.approx.ftz instructions (gelu() in
// kernels/common/activation_math.hpp, which states its accuracy and which geglu shares); v1 and
// the measurements are in docs/perf-notes.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/kernel_version.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/activation_math.hpp"
#include "kernels/common/activation_reference.hpp"
#include "kernels/common/pack_pair.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

constexpr int kGeluThreads = 256;
// Below this many elements every element is checked on the CPU; above it, a sample (see
// sample_plan) keeps validation to a fraction of a second for 10^8-10^9 element tensors.
constexpr int64_t kFullCheckElements = int64_t{1} << 22;
constexpr int64_t kEdgeElements = 4096;    // always checked at both ends of a sampled tensor
constexpr int64_t kSampleChunks = 16384;   // strided chunks between the two edges
constexpr int64_t kSampleChunkElems = 64;  // contiguous, so every lane of a 16-byte vector is hit

// CPU reference: gelu_reference (kernels/common/activation_reference.hpp, float64), applied to the
// 16-bit input as stored.

// ---------------------------------------------------------------------------------------------
// Kernel.

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

// y[i] = gelu(x[i]) for i < count. x and y are 16-byte aligned (cudaMalloc). Thread g of the
// grid (g = block·256 + lane) converts vector g, loaded and stored with streaming hints (x is read
// once, y is not read back by this kernel); thread count / 8 does the count % 8 trailing elements.
template <class T, GeluForm kForm>
__global__ void __launch_bounds__(kGeluThreads)
    gelu_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t count) {
#ifdef RFL_TEST_SLOWDOWN
  const long long slowdown_start = clock64();
#endif
  const int64_t vec_count = count / kElemsPerVec;
  const int64_t g = static_cast<int64_t>(blockIdx.x) * kGeluThreads + threadIdx.x;
  if (g < vec_count) {
    const uint4 in = __ldcs(reinterpret_cast<const uint4*>(x) + g);
    __stcs(reinterpret_cast<uint4*>(y) + g, gelu_vec<T, kForm>(in));
  } else if (g == vec_count) {
    for (int64_t i = vec_count * kElemsPerVec; i < count; ++i) {
      y[i] = T(gelu<kForm>(static_cast<float>(x[i])));
    }
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

template <class T>
GeluLauncher choose_for_type(GeluForm form) {
  return form == GeluForm::kErf ? &launch_typed<T, GeluForm::kErf>
                                : &launch_typed<T, GeluForm::kTanh>;
}

GeluLauncher choose_gelu_kernel(Dtype dtype, GeluForm form) {
  return dtype == Dtype::kBf16 ? choose_for_type<__nv_bfloat16>(form)
                               : choose_for_type<__half>(form);
}

int64_t gelu_element_count(const Shape& s) { return s.tokens() * s.ffn_width(); }

// Grid: one thread per 16-byte vector plus one for the tail, in blocks of kGeluThreads. Throws a
// bad-input Error past the 2^31 − 1 blocks of a 1-D grid (~4.4·10^12 elements).
int gelu_grid_blocks(int64_t count) {
  const int64_t threads = count / kElemsPerVec + 1;
  const int64_t blocks = (threads + kGeluThreads - 1) / kGeluThreads;
  if (blocks > INT_MAX) {
    throw bad_input(fmt::format("gelu: {} elements need more than {} blocks", count, INT_MAX));
  }
  return static_cast<int>(blocks);
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

/// The versions `--kernel gelu=KEY` names.
const std::vector<KernelVersion>& gelu_versions() {
  static const std::vector<KernelVersion> versions = {
      {"v2", "gelu_v2_full_grid", "compute capability 8.0+", ""}};
  return versions;
}

class GeluRun final : public OperatorRun {
 public:
  explicit GeluRun(const Shape& shape)
      : shape_(shape),
        count_(gelu_element_count(shape)),
        x_(count_),
        y_(count_),
        launch_(choose_gelu_kernel(shape.dtype, shape.gelu_form)),
        blocks_(gelu_grid_blocks(count_)) {
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
    launch_(x_.get(), y_.get(), count_, blocks_, stream);
  }

  std::vector<std::string> kernel_names() const override {
    return {shape_.gelu_form == GeluForm::kErf ? "gelu_erf" : "gelu_tanh"};
  }

  std::string version() const override { return gelu_versions().front().name; }

 private:
  Shape shape_;
  int64_t count_;
  DeviceBuffer<uint16_t> x_;
  DeviceBuffer<uint16_t> y_;
  GeluLauncher launch_;
  int blocks_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Registration.

// Analytic model (src/model/operator_model.cpp):
//   FLOPs per element, counting the arithmetic the formula states and not the special function:
//     erf form  4 FLOP: x·(1/√2), 1 + erf, 0.5·x, and the final product;
//     tanh form 8 FLOP: x·x, ·0.044715, ·x (the cube term), + x, ·√(2/π), 1 + tanh, 0.5·x, product.
//   FLOPs = N × (4 or 8), N = batch·seq_len·d_ff.
//   Bytes = 2·N·e (x read once, y written once; e = 2).
//   What the fp32 counters (2·FFMA + FADD + FMUL) will show differs (from the PTX of v2): the erf
//   form executes 5 FFMA + 5 FMUL + 1 FADD = 16 counted FLOP per element (4× the convention), the
//   tanh form 1 FFMA + 3 FMUL + 1 FADD = 6 (0.75×); the MUFU work is counted nowhere.
OperatorSpec gelu_spec() {
  OperatorSpec spec;
  spec.name = kGeluOp;
  spec.summary =
      "element-wise GELU (erf or tanh form) on the FFN activation [B·L, d_ff], d_ff = ffn_dim or "
      "4·d_model";
  spec.pipe = constant_pipe(Pipe::kFp32);
  spec.mma_inputs = no_mma_inputs;
  spec.check_shape = [](const Shape& shape) { validate_common_shape(shape); };
  // x and y, N = B·L·d_ff elements each.
  spec.device_bytes = [](const Shape& shape) {
    return 2 * gelu_element_count(shape) * dtype_size_bytes(shape.dtype);
  };
  spec.versions = gelu_versions();
  spec.default_version = gelu_versions().front().key;
  spec.create = [](const Shape& shape,
                   const std::string& version_key) -> std::unique_ptr<OperatorRun> {
    // The key is checked, not chosen: there is one version.
    find_kernel_version("gelu", gelu_versions(), gelu_versions().front().key, version_key);
    return std::make_unique<GeluRun>(shape);
  };
  return spec;
}

}  // namespace rooflinectl
