// The gated step of a SwiGLU or GeGLU FFN (Shazeer 2020, "GLU Variants Improve Transformer", eqs.
// 5-6): y = act(gate) ⊙ up over the up-projection output x [batch·seq_len, 2·d_ff], gate in its
// first d_ff columns and up in the last d_ff (vLLM's silu_and_mul / gelu_and_mul layout),
// y [batch·seq_len, d_ff], d_ff = Shape::ffn_width() (ffn_dim, else 4·d_model); 16-bit in and out,
// fp32 math. Two operators:
//   swiglu: act = SiLU, x·σ(x) (Llama, Mistral, Qwen, Phi-3);
//   geglu:  act = GELU in the --gelu-form the gelu operator uses, erf or tanh (Gemma).
// The activations are gelu's (kernels/common/activation_math.hpp, accuracy stated there).
// swiglu_v1_full_grid / geglu_v1_full_grid: as gelu_v2, a full grid of short-lived 256-thread
// blocks, each thread ONE output vector: it reads the gate and the up 16-byte vectors with
// ld.global.cs and writes 8 outputs with st.global.cs, no grid-stride loop (the pattern that
// matched cudaMemcpy for gelu, docs/perf-notes.md). Its vector g lies in row g / (d_ff/8), and its
// gate vector at g + row·(d_ff/8), one 32-bit division per thread while the grid has fewer than
// 2^31 vectors (64-bit past that). A d_ff that is not a multiple of 8 (an odd d_model or
// --ffn-dim) runs the same kernel one element per thread.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <climits>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/kernel_version.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/activation_math.hpp"
#include "kernels/common/activation_reference.hpp"
#include "kernels/common/pack_pair.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/gated_activation.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

constexpr int kGatedThreads = 256;

// ---------------------------------------------------------------------------------------------
// CPU reference (float64, kernels/common/activation_reference.hpp), on the 16-bit values as
// stored.

double gated_reference(double gate, double up, GateActivation act) {
  switch (act) {
    case GateActivation::kSilu:
      return silu_reference(gate) * up;
    case GateActivation::kGeluErf:
      return gelu_reference(gate, GeluForm::kErf) * up;
    case GateActivation::kGeluTanh:
      return gelu_reference(gate, GeluForm::kTanh) * up;
  }
  return 0.0;
}

// ---------------------------------------------------------------------------------------------
// Kernel.

template <GateActivation kAct>
__device__ __forceinline__ float activate(float x) {
  if constexpr (kAct == GateActivation::kSilu) {
    return silu(x);
  } else if constexpr (kAct == GateActivation::kGeluErf) {
    return gelu<GeluForm::kErf>(x);
  } else {
    return gelu<GeluForm::kTanh>(x);
  }
}

// y = act(gate) · up. kVec elements per access: kElemsPerVec (16-byte vectors; needs d_ff % 8 ==
// 0, so that every row starts on a vector) or 1. row_vecs = d_ff / kVec accesses per output row,
// out_vecs = rows · row_vecs. Index (uint32_t or uint64_t) must hold 2·out_vecs and out_vecs +
// kGatedThreads. Thread g: output access g of row r = g / row_vecs, column c = g − r·row_vecs;
// its gate access is r·2·row_vecs + c = g + r·row_vecs, its up access row_vecs after that.
template <class T, GateActivation kAct, int kVec, class Index>
__global__ void __launch_bounds__(kGatedThreads)
    gated_kernel(const T* __restrict__ x, T* __restrict__ y, Index row_vecs, Index out_vecs) {
  const Index g = static_cast<Index>(blockIdx.x) * kGatedThreads + threadIdx.x;
  if (g >= out_vecs) return;
  const Index row = g / row_vecs;
  const Index gate_at = g + row * row_vecs;
  const Index up_at = gate_at + row_vecs;
  if constexpr (kVec == kElemsPerVec) {
    const uint4 gate_v = __ldcs(reinterpret_cast<const uint4*>(x) + gate_at);
    const uint4 up_v = __ldcs(reinterpret_cast<const uint4*>(x) + up_at);
    float a[kElemsPerVec];
    float b[kElemsPerVec];
    unpack8<T>(gate_v, a);
    unpack8<T>(up_v, b);
#pragma unroll
    for (int e = 0; e < kElemsPerVec; ++e) a[e] = activate<kAct>(a[e]) * b[e];
    __stcs(reinterpret_cast<uint4*>(y) + g, pack8<T>(a));
  } else {
    static_assert(kVec == 1, "accesses of one element or one 16-byte vector");
    y[g] = T(activate<kAct>(static_cast<float>(x[gate_at])) * static_cast<float>(x[up_at]));
  }
}

// ---------------------------------------------------------------------------------------------
// Launchers.

