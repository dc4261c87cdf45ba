// The GEMM (each version: wgmma + TMA on sm_90 for v2 and v3, mma.sync for v1 and elsewhere) and
// naive attention (cuBLAS + softmax) operators against their references: GEMM at token counts
// that are and are not tile multiples, both d_models and dtypes, an N and K edge, small K and
// odd M; naive
// attention over the sweep's corner lengths, both head dims and masks, GQA, fp16; the softmax
// kernel alone against float64 (unaligned rows, causal rows with no visible key, rows longer than
// one pass) and on all-equal huge logits; and the kernel count of each launch against
// kernel_names(), since the counter pass labels its per-kernel ranges with those names.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/validation.hpp"
#include "device_capability.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {

// Defined in kernels/naive_attention.cu (documented there); declared here because that family
// has no header of its own.
void launch_masked_softmax(const void* s, void* p, int64_t rows, int64_t q_len, int64_t kv_len,
                           bool causal, Dtype dtype, cudaStream_t stream);

namespace {

void expect_valid(const Validation& v) {
  EXPECT_TRUE(v.passed) << v.reference << ": " << v.failed_elements << " of " << v.checked_elements
                        << " failed (" << v.non_finite_elements << " non-finite), max |err| "
                        << v.max_abs_error << ", worst ratio " << v.worst_ratio << "; " << v.detail;
  EXPECT_GT(v.checked_elements, 0);
  EXPECT_EQ(v.non_finite_elements, 0);
}

/// Kernel and other nodes that one launch() enqueues, read from a CUDA graph captured around it
/// (cuBLAS calls are captured like our own launches).
struct LaunchCount {
  size_t kernels = 0;
  size_t other = 0;
};

LaunchCount count_launches(OperatorRun& run) {
  cudaStream_t stream = nullptr;
  RFL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  RFL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  run.launch(stream);
  RFL_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  size_t count = 0;
  RFL_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  RFL_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
  LaunchCount result;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    RFL_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    (type == cudaGraphNodeTypeKernel ? result.kernels : result.other) += 1;
  }
  RFL_CUDA_CHECK(cudaGraphDestroy(graph));
  RFL_CUDA_CHECK(cudaStreamDestroy(stream));
  return result;
}

Shape gemm_shape(int64_t tokens, int64_t heads, int64_t head_dim, Dtype dtype) {
  Shape shape;
  shape.batch = 1;
  shape.seq_len = tokens;
  shape.heads = heads;
  shape.kv_heads = heads;
  shape.head_dim = head_dim;
  shape.dtype = dtype;
  return shape;
}

// ---------------------------------------------------------------------------------------------
// GEMM

/// Version keys every GEMM test runs under: each declared one (v2 and v3 run v1 off sm_90).
const std::vector<std::string> kGemmVersionKeys = {"v1", "v2", "v3"};

/// The version kernels/gemm.cu must run for version key `key`: on compute capability 9.0, v3
/// (2-block clusters with W multicast) for "v3" (and the default where v3's waves are not
/// beaten by v7's), v2 (wgmma + TMA) for "v2"; v1
/// for "v1" or on any other device. kernel_names() must name the kernel of that version (v2 and
/// v3 share one kernel). Assumes a 2-block cluster fits (true on H100/H200).
void expect_gemm_version(const OperatorRun& run, const std::string& key) {
  const bool sm90 = test_device_is_sm90();
  const std::string expected = !sm90 || key == "v1" ? "gemm_v1_mma_sync"
                               : key == "v2"        ? "gemm_v2_wgmma_tma"
                                                    : "gemm_v3_wgmma_multicast";
  EXPECT_EQ(run.version(), expected);
  EXPECT_EQ(run.kernel_names(),
            std::vector<std::string>{expected == "gemm_v1_mma_sync" ? "gemm_mma_sync"
                                                                    : "gemm_wgmma_tma"});
}

// M (tokens), d_model, dtype, version key
using GemmParam = std::tuple<int64_t, int64_t, Dtype, std::string>;

class GemmSweep : public testing::TestWithParam<GemmParam> {};

