// LayerNorm over rows [batch·seq_len, d_model] with γ, β of length d_model, 16-bit in and out,
// statistics in fp32: y = (x - μ) / sqrt(σ² + ε) · γ + β, ε = 1e-5, σ² biased (Ba, Kiros & Hinton
// 2016, "Layer Normalization", eq. 4; PyTorch's nn.LayerNorm convention).
// layernorm_v2_two_pass_8vec: the row is read once from DRAM into registers (16-byte vectors, up
// to 8 per thread); μ from a first pass over the registers, then Σ(x - μ)² from a second, so the
// variance is a sum of non-negative centred terms: no E[x²] - μ² cancellation and no overflow for
// fp16 rows of ±20000 (x² = 4e8, Σ over 65536 elements = 2.6e13, far below fp32's 3.4e38). Rows
// up to d_model 2048 take a warp each (4 rows per block, shuffle-only reductions); wider rows the
// fewest of 64, 128, 256 or 1024 threads that hold them (shuffles, then one shared-memory step;
// kernels/common/row_reduce.hpp, shared with rmsnorm). v1 and the measurements:
// docs/perf-notes.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
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
#include "kernels/layernorm.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

static_assert(kLayerNormMaxWidth == kRowMaxWidth, "with_row_config holds every supported width");

// ---------------------------------------------------------------------------------------------
// CPU reference (float64, centred two-pass), on the 16-bit values as stored.

void layernorm_reference_row(const double* x, const double* gamma, const double* beta,
                             int64_t width, double* y) {
  double sum = 0;
  for (int64_t i = 0; i < width; ++i) sum += x[i];
  const double mean = sum / static_cast<double>(width);
  double sq = 0;
  for (int64_t i = 0; i < width; ++i) sq += (x[i] - mean) * (x[i] - mean);
  const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(width) + kLayerNormEpsilon);
  for (int64_t i = 0; i < width; ++i) y[i] = (x[i] - mean) * rstd * gamma[i] + beta[i];
}

// ---------------------------------------------------------------------------------------------
// Kernel.

// One row per kThreadsPerRow threads; thread t of a row owns the 16-byte vectors t, t +
// kThreadsPerRow,
// ... (so each load instruction of a warp reads 512 contiguous bytes). The caller guarantees
// vecs_per_row ≤ kThreadsPerRow · kRowMaxVecsPerThread.
template <class T, int kThreadsPerRow, int kRowsPerBlock>
__global__ void __launch_bounds__(kThreadsPerRow* kRowsPerBlock)
    layernorm_kernel(const T* __restrict__ x, const T* __restrict__ gamma,
                     const T* __restrict__ beta, T* __restrict__ y, int64_t rows,
                     int vecs_per_row) {
  static_assert(kRowsPerBlock == 1 || kThreadsPerRow == 32,
                "several rows per block: warp rows only");
  __shared__ float scratch_sum[kThreadsPerRow / 32];
  __shared__ float scratch_sq[kThreadsPerRow / 32];
  const int t = threadIdx.x % kThreadsPerRow;
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kThreadsPerRow;
  // Only a warp row can be past the end (the last block of 4); it exits as a whole warp, and
  // warp rows never reach a block barrier.
  if (row >= rows) return;
  const int64_t row_offset = row * vecs_per_row;
  const auto* xr = reinterpret_cast<const uint4*>(x) + row_offset;
  const auto* gv = reinterpret_cast<const uint4*>(gamma);
  const auto* bv = reinterpret_cast<const uint4*>(beta);
  auto* yr = reinterpret_cast<uint4*>(y) + row_offset;
  const float inv_width = 1.0f / static_cast<float>(vecs_per_row * kElemsPerVec);

  uint4 v[kRowMaxVecsPerThread];
#pragma unroll
  for (int k = 0; k < kRowMaxVecsPerThread; ++k) {
    const int i = t + k * kThreadsPerRow;
    if (i < vecs_per_row) v[k] = xr[i];
  }

  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kRowMaxVecsPerThread; ++k) {
    if (t + k * kThreadsPerRow < vecs_per_row) {
      float f[kElemsPerVec];
      unpack8<T, Widen::kOpaque>(v[k], f);
#pragma unroll
      for (int e = 0; e < kElemsPerVec; ++e) sum += f[e];
    }
  }
  const float mean = row_sum<kThreadsPerRow>(sum, scratch_sum) * inv_width;

  float sq = 0.0f;