template <class T, GateActivation kAct, int kVec, class Index>
void launch_kernel(const void* x, void* y, int64_t rows, int64_t d_ff, cudaStream_t stream) {
  const int64_t row_vecs = d_ff / kVec;
  const int64_t out_vecs = rows * row_vecs;
  const int64_t blocks = (out_vecs + kGatedThreads - 1) / kGatedThreads;
  if (blocks > INT_MAX) {
    throw bad_input(
        fmt::format("gated activation: {} rows of d_ff {} need {} blocks, above the "
                    "grid limit {}",
                    rows, d_ff, blocks, INT_MAX));
  }
  gated_kernel<T, kAct, kVec, Index><<<static_cast<unsigned>(blocks), kGatedThreads, 0, stream>>>(
      static_cast<const T*>(x), static_cast<T*>(y), static_cast<Index>(row_vecs),
      static_cast<Index>(out_vecs));
  RFL_CHECK_LAUNCH();
}

// 16-byte vectors when every row is whole vectors, else elements; 32-bit indices while 2·out_vecs
// and the last thread's index fit them (out_vecs ≤ 2^31 − 1).
template <class T, GateActivation kAct>
void launch_for_width(const void* x, void* y, int64_t rows, int64_t d_ff, cudaStream_t stream) {
  const bool vectors = d_ff % kElemsPerVec == 0;
  const int64_t out_vecs = rows * (vectors ? d_ff / kElemsPerVec : d_ff);
  const bool narrow = out_vecs <= INT32_MAX;
  if (vectors) {
    narrow ? launch_kernel<T, kAct, kElemsPerVec, uint32_t>(x, y, rows, d_ff, stream)
           : launch_kernel<T, kAct, kElemsPerVec, uint64_t>(x, y, rows, d_ff, stream);
  } else {
    narrow ? launch_kernel<T, kAct, 1, uint32_t>(x, y, rows, d_ff, stream)
           : launch_kernel<T, kAct, 1, uint64_t>(x, y, rows, d_ff, stream);
  }
}

template <class T>
void launch_typed(const void* x, void* y, int64_t rows, int64_t d_ff, GateActivation act,
                  cudaStream_t stream) {
  switch (act) {
    case GateActivation::kSilu:
      launch_for_width<T, GateActivation::kSilu>(x, y, rows, d_ff, stream);
      return;
    case GateActivation::kGeluErf:
      launch_for_width<T, GateActivation::kGeluErf>(x, y, rows, d_ff, stream);
      return;
    case GateActivation::kGeluTanh:
      launch_for_width<T, GateActivation::kGeluTanh>(x, y, rows, d_ff, stream);
      return;
  }
}

/// The versions `--kernel swiglu=KEY` and `--kernel geglu=KEY` name.
const std::vector<KernelVersion>& gated_versions(const std::string& op) {
  static const std::vector<KernelVersion> swiglu = {
      {"v1", "swiglu_v1_full_grid", "compute capability 8.0+", ""}};
  static const std::vector<KernelVersion> geglu = {
      {"v1", "geglu_v1_full_grid", "compute capability 8.0+", ""}};
  return op == kSwigluOp ? swiglu : geglu;
}

class GatedActivationRun final : public OperatorRun {
 public:
  GatedActivationRun(const Shape& shape, const std::string& op)
      : shape_(shape),
        op_(op),
        act_(gate_activation_of(op, shape.gelu_form)),
        rows_(shape.tokens()),
        d_ff_(gated_ffn_width(shape)),
        x_(rows_ * 2 * d_ff_),
        y_(rows_ * d_ff_) {}

  // Gate and up alike uniform in [−4, 4): both tails of SiLU and GELU and signs of the product.
  void fill_random(uint64_t seed) override {
    fill_uniform(x_.get(), x_.count(), shape_.dtype, seed, -4.0f, 4.0f);
  }

  // The rows checked_rows picks (every row up to 2^22 outputs, else the first, the last and evenly
  // spaced rows between them), each with its whole gate and up halves.
  Validation validate() override {
    launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<int64_t> rows = checked_rows(rows_, d_ff_);
    std::vector<double> out;
    std::vector<double> ref;
    out.reserve(rows.size() * static_cast<size_t>(d_ff_));
    ref.reserve(out.capacity());
    for (const int64_t row : rows) {
      const std::vector<double> x = download_row_as_double(x_.get(), row, 2 * d_ff_, shape_.dtype);
      const std::vector<double> y = download_row_as_double(y_.get(), row, d_ff_, shape_.dtype);
      for (int64_t c = 0; c < d_ff_; ++c) {
        ref.push_back(
            gated_reference(x[static_cast<size_t>(c)], x[static_cast<size_t>(d_ff_ + c)], act_));
      }
      out.insert(out.end(), y.begin(), y.end());
    }
    return compare_arrays(out.data(), ref.data(), static_cast<int64_t>(ref.size()),
                          default_tolerance(shape_.dtype),
                          fmt::format("cpu-float64 ({} of {} rows)", rows.size(), rows_));
  }