TEST_P(GemmSweep, MatchesCublasAndFloat64) {
  const auto [tokens, d_model, dtype, key] = GetParam();
  const Shape shape = gemm_shape(tokens, d_model / 128, 128, dtype);
  const OperatorSpec& spec = find_operator("gemm");
  spec.check_shape(shape);
  const std::unique_ptr<OperatorRun> run = spec.create(shape, key);
  expect_gemm_version(*run, key);
  run->fill_random(42);
  const Validation v = run->validate();
  expect_valid(v);
  // Every element against cuBLAS, plus the CPU's sampled rows.
  const int64_t n = 4 * d_model;
  EXPECT_EQ(v.checked_elements, tokens * n + std::min<int64_t>(8, tokens) * n);
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmSweep,
                         testing::Combine(testing::Values<int64_t>(1, 127, 512, 1000, 4096),
                                          testing::Values<int64_t>(1024, 2048),
                                          testing::Values(Dtype::kBf16, Dtype::kFp16),
                                          testing::ValuesIn(kGemmVersionKeys)),
                         [](const testing::TestParamInfo<GemmParam>& info) {
                           return "M" + std::to_string(std::get<0>(info.param)) + "_dmodel" +
                                  std::to_string(std::get<1>(info.param)) + "_" +
                                  to_string(std::get<2>(info.param)) + "_" +
                                  std::get<3>(info.param);
                         });

// d_model 1000 (5 heads × 200): N = 4000 ends 32 columns into a 128-wide tile, K = 1000 ends 8
// into a 32-deep slice, and M = 300 (batch 3 × 100) ends 44 rows into a tile.
TEST(Gemm, PartialTilesOnEveryEdge) {
  for (const std::string& key : kGemmVersionKeys) {
    for (Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      SCOPED_TRACE(key + " " + to_string(dtype));
      Shape shape = gemm_shape(100, 5, 200, dtype);
      shape.batch = 3;
      const OperatorSpec& spec = find_operator("gemm");
      spec.check_shape(shape);
      const std::unique_ptr<OperatorRun> run = spec.create(shape, key);
      expect_gemm_version(*run, key);
      run->fill_random(7);
      expect_valid(run->validate());
    }
  }
}

// Small and odd problems: K = 64 (one 64-deep slice), N = 256 (one 256-wide tile), and K = 8,
// N = 32, where every TMA box of v2 is larger than the whole matrix; M from 1 to one row past
// a 4096 boundary.
TEST(Gemm, SmallKAndOddM) {
  for (const std::string& key : kGemmVersionKeys) {
    for (const int64_t head_dim : {64, 8}) {
      for (const int64_t tokens : {1, 63, 129, 4097}) {
        SCOPED_TRACE(key + ", d_model " + std::to_string(head_dim) + ", M " +
                     std::to_string(tokens));
        const Shape shape = gemm_shape(tokens, 1, head_dim, Dtype::kBf16);
        const OperatorSpec& spec = find_operator("gemm");
        spec.check_shape(shape);
        const std::unique_ptr<OperatorRun> run = spec.create(shape, key);
        expect_gemm_version(*run, key);
        run->fill_random(5);
        expect_valid(run->validate());
      }
    }
  }
}

TEST(Gemm, RejectsAnUndeclaredVersionKey) {
  try {
    find_operator("gemm").create(gemm_shape(64, 1, 64, Dtype::kBf16), "v9");
    ADD_FAILURE() << "version key v9 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("'gemm=v9'"), std::string::npos) << e.what();
  }
}

// The default (v6) is a skinny split-K kernel up to 64 rows (v6 on sm_90, v4 elsewhere); above,
// on sm_90, the tile width with the fewest wave-columns: v7 (128) at M = 65, N = 256 (one tile
// row, one wave at every width), v3 (256) at M = 4096, N = 16384, K = 4096 (16, 21 and 32 waves
// at 256, 192 and 128 columns on 66 resident pairs: 4096, 4032, 4096 wave-columns, 4032 saving
// less than the eighth a narrower tile needs); v1 off sm_90.
TEST(Gemm, DefaultIsSkinnyUpTo64RowsThenTiledByWaves) {
  const std::unique_ptr<OperatorRun> skinny =
      find_operator("gemm").create(gemm_shape(64, 1, 64, Dtype::kBf16), kDefaultVersionKey);
  const bool sm90 = test_device_is_sm90();
  EXPECT_EQ(skinny->version(), sm90 ? "gemm_v6_skinny_wgmma" : "gemm_v4_skinny_splitk");
  EXPECT_EQ(skinny->kernel_names(),
            std::vector<std::string>{sm90 ? "gemm_skinny_wgmma" : "gemm_skinny_splitk"});
  const std::unique_ptr<OperatorRun> narrow =
      find_operator("gemm").create(gemm_shape(65, 1, 64, Dtype::kBf16), kDefaultVersionKey);
  EXPECT_EQ(narrow->version(), sm90 ? "gemm_v7_wgmma_n128" : "gemm_v1_mma_sync");
  const std::unique_ptr<OperatorRun> wide =
      find_operator("gemm").create(gemm_shape(4096, 32, 128, Dtype::kBf16), kDefaultVersionKey);
  expect_gemm_version(*wide, "v3");
}

