// Attention references shared by the attention families. Deliberately simple and unlike the
// kernels under test: no tiling, no online softmax, no tensor cores, natural-base exp. The GPU
// reference spends one warp per query row and reads K twice (pass 1 finds the row max, pass 2
// forms exp(s - max), its sum and P·V), so nothing is rescaled and the result does not depend on
// tile order.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/fp8_e4m3.hpp"
#include "core/parallel_for.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/reference_attention.hpp"

namespace rooflinectl {
namespace {

// ---------------------------------------------------------------------------------------------
// Shared row arithmetic

/// Where one flattened query row lives and which keys it sees.
struct RowLocation {
  int64_t q_offset;   ///< element offset of the row in Q (and O)
  int64_t kv_offset;  ///< element offset of key 0 of its KV head in K and V
  int64_t visible;    ///< keys 0..visible-1 are visible (0: the row sees no key)
};

__host__ __device__ inline RowLocation locate_row(int64_t row, int64_t heads, int64_t kv_heads,
                                                  int64_t head_dim, int64_t q_len, int64_t kv_len,
                                                  bool causal) {
  const int64_t i = row % q_len;
  const int64_t bh = row / q_len;
  const int64_t h = bh % heads;
  const int64_t b = bh / heads;
  const int64_t kv_h = h / (heads / kv_heads);
  // Bottom-right aligned causal mask: key j is visible iff j <= i + (kv_len - q_len).
  int64_t visible = kv_len;
  if (causal) visible = std::min(kv_len, std::max<int64_t>(0, i + (kv_len - q_len) + 1));
  return {row * head_dim, (b * kv_heads + kv_h) * kv_len * head_dim, visible};
}

// ---------------------------------------------------------------------------------------------
// GPU fp32 reference

constexpr int kRefWarpsPerBlock = 4;
constexpr int kRefMaxDimsPerLane = 8;  // lane c holds dims c, c+32, ...: head_dim <= 256
constexpr int kRefMaxHeadDim = 32 * kRefMaxDimsPerLane;

struct RefParams {
  const void* q;
  const void* k;
  const void* v;
  int64_t heads, kv_heads, head_dim, q_len, kv_len;
  bool causal;
  float scale;
  const float* k_scale;  ///< E4M3 K and V only, as AttentionProblem
  const float* v_scale;
};

__device__ inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ inline float to_float(__half x) { return __half2float(x); }
// cuda_fp8.h's conversion (the hardware one on sm_89+, its portable emulation below): not the
// decode kernel's bit moves.
__device__ inline float to_float(__nv_fp8_e4m3 x) { return static_cast<float>(x); }

// The xor butterfly leaves the bitwise same sum in every lane (each step adds the same two
// values, commutatively), so both passes agree exactly on every score.
__device__ inline float warp_sum(float x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// `k_scale`: the E4M3 scale of the row's KV head, 1 for 16-bit K.
template <class KV>
__device__ float score(const float (&q)[kRefMaxDimsPerLane], const KV* k_row, int64_t head_dim,
                       int lane, float scale, float k_scale) {
  float partial = 0.f;
#pragma unroll
  for (int t = 0; t < kRefMaxDimsPerLane; ++t) {
    const int64_t c = lane + 32 * t;
    if (c < head_dim) partial += q[t] * (to_float(k_row[c]) * k_scale);
  }
  return warp_sum(partial) * scale;
}

// T: the type of Q (and of O); KV: of K and V, T or __nv_fp8_e4m3.
template <class T, class KV>
__global__ void reference_attention_kernel(RefParams p, const int64_t* rows, int64_t row_count,
                                           float* out) {
  const int lane = threadIdx.x % 32;
  const int64_t r = static_cast<int64_t>(blockIdx.x) * kRefWarpsPerBlock + threadIdx.x / 32;
  if (r >= row_count) return;
  const RowLocation loc =
      locate_row(rows[r], p.heads, p.kv_heads, p.head_dim, p.q_len, p.kv_len, p.causal);
  const T* q = static_cast<const T*>(p.q) + loc.q_offset;
  const KV* k = static_cast<const KV*>(p.k) + loc.kv_offset;
  const KV* v = static_cast<const KV*>(p.v) + loc.kv_offset;
  float* o = out + r * p.head_dim;
  float k_scale = 1.f;
  float v_scale = 1.f;
  if constexpr (std::is_same_v<KV, __nv_fp8_e4m3>) {
    const int64_t kv_head = loc.kv_offset / (p.kv_len * p.head_dim) % p.kv_heads;
    k_scale = p.k_scale[kv_head];
    v_scale = p.v_scale[kv_head];
  }

  float q_reg[kRefMaxDimsPerLane];
#pragma unroll
  for (int t = 0; t < kRefMaxDimsPerLane; ++t) {
    const int64_t c = lane + 32 * t;
    q_reg[t] = c < p.head_dim ? to_float(q[c]) : 0.f;
  }

  float row_max = -INFINITY;
  for (int64_t j = 0; j < loc.visible; ++j) {
    row_max = fmaxf(row_max, score(q_reg, k + j * p.head_dim, p.head_dim, lane, p.scale, k_scale));
  }

  float sum = 0.f;
  float acc[kRefMaxDimsPerLane] = {};
  for (int64_t j = 0; j < loc.visible; ++j) {
    const float weight =
        expf(score(q_reg, k + j * p.head_dim, p.head_dim, lane, p.scale, k_scale) - row_max);
    sum += weight;
#pragma unroll
    for (int t = 0; t < kRefMaxDimsPerLane; ++t) {
      const int64_t c = lane + 32 * t;
      if (c < p.head_dim) acc[t] += weight * (to_float(v[j * p.head_dim + c]) * v_scale);
    }
  }

#pragma unroll
  for (int t = 0; t < kRefMaxDimsPerLane; ++t) {
    const int64_t c = lane + 32 * t;
    if (c < p.head_dim) o[c] = loc.visible > 0 ? acc[t] / sum : 0.f;
  }
}

/// Copies the listed rows of a [*, head_dim] 16-bit tensor into a dense fp32 array (exact).
template <class T>
__global__ void gather_rows_kernel(const T* src, const int64_t* rows, int64_t row_count,
                                   int64_t head_dim, float* dst) {
  const int64_t total = row_count * head_dim;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += stride) {
    dst[e] = to_float(src[rows[e / head_dim] * head_dim + e % head_dim]);
  }
}

int64_t total_rows(const AttentionProblem& p) { return p.batch * p.heads * p.q_len; }

void check_rows(const AttentionProblem& p, const std::vector<int64_t>& rows) {
  const int64_t n = total_rows(p);
  for (int64_t row : rows) {
    if (row < 0 || row >= n) {
      throw bad_input(fmt::format("reference_attention: row {} out of range [0, {})", row, n));
    }
  }
}

DeviceBuffer<int64_t> upload_rows(const std::vector<int64_t>& rows) {
  DeviceBuffer<int64_t> d_rows(static_cast<int64_t>(rows.size()));
  RFL_CUDA_CHECK(
      cudaMemcpy(d_rows.get(), rows.data(), rows.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
  return d_rows;
}

/// The listed rows of device tensor `data` (layout of Q), widened to double.
std::vector<double> gather_rows(const AttentionProblem& p, const void* data,
                                const std::vector<int64_t>& rows) {
  if (rows.empty()) return {};
  const DeviceBuffer<int64_t> d_rows = upload_rows(rows);
  const int64_t row_count = static_cast<int64_t>(rows.size());
  DeviceBuffer<float> dense(row_count * p.head_dim);
  const int threads = 256;
  const int blocks =
      static_cast<int>(std::min<int64_t>((row_count * p.head_dim + threads - 1) / threads, 4096));
  if (p.dtype == Dtype::kBf16) {
    gather_rows_kernel<<<blocks, threads>>>(static_cast<const __nv_bfloat16*>(data), d_rows.get(),
                                            row_count, p.head_dim, dense.get());
  } else {
    gather_rows_kernel<<<blocks, threads>>>(static_cast<const __half*>(data), d_rows.get(),
                                            row_count, p.head_dim, dense.get());
  }
  RFL_CHECK_LAUNCH();
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  return download_fp32_as_double(dense.get(), dense.count());
}

// Above 2^31 multiply-adds per pass the float64 host reference takes seconds; the fp32 GPU one
// is used instead.
constexpr double kCpuReferenceMaxWork = 2147483648.0;
constexpr int64_t kMaxCheckedRows = 8192;
constexpr int64_t kEdgeRows = 64;  // one tile of query rows

}  // namespace

void gpu_reference_attention(const AttentionProblem& p, const std::vector<int64_t>& rows,
                             std::vector<double>& out) {
  if (p.head_dim > kRefMaxHeadDim) {
    throw bad_input(fmt::format("reference_attention: head-dim {} not supported (at most {})",
                                p.head_dim, kRefMaxHeadDim));
  }
  check_rows(p, rows);
  out.clear();
  if (rows.empty()) return;
  const DeviceBuffer<int64_t> d_rows = upload_rows(rows);
  const int64_t row_count = static_cast<int64_t>(rows.size());
  DeviceBuffer<float> d_out(row_count * p.head_dim);
  const RefParams params{p.q,     p.k,      p.v,      p.heads, p.kv_heads, p.head_dim,
                         p.q_len, p.kv_len, p.causal, p.scale, p.k_scale,  p.v_scale};
  const int64_t blocks = (row_count + kRefWarpsPerBlock - 1) / kRefWarpsPerBlock;
  const int threads = 32 * kRefWarpsPerBlock;
  const auto launch = [&](auto kernel) {
    kernel<<<static_cast<unsigned>(blocks), threads>>>(params, d_rows.get(), row_count,
                                                       d_out.get());
  };
  const bool fp8 = p.k_scale != nullptr;
  if (p.dtype == Dtype::kBf16) {
    launch(fp8 ? reference_attention_kernel<__nv_bfloat16, __nv_fp8_e4m3>
               : reference_attention_kernel<__nv_bfloat16, __nv_bfloat16>);
  } else {
    launch(fp8 ? reference_attention_kernel<__half, __nv_fp8_e4m3>
               : reference_attention_kernel<__half, __half>);
  }
  RFL_CHECK_LAUNCH();
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  out = download_fp32_as_double(d_out.get(), d_out.count());
}

std::vector<double> cpu_reference_attention(const AttentionProblem& p, const std::vector<double>& q,
                                            const std::vector<double>& k,
                                            const std::vector<double>& v,
                                            const std::vector<int64_t>& rows) {
  check_rows(p, rows);
  const int64_t d = p.head_dim;
  std::vector<double> out(rows.size() * static_cast<size_t>(d), 0.0);
  // Rows are independent and each is computed by one thread in the serial order, so the result
  // does not depend on the thread count.
  parallel_for(static_cast<int64_t>(rows.size()), 1, [&](int64_t first_row, int64_t end_row) {
    std::vector<double> scores;
    for (int64_t r = first_row; r < end_row; ++r) {
      const RowLocation loc =
          locate_row(rows[r], p.heads, p.kv_heads, d, p.q_len, p.kv_len, p.causal);
      const double* q_row = q.data() + loc.q_offset;
      const double* k_head = k.data() + loc.kv_offset;
      const double* v_head = v.data() + loc.kv_offset;
      double* o = out.data() + r * d;
      if (loc.visible == 0) continue;  // no visible key: the row is exactly 0
      scores.assign(static_cast<size_t>(loc.visible), 0.0);
      double row_max = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < loc.visible; ++j) {
        // Four partial sums break the add dependency chain (2.5x faster on the host at the 2^31
        // size limit); in float64 the summation order is far below any tolerance used.
        const double* k_row = k_head + j * d;
        double partial[4] = {0.0, 0.0, 0.0, 0.0};
        int64_t c = 0;
        for (; c + 4 <= d; c += 4) {
          for (int u = 0; u < 4; ++u) partial[u] += q_row[c + u] * k_row[c + u];
        }
        for (; c < d; ++c) partial[0] += q_row[c] * k_row[c];
        const double dot = (partial[0] + partial[1]) + (partial[2] + partial[3]);
        scores[j] = dot * static_cast<double>(p.scale);
        row_max = std::max(row_max, scores[j]);
      }
      double sum = 0.0;
      for (int64_t j = 0; j < loc.visible; ++j) {
        const double weight = std::exp(scores[j] - row_max);
        sum += weight;
        for (int64_t c = 0; c < d; ++c) o[c] += weight * v_head[j * d + c];
      }
      for (int64_t c = 0; c < d; ++c) o[c] /= sum;
    }
  });
  return out;
}

ReferencePlan plan_reference_rows(const AttentionProblem& p) {
  ReferencePlan plan;
  const int64_t n = total_rows(p);
  // In double: the product can pass int64 for absurd shapes, and only the comparison matters.
  const double work =
      static_cast<double>(n) * static_cast<double>(p.kv_len) * static_cast<double>(p.head_dim);
  plan.use_cpu = work <= kCpuReferenceMaxWork;
  if (plan.use_cpu || n <= kMaxCheckedRows) {
    plan.rows.resize(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) plan.rows[r] = r;
    return plan;
  }
  const int64_t edge = std::min(kEdgeRows, p.q_len);
  const int64_t last_head_start = n - p.q_len;
  for (int64_t head_start : {int64_t{0}, last_head_start}) {
    for (int64_t i = 0; i < edge; ++i) {
      plan.rows.push_back(head_start + i);
      plan.rows.push_back(head_start + p.q_len - edge + i);
    }
  }
  const int64_t budget = kMaxCheckedRows - static_cast<int64_t>(plan.rows.size());
  int64_t stride = (n + budget - 1) / budget;
  if (stride % 2 == 0) ++stride;
  for (int64_t r = 0; r < n; r += stride) plan.rows.push_back(r);
  std::sort(plan.rows.begin(), plan.rows.end());
  plan.rows.erase(std::unique(plan.rows.begin(), plan.rows.end()), plan.rows.end());
  return plan;
}

namespace {

/// K or V of `p` (E4M3 when p.k_scale is set, `scales` its KV heads' scales) widened to double.
std::vector<double> download_kv_as_double(const AttentionProblem& p, const void* data,
                                          const float* scales) {
  const int64_t count = p.batch * p.kv_heads * p.kv_len * p.head_dim;
  if (p.k_scale == nullptr) return download_as_double(data, count, p.dtype);
  std::vector<uint8_t> bytes(static_cast<size_t>(count));
  std::vector<float> head_scales(static_cast<size_t>(p.kv_heads));
  RFL_CUDA_CHECK(cudaMemcpy(bytes.data(), data, bytes.size(), cudaMemcpyDeviceToHost));
  RFL_CUDA_CHECK(cudaMemcpy(head_scales.data(), scales, head_scales.size() * sizeof(float),
                            cudaMemcpyDeviceToHost));
  std::vector<double> out(bytes.size());
  const int64_t head_elems = p.kv_len * p.head_dim;
  parallel_for(count, int64_t{1} << 20, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const double scale = head_scales[static_cast<size_t>(i / head_elems % p.kv_heads)];
      out[static_cast<size_t>(i)] = e4m3_to_double(bytes[static_cast<size_t>(i)]) * scale;
    }
  });
  return out;
}

/// The planned reference rows of `p` and the same rows of device output O, both widened.
struct ReferenceAndOutput {
  std::vector<double> reference;
  std::vector<double> out;
  std::string name;
};

ReferenceAndOutput reference_and_output(const AttentionProblem& p, const void* out_device) {
  const ReferencePlan plan = plan_reference_rows(p);
  ReferenceAndOutput r;
  if (plan.use_cpu) {
    const int64_t q_count = total_rows(p) * p.head_dim;
    r.reference = cpu_reference_attention(p, download_as_double(p.q, q_count, p.dtype),
                                          download_kv_as_double(p, p.k, p.k_scale),
                                          download_kv_as_double(p, p.v, p.v_scale), plan.rows);
    r.name = "cpu-float64";
  } else {
    gpu_reference_attention(p, plan.rows, r.reference);
    r.name = fmt::format("gpu-fp32 reference_attention ({} of {} rows)", plan.rows.size(),
                         total_rows(p));
  }
  r.out = gather_rows(p, out_device, plan.rows);
  return r;
}

}  // namespace

Validation validate_attention_output(const AttentionProblem& p, const void* out_device,
                                     Tolerance tol) {
  const ReferenceAndOutput r = reference_and_output(p, out_device);
  std::string name = r.name;
  if (p.k_scale != nullptr) name += " on the dequantized E4M3 K, V";
  return compare_arrays(r.out.data(), r.reference.data(), static_cast<int64_t>(r.out.size()), tol,
                        name);
}

QuantizationError attention_output_difference(const AttentionProblem& p, const void* out_device,
                                              const std::string& inputs) {
  const ReferenceAndOutput r = reference_and_output(p, out_device);
  return difference_stats(r.out.data(), r.reference.data(), static_cast<int64_t>(r.out.size()),
                          r.name + " on " + inputs);
}

}  // namespace rooflinectl
