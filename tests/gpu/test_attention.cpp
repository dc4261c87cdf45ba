// Attention references and the FlashAttention forward kernels: the GPU fp32 reference against
// the CPU float64 one, the kernel against the planned reference over the sweep's corner cases
// (lengths that are not tile multiples, every head dim: 64, 96, 128, 256, masks, dtypes), the
// bottom-right causal alignment, rows without visible keys, GQA, the log-sum-exp, and run-to-run
// determinism. Every
// flash test runs under the default version (v3 on sm_90 at every head dim) and with version key
// "v2" (flash_versions.hpp), and checks which version ran.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/validation.hpp"
#include "flash_versions.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/flash_attention.hpp"
#include "kernels/operator.hpp"
#include "kernels/reference_attention.hpp"

namespace rooflinectl {
namespace {

/// Q, K, V (uniform in [-1, 1)), O and LSE on the device, with the problem that describes them.
struct DeviceAttention {
  AttentionProblem p;
  DeviceBuffer<uint16_t> q, k, v, o;
  DeviceBuffer<float> lse;
};

DeviceAttention make_attention(int64_t batch, int64_t heads, int64_t kv_heads, int64_t head_dim,
                               int64_t q_len, int64_t kv_len, bool causal, Dtype dtype,
                               uint64_t seed) {
  DeviceAttention a;
  a.q = DeviceBuffer<uint16_t>(batch * heads * q_len * head_dim);
  a.k = DeviceBuffer<uint16_t>(batch * kv_heads * kv_len * head_dim);
  a.v = DeviceBuffer<uint16_t>(batch * kv_heads * kv_len * head_dim);
  a.o = DeviceBuffer<uint16_t>(batch * heads * q_len * head_dim);
  a.lse = DeviceBuffer<float>(batch * heads * q_len);
  fill_uniform(a.q.get(), a.q.count(), dtype, seed, -1.f, 1.f);
  fill_uniform(a.k.get(), a.k.count(), dtype, seed + 101, -1.f, 1.f);
  fill_uniform(a.v.get(), a.v.count(), dtype, seed + 202, -1.f, 1.f);
  a.p.q = a.q.get();
  a.p.k = a.k.get();
  a.p.v = a.v.get();
  a.p.batch = batch;
  a.p.heads = heads;
  a.p.kv_heads = kv_heads;
  a.p.head_dim = head_dim;
  a.p.q_len = q_len;
  a.p.kv_len = kv_len;
  a.p.causal = causal;
  a.p.dtype = dtype;
  a.p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
  return a;
}

/// Poisons O (0xFFFF is NaN in bf16 and fp16), runs the flash kernel version `key` asks for once
/// and waits for it; checks that the version `key` and the device call for is the one that runs.
void run_flash(DeviceAttention& a, const std::string& key) {
  EXPECT_EQ(flash_attention_version(a.p, key), expected_flash_version(key, a.p.head_dim));
  RFL_CUDA_CHECK(cudaMemset(a.o.get(), 0xFF, static_cast<size_t>(a.o.bytes())));
  launch_flash_attention(a.p, key, a.o.get(), a.lse.get(), nullptr);
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
std::vector<T> download_raw(const DeviceBuffer<T>& buffer) {
  std::vector<T> host(static_cast<size_t>(buffer.count()));
  RFL_CUDA_CHECK(cudaMemcpy(host.data(), buffer.get(), static_cast<size_t>(buffer.bytes()),
                            cudaMemcpyDeviceToHost));
  return host;
}

std::vector<int64_t> all_rows(const AttentionProblem& p) {
  std::vector<int64_t> rows(static_cast<size_t>(p.batch * p.heads * p.q_len));
  for (size_t r = 0; r < rows.size(); ++r) rows[r] = static_cast<int64_t>(r);
  return rows;
}

void expect_valid(const Validation& v) {
  EXPECT_TRUE(v.passed) << v.reference << ": " << v.detail << " (max |err| " << v.max_abs_error
                        << ", worst ratio " << v.worst_ratio << ", " << v.failed_elements << " of "
                        << v.checked_elements << " failed)";
}

// ---------------------------------------------------------------------------------------------
// Reference plan and references

TEST(ReferencePlan, SmallProblemUsesCpuOnAllRows) {
  AttentionProblem p;
  p.heads = 2;
  p.head_dim = 64;
  p.q_len = 100;
  p.kv_len = 100;
  const ReferencePlan plan = plan_reference_rows(p);
  EXPECT_TRUE(plan.use_cpu);
  EXPECT_EQ(plan.rows, all_rows(p));
}

TEST(ReferencePlan, LargeProblemSpreadsAtMost8192Rows) {
  AttentionProblem p;
  p.heads = 16;
  p.kv_heads = 16;
  p.head_dim = 128;
  p.q_len = 32768 + 37;  // a partial last tile
  p.kv_len = p.q_len;
  const int64_t n = p.batch * p.heads * p.q_len;
  const ReferencePlan plan = plan_reference_rows(p);
  EXPECT_FALSE(plan.use_cpu);
  ASSERT_LE(plan.rows.size(), 8192u);
  EXPECT_GT(plan.rows.size(), 4096u);
  const std::set<int64_t> rows(plan.rows.begin(), plan.rows.end());
  EXPECT_EQ(rows.size(), plan.rows.size()) << "duplicates";
  EXPECT_TRUE(std::is_sorted(plan.rows.begin(), plan.rows.end()));
  EXPECT_GE(plan.rows.front(), 0);
  EXPECT_LT(plan.rows.back(), n);
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_TRUE(rows.count(i)) << "first head, row " << i;
    EXPECT_TRUE(rows.count(n - p.q_len + i)) << "last head, row " << i;
    EXPECT_TRUE(rows.count(n - 1 - i)) << "last head, tail row " << i;
  }
  // The stride reaches the middle heads at every position of a 64-row tile.
  std::set<int64_t> middle_positions;
  for (int64_t r : plan.rows) {
    if (r >= p.q_len && r < n - p.q_len) middle_positions.insert((r % p.q_len) % 64);
  }
  EXPECT_EQ(middle_positions.size(), 64u);
}

TEST(ReferencePlan, LargeProblemWithFewRowsChecksThemAllOnGpu) {
  AttentionProblem p;
  p.heads = 2;
  p.kv_heads = 2;
  p.head_dim = 128;
  p.q_len = 4096;
  p.kv_len = 4096;
  const ReferencePlan plan = plan_reference_rows(p);
  EXPECT_FALSE(plan.use_cpu);
  EXPECT_EQ(plan.rows, all_rows(p));
}

TEST(ReferenceAttention, GpuFp32MatchesCpuFloat64) {
  struct Case {
    int64_t heads, kv_heads, head_dim, q_len, kv_len;
    bool causal;
    Dtype dtype;
  };
  const Case cases[] = {
      {2, 1, 64, 37, 53, false, Dtype::kBf16},  {2, 2, 128, 53, 37, true, Dtype::kFp16},
      {4, 2, 128, 64, 200, true, Dtype::kBf16}, {1, 1, 80, 20, 20, false, Dtype::kFp16},
      {2, 1, 256, 33, 70, true, Dtype::kBf16},  {1, 1, 64, 1, 1, true, Dtype::kBf16},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message()
                 << "heads " << c.heads << "/" << c.kv_heads << " d " << c.head_dim << " q_len "
                 << c.q_len << " kv_len " << c.kv_len << " causal " << c.causal);
    DeviceAttention a =
        make_attention(1, c.heads, c.kv_heads, c.head_dim, c.q_len, c.kv_len, c.causal, c.dtype, 7);
    const std::vector<int64_t> rows = all_rows(a.p);
    const std::vector<double> cpu =
        cpu_reference_attention(a.p, download_as_double(a.q.get(), a.q.count(), c.dtype),
                                download_as_double(a.k.get(), a.k.count(), c.dtype),
                                download_as_double(a.v.get(), a.v.count(), c.dtype), rows);
    std::vector<double> gpu;
    gpu_reference_attention(a.p, rows, gpu);
    ASSERT_EQ(gpu.size(), cpu.size());
    // fp32 dot products of <= 256 terms and exp-sums of <= 200 terms: ~1e-6 relative.
    expect_valid(compare_arrays(gpu.data(), cpu.data(), static_cast<int64_t>(gpu.size()),
                                Tolerance{1e-5, 1e-5}, "cpu-float64"));
  }
}

// ---------------------------------------------------------------------------------------------
// FlashAttention-2 forward against the planned reference

// L, head_dim, causal, dtype, version key
using SweepParam = std::tuple<int64_t, int64_t, bool, Dtype, std::string>;

class FlashAttentionSweep : public testing::TestWithParam<SweepParam> {};

TEST_P(FlashAttentionSweep, MatchesReference) {
  const auto [seq_len, head_dim, causal, dtype, key] = GetParam();
  Shape shape;
  shape.batch = 1;
  shape.heads = 2;
  shape.kv_heads = 2;
  shape.head_dim = head_dim;
  shape.seq_len = seq_len;
  shape.causal = causal;
  shape.dtype = dtype;
  const OperatorSpec& spec = find_operator("flash_attention");
  spec.check_shape(shape);
  const std::unique_ptr<OperatorRun> run = spec.create(shape, key);
  const std::string version = expected_flash_version(key, head_dim);
  EXPECT_EQ(run->version(), version);
  EXPECT_EQ(run->kernel_names(), std::vector<std::string>{flash_kernel_name(version)});
  run->fill_random(1234);
  expect_valid(run->validate());
}

INSTANTIATE_TEST_SUITE_P(Shapes, FlashAttentionSweep,
                         testing::Combine(testing::Values<int64_t>(1, 127, 512, 1000, 4096),
                                          testing::Values<int64_t>(64, 96, 128, 256),
                                          testing::Bool(),
                                          testing::Values(Dtype::kBf16, Dtype::kFp16),
                                          testing::ValuesIn(kFlashVersionKeys)),
                         [](const testing::TestParamInfo<SweepParam>& info) {
                           return "L" + std::to_string(std::get<0>(info.param)) + "_d" +
                                  std::to_string(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_causal_" : "_full_") +
                                  to_string(std::get<3>(info.param)) + "_" +
                                  flash_key_name(std::get<4>(info.param));
                         });

/// The flash tests below, once per version key (the parameter).
class FlashAttention : public testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Versions, FlashAttention, testing::ValuesIn(kFlashVersionKeys),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return flash_key_name(info.param);
                         });