TEST(Gemm, RejectsDModelNotMultipleOf8) {
  const Shape shape = gemm_shape(64, 3, 5, Dtype::kBf16);  // d_model 15
  try {
    find_operator("gemm").check_shape(shape);
    FAIL() << "d_model 15 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("15"), std::string::npos) << e.what();
  }
}

TEST(Gemm, SpecDeclaresTensorPipeAndScratch) {
  const OperatorSpec& spec = find_operator("gemm");
  EXPECT_EQ(spec.pipe(Shape{}), Pipe::kTensor);
  const Shape shape = gemm_shape(4096, 16, 128, Dtype::kBf16);  // M 4096, K 2048, N 8192
  const int64_t m = 4096, k = 2048, n = 8192;
  // Inputs and output in bf16, the fp32 cuBLAS result, 32 MiB cuBLAS workspace.
  EXPECT_EQ(spec.device_bytes(shape),
            (m * k + k * n + m * n) * 2 + m * n * 4 + (int64_t{32} << 20));
}

// One kernel and nothing else (no memset) per launch, the split-K version (M = 16) included.
TEST(Gemm, OneKernelPerLaunch) {
  for (const int64_t tokens : {1000, 16}) {
    SCOPED_TRACE(tokens);
    const Shape shape = gemm_shape(tokens, 8, 128, Dtype::kBf16);
    const std::unique_ptr<OperatorRun> run =
        find_operator("gemm").create(shape, kDefaultVersionKey);
    run->fill_random(3);
    const LaunchCount count = count_launches(*run);
    EXPECT_EQ(count.kernels, run->kernel_names().size());
    EXPECT_EQ(count.other, 0u);
  }
}

// ---------------------------------------------------------------------------------------------
// Naive attention

Shape attention_shape(int64_t batch, int64_t heads, int64_t kv_heads, int64_t head_dim,
                      int64_t seq_len, bool causal, Dtype dtype) {
  Shape shape;
  shape.batch = batch;
  shape.heads = heads;
  shape.kv_heads = kv_heads;
  shape.head_dim = head_dim;
  shape.seq_len = seq_len;
  shape.causal = causal;
  shape.dtype = dtype;
  return shape;
}

using AttentionParam = std::tuple<int64_t, int64_t, bool>;  // L, head_dim, causal

class NaiveAttentionSweep : public testing::TestWithParam<AttentionParam> {};

// 4 query heads over 2 KV heads, so the GQA batching (two cuBLAS calls per GEMM) is exercised.
TEST_P(NaiveAttentionSweep, MatchesReference) {
  const auto [seq_len, head_dim, causal] = GetParam();
  const Shape shape = attention_shape(1, 4, 2, head_dim, seq_len, causal, Dtype::kBf16);
  const OperatorSpec& spec = find_operator("naive_attention");
  spec.check_shape(shape);
  const std::unique_ptr<OperatorRun> run = spec.create(shape, kDefaultVersionKey);
  EXPECT_EQ(run->version(), "naive_attention_v2_register_rows");
  EXPECT_EQ(run->kernel_names(),
            (std::vector<std::string>{"cublas_qk_gemm", "cublas_qk_gemm", "softmax",
                                      "cublas_pv_gemm", "cublas_pv_gemm"}));
  run->fill_random(1234);
  expect_valid(run->validate());
}

