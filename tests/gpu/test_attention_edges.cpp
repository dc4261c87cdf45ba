// Attention edge cases across all three attention operators (naive, flash, decode), through the
// registry as the sweep runs them: lengths around tile edges, all-equal huge logits, GQA group
// sizes that are not powers of two, a one-key cache, and group sizes that do not divide; naive
// and flash attention at head_dim 96 and 256 (the phi-3-mini and gemma-2 presets). The flash
// cases run under both version keys (flash_versions.hpp).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/validation.hpp"
#include "flash_versions.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

const std::vector<std::string> kAttentionOps = {"naive_attention", "flash_attention",
                                                "decode_attention"};
/// The two that run head_dim 96 and 256.
const std::vector<std::string> kPrefillAttentionOps = {"naive_attention", "flash_attention"};

Shape attention_shape(int64_t seq_len, int64_t heads, int64_t kv_heads, bool causal, Dtype dtype,
                      int64_t head_dim = 128) {
  Shape s;
  s.batch = 1;
  s.heads = heads;
  s.kv_heads = kv_heads;
  s.head_dim = head_dim;
  s.seq_len = seq_len;
  s.causal = causal;
  s.dtype = dtype;
  return s;
}

/// Creates `op` at `shape` for version `key`; for flash_attention also checks that the expected
/// version runs.
std::unique_ptr<OperatorRun> create_checked(const std::string& op, const Shape& shape,
                                            const std::string& key) {
  const OperatorSpec& spec = find_operator(op);
  spec.check_shape(shape);
  std::unique_ptr<OperatorRun> run = spec.create(shape, key);
  if (op == "flash_attention") {
    EXPECT_EQ(run->version(), expected_flash_version(key, shape.head_dim));
  }
  return run;
}

/// Runs `body(key)` with the default version key, or for flash_attention once per version key.
template <class Body>
void for_each_version(const std::string& op, Body body) {
  if (op != "flash_attention") {
    body(kDefaultVersionKey);
    return;
  }
  for (const std::string& key : kFlashVersionKeys) {
    SCOPED_TRACE(flash_key_name(key));
    body(key);
  }
}

DeviceTensorView tensor(OperatorRun& run, const std::string& name) {
  for (const DeviceTensorView& t : run.tensors()) {
    if (t.name == name) return t;
  }
  ADD_FAILURE() << "no tensor " << name;
  return {};
}

void expect_valid(const Validation& v) {
  EXPECT_TRUE(v.passed) << v.reference << ": " << v.detail << " (max |err| " << v.max_abs_error
                        << ", " << v.failed_elements << " of " << v.checked_elements << " failed)";
}

// ---------------------------------------------------------------------------------------------
// Lengths 1, 63, 127, 129, 192, 1000, 4097: around the 32-row warp, 64-key and 128-row query
// tile edges of flash_attention, a length of no power-of-two factor and one past 4096; causal and
// not, bf16 and fp16, each operator.

using LengthParam = std::tuple<std::string, int64_t, bool, Dtype>;

class AttentionLengths : public testing::TestWithParam<LengthParam> {};

TEST_P(AttentionLengths, MatchesReference) {
  const auto [op, seq_len, causal, dtype] = GetParam();
  for_each_version(
      op, [&, op = op, seq_len = seq_len, causal = causal, dtype = dtype](const std::string& key) {
        const std::unique_ptr<OperatorRun> run =
            create_checked(op, attention_shape(seq_len, 4, 2, causal, dtype), key);
        run->fill_random(97);
        expect_valid(run->validate());
      });
}

INSTANTIATE_TEST_SUITE_P(
    EdgeLengths, AttentionLengths,
    testing::Combine(testing::ValuesIn(kAttentionOps),
                     testing::Values<int64_t>(1, 63, 127, 129, 192, 1000, 4097), testing::Bool(),
                     testing::Values(Dtype::kBf16, Dtype::kFp16)),
    [](const testing::TestParamInfo<LengthParam>& info) {
      return std::get<0>(info.param) + "_L" + std::to_string(std::get<1>(info.param)) +
             (std::get<2>(info.param) ? "_causal_" : "_full_") + to_string(std::get<3>(info.param));
    });