// FA2's documented example: q_len 2, kv_len 5, causal → mask rows 1 1 1 1 0 and 1 1 1 1 1.
// The expected output is computed here from those hard-coded visible sets, independently of the
// reference's mask formula.
TEST_P(FlashAttention, CausalMaskIsBottomRightAligned) {
  for (int64_t head_dim : {64, 96, 128, 256}) {
    for (Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      SCOPED_TRACE(testing::Message() << "d " << head_dim << " " << to_string(dtype));
      DeviceAttention a = make_attention(1, 1, 1, head_dim, 2, 5, true, dtype, 11);
      run_flash(a, GetParam());
      const std::vector<double> q = download_as_double(a.q.get(), a.q.count(), dtype);
      const std::vector<double> k = download_as_double(a.k.get(), a.k.count(), dtype);
      const std::vector<double> v = download_as_double(a.v.get(), a.v.count(), dtype);
      const std::vector<double> out = download_as_double(a.o.get(), a.o.count(), dtype);
      const int64_t visible_keys[2] = {4, 5};  // row 0: keys 0..3; row 1: keys 0..4
      std::vector<double> expected(out.size(), 0.0);
      for (int64_t i = 0; i < 2; ++i) {
        std::vector<double> weights;
        double sum = 0.0;
        for (int64_t j = 0; j < visible_keys[i]; ++j) {
          double dot = 0.0;
          for (int64_t c = 0; c < head_dim; ++c) dot += q[i * head_dim + c] * k[j * head_dim + c];
          weights.push_back(std::exp(dot * a.p.scale));
          sum += weights.back();
        }
        for (int64_t j = 0; j < visible_keys[i]; ++j) {
          for (int64_t c = 0; c < head_dim; ++c) {
            expected[i * head_dim + c] += weights[j] / sum * v[j * head_dim + c];
          }
        }
      }
      expect_valid(compare_arrays(out.data(), expected.data(), static_cast<int64_t>(out.size()),
                                  default_tolerance(dtype), "hand-written FA2 mask example"));
      expect_valid(validate_attention_output(a.p, a.o.get(), default_tolerance(dtype)));
    }
  }
}