INSTANTIATE_TEST_SUITE_P(Shapes, NaiveAttentionSweep,
                         testing::Combine(testing::Values<int64_t>(1, 127, 512, 1000, 4096),
                                          testing::Values<int64_t>(64, 128), testing::Bool()),
                         [](const testing::TestParamInfo<AttentionParam>& info) {
                           return "L" + std::to_string(std::get<0>(info.param)) + "_d" +
                                  std::to_string(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_causal" : "_full");
                         });

TEST(NaiveAttention, Fp16WithBatchAndWithoutGqa) {
  for (int64_t seq_len : {127, 1000}) {
    for (bool causal : {false, true}) {
      SCOPED_TRACE("L " + std::to_string(seq_len) + (causal ? " causal" : " full"));
      const Shape shape = attention_shape(2, 2, 2, 128, seq_len, causal, Dtype::kFp16);
      const std::unique_ptr<OperatorRun> run =
          find_operator("naive_attention").create(shape, kDefaultVersionKey);
      EXPECT_EQ(run->kernel_names(),
                (std::vector<std::string>{"cublas_qk_gemm", "softmax", "cublas_pv_gemm"}));
      run->fill_random(99);
      expect_valid(run->validate());
    }
  }
}

TEST(NaiveAttention, RejectsHeadDimNotMultipleOf8) {
  const Shape shape = attention_shape(1, 2, 2, 100, 64, false, Dtype::kBf16);
  try {
    find_operator("naive_attention").check_shape(shape);
    FAIL() << "head_dim 100 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
  }
}

TEST(NaiveAttention, DeviceBytesCountScoresAndProbabilities) {
  const OperatorSpec& spec = find_operator("naive_attention");
  EXPECT_EQ(spec.pipe(Shape{}), Pipe::kTensor);
  const Shape shape = attention_shape(1, 16, 16, 128, 32768, false, Dtype::kBf16);
  const int64_t qkvo = 4 * 16 * 32768 * int64_t{128} * 2;
  const int64_t s_and_p = 2 * 16 * int64_t{32768} * 32768 * 2;  // 64 GiB
  EXPECT_EQ(spec.device_bytes(shape), qkvo + s_and_p + (int64_t{32} << 20));
}

// The counter pass maps its per-kernel ranges to kernel_names() by position, so cuBLAS must not
// add kernels (a split-K reduction, say) at the lengths the sweep uses. A failure here names the
// length where it does. Memset nodes (seen with GQA, from cuBLAS) are not kernel launches and make
// no range, so only kernel nodes are counted.
TEST(NaiveAttention, KernelCountMatchesKernelNames) {
  for (int64_t seq_len : {1, 127, 512, 1000, 4096}) {
    for (int64_t kv_heads : {4, 2}) {
      SCOPED_TRACE("L " + std::to_string(seq_len) + ", kv_heads " + std::to_string(kv_heads));
      const Shape shape = attention_shape(1, 4, kv_heads, 128, seq_len, true, Dtype::kBf16);
      const std::unique_ptr<OperatorRun> run =
          find_operator("naive_attention").create(shape, kDefaultVersionKey);
      run->fill_random(5);
      const LaunchCount count = count_launches(*run);
      EXPECT_EQ(count.kernels, run->kernel_names().size());
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Softmax kernel alone

/// Float64 masked softmax of host rows s [rows, kv_len], as the kernel's contract states.
std::vector<double> softmax_reference(const std::vector<double>& s, int64_t rows, int64_t q_len,
                                      int64_t kv_len, bool causal) {
  std::vector<double> p(s.size(), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r % q_len;
    const int64_t visible =
        causal ? std::clamp<int64_t>(i + (kv_len - q_len) + 1, 0, kv_len) : kv_len;
    if (visible == 0) continue;
    const double* row = s.data() + r * kv_len;
    const double max = *std::max_element(row, row + visible);
    double sum = 0.0;
    for (int64_t j = 0; j < visible; ++j) sum += std::exp(row[j] - max);
    for (int64_t j = 0; j < visible; ++j) p[r * kv_len + j] = std::exp(row[j] - max) / sum;
  }
  return p;
}

struct SoftmaxCase {
  int64_t rows, q_len, kv_len;
  bool causal;
};

TEST(MaskedSoftmax, MatchesFloat64) {
  // kv_len % 8 != 0 or > 65536: the streaming kernel; a multiple of 8 up to 8192: row groups of
  // one warp (up to 4096) or two warps, 8 or 4 rows per block; longer: a block per row.
  const SoftmaxCase cases[] = {
      {3 * 8, 8, 5, true},           // rows 0-2 of each head see no key (kv_len < q_len)
      {2 * 1001, 1001, 1001, true},  // rows start at every 2-byte offset mod 16
      {4, 4, 4100, false},           // 513 chunks over 512 threads: one thread takes two
      {1, 1, 65544, false},          // aligned but too long for registers: streaming kernel
      {5, 5, 1, false},              // one element: scalar path only
      {3 * 24, 24, 16, true},        // row groups: rows 0-7 of each head see no key
      {13, 13, 256, true},           // 1 vector per lane; last block has 5 rows, 3 idle warps
      {3 * 5, 5, 264, false},        // 33 vectors: 2 per lane, only lane 0 holds a second
      {3 * 12, 12, 2048, true},      // 8 vectors per lane
      {2 * 64, 64, 4096, true},      // 16 vectors per lane, every boundary lane masked once
      {9, 9, 4104, false},           // 513 vectors: two warps per row, last block 1 row of 4
      {4110, 4110, 4104, true},      // two warps per row, rows 0-5 see no key
      {2 * 100, 100, 8192, true},    // the longest row-group row: 2 warps × 16 vectors
      {7, 7, 8200, false},           // 1025 vectors: a block per row, 4 per thread, 288 threads
      {5, 5, 16392, false},          // 2049 vectors: 8 per thread, 257 threads → 288
      {2, 1, 40000, false},          // 5000 vectors: 8 per thread, 640 threads
      {2, 2, 65536, true},           // the longest register row: 8 vectors × 1024 threads
  };
  for (Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
    for (const SoftmaxCase& c : cases) {
      SCOPED_TRACE(to_string(dtype) + " rows " + std::to_string(c.rows) + " q_len " +
                   std::to_string(c.q_len) + " kv_len " + std::to_string(c.kv_len) +
                   (c.causal ? " causal" : ""));
      const int64_t count = c.rows * c.kv_len;
      DeviceBuffer<uint16_t> s(count);
      DeviceBuffer<uint16_t> p(count);
      fill_uniform(s.get(), count, dtype, 17, -4.0f, 4.0f);
      RFL_CUDA_CHECK(cudaMemset(p.get(), 0xFF, static_cast<size_t>(p.bytes())));  // NaN
      launch_masked_softmax(s.get(), p.get(), c.rows, c.q_len, c.kv_len, c.causal, dtype, nullptr);
      RFL_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<double> ref = softmax_reference(download_as_double(s.get(), count, dtype),
                                                        c.rows, c.q_len, c.kv_len, c.causal);
      const std::vector<double> out = download_as_double(p.get(), count, dtype);
      // The reference starts from the same rounded S, so the kernel's only errors are fp32
      // arithmetic and P's rounding to the dtype (relative u), inside the default rel (2u bf16,
      // 4u fp16); masked entries must be 0, which abs = 1e-7 enforces.
      const Tolerance tol{1e-7, default_tolerance(dtype).rel};
      expect_valid(compare_arrays(out.data(), ref.data(), count, tol, "cpu-float64 softmax"));
    }
  }
}

// Equal logits near the top of the range must give exactly uniform P: a kernel that formed
// s·log2(e) before subtracting the max would overflow to inf and produce NaN. kv_len 1001 runs the
// streaming kernel, 1024 and 4096 one-warp row groups, 8192 two-warp row groups, 16384 the
// block-per-row kernel.
TEST(MaskedSoftmax, EqualHugeLogitsGiveUniformProbabilities) {
  for (const auto& [dtype, kv_len] :
       {std::pair{Dtype::kBf16, int64_t{1001}}, std::pair{Dtype::kFp16, int64_t{1001}},
        std::pair{Dtype::kBf16, int64_t{1024}}, std::pair{Dtype::kFp16, int64_t{1024}},
        std::pair{Dtype::kBf16, int64_t{4096}}, std::pair{Dtype::kFp16, int64_t{8192}},
        std::pair{Dtype::kBf16, int64_t{16384}}}) {
    SCOPED_TRACE(to_string(dtype) + " kv_len " + std::to_string(kv_len));
    const double huge = dtype == Dtype::kBf16 ? 3.0e38 : 65000.0;
    const int64_t rows = 3;
    const int64_t count = rows * kv_len;
    DeviceBuffer<uint16_t> s(count);
    DeviceBuffer<uint16_t> p(count);
    fill_uniform(s.get(), count, dtype, 1, static_cast<float>(huge), static_cast<float>(huge));
    launch_masked_softmax(s.get(), p.get(), rows, rows, kv_len, false, dtype, nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<double> in = download_as_double(s.get(), count, dtype);
    ASSERT_EQ(in.front(), in.back()) << "fill did not produce equal logits";
    ASSERT_GT(in.front(), huge / 2);
    const std::vector<double> out = download_as_double(p.get(), count, dtype);
    const std::vector<double> uniform(static_cast<size_t>(count), 1.0 / kv_len);
    const Tolerance tol{0.0, default_tolerance(dtype).rel};
    expect_valid(compare_arrays(out.data(), uniform.data(), count, tol, "uniform 1/kv_len"));
  }
}

}  // namespace
}  // namespace rooflinectl