// ---------------------------------------------------------------------------------------------
// A chunk of queries over a longer cache (--q-len), through the registry as the sweep runs it:
// q_len 1, 100 and 512 over 257, 1000 and 4096 keys (bottom-right causal mask), naive and flash
// attention, GQA group 2, both dtypes. The tensors the sweep sizes (Q and O at L_q rows) and the
// validation against the references both follow Shape::query_len().

using ChunkParam = std::tuple<std::string, std::pair<int64_t, int64_t>, bool, Dtype>;

class AttentionQueryChunks : public testing::TestWithParam<ChunkParam> {};

TEST_P(AttentionQueryChunks, MatchReference) {
  const auto [op, lengths, causal, dtype] = GetParam();
  for_each_version(
      op, [&, op = op, lengths = lengths, causal = causal, dtype = dtype](const std::string& key) {
        Shape shape = attention_shape(lengths.second, 4, 2, causal, dtype);
        shape.q_len = lengths.first;
        const std::unique_ptr<OperatorRun> run = create_checked(op, shape, key);
        EXPECT_EQ(tensor(*run, "q").count, shape.batch * shape.heads * lengths.first * 128);
        EXPECT_EQ(tensor(*run, "k").count, shape.batch * shape.kv_heads * lengths.second * 128);
        run->fill_random(31);
        expect_valid(run->validate());
      });
}

INSTANTIATE_TEST_SUITE_P(
    QueryChunks, AttentionQueryChunks,
    testing::Combine(testing::Values<std::string>("naive_attention", "flash_attention"),
                     testing::Values(std::make_pair<int64_t, int64_t>(1, 257),
                                     std::make_pair<int64_t, int64_t>(100, 1000),
                                     std::make_pair<int64_t, int64_t>(512, 4096)),
                     testing::Bool(), testing::Values(Dtype::kBf16, Dtype::kFp16)),
    [](const testing::TestParamInfo<ChunkParam>& info) {
      const auto& lengths = std::get<1>(info.param);
      return std::get<0>(info.param) + "_q" + std::to_string(lengths.first) + "_L" +
             std::to_string(lengths.second) + (std::get<2>(info.param) ? "_causal_" : "_full_") +
             to_string(std::get<3>(info.param));
    });

// ---------------------------------------------------------------------------------------------
// head_dim 96 and 256 through the registry, as `sweep --model phi-3-mini-4k / gemma-2-9b` runs
// them (decode_attention does not run these head dims): lengths around flash_attention's tile
// edges there (v2: the 16-row warps, 32- and 64-key and 64- and 128-row query tiles; v3: 64-row
// warpgroups, 128-row tiles, 128-key tiles at 96 and 80-key tiles at 256), GQA group 3, both
// masks and dtypes; flash runs v3 at both on compute capability 9.0 under the default key, v2
// under "v2" and elsewhere (expected_flash_version). EqualHugeLogits below runs at these head
// dims too.

using HeadDimParam = std::tuple<std::string, int64_t, int64_t, bool, Dtype>;

class AttentionHeadDims : public testing::TestWithParam<HeadDimParam> {};

TEST_P(AttentionHeadDims, MatchesReference) {
  const auto [op, head_dim, seq_len, causal, dtype] = GetParam();
  for_each_version(op, [&, op = op, head_dim = head_dim, seq_len = seq_len, causal = causal,
                        dtype = dtype](const std::string& key) {
    const std::unique_ptr<OperatorRun> run =
        create_checked(op, attention_shape(seq_len, 6, 2, causal, dtype, head_dim), key);
    run->fill_random(61);
    expect_valid(run->validate());
  });
}