// q_len > kv_len, causal: rows i < q_len - kv_len see no key. Here a whole query tile (128 rows;
// two of 64 at head_dim 256) sees none (the kernel visits no key tile) and one tile mixes empty and
// non-empty rows.
TEST_P(FlashAttention, RowsWithoutVisibleKeysAreExactlyZero) {
  for (int64_t head_dim : {64, 96, 128, 256}) {
    SCOPED_TRACE(testing::Message() << "d " << head_dim);
    const int64_t q_len = 200;
    const int64_t kv_len = 70;
    DeviceAttention a = make_attention(1, 2, 1, head_dim, q_len, kv_len, true, Dtype::kBf16, 5);
    run_flash(a, GetParam());
    const std::vector<uint16_t> out = download_raw(a.o);
    const std::vector<float> lse = download_raw(a.lse);
    const int64_t empty_rows = q_len - kv_len;
    for (int64_t h = 0; h < 2; ++h) {
      for (int64_t i = 0; i < q_len; ++i) {
        const int64_t row = h * q_len + i;
        if (i < empty_rows) {
          for (int64_t c = 0; c < head_dim; ++c) {
            ASSERT_EQ(out[row * head_dim + c] & 0x7FFF, 0) << "row " << i << " col " << c;
          }
          EXPECT_EQ(lse[row], -std::numeric_limits<float>::infinity()) << "row " << i;
        } else {
          EXPECT_TRUE(std::isfinite(lse[row])) << "row " << i;
        }
      }
    }
    expect_valid(validate_attention_output(a.p, a.o.get(), default_tolerance(Dtype::kBf16)));
  }
}

