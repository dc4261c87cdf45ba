// Decode attention over an FP8 E4M3 KV cache (--kv-dtype fp8_e4m3): against the reference on the
// dequantized K and V it read (CPU float64 at these sizes) at the usual tolerance of the point's
// dtype, at odd lengths (a partial last warp step, one key, a part boundary inside a step), MHA
// and GQA (g = 1 runs the tensor-core kernel too over FP8), bf16 and fp16 Q, d = 64 and 128, and
// once over a paged cache. Also: the fill's quantization (one scale per KV head, amax / 448, every
// head's largest element at ±448) and the quantization error the validation reports beside it.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/fp8_e4m3.hpp"
#include "core/kernel_version.hpp"
#include "core/shape.hpp"
#include "core/validation.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/operator.hpp"
#include "operator_runs.hpp"

namespace rooflinectl {
namespace {

constexpr uint64_t kSeed = 20261206;

struct Fp8Case {
  int64_t seq_len;
  int64_t heads;
  int64_t kv_heads;
  int64_t head_dim;
  Dtype dtype;
  int64_t page_size;  ///< 0: contiguous
};

std::string describe(const Fp8Case& c) {
  return "L=" + std::to_string(c.seq_len) + " H=" + std::to_string(c.heads) + "/" +
         std::to_string(c.kv_heads) + " d=" + std::to_string(c.head_dim) + " " +
         to_string(c.dtype) + (c.page_size > 0 ? " paged/" + std::to_string(c.page_size) : "");
}

Shape fp8_shape(const Fp8Case& c) {
  Shape s;
  s.batch = 2;  // two sequences: a part may hold the end of one and the start of the next
  s.heads = c.heads;
  s.kv_heads = c.kv_heads;
  s.head_dim = c.head_dim;
  s.seq_len = c.seq_len;
  s.dtype = c.dtype;
  s.kv_dtype = KvDtype::kFp8E4m3;
  if (c.page_size > 0) {
    s.kv_layout = KvLayout::kPaged;
    s.page_size = c.page_size;
  }
  return s;
}

// Each KV head's elements, over both sequences, reach ±448 (its amax maps there) and no further,
// with a positive finite scale; the fill's values lie in [-1, 1], so the scale is at most 1/448.
void expect_quantized_per_head(const Shape& s, const std::vector<uint8_t>& bytes,
                               const std::vector<float>& scales) {
  ASSERT_EQ(static_cast<int64_t>(scales.size()), s.kv_heads);
  const int64_t head_elems = s.seq_len * s.head_dim;
  for (int64_t kv_head = 0; kv_head < s.kv_heads; ++kv_head) {
    EXPECT_GT(scales[kv_head], 0.0f);
    EXPECT_LE(scales[kv_head], 1.0f / 448.0f * 1.0001f);
    double amax = 0.0;
    for (int64_t b = 0; b < s.batch; ++b) {
      const size_t begin = static_cast<size_t>((b * s.kv_heads + kv_head) * head_elems);
      for (size_t i = begin; i < begin + static_cast<size_t>(head_elems); ++i) {
        const double x = e4m3_to_double(bytes[i]);
        ASSERT_TRUE(std::isfinite(x)) << "NaN pattern at element " << i;
        amax = std::max(amax, std::fabs(x));
      }
    }
    EXPECT_EQ(amax, kE4m3Max) << "KV head " << kv_head;
  }
}

class DecodeFp8 : public ::testing::TestWithParam<Fp8Case> {};

TEST_P(DecodeFp8, MatchesReferenceOnDequantizedValues) {
  const Fp8Case c = GetParam();
  const Shape shape = fp8_shape(c);
  const std::unique_ptr<OperatorRun> run = make_filled_run("decode_attention", shape, kSeed);
  EXPECT_EQ(run->version(), "decode_attention_v5_mma_gqa_fused_merge");

  const Validation v = run->validate();
  EXPECT_TRUE(v.passed) << describe(c) << ": " << validation_summary(v);
  EXPECT_NE(v.reference.find("dequantized E4M3"), std::string::npos) << v.reference;

  // The quantization error, against the 16-bit K and V before quantization: there (E4M3 keeps 4
  // significant bits, a relative step of 2^-3 to 2^-4 per element) and well below the output's
  // scale (the errors average out over keys and dims).
  ASSERT_TRUE(v.quantization.has_value()) << describe(c);
  const QuantizationError& q = *v.quantization;
  std::printf(
      "%s: max |err| %.3g (worst ratio %.3f); quantization: max |diff| %.3g, rms %.3g, "
      "max |ref| %.3g\n",
      describe(c).c_str(), v.max_abs_error, v.worst_ratio, q.max_abs_difference, q.rms_difference,
      q.max_abs_reference);
  EXPECT_EQ(q.checked_elements, v.checked_elements);
  EXPECT_GT(q.max_abs_difference, v.max_abs_error) << "FP8 should add error beyond the kernel's";
  EXPECT_LT(q.max_abs_difference, 0.25 * q.max_abs_reference);
  EXPECT_NE(q.reference.find("before quantization"), std::string::npos) << q.reference;

  if (c.page_size == 0) {
    expect_quantized_per_head(shape, download<uint8_t>(tensor(*run, "k")),
                              download<float>(tensor(*run, "k_scale")));
    expect_quantized_per_head(shape, download<uint8_t>(tensor(*run, "v")),
                              download<float>(tensor(*run, "v_scale")));
  }
}

// L = 1 (one key), 17 and 1000 (partial last steps of 16 keys) and 4097; g = 1 (8 rows, one real
// head), 4 and 16 (two head tiles); d = 64 and 128; bf16 and fp16; paged once at each page size
// end.
INSTANTIATE_TEST_SUITE_P(
    Shapes, DecodeFp8,
    ::testing::Values(
        Fp8Case{1000, 16, 16, 128, Dtype::kBf16, 0}, Fp8Case{4097, 16, 16, 128, Dtype::kBf16, 0},
        Fp8Case{1, 16, 16, 128, Dtype::kBf16, 0}, Fp8Case{17, 32, 8, 128, Dtype::kBf16, 0},
        Fp8Case{1000, 32, 8, 128, Dtype::kBf16, 0}, Fp8Case{4097, 32, 8, 128, Dtype::kFp16, 0},
        Fp8Case{1000, 32, 2, 128, Dtype::kBf16, 0}, Fp8Case{1000, 16, 16, 64, Dtype::kFp16, 0},
        Fp8Case{1000, 32, 8, 64, Dtype::kBf16, 0}, Fp8Case{1000, 32, 2, 64, Dtype::kFp16, 0},
        Fp8Case{1000, 32, 8, 128, Dtype::kBf16, 16}, Fp8Case{1000, 16, 16, 64, Dtype::kFp16, 128}));

// Paged and contiguous FP8 caches of one seed hold the same bytes page by page, so O agrees as
// test_decode_paged.cpp explains (within one unit in the last place of the 16-bit output).
TEST(DecodeFp8Paged, MatchesContiguous) {
  for (const Fp8Case& c : {Fp8Case{1000, 16, 16, 128, Dtype::kBf16, 16},
                           Fp8Case{4096, 32, 8, 128, Dtype::kBf16, 64}}) {
    SCOPED_TRACE(describe(c));
    Fp8Case contiguous_case = c;
    contiguous_case.page_size = 0;
    const std::unique_ptr<OperatorRun> contiguous =
        make_filled_run("decode_attention", fp8_shape(contiguous_case), kSeed);
    const std::unique_ptr<OperatorRun> paged =
        make_filled_run("decode_attention", fp8_shape(c), kSeed);
    contiguous->launch(nullptr);
    paged->launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(download<float>(tensor(*paged, "k_scale")),
              download<float>(tensor(*contiguous, "k_scale")));
    const std::vector<uint16_t> oc = download<uint16_t>(tensor(*contiguous, "o"));
    const std::vector<uint16_t> op = download<uint16_t>(tensor(*paged, "o"));
    ASSERT_EQ(oc.size(), op.size());
    int64_t max_ulp = 0;
    for (size_t i = 0; i < oc.size(); ++i) {
      const auto ordered = [](uint16_t bits) {
        return (bits & 0x8000u) != 0 ? -static_cast<int64_t>(bits & 0x7fffu) : int64_t{bits};
      };
      const int64_t ulp = std::llabs(ordered(oc[i]) - ordered(op[i]));
      max_ulp = std::max(max_ulp, ulp);
    }
    EXPECT_LE(max_ulp, 1);
  }
}

}  // namespace
}  // namespace rooflinectl