INSTANTIATE_TEST_SUITE_P(
    HeadDims96And256, AttentionHeadDims,
    testing::Combine(testing::ValuesIn(kPrefillAttentionOps), testing::Values<int64_t>(96, 256),
                     testing::Values<int64_t>(1, 17, 33, 65, 80, 129, 161, 1000), testing::Bool(),
                     testing::Values(Dtype::kBf16, Dtype::kFp16)),
    [](const testing::TestParamInfo<HeadDimParam>& info) {
      return std::get<0>(info.param) + "_d" + std::to_string(std::get<1>(info.param)) + "_L" +
             std::to_string(std::get<2>(info.param)) +
             (std::get<3>(info.param) ? "_causal_" : "_full_") + to_string(std::get<4>(info.param));
    });

// ---------------------------------------------------------------------------------------------
// Q = K = 8 everywhere: every scaled score is 8·8·d/√d = 64·√d (724 at d = 128, 627 at 96, 1024
// at 256), so exp(score) is far past fp32's range (e^88). A kernel that does not subtract the row
// maximum first gives Inf/NaN. All scores equal, so each output row is the plain mean of the V
// rows it sees.

using HugeParam = std::tuple<std::string, int64_t, bool, Dtype>;  // op, head_dim, causal, dtype

class EqualHugeLogits : public testing::TestWithParam<HugeParam> {};

TEST_P(EqualHugeLogits, OutputIsTheMeanOfVisibleValues) {
  const auto [op, head_dim, causal, dtype] = GetParam();
  for_each_version(op, [&, op = op, head_dim = head_dim, causal = causal,
                        dtype = dtype](const std::string& key) {
    const int64_t seq_len = 200;  // not a multiple of any tile
    const Shape shape = attention_shape(seq_len, 2, 2, causal, dtype, head_dim);
    const std::unique_ptr<OperatorRun> run = create_checked(op, shape, key);
    run->fill_random(5);  // V random in [-1, 1)
    for (const char* name : {"q", "k"}) {
      const DeviceTensorView t = tensor(*run, name);
      fill_uniform(t.data, t.count, dtype, 0, 8.0f, 8.0f);
    }
    run->launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    const DeviceTensorView o_view = tensor(*run, "o");
    const DeviceTensorView v_view = tensor(*run, "v");
    const std::vector<double> o = download_as_double(o_view.data, o_view.count, dtype);
    const std::vector<double> v = download_as_double(v_view.data, v_view.count, dtype);
    const std::vector<double> k = download_as_double(tensor(*run, "k").data, 1, dtype);
    ASSERT_EQ(k[0], 8.0) << "fill did not write 8";

    const int64_t d = shape.head_dim;
    const bool decode = op == "decode_attention";
    const int64_t q_len = decode ? 1 : seq_len;
    std::vector<double> expected(o.size());
    for (int64_t h = 0; h < shape.heads; ++h) {
      for (int64_t i = 0; i < q_len; ++i) {
        // Bottom-right causal with L_q = L_kv: query i sees keys 0..i; decode's one query sees all.
        const int64_t visible = (causal && !decode) ? i + 1 : seq_len;
        for (int64_t c = 0; c < d; ++c) {
          double sum = 0;
          for (int64_t j = 0; j < visible; ++j) sum += v[(h * seq_len + j) * d + c];
          expected[(h * q_len + i) * d + c] = sum / static_cast<double>(visible);
        }
      }
    }
    for (double x : o) ASSERT_TRUE(std::isfinite(x)) << "non-finite output";
    expect_valid(compare_arrays(o.data(), expected.data(), static_cast<int64_t>(o.size()),
                                default_tolerance(dtype), "mean of visible V rows"));
  });
}

std::string huge_param_name(const testing::TestParamInfo<HugeParam>& info) {
  const int64_t head_dim = std::get<1>(info.param);
  return std::get<0>(info.param) + (head_dim == 128 ? "" : "_d" + std::to_string(head_dim)) +
         (std::get<2>(info.param) ? "_causal_" : "_full_") + to_string(std::get<3>(info.param));
}