TEST_P(FlashAttention, QueryShorterThanKeys) {
  for (bool causal : {false, true}) {
    for (int64_t head_dim : {64, 96, 128, 256}) {
      SCOPED_TRACE(testing::Message() << "d " << head_dim << " causal " << causal);
      DeviceAttention a = make_attention(2, 2, 2, head_dim, 77, 300, causal, Dtype::kFp16, 9);
      run_flash(a, GetParam());
      expect_valid(validate_attention_output(a.p, a.o.get(), default_tolerance(Dtype::kFp16)));
    }
  }
}

TEST_P(FlashAttention, GroupedQueryAttention) {
  for (const auto& [causal, head_dim] :
       {std::pair{false, 128}, std::pair{true, 128}, std::pair{false, 256}, std::pair{true, 256}}) {
    Shape shape;
    shape.heads = 8;
    shape.kv_heads = 2;
    shape.head_dim = head_dim;
    shape.seq_len = 300;
    shape.causal = causal;
    const OperatorSpec& spec = find_operator("flash_attention");
    spec.check_shape(shape);
    const std::unique_ptr<OperatorRun> run = spec.create(shape, GetParam());
    EXPECT_EQ(run->version(), expected_flash_version(GetParam(), shape.head_dim));
    run->fill_random(42);
    SCOPED_TRACE(testing::Message() << "causal " << causal << " d " << head_dim);
    expect_valid(run->validate());
  }
}

// head_dim 96 (v2: 12 sixteen-byte chunks per row, the padded shared layout, 96 of 128 threads
// load; v3 on compute capability 9.0 under the default key: 64-byte swizzle, 3 TMA boxes of 32
// columns per tile, 128-key tiles, wgmma m64n128k16 over 6 k16 steps and m64n96k16 reading V
// MN-major across the 3 boxes) and 256 (v2: 64-row query tiles, 16 rows per warp, 32-key tiles,
// two swizzle phases per load pass; v3 on compute capability 9.0 under the default key: 128-row
// query tiles, 80-key tiles, 4 TMA boxes per tile, wgmma m64n80k16 and m64n256k16). q_len below,
// equal to and above kv_len (100 over 1000, 1000 over 1000, 1000 over 100: 900 rows without a
// visible key under the causal mask), lengths that are no multiple of the 64/128-row query tiles
// nor of the 32/64/80-key tiles, lengths that are (160 over 400: 80-key tiles exactly; 256 over
// 1024: 128-row tiles exactly, 12.8 key tiles of 80), GQA (groups 2 and 3) and MHA, both masks
// and both dtypes, against the planned reference.
TEST_P(FlashAttention, HeadDims96And256) {
  struct Case {
    int64_t batch, heads, kv_heads, q_len, kv_len;
  };
  for (int64_t head_dim : {96, 256}) {
    for (Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      for (bool causal : {false, true}) {
        for (const Case& c :
             {Case{1, 4, 2, 100, 1000}, Case{1, 4, 2, 1000, 1000}, Case{1, 2, 2, 1000, 100},
              Case{2, 3, 1, 65, 33}, Case{1, 6, 2, 129, 129}, Case{1, 2, 1, 160, 400},
              Case{1, 2, 2, 256, 1024}}) {
          SCOPED_TRACE(testing::Message()
                       << "d " << head_dim << " " << to_string(dtype) << " causal " << causal
                       << " B " << c.batch << " H " << c.heads << " Hkv " << c.kv_heads << " q "
                       << c.q_len << " kv " << c.kv_len);
          DeviceAttention a = make_attention(c.batch, c.heads, c.kv_heads, head_dim, c.q_len,
                                             c.kv_len, causal, dtype, 29);
          run_flash(a, GetParam());
          expect_valid(validate_attention_output(a.p, a.o.get(), default_tolerance(dtype)));
        }
      }
    }
  }
}