  void launch(cudaStream_t stream) override {
    launch_gated_activation(x_.get(), y_.get(), rows_, d_ff_, act_, shape_.dtype, stream);
  }

  std::vector<std::string> kernel_names() const override {
    if (op_ == kSwigluOp) return {"swiglu"};
    return {shape_.gelu_form == GeluForm::kErf ? "geglu_erf" : "geglu_tanh"};
  }

  std::string version() const override { return gated_versions(op_).front().name; }

 private:
  Shape shape_;
  std::string op_;
  GateActivation act_;
  int64_t rows_;
  int64_t d_ff_;
  DeviceBuffer<uint16_t> x_;
  DeviceBuffer<uint16_t> y_;
};

}  // namespace

GateActivation gate_activation_of(const std::string& op, GeluForm form) {
  if (op == kSwigluOp) return GateActivation::kSilu;
  if (op == kGegluOp) {
    return form == GeluForm::kErf ? GateActivation::kGeluErf : GateActivation::kGeluTanh;
  }
  throw bad_input(
      fmt::format("invalid gated operator '{}': allowed {}, {}", op, kSwigluOp, kGegluOp));
}

int64_t gated_ffn_width(const Shape& shape) { return shape.ffn_width(); }

void launch_gated_activation(const void* x, void* y, int64_t rows, int64_t d_ff, GateActivation act,
                             Dtype dtype, cudaStream_t stream) {
  if (rows < 1 || d_ff < 1) {
    throw bad_input(
        fmt::format("gated activation: rows {} and d_ff {} must both be at least 1", rows, d_ff));
  }
  if (dtype == Dtype::kBf16) {
    launch_typed<__nv_bfloat16>(x, y, rows, d_ff, act, stream);
  } else {
    launch_typed<__half>(x, y, rows, d_ff, act, stream);
  }
}

// ---------------------------------------------------------------------------------------------
// Registration.

namespace {

// Analytic model (src/model/operator_model.cpp), N = batch·seq_len·d_ff outputs, e = 2:
//   FLOPs per output, counting the arithmetic the formula states and not the special function
//   (gelu's convention): swiglu 4 (SiLU x/(1 + e^(−x)): add, divide, multiply; then ·up); geglu
//   gelu's 4 (erf form) or 8 (tanh form) + 1 (·up) = 5 or 9. FLOPs = N × (4, 5 or 9).
//   Bytes = 3·N·e (gate and up read once, y written once).
//   The fp32 counters will show (from the math in activation_math.hpp): swiglu 3 FMUL + 1 FADD = 4
//   counted FLOP per output (1×); geglu erf 16 + 1 = 17 (3.4×), tanh 6 + 1 = 7 (0.78×); the MUFU
//   work is counted nowhere.
OperatorSpec gated_spec(const char* op, const std::string& summary) {
  OperatorSpec spec;
  spec.name = op;
  spec.summary = summary;
  spec.pipe = constant_pipe(Pipe::kFp32);
  spec.mma_inputs = no_mma_inputs;
  spec.check_shape = [](const Shape& shape) {
    validate_common_shape(shape);
    validate_gated_ffn_size(shape);
  };
  // x [B·L, 2·d_ff] and y [B·L, d_ff].
  spec.device_bytes = [](const Shape& shape) {
    return 3 * shape.tokens() * gated_ffn_width(shape) * dtype_size_bytes(shape.dtype);
  };
  spec.versions = gated_versions(op);
  spec.default_version = spec.versions.front().key;
  spec.create = [op = std::string(op)](
                    const Shape& shape,
                    const std::string& version_key) -> std::unique_ptr<OperatorRun> {
    // The key is checked, not chosen: there is one version.
    find_kernel_version(op, gated_versions(op), gated_versions(op).front().key, version_key);
    return std::make_unique<GatedActivationRun>(shape, op);
  };
  return spec;
}

}  // namespace

OperatorSpec swiglu_spec() {
  return gated_spec(kSwigluOp,
                    "SwiGLU's gated step SiLU(gate)·up on the FFN up projection [B·L, 2·d_ff] "
                    "(gate first), d_ff = ffn_dim or 4·d_model");
}

OperatorSpec geglu_spec() {
  return gated_spec(kGegluOp,
                    "GeGLU's gated step GELU(gate)·up (erf or tanh form) on [B·L, 2·d_ff] "
                    "(gate first), d_ff = ffn_dim or 4·d_model");
}

}  // namespace rooflinectl
