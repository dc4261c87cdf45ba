// Decode attention at head_dim 96 (Phi-3-mini) and 256 (Gemma 2), whose lane layouts differ from
// 64 and 128 (kernels/decode_attention.cu): at d = 96, d/8 = 12 is not a power of two, so the
// CUDA-core kernel's 16-lane row groups have 4 lanes without dims, and the tensor-core kernel
// loads a lane's 12 V elements per row as three 8-byte vectors (16-bit) or three 4-byte ones
// (FP8), and FP8 K as 8-byte vectors (3 chunks, an odd count); at d = 256 a tensor-core block
// holds 8 query heads at most (decode_max_heads_per_block), so g = 16 runs two head chunks.
// Each case against the reference (CPU float64 at these sizes), over an FP8 cache on the
// dequantized values it read; paged against contiguous within one unit in the last place (the
// merge order of the last block varies from launch to launch: test_decode_paged.cpp). GQA groups
// 1, 2, 4, 8 and 16; lengths 1 (O = V[0]), 37, 1000 and 4097 (none a multiple of the warp steps);
// batch 2 everywhere (a part may hold the end of one sequence and the start of the next).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/kernel_version.hpp"
#include "core/shape.hpp"
#include "core/validation.hpp"
#include "kernels/operator.hpp"
#include "operator_runs.hpp"