// More work items than an H200 has SMs (132), so v3's blocks pull several items each from its
// work queue: rows without visible keys (items with no key tile) next to GQA, fp16 with
// q_len < kv_len and a partial last key tile, and a kv_len whose K/V sections split 8 heads
// unevenly (3, 3, 2; FlashWgmmaLaunch::section_heads); at head_dim 64, 96, 128 and 256 (80-key
// tiles: 4097 and 9000 keys end in partial tiles of 17 and 40 keys).
TEST_P(FlashAttention, ManyWorkItemsPerBlock) {
  struct Case {
    int64_t batch, heads, kv_heads, q_len, kv_len;
    bool causal;
    Dtype dtype;
    int64_t head_dim;
  };
  for (const Case& c : {Case{1, 16, 4, 3000, 1000, true, Dtype::kBf16, 128},
                        Case{3, 8, 8, 1000, 4097, true, Dtype::kFp16, 128},
                        Case{1, 8, 8, 9000, 9000, true, Dtype::kBf16, 128},
                        Case{3, 8, 2, 2049, 2049, false, Dtype::kBf16, 128},
                        Case{1, 16, 4, 3000, 1000, true, Dtype::kBf16, 256},
                        Case{3, 8, 8, 1000, 4097, true, Dtype::kFp16, 256},
                        Case{1, 8, 8, 9000, 9000, true, Dtype::kBf16, 256},
                        Case{3, 8, 2, 2049, 2049, false, Dtype::kFp16, 256},
                        Case{1, 16, 4, 3000, 1000, true, Dtype::kFp16, 96},
                        Case{3, 8, 8, 1000, 4097, true, Dtype::kBf16, 96},
                        Case{1, 8, 8, 9000, 9000, true, Dtype::kFp16, 96},
                        Case{3, 8, 2, 2049, 2049, false, Dtype::kBf16, 96},
                        Case{1, 8, 8, 9000, 9000, true, Dtype::kBf16, 64},
                        Case{3, 8, 2, 2049, 2049, false, Dtype::kFp16, 64}}) {
    SCOPED_TRACE(testing::Message()
                 << "d " << c.head_dim << " B " << c.batch << " H " << c.heads << " Hkv "
                 << c.kv_heads << " q " << c.q_len << " kv " << c.kv_len << " causal " << c.causal);
    DeviceAttention a = make_attention(c.batch, c.heads, c.kv_heads, c.head_dim, c.q_len, c.kv_len,
                                       c.causal, c.dtype, 23);
    run_flash(a, GetParam());
    expect_valid(validate_attention_output(a.p, a.o.get(), default_tolerance(c.dtype)));
  }
}

// v3's work queue lives in the run and every launch must leave it at 0 for the next one: launch
// one run many times on one stream, then validate() (O poisoned, one more launch) must pass; a
// queue left past 0 would make that launch skip work items and leave NaN rows.
TEST_P(FlashAttention, ManyLaunchesInARowOnOneStream) {
  for (const auto& [causal, head_dim] :
       {std::pair{true, 128}, std::pair{false, 128}, std::pair{true, 256}, std::pair{false, 256},
        std::pair{true, 96}, std::pair{false, 96}, std::pair{true, 64}}) {
    SCOPED_TRACE(testing::Message() << "causal " << causal << " d " << head_dim);
    Shape shape;
    shape.batch = 2;
    shape.heads = 8;
    shape.kv_heads = 8;
    shape.head_dim = head_dim;
    shape.seq_len = 2000;  // 16 query tiles · 16 heads = 256 work items
    shape.causal = causal;
    const OperatorSpec& spec = find_operator("flash_attention");
    spec.check_shape(shape);
    const std::unique_ptr<OperatorRun> run = spec.create(shape, GetParam());
    EXPECT_EQ(run->version(), expected_flash_version(GetParam(), shape.head_dim));
    run->fill_random(77);
    cudaStream_t stream = nullptr;
    RFL_CUDA_CHECK(cudaStreamCreate(&stream));
    for (int i = 0; i < 50; ++i) run->launch(stream);
    RFL_CUDA_CHECK(cudaStreamSynchronize(stream));
    RFL_CUDA_CHECK(cudaStreamDestroy(stream));
    expect_valid(run->validate());
  }
}

