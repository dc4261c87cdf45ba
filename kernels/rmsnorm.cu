// RMSNorm over rows [batch·seq_len, d_model] with γ of length d_model, 16-bit in and out, fp32
// statistics: y = x / sqrt(mean(x²) + ε) · γ, ε = 1e-5 (Zhang & Sennrich 2019, "Root Mean Square
// Layer Normalization", eq. 4; the norm of Llama, Mistral, Qwen, Phi-3 and Gemma: no mean
// subtraction, no β).
// rmsnorm_v1_one_pass_8vec: the row is read once from DRAM into registers (16-byte vectors, up to
// 8 per thread), Σx² is summed from the registers, and y is written from them, so each element
// moves once each way as in a copy. The thread configuration is layernorm's
// (kernels/common/row_reduce.hpp: a warp per row up to d_model 2048, 4 rows per block, then the
// fewest of 64, 128, 256 or 1024 threads that hold the row), with one reduction where LayerNorm
// has two.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/kernel_version.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/pack_pair.hpp"
#include "kernels/common/row_reduce.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/operator.hpp"
#include "kernels/rmsnorm.hpp"

namespace rooflinectl {
namespace {

static_assert(kRmsNormMaxWidth == kRowMaxWidth, "with_row_config holds every supported width");

// ---------------------------------------------------------------------------------------------
// CPU reference (float64), on the 16-bit values as stored.

void rmsnorm_reference_row(const double* x, const double* gamma, int64_t width, double* y) {
  double sum_sq = 0;
  for (int64_t i = 0; i < width; ++i) sum_sq += x[i] * x[i];
  const double inv_rms =
      1.0 / std::sqrt(sum_sq / static_cast<double>(width) + static_cast<double>(kRmsNormEpsilon));
  for (int64_t i = 0; i < width; ++i) y[i] = x[i] * inv_rms * gamma[i];
}

// ---------------------------------------------------------------------------------------------
// Kernel.

// One row per kThreadsPerRow threads; thread t of a row owns the 16-byte vectors t, t +
// kThreadsPerRow, ... The caller guarantees vecs_per_row ≤ kThreadsPerRow · kRowMaxVecsPerThread.
template <class T, int kThreadsPerRow, int kRowsPerBlock>
__global__ void __launch_bounds__(kThreadsPerRow* kRowsPerBlock)
    rmsnorm_kernel(const T* __restrict__ x, const T* __restrict__ gamma, T* __restrict__ y,
                   int64_t rows, int vecs_per_row) {
  static_assert(kRowsPerBlock == 1 || kThreadsPerRow == 32,
                "several rows per block: warp rows only");
  __shared__ float scratch[kThreadsPerRow / 32];
  const int t = threadIdx.x % kThreadsPerRow;
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kThreadsPerRow;
  // Only a warp row can be past the end (the last block of 4); it exits as a whole warp, and
  // warp rows never reach a block barrier.
  if (row >= rows) return;
  const int64_t row_offset = row * vecs_per_row;
  const auto* xr = reinterpret_cast<const uint4*>(x) + row_offset;
  const auto* gv = reinterpret_cast<const uint4*>(gamma);
  auto* yr = reinterpret_cast<uint4*>(y) + row_offset;
  const float inv_width = 1.0f / static_cast<float>(vecs_per_row * kElemsPerVec);

  uint4 v[kRowMaxVecsPerThread];
#pragma unroll
  for (int k = 0; k < kRowMaxVecsPerThread; ++k) {
    const int i = t + k * kThreadsPerRow;
    if (i < vecs_per_row) v[k] = xr[i];
  }

  float sum_sq = 0.0f;
#pragma unroll
  for (int k = 0; k < kRowMaxVecsPerThread; ++k) {
    if (t + k * kThreadsPerRow < vecs_per_row) {
      float f[kElemsPerVec];
      unpack8<T, Widen::kOpaque>(v[k], f);
#pragma unroll
      for (int e = 0; e < kElemsPerVec; ++e) sum_sq = fmaf(f[e], f[e], sum_sq);
    }
  }
  const float inv_rms =
      rsqrtf(row_sum<kThreadsPerRow>(sum_sq, scratch) * inv_width + kRmsNormEpsilon);

#pragma unroll
  for (int k = 0; k < kRowMaxVecsPerThread; ++k) {
    const int i = t + k * kThreadsPerRow;
    if (i < vecs_per_row) {
      float f[kElemsPerVec];
      float g[kElemsPerVec];
      unpack8<T, Widen::kOpaque>(v[k], f);
      unpack8<T, Widen::kOpaque>(gv[i], g);
#pragma unroll
      for (int e = 0; e < kElemsPerVec; ++e) f[e] = f[e] * inv_rms * g[e];
      yr[i] = pack8<T>(f);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Launchers.

template <class T, int kThreadsPerRow, int kRowsPerBlock>
void launch_config(const void* x, const void* gamma, void* y, int64_t rows, int64_t d_model,
                   cudaStream_t stream) {
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  if (blocks > INT_MAX) {
    throw bad_input(fmt::format("rmsnorm: {} rows need {} blocks, above the grid limit {}", rows,
                                blocks, INT_MAX));
  }
  rmsnorm_kernel<T, kThreadsPerRow, kRowsPerBlock>
      <<<static_cast<unsigned>(blocks), kThreadsPerRow * kRowsPerBlock, 0, stream>>>(
          static_cast<const T*>(x), static_cast<const T*>(gamma), static_cast<T*>(y), rows,
          static_cast<int>(d_model / kElemsPerVec));
  RFL_CHECK_LAUNCH();
}

// The configuration with_row_config (kernels/common/row_reduce.hpp) chooses for d_model.
template <class T>
void launch_typed(const void* x, const void* gamma, void* y, int64_t rows, int64_t d_model,
                  cudaStream_t stream) {
  with_row_config(d_model, [&](auto threads_per_row, auto rows_per_block) {
    launch_config<T, decltype(threads_per_row)::value, decltype(rows_per_block)::value>(
        x, gamma, y, rows, d_model, stream);
  });
}

/// The versions `--kernel rmsnorm=KEY` names.
const std::vector<KernelVersion>& rmsnorm_versions() {
  static const std::vector<KernelVersion> versions = {
      {"v1", "rmsnorm_v1_one_pass_8vec", "compute capability 8.0+", ""}};
  return versions;
}

class RmsNormRun final : public OperatorRun {
 public:
  explicit RmsNormRun(const Shape& shape)
      : shape_(shape),
        rows_(shape.tokens()),
        width_(shape.d_model()),
        x_(rows_ * width_),
        y_(rows_ * width_),
        gamma_(width_) {}

  void fill_random(uint64_t seed) override {
    fill_uniform(x_.get(), x_.count(), shape_.dtype, seed, -1.5f, 2.5f);
    fill_uniform(gamma_.get(), width_, shape_.dtype, seed + 1, 0.5f, 1.5f);
  }

  // The rows checked_rows picks: all when they fit the element budget; otherwise the first, the
  // last and evenly spaced rows between them.
  Validation validate() override {
    launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<double> gamma = download_as_double(gamma_.get(), width_, shape_.dtype);
    const std::vector<int64_t> rows = checked_rows(rows_, width_);
    std::vector<double> out;
    std::vector<double> ref(rows.size() * static_cast<size_t>(width_));
    out.reserve(ref.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::vector<double> x = download_row_as_double(x_.get(), rows[i], width_, shape_.dtype);
      const std::vector<double> y = download_row_as_double(y_.get(), rows[i], width_, shape_.dtype);
      rmsnorm_reference_row(x.data(), gamma.data(), width_,
                            ref.data() + i * static_cast<size_t>(width_));
      out.insert(out.end(), y.begin(), y.end());
    }
    return compare_arrays(out.data(), ref.data(), static_cast<int64_t>(ref.size()),
                          default_tolerance(shape_.dtype),
                          fmt::format("cpu-float64 ({} of {} rows)", rows.size(), rows_));
  }

  void launch(cudaStream_t stream) override {
    launch_rmsnorm(x_.get(), gamma_.get(), y_.get(), rows_, width_, shape_.dtype, stream);
  }

  std::vector<std::string> kernel_names() const override { return {"rmsnorm"}; }

  std::string version() const override { return rmsnorm_versions().front().name; }

 private:
  Shape shape_;
  int64_t rows_;
  int64_t width_;
  DeviceBuffer<uint16_t> x_;
  DeviceBuffer<uint16_t> y_;
  DeviceBuffer<uint16_t> gamma_;
};

}  // namespace

void check_rmsnorm_width(int64_t d_model) {
  if (d_model < kElemsPerVec || d_model % kElemsPerVec != 0 || d_model > kRmsNormMaxWidth) {
    throw bad_input(fmt::format(
        "rmsnorm: d_model {} (--hidden, else heads × head_dim) is not supported: it must be a "
        "multiple of {} between {} and {}",
        d_model, kElemsPerVec, kElemsPerVec, kRmsNormMaxWidth));
  }
}

void launch_rmsnorm(const void* x, const void* gamma, void* y, int64_t rows, int64_t d_model,
                    Dtype dtype, cudaStream_t stream) {
  check_rmsnorm_width(d_model);
  if (rows < 1) throw bad_input(fmt::format("rmsnorm: rows {} must be at least 1", rows));
  if (dtype == Dtype::kBf16) {
    launch_typed<__nv_bfloat16>(x, gamma, y, rows, d_model, stream);
  } else {
    launch_typed<__half>(x, gamma, y, rows, d_model, stream);
  }
}

// ---------------------------------------------------------------------------------------------
// Registration.

// Analytic model (src/model/operator_model.cpp), N = batch·seq_len·d_model, e = 2:
//   FLOPs = 4·N: per element 2 (FMA into Σx²) + 2 (·rstd, ·γ). The per-row reduction (~20
//   shuffle-adds per thread) and rsqrt are left out, as layernorm leaves them out.
//   Bytes = 2·N·e + d_model·e (x read, y written once; γ read once, then cached in L2).
OperatorSpec rmsnorm_spec() {
  OperatorSpec spec;
  spec.name = kRmsnormOp;
  spec.summary = "RMSNorm over rows [B·L, d_model] with γ (no centring, no β); fp32 Σx²";
  spec.pipe = constant_pipe(Pipe::kFp32);
  spec.mma_inputs = no_mma_inputs;
  spec.check_shape = [](const Shape& shape) {
    validate_common_shape(shape);
    check_rmsnorm_width(shape.d_model());
  };
  // x and y [B·L, d_model], γ [d_model].
  spec.device_bytes = [](const Shape& shape) {
    return (2 * shape.tokens() * shape.d_model() + shape.d_model()) * dtype_size_bytes(shape.dtype);
  };
  spec.versions = rmsnorm_versions();
  spec.default_version = rmsnorm_versions().front().key;
  spec.create = [](const Shape& shape,
                   const std::string& version_key) -> std::unique_ptr<OperatorRun> {
    // The key is checked, not chosen: there is one version.
    find_kernel_version("rmsnorm", rmsnorm_versions(), rmsnorm_versions().front().key, version_key);
    return std::make_unique<RmsNormRun>(shape);
  };
  return spec;
}

}  // namespace rooflinectl