#pragma unroll
  for (int k = 0; k < kRowMaxVecsPerThread; ++k) {
    if (t + k * kThreadsPerRow < vecs_per_row) {
      float f[kElemsPerVec];
      unpack8<T, Widen::kOpaque>(v[k], f);
#pragma unroll
      for (int e = 0; e < kElemsPerVec; ++e) {
        const float c = f[e] - mean;
        sq = fmaf(c, c, sq);
      }
    }
  }
  const float var = row_sum<kThreadsPerRow>(sq, scratch_sq) * inv_width;
  const float rstd = rsqrtf(var + kLayerNormEpsilon);

#pragma unroll
  for (int k = 0; k < kRowMaxVecsPerThread; ++k) {
    const int i = t + k * kThreadsPerRow;
    if (i < vecs_per_row) {
      float f[kElemsPerVec];
      float g[kElemsPerVec];
      float b[kElemsPerVec];
      unpack8<T, Widen::kOpaque>(v[k], f);
      unpack8<T, Widen::kOpaque>(gv[i], g);
      unpack8<T, Widen::kOpaque>(bv[i], b);
#pragma unroll
      for (int e = 0; e < kElemsPerVec; ++e) f[e] = fmaf((f[e] - mean) * rstd, g[e], b[e]);
      yr[i] = pack8<T>(f);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Launchers.

template <class T, int kThreadsPerRow, int kRowsPerBlock>
void launch_config(const void* x, const void* gamma, const void* beta, void* y, int64_t rows,
                   int64_t d_model, cudaStream_t stream) {
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  if (blocks > INT_MAX) {
    throw bad_input(fmt::format("layernorm: {} rows need {} blocks, above the grid limit {}", rows,
                                blocks, INT_MAX));
  }
  layernorm_kernel<T, kThreadsPerRow, kRowsPerBlock>
      <<<static_cast<unsigned>(blocks), kThreadsPerRow * kRowsPerBlock, 0, stream>>>(
          static_cast<const T*>(x), static_cast<const T*>(gamma), static_cast<const T*>(beta),
          static_cast<T*>(y), rows, static_cast<int>(d_model / kElemsPerVec));
  RFL_CHECK_LAUNCH();
}

// The configuration with_row_config (kernels/common/row_reduce.hpp) chooses for d_model.
template <class T>
void launch_typed(const void* x, const void* gamma, const void* beta, void* y, int64_t rows,
                  int64_t d_model, cudaStream_t stream) {
  with_row_config(d_model, [&](auto threads_per_row, auto rows_per_block) {
    launch_config<T, decltype(threads_per_row)::value, decltype(rows_per_block)::value>(
        x, gamma, beta, y, rows, d_model, stream);
  });
}

/// The versions `--kernel layernorm=KEY` names.
const std::vector<KernelVersion>& layernorm_versions() {
  static const std::vector<KernelVersion> versions = {
      {"v2", "layernorm_v2_two_pass_8vec", "compute capability 8.0+", ""}};
  return versions;
}

class LayerNormRun final : public OperatorRun {
 public:
  explicit LayerNormRun(const Shape& shape)
      : shape_(shape),
        rows_(shape.tokens()),
        width_(shape.d_model()),
        x_(rows_ * width_),
        y_(rows_ * width_),
        gamma_(width_),
        beta_(width_) {}

  void fill_random(uint64_t seed) override {
    fill_uniform(x_.get(), x_.count(), shape_.dtype, seed, -1.5f, 2.5f);  // [-2, 2) + 0.5
    fill_uniform(gamma_.get(), width_, shape_.dtype, seed + 1, 0.5f, 1.5f);
    fill_uniform(beta_.get(), width_, shape_.dtype, seed + 2, -0.5f, 0.5f);
  }

  // The rows checked_rows picks: all when they fit the element budget; otherwise the first, the
  // last and evenly spaced rows between them.
  Validation validate() override {
    launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<double> gamma = download_as_double(gamma_.get(), width_, shape_.dtype);
    const std::vector<double> beta = download_as_double(beta_.get(), width_, shape_.dtype);
    const std::vector<int64_t> rows = checked_rows(rows_, width_);
    const auto sampled = static_cast<int64_t>(rows.size());
    std::vector<double> out;
    std::vector<double> ref(static_cast<size_t>(sampled * width_));
    out.reserve(ref.size());
    for (int64_t i = 0; i < sampled; ++i) {
      const int64_t row = rows[static_cast<size_t>(i)];
      const std::vector<double> x = download_row_as_double(x_.get(), row, width_, shape_.dtype);
      const std::vector<double> y = download_row_as_double(y_.get(), row, width_, shape_.dtype);
      layernorm_reference_row(x.data(), gamma.data(), beta.data(), width_, ref.data() + i * width_);
      out.insert(out.end(), y.begin(), y.end());
    }
    return compare_arrays(out.data(), ref.data(), static_cast<int64_t>(ref.size()),
                          default_tolerance(shape_.dtype),
                          fmt::format("cpu-float64 ({} of {} rows)", sampled, rows_));
  }

  void launch(cudaStream_t stream) override {
    launch_layernorm(x_.get(), gamma_.get(), beta_.get(), y_.get(), rows_, width_, shape_.dtype,
                     stream);
  }

  std::vector<std::string> kernel_names() const override { return {"layernorm"}; }

  std::string version() const override { return layernorm_versions().front().name; }

 private:
  Shape shape_;
  int64_t rows_;
  int64_t width_;
  DeviceBuffer<uint16_t> x_;
  DeviceBuffer<uint16_t> y_;
  DeviceBuffer<uint16_t> gamma_;
  DeviceBuffer<uint16_t> beta_;
};

}  // namespace

void check_layernorm_width(int64_t d_model) {
  if (d_model < kElemsPerVec || d_model % kElemsPerVec != 0 || d_model > kLayerNormMaxWidth) {
    throw bad_input(fmt::format(
        "layernorm: d_model {} (--hidden, else heads × head_dim) is not supported: it must be a "
        "multiple of {} between {} and {}",
        d_model, kElemsPerVec, kElemsPerVec, kLayerNormMaxWidth));
  }
}

void launch_layernorm(const void* x, const void* gamma, const void* beta, void* y, int64_t rows,
                      int64_t d_model, Dtype dtype, cudaStream_t stream) {
  check_layernorm_width(d_model);
  if (rows < 1) throw bad_input(fmt::format("layernorm: rows {} must be at least 1", rows));
  if (dtype == Dtype::kBf16) {
    launch_typed<__nv_bfloat16>(x, gamma, beta, y, rows, d_model, stream);
  } else {
    launch_typed<__half>(x, gamma, beta, y, rows, d_model, stream);
  }
}

// ---------------------------------------------------------------------------------------------
// Registration.

// Analytic model (src/model/operator_model.cpp), N = batch·seq_len·d_model, e = 2:
//   FLOPs = 8·N: per element 1 (add into Σx) + 3 (x - μ, FMA into Σ(x - μ)²) + 4 (x - μ, ·rstd,
//   FMA with γ and β). Per-row work (reductions: ~20 shuffle-adds per thread, one divide and rsqrt)
//   is left out; it adds ~2-4% to what the fp32 counters see. The fp16→fp32 conversions may run
//   as HADD2.F32 on sm_90 and then show up in the fp16 counters although they are not FLOPs.
//   Bytes = 2·N·e + 2·d_model·e (x read, y written once; γ and β read once, then cached in L2).
OperatorSpec layernorm_spec() {
  OperatorSpec spec;
  spec.name = kLayernormOp;
  spec.summary = "LayerNorm over rows [B·L, d_model] with γ, β; fp32 two-pass statistics";
  spec.pipe = constant_pipe(Pipe::kFp32);
  spec.mma_inputs = no_mma_inputs;
  spec.check_shape = [](const Shape& shape) {
    validate_common_shape(shape);
    check_layernorm_width(shape.d_model());
  };
  // x and y [B·L, d_model], γ and β [d_model].
  spec.device_bytes = [](const Shape& shape) {
    return (2 * shape.tokens() * shape.d_model() + 2 * shape.d_model()) *
           dtype_size_bytes(shape.dtype);
  };
  spec.versions = layernorm_versions();
  spec.default_version = layernorm_versions().front().key;
  spec.create = [](const Shape& shape,
                   const std::string& version_key) -> std::unique_ptr<OperatorRun> {
    // The key is checked, not chosen: there is one version.
    find_kernel_version("layernorm", layernorm_versions(), layernorm_versions().front().key,
                        version_key);
    return std::make_unique<LayerNormRun>(shape);
  };
  return spec;
}

}  // namespace rooflinectl