INSTANTIATE_TEST_SUITE_P(AllOps, EqualHugeLogits,
                         testing::Combine(testing::ValuesIn(kAttentionOps),
                                          testing::Values<int64_t>(128), testing::Bool(),
                                          testing::Values(Dtype::kBf16, Dtype::kFp16)),
                         huge_param_name);

INSTANTIATE_TEST_SUITE_P(HeadDims96And256, EqualHugeLogits,
                         testing::Combine(testing::ValuesIn(kPrefillAttentionOps),
                                          testing::Values<int64_t>(96, 256), testing::Bool(),
                                          testing::Values(Dtype::kBf16, Dtype::kFp16)),
                         huge_param_name);

// ---------------------------------------------------------------------------------------------
// GQA group sizes 5, 6, 7 and 16 (40/8, 24/4, 28/4, 64/4).

TEST(AttentionGqa, GroupSizesFiveSixSevenSixteen) {
  struct Case {
    int64_t heads, kv_heads;
  };
  for (const std::string& op : kAttentionOps) {
    for (const Case& c : {Case{40, 8}, Case{24, 4}, Case{28, 4}, Case{64, 4}}) {
      for (bool causal : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << op << " " << c.heads << "/" << c.kv_heads << " causal " << causal);
        for_each_version(op, [&](const std::string& key) {
          const std::unique_ptr<OperatorRun> run = create_checked(
              op, attention_shape(300, c.heads, c.kv_heads, causal, Dtype::kBf16), key);
          run->fill_random(31);
          expect_valid(run->validate());
        });
      }
    }
  }
}

TEST(AttentionGqa, ThirtyHeadsOverFourKvHeadsIsBadInput) {
  for (const std::string& op : kAttentionOps) {
    SCOPED_TRACE(op);
    try {
      find_operator(op).check_shape(attention_shape(512, 30, 4, false, Dtype::kBf16));
      ADD_FAILURE() << "30 heads over 4 KV heads accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
      EXPECT_NE(std::string(e.what()).find("kv-heads 4"), std::string::npos) << e.what();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Decode over a one-key cache: the softmax weight is exactly 1, so O is V[0] bit for bit.

TEST(DecodeAttention, OneKeyCacheReturnsValueZeroExactly) {
  for (Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
    SCOPED_TRACE(to_string(dtype));
    const Shape shape = attention_shape(1, 8, 2, false, dtype);
    const std::unique_ptr<OperatorRun> run =
        create_checked("decode_attention", shape, kDefaultVersionKey);
    run->fill_random(3);
    run->launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    const DeviceTensorView o_view = tensor(*run, "o");
    const DeviceTensorView v_view = tensor(*run, "v");
    std::vector<uint16_t> o(static_cast<size_t>(o_view.count));
    std::vector<uint16_t> v(static_cast<size_t>(v_view.count));
    RFL_CUDA_CHECK(cudaMemcpy(o.data(), o_view.data, o.size() * 2, cudaMemcpyDeviceToHost));
    RFL_CUDA_CHECK(cudaMemcpy(v.data(), v_view.data, v.size() * 2, cudaMemcpyDeviceToHost));
    const int64_t d = shape.head_dim;
    const int64_t group = shape.group_size();
    for (int64_t h = 0; h < shape.heads; ++h) {
      // O[h] and V[h / g][key 0]: K, V are [kv_heads, L = 1, d].
      EXPECT_EQ(std::memcmp(&o[h * d], &v[(h / group) * d], d * 2), 0) << "head " << h;
    }
  }
}

TEST(DecodeAttention, EmptyCacheIsBadInput) {
  try {
    find_operator("decode_attention").check_shape(attention_shape(0, 8, 2, false, Dtype::kBf16));
    ADD_FAILURE() << "KV length 0 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("seq_len 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rooflinectl
