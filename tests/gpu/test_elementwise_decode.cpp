// GELU (both forms), LayerNorm and decode attention through the operator registry: each run's
// own validate() against its CPU float64 (or planned) reference over the sweep's corner cases
// (token counts and cache lengths that are not multiples of anything, element counts with a
// scalar tail, every LayerNorm thread configuration, GQA groups that need several head chunks),
// plus hand-written LayerNorm rows whose naive E[x²] - μ² overflows or cancels, and L = 1 decode,
// which must return V[0] exactly.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "core/validation.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/layernorm.hpp"
#include "kernels/operator.hpp"
#include "operator_runs.hpp"

namespace rooflinectl {
namespace {

constexpr uint64_t kSeed = 20240611;

Shape make_shape(int64_t tokens, int64_t heads, int64_t kv_heads, int64_t head_dim, Dtype dtype) {
  Shape s;
  s.batch = 1;
  s.seq_len = tokens;
  s.heads = heads;
  s.kv_heads = kv_heads;
  s.head_dim = head_dim;
  s.dtype = dtype;
  return s;
}

// ---------------------------------------------------------------------------------------------
// GELU

using ElementwiseParam = std::tuple<int64_t /*tokens*/, int64_t /*d_model*/, Dtype>;

std::string elementwise_name(const testing::TestParamInfo<ElementwiseParam>& info) {
  return "tokens" + std::to_string(std::get<0>(info.param)) + "_dmodel" +
         std::to_string(std::get<1>(info.param)) + "_" + to_string(std::get<2>(info.param));
}

const auto kElementwiseSweep = testing::Combine(testing::Values<int64_t>(1, 127, 512, 1000, 4096),
                                                testing::Values<int64_t>(1024, 2048),
                                                testing::Values(Dtype::kBf16, Dtype::kFp16));

class GeluSweep : public testing::TestWithParam<ElementwiseParam> {};

TEST_P(GeluSweep, BothFormsMatchFloat64) {
  const auto [tokens, d_model, dtype] = GetParam();
  for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
    SCOPED_TRACE(to_string(form));
    Shape s = make_shape(tokens, d_model / 128, d_model / 128, 128, dtype);
    s.gelu_form = form;
    const Validation v = run_validate("gelu", s, kSeed);
    EXPECT_TRUE(v.passed) << validation_summary(v);
    EXPECT_NE(v.reference.find("cpu-float64 ("), std::string::npos) << v.reference;
    // Large tensors are sampled: both 4096-element edges plus strided chunks, never everything.
    const int64_t count = tokens * 4 * d_model;
    if (count > (int64_t{1} << 22)) {
      EXPECT_LT(v.checked_elements, count);
    } else {
      EXPECT_EQ(v.checked_elements, count);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sweep, GeluSweep, kElementwiseSweep, elementwise_name);

TEST(Gelu, ScalarTailWhenCountIsNotAMultipleOf8) {
  // N = tokens·4·heads·head_dim: 4 (tail only), 420 (52 vectors + 4), 4·3·7·1001 = 84084 (+4).
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> cases = {
      {1, 1, 1}, {5, 3, 7}, {1001, 3, 7}};
  for (const auto& [tokens, heads, head_dim] : cases) {
    for (Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
        SCOPED_TRACE(testing::Message()
                     << "tokens " << tokens << " heads " << heads << " head_dim " << head_dim << " "
                     << to_string(dtype) << " " << to_string(form));
        Shape s = make_shape(tokens, heads, heads, head_dim, dtype);
        s.gelu_form = form;
        const Validation v = run_validate("gelu", s, kSeed);
        EXPECT_TRUE(v.passed) << validation_summary(v);
        EXPECT_EQ(v.checked_elements, tokens * 4 * heads * head_dim);
      }
    }
  }
}

TEST(Gelu, NamesAndVersion) {
  Shape s = make_shape(4, 2, 2, 64, Dtype::kBf16);
  const OperatorSpec& spec = find_operator("gelu");
  EXPECT_EQ(spec.pipe(Shape{}), Pipe::kFp32);
  s.gelu_form = GeluForm::kErf;
  EXPECT_EQ(spec.create(s, kDefaultVersionKey)->kernel_names(),
            std::vector<std::string>{"gelu_erf"});
  s.gelu_form = GeluForm::kTanh;
  const auto run = spec.create(s, kDefaultVersionKey);
  EXPECT_EQ(run->kernel_names(), std::vector<std::string>{"gelu_tanh"});
  EXPECT_EQ(run->version(), "gelu_v2_full_grid");
}

// ---------------------------------------------------------------------------------------------
// LayerNorm

class LayerNormSweep : public testing::TestWithParam<ElementwiseParam> {};

TEST_P(LayerNormSweep, MatchesFloat64) {
  const auto [tokens, d_model, dtype] = GetParam();
  const Validation v = run_validate(
      "layernorm", make_shape(tokens, d_model / 128, d_model / 128, 128, dtype), kSeed);
  EXPECT_TRUE(v.passed) << validation_summary(v);
  // Every row, up to the 2^22-element budget of the CPU reference (2048 rows at d_model 2048).
  EXPECT_EQ(v.checked_elements, std::min<int64_t>(tokens, (int64_t{1} << 22) / d_model) * d_model);
}

INSTANTIATE_TEST_SUITE_P(Sweep, LayerNormSweep, kElementwiseSweep, elementwise_name);

TEST(LayerNorm, EveryThreadConfigurationAndWidthLimit) {
  // d_model: smallest; last warp-per-row width; first and last 64-, 128- and 256-thread widths;
  // first 1024-thread; the maximum. heads × head_dim as the shape defines d_model.
  const std::vector<std::pair<int64_t, int64_t>> widths = {
      {1, 8},    {1, 2048}, {1, 2056},  {1, 4096},  {1, 4104},
      {1, 8192}, {1, 8200}, {128, 128}, {1, 16392}, {512, 128}};
  for (const auto& [heads, head_dim] : widths) {
    for (Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      SCOPED_TRACE(testing::Message() << "d_model " << heads * head_dim << " " << to_string(dtype));
      const Validation v =
          run_validate("layernorm", make_shape(5, heads, heads, head_dim, dtype), kSeed);
      EXPECT_TRUE(v.passed) << validation_summary(v);
    }
  }
}

TEST(LayerNorm, LargeShapesSampleFirstAndLastRows) {
  // 5000 rows > 4096: a sample of rows; 64 rows of 65536 hit the element budget instead.
  const Validation many =
      run_validate("layernorm", make_shape(5000, 8, 8, 128, Dtype::kBf16), kSeed);
  EXPECT_TRUE(many.passed) << validation_summary(many);
  EXPECT_EQ(many.checked_elements, 4096 * 1024);
  const Validation wide =
      run_validate("layernorm", make_shape(100, 512, 512, 128, Dtype::kFp16), kSeed);
  EXPECT_TRUE(wide.passed) << validation_summary(wide);
  EXPECT_LT(wide.checked_elements, 100 * 65536);
}

TEST(LayerNorm, RejectsUnsupportedWidths) {
  const OperatorSpec& spec = find_operator("layernorm");
  // 12 is not a multiple of 8; 65544 = 8193·8 is above the maximum.
  EXPECT_TRUE(throws_bad_input([&] { spec.check_shape(make_shape(4, 1, 1, 12, Dtype::kBf16)); }));
  EXPECT_TRUE(
      throws_bad_input([&] { spec.check_shape(make_shape(4, 8193, 8193, 8, Dtype::kBf16)); }));
  EXPECT_NO_THROW(spec.check_shape(make_shape(4, 512, 512, 128, Dtype::kBf16)));
  EXPECT_EQ(spec.create(make_shape(4, 8, 8, 128, Dtype::kBf16), kDefaultVersionKey)->version(),
            "layernorm_v2_two_pass_8vec");
}

/// Runs launch_layernorm on hand-written fp16 rows (γ = 1, β = 0) and returns y as double.
std::vector<double> layernorm_fp16(const std::vector<float>& x_host, int64_t rows, int64_t width) {
  std::vector<__half> x(x_host.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = __float2half(x_host[i]);
  const std::vector<__half> ones(static_cast<size_t>(width), __float2half(1.0f));
  const std::vector<__half> zeros(static_cast<size_t>(width), __float2half(0.0f));
  DeviceBuffer<uint16_t> xd(rows * width), yd(rows * width), gamma(width), beta(width);
  RFL_CUDA_CHECK(cudaMemcpy(xd.get(), x.data(), xd.bytes(), cudaMemcpyHostToDevice));
  RFL_CUDA_CHECK(cudaMemcpy(gamma.get(), ones.data(), gamma.bytes(), cudaMemcpyHostToDevice));
  RFL_CUDA_CHECK(cudaMemcpy(beta.get(), zeros.data(), beta.bytes(), cudaMemcpyHostToDevice));
  launch_layernorm(xd.get(), gamma.get(), beta.get(), yd.get(), rows, width, Dtype::kFp16, nullptr);
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  return download_as_double(yd.get(), rows * width, Dtype::kFp16);
}

TEST(LayerNorm, Fp16RowsOfPlusMinus20000GivePlusMinusOne) {
  // Σx² = 4e8 per element: a naive fp16 or E[x²] path overflows or loses everything.
  for (int64_t width : {1024, 2048, 16384, 65536}) {
    SCOPED_TRACE(testing::Message() << "d_model " << width);
    const int64_t rows = 3;
    std::vector<float> x(static_cast<size_t>(rows * width));
    for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 2 == 0) ? 20000.0f : -20000.0f;
    const std::vector<double> y = layernorm_fp16(x, rows, width);
    int64_t bad = 0;
    for (size_t i = 0; i < y.size(); ++i) bad += y[i] != (i % 2 == 0 ? 1.0 : -1.0);
    EXPECT_EQ(bad, 0) << "first y " << y[0] << ", " << y[1];
  }
}

TEST(LayerNorm, LargeMeanSmallVarianceDoesNotCancel) {
  // x alternates 20000 and 20016 (neighbouring fp16 values): μ = 20008, σ² = 64, y = ±1.
  // E[x²] - μ² in fp32 would subtract two numbers near 4.0e8 whose spacing is 32.
  for (int64_t width : {1024, 65536}) {
    SCOPED_TRACE(testing::Message() << "d_model " << width);
    const int64_t rows = 2;
    std::vector<float> x(static_cast<size_t>(rows * width));
    for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 2 == 0) ? 20016.0f : 20000.0f;
    const std::vector<double> y = layernorm_fp16(x, rows, width);
    int64_t bad = 0;
    for (size_t i = 0; i < y.size(); ++i) bad += y[i] != (i % 2 == 0 ? 1.0 : -1.0);
    EXPECT_EQ(bad, 0) << "first y " << y[0] << ", " << y[1];
  }
}

// ---------------------------------------------------------------------------------------------
// Decode attention

using DecodeParam = std::tuple<int64_t /*L*/, int64_t /*head_dim*/, int64_t /*kv_heads*/, Dtype>;

class DecodeSweep : public testing::TestWithParam<DecodeParam> {};

TEST_P(DecodeSweep, MatchesReference) {
  const auto [kv_len, head_dim, kv_heads, dtype] = GetParam();
  const Validation v =
      run_validate("decode_attention", make_shape(kv_len, 32, kv_heads, head_dim, dtype), kSeed);
  EXPECT_TRUE(v.passed) << validation_summary(v);
  EXPECT_EQ(v.checked_elements, 32 * head_dim);
  // One key: softmax weight exactly 1, so O must be V[0] bit for bit (and so equal the reference).
  if (kv_len == 1) {
    EXPECT_EQ(v.max_abs_error, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Sweep, DecodeSweep,
                         testing::Combine(testing::Values<int64_t>(1, 127, 512, 1000, 4096),
                                          testing::Values<int64_t>(64, 128),
                                          testing::Values<int64_t>(32, 8),
                                          testing::Values(Dtype::kBf16, Dtype::kFp16)),
                         [](const testing::TestParamInfo<DecodeParam>& info) {
                           return "L" + std::to_string(std::get<0>(info.param)) + "_d" +
                                  std::to_string(std::get<1>(info.param)) + "_kv" +
                                  std::to_string(std::get<2>(info.param)) + "_" +
                                  to_string(std::get<3>(info.param));
                         });

TEST(DecodeAttention, GroupSizesBatchAndHeadChunks) {
  // g = 3 (8 heads per block, five unused), 8 (one block of 8), 16 and 64 (1 and 4 head chunks
  // of 16 per KV head), and batch 3 (batch offsets into Q, K, V, O and the workspace). Parts of
  // the flat key range cross KV-head boundaries at these small caches.
  struct Case {
    int64_t batch, heads, kv_heads, head_dim, kv_len;
  };
  for (const Case& c :
       {Case{1, 12, 4, 128, 1000}, Case{1, 16, 2, 64, 777}, Case{1, 32, 2, 128, 2049},
        Case{1, 64, 1, 128, 1000}, Case{1, 64, 1, 64, 1}, Case{3, 8, 2, 64, 300}}) {
    for (Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      SCOPED_TRACE(testing::Message()
                   << "B " << c.batch << " H " << c.heads << "/" << c.kv_heads << " d "
                   << c.head_dim << " L " << c.kv_len << " " << to_string(dtype));
      Shape s = make_shape(c.kv_len, c.heads, c.kv_heads, c.head_dim, dtype);
      s.batch = c.batch;
      const Validation v = run_validate("decode_attention", s, kSeed);
      EXPECT_TRUE(v.passed) << validation_summary(v);
      EXPECT_EQ(v.checked_elements, c.batch * c.heads * c.head_dim);
    }
  }
}

TEST(DecodeAttention, MergeEdgesOfTheSplit) {
  // The last block of each KV head merges its parts' partials (v4/v5). Edges: each KV head is
  // exactly one part (B 8, H_kv 32, L 64: 256 parts of 64 keys), one part for the whole cache
  // that spans two KV heads (40 keys, under the 64-key minimum: the second KV head is the part's
  // slot 1), and one KV head cut into a full wave of parts (more than one merge batch per
  // thread), for g = 1 (v4, several threads per output vector) and g = 4 (v5).
  struct Case {
    int64_t batch, heads, kv_heads, head_dim, kv_len;
  };
  for (const Case& c : {Case{8, 32, 32, 128, 64}, Case{8, 32, 8, 128, 64}, Case{1, 8, 2, 64, 20},
                        Case{1, 2, 2, 128, 20}, Case{1, 1, 1, 128, 65536},
                        Case{1, 4, 1, 128, 65536}, Case{1, 16, 1, 64, 40000}}) {
    SCOPED_TRACE(testing::Message() << "B " << c.batch << " H " << c.heads << "/" << c.kv_heads
                                    << " d " << c.head_dim << " L " << c.kv_len);
    Shape s = make_shape(c.kv_len, c.heads, c.kv_heads, c.head_dim, Dtype::kBf16);
    s.batch = c.batch;
    const Validation v = run_validate("decode_attention", s, kSeed);
    EXPECT_TRUE(v.passed) << validation_summary(v);
    EXPECT_EQ(v.checked_elements, c.batch * c.heads * c.head_dim);
  }
}

TEST(DecodeAttention, RepeatedLaunchesOnAStreamStayCorrect) {
  // The timed pass launches many times on its own stream; the workspace is rewritten and the
  // arrival counters must be back at zero after every launch (the merging block resets them).
  // O is poisoned (0xFF bytes: NaN in bf16 and fp16) before the checked launch, so an output
  // that a miscounted merge skipped, or wrote before all parts arrived, fails.
  for (const int64_t kv_heads : {int64_t{8}, int64_t{32}}) {
    SCOPED_TRACE(testing::Message() << "H_kv " << kv_heads);
    const Shape s = make_shape(4096, 32, kv_heads, 128, Dtype::kBf16);
    const std::unique_ptr<OperatorRun> run =
        find_operator("decode_attention").create(s, kDefaultVersionKey);
    run->fill_random(kSeed);
    cudaStream_t stream = nullptr;
    RFL_CUDA_CHECK(cudaStreamCreate(&stream));
    for (int i = 0; i < 50; ++i) run->launch(stream);
    RFL_CUDA_CHECK(cudaStreamSynchronize(stream));
    RFL_CUDA_CHECK(cudaStreamDestroy(stream));
    for (const DeviceTensorView& t : run->tensors()) {
      if (t.name == "o") {
        RFL_CUDA_CHECK(cudaMemset(t.data, 0xFF, static_cast<size_t>(t.count) * 2));
      }
    }
    const Validation v = run->validate();
    EXPECT_TRUE(v.passed) << validation_summary(v);
    EXPECT_EQ(run->kernel_names(), std::vector<std::string>{"decode_split_kv"});
    // g = 4: the tensor-core kernel; g = 1: the CUDA-core kernel.
    EXPECT_EQ(run->version(), kv_heads == 8 ? "decode_attention_v5_mma_gqa_fused_merge"
                                            : "decode_attention_v4_flat_fused_merge");
  }
}

TEST(DecodeAttention, RejectsUnsupportedShapes) {
  const OperatorSpec& spec = find_operator("decode_attention");
  EXPECT_EQ(spec.pipe(Shape{}), Pipe::kFp32);
  EXPECT_TRUE(
      throws_bad_input([&] { spec.check_shape(make_shape(512, 32, 32, 80, Dtype::kBf16)); }));
  try {
    spec.check_shape(make_shape(512, 32, 32, 512, Dtype::kBf16));
    ADD_FAILURE() << "head_dim 512 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("allowed 64, 96, 128, 256"), std::string::npos)
        << e.what();
  }
  // The four it runs (test_decode_head_dims.cpp covers 96 and 256).
  for (const int64_t d : {64, 96, 128, 256}) {
    EXPECT_FALSE(throws_bad_input([&] {
      spec.check_shape(make_shape(512, 32, 8, d, Dtype::kBf16));
    })) << d;
  }
  EXPECT_TRUE(
      throws_bad_input([&] { spec.check_shape(make_shape(512, 32, 5, 128, Dtype::kBf16)); }));
}

}  // namespace
}  // namespace rooflinectl