TEST_P(FlashAttention, LogSumExpMatchesFloat64) {
  for (int64_t head_dim : {64, 96, 128, 256}) {
    SCOPED_TRACE(testing::Message() << "d " << head_dim);
    DeviceAttention a = make_attention(1, 2, 1, head_dim, 150, 300, true, Dtype::kBf16, 3);
    run_flash(a, GetParam());
    const std::vector<double> q = download_as_double(a.q.get(), a.q.count(), a.p.dtype);
    const std::vector<double> k = download_as_double(a.k.get(), a.k.count(), a.p.dtype);
    const std::vector<float> lse = download_raw(a.lse);
    const int64_t d = a.p.head_dim;
    for (int64_t h = 0; h < a.p.heads; ++h) {
      for (int64_t i = 0; i < a.p.q_len; ++i) {
        const int64_t row = h * a.p.q_len + i;
        const int64_t visible = i + (a.p.kv_len - a.p.q_len) + 1;
        std::vector<double> scores;
        double max_score = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < visible; ++j) {
          double dot = 0.0;
          for (int64_t c = 0; c < d; ++c) dot += q[row * d + c] * k[j * d + c];  // one KV head
          scores.push_back(dot * a.p.scale);
          max_score = std::max(max_score, scores.back());
        }
        double sum = 0.0;
        for (double s : scores) sum += std::exp(s - max_score);
        const double expected = max_score + std::log(sum);
        ASSERT_NEAR(lse[row], expected, 1e-4 + 1e-5 * std::fabs(expected)) << "row " << row;
      }
    }
  }
}

TEST_P(FlashAttention, BitwiseRepeatable) {
  for (bool causal : {false, true}) {
    SCOPED_TRACE(testing::Message() << "causal " << causal);
    DeviceAttention a = make_attention(1, 2, 2, 128, 1000, 1000, causal, Dtype::kBf16, 17);
    run_flash(a, GetParam());
    const std::vector<uint16_t> first_o = download_raw(a.o);
    const std::vector<float> first_lse = download_raw(a.lse);
    run_flash(a, GetParam());
    EXPECT_EQ(download_raw(a.o), first_o);
    const std::vector<float> second_lse = download_raw(a.lse);
    ASSERT_EQ(second_lse.size(), first_lse.size());
    EXPECT_EQ(std::memcmp(second_lse.data(), first_lse.data(), first_lse.size() * sizeof(float)),
              0);
  }
}

TEST(FlashAttentionVersion, UndeclaredKeyIsBadInput) {
  Shape shape;
  shape.head_dim = 128;
  const OperatorSpec& spec = find_operator("flash_attention");
  try {
    spec.create(shape, "v4");
    ADD_FAILURE() << "version key v4 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("'flash_attention=v4'"), std::string::npos) << e.what();
  }
  DeviceAttention a = make_attention(1, 1, 1, 128, 8, 8, false, Dtype::kBf16, 1);
  EXPECT_THROW(launch_flash_attention(a.p, "v4", a.o.get(), a.lse.get(), nullptr), Error);
}

TEST(FlashAttentionVersion, RejectsUnsupportedHeadDim) {
  Shape shape;
  shape.head_dim = 80;
  const OperatorSpec& spec = find_operator("flash_attention");
  try {
    spec.check_shape(shape);
    FAIL() << "head-dim 80 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    const std::string message = e.what();
    EXPECT_NE(message.find("80"), std::string::npos) << message;
    EXPECT_NE(message.find("supported: 64, 96, 128, 256"), std::string::npos) << message;
  }
  DeviceAttention a = make_attention(1, 1, 1, 512, 8, 8, false, Dtype::kBf16, 1);
  EXPECT_THROW(launch_flash_attention(a.p, kDefaultVersionKey, a.o.get(), a.lse.get(), nullptr),
               Error);
}

}  // namespace
}  // namespace rooflinectl