namespace rooflinectl {
namespace {

constexpr uint64_t kSeed = 20261207;
constexpr int64_t kKvHeads = 2;

/// B = 2, H_kv = 2, H = 2·g, the given d, L and dtype; a 16-bit or FP8 KV cache, contiguous
/// (page_size 0) or paged.
Shape head_dim_shape(int64_t head_dim, int64_t group, int64_t seq_len, Dtype dtype, KvDtype kv,
                     int64_t page_size) {
  Shape s;
  s.batch = 2;
  s.heads = kKvHeads * group;
  s.kv_heads = kKvHeads;
  s.head_dim = head_dim;
  s.seq_len = seq_len;
  s.dtype = dtype;
  s.kv_dtype = kv;
  if (page_size > 0) {
    s.kv_layout = KvLayout::kPaged;
    s.page_size = page_size;
  }
  return s;
}

std::string describe(const Shape& s) {
  return "d=" + std::to_string(s.head_dim) + " H=" + std::to_string(s.heads) + "/" +
         std::to_string(s.kv_heads) + " L=" + std::to_string(s.seq_len) + " " + to_string(s.dtype) +
         (s.kv_dtype == KvDtype::kFp8E4m3 ? " fp8_e4m3" : "") +
         (s.kv_layout == KvLayout::kPaged ? " paged/" + std::to_string(s.page_size) : "");
}

/// The version decode_attention reports: v4 (CUDA cores) at g = 1 over a 16-bit cache, v5
/// (tensor cores) otherwise.
std::string expected_version(const Shape& s) {
  return s.group_size() == 1 && s.kv_dtype != KvDtype::kFp8E4m3
             ? "decode_attention_v4_flat_fused_merge"
             : "decode_attention_v5_mma_gqa_fused_merge";
}

using ReferenceParam = std::tuple<int64_t, int64_t, int64_t, Dtype, KvDtype>;

class DecodeHeadDim : public testing::TestWithParam<ReferenceParam> {};

TEST_P(DecodeHeadDim, MatchesReference) {
  const auto [head_dim, group, seq_len, dtype, kv] = GetParam();
  const Shape s = head_dim_shape(head_dim, group, seq_len, dtype, kv, 0);
  SCOPED_TRACE(describe(s));
  EXPECT_GT(find_operator("decode_attention").device_bytes(s), 0);
  const std::unique_ptr<OperatorRun> run = make_filled_run("decode_attention", s, kSeed);
  EXPECT_EQ(run->version(), expected_version(s));
  const Validation v = run->validate();
  EXPECT_TRUE(v.passed) << validation_summary(v);
  EXPECT_EQ(v.checked_elements, s.batch * s.heads * s.head_dim);
  if (kv == KvDtype::kFp8E4m3) {
    EXPECT_NE(v.reference.find("dequantized E4M3"), std::string::npos) << v.reference;
    // Quantization error against the 16-bit K and V before quantization: present, above the
    // kernel's own error and well below the output's scale (as test_decode_fp8.cpp checks).
    ASSERT_TRUE(v.quantization.has_value());
    const QuantizationError& q = *v.quantization;
    EXPECT_EQ(q.checked_elements, v.checked_elements);
    EXPECT_LT(q.max_abs_difference, 0.25 * q.max_abs_reference);
    if (seq_len > 1) {
      EXPECT_GT(q.max_abs_difference, v.max_abs_error);
    }
  } else if (seq_len == 1) {
    // One key: softmax weight exactly 1, so O is V[0] bit for bit (and so equals the reference).
    EXPECT_EQ(v.max_abs_error, 0.0);
  }
}

std::string reference_name(const testing::TestParamInfo<ReferenceParam>& info) {
  const auto& [head_dim, group, seq_len, dtype, kv] = info.param;
  return "d" + std::to_string(head_dim) + "_g" + std::to_string(group) + "_L" +
         std::to_string(seq_len) + "_" + to_string(dtype) +
         (kv == KvDtype::kFp8E4m3 ? "_fp8" : "_16bit");
}

INSTANTIATE_TEST_SUITE_P(Shapes, DecodeHeadDim,
                         testing::Combine(testing::Values<int64_t>(96, 256),
                                          testing::Values<int64_t>(1, 2, 4, 8, 16),
                                          testing::Values<int64_t>(1, 37, 1000, 4097),
                                          testing::Values(Dtype::kBf16, Dtype::kFp16),
                                          testing::Values(KvDtype::kAuto, KvDtype::kFp8E4m3)),
                         reference_name);

// bf16 and fp16 bit patterns as integers that count units in the last place across zero.
int64_t ordered(uint16_t bits) {
  return (bits & 0x8000u) != 0 ? -static_cast<int64_t>(bits & 0x7fffu) : int64_t{bits};
}

struct PagedCase {
  int64_t head_dim;
  int64_t group;
  int64_t page_size;
  int64_t seq_len;
  Dtype dtype;
  KvDtype kv;
};

/// d 96 and 256 × g 1, 2, 4, 8, 16 × a 16-bit and an FP8 cache, each at three (page size,
/// length, dtype): (16, 1000, bf16), (128, 4097, fp16) and (32, 37, bf16: one partly filled
/// page and one full one per sequence).
std::vector<PagedCase> paged_cases() {
  std::vector<PagedCase> cases;
  for (const int64_t d : {96, 256}) {
    for (const int64_t g : {1, 2, 4, 8, 16}) {
      for (const KvDtype kv : {KvDtype::kAuto, KvDtype::kFp8E4m3}) {
        cases.push_back({d, g, 16, 1000, Dtype::kBf16, kv});
        cases.push_back({d, g, 128, 4097, Dtype::kFp16, kv});
        cases.push_back({d, g, 32, 37, Dtype::kBf16, kv});
      }
    }
  }
  return cases;
}

class DecodeHeadDimPaged : public testing::TestWithParam<PagedCase> {};

TEST_P(DecodeHeadDimPaged, MatchesContiguousAndReference) {
  const PagedCase c = GetParam();
  const Shape contiguous_shape = head_dim_shape(c.head_dim, c.group, c.seq_len, c.dtype, c.kv, 0);
  const Shape paged_shape =
      head_dim_shape(c.head_dim, c.group, c.seq_len, c.dtype, c.kv, c.page_size);
  SCOPED_TRACE(describe(paged_shape));
  const std::unique_ptr<OperatorRun> contiguous =
      make_filled_run("decode_attention", contiguous_shape, kSeed);
  const std::unique_ptr<OperatorRun> paged =
      make_filled_run("decode_attention", paged_shape, kSeed);
  EXPECT_EQ(paged->version(), contiguous->version());

  // Both against the reference; validate() launches the operator, so O is written after it.
  const Validation vc = contiguous->validate();
  EXPECT_TRUE(vc.passed) << "contiguous: " << validation_summary(vc);
  const Validation vp = paged->validate();
  EXPECT_TRUE(vp.passed) << "paged: " << validation_summary(vp);
  EXPECT_EQ(vp.reference, vc.reference);

  const std::vector<uint16_t> oc = download<uint16_t>(tensor(*contiguous, "o"));
  const std::vector<uint16_t> op = download<uint16_t>(tensor(*paged, "o"));
  ASSERT_EQ(oc.size(), op.size());
  int64_t differing = 0;
  int64_t max_ulp = 0;
  for (size_t i = 0; i < oc.size(); ++i) {
    const int64_t ulp = std::llabs(ordered(oc[i]) - ordered(op[i]));
    if (ulp != 0) ++differing;
    max_ulp = std::max(max_ulp, ulp);
  }
  std::printf("%s: paged vs contiguous O, %lld of %zu elements differ, at most %lld ulp\n",
              describe(paged_shape).c_str(), static_cast<long long>(differing), oc.size(),
              static_cast<long long>(max_ulp));
  EXPECT_LE(max_ulp, 1);
}

INSTANTIATE_TEST_SUITE_P(Shapes, DecodeHeadDimPaged, testing::ValuesIn(paged_cases()),
                         [](const testing::TestParamInfo<PagedCase>& info) {
                           const PagedCase& c = info.param;
                           return "d" + std::to_string(c.head_dim) + "_g" +
                                  std::to_string(c.group) + "_P" + std::to_string(c.page_size) +
                                  "_L" + std::to_string(c.seq_len) + "_" + to_string(c.dtype) +
                                  (c.kv == KvDtype::kFp8E4m3 ? "_fp8" : "_16bit");
                         });

}  // namespace
}  // namespace rooflinectl
