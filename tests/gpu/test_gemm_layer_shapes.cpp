// The gemm operator at every (M, N, K) of a transformer layer (Shape::gemm_n, gemm_k): the
// Llama-3.1-8B projections at decode and prefill M, both dtypes, through the skinny split-K
// versions (the default up to 64 rows: v6 on sm_90, v4 elsewhere; v4 by request) and the tiled
// ones (v3 on sm_90, v1 elsewhere), each
// validated against cuBLAS over every element and float64 on the CPU over sampled rows
// (GemmRun::validate, which shares no code with the kernels); edge shapes where K is no multiple
// of the split or the slice and N no multiple of the tile; and the split-K reduction giving the
// same bits launch after launch (its arrival counters re-armed, its sum in split order).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/kernel_tiles.hpp"
#include "core/validation.hpp"
#include "device_capability.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

void expect_valid(const Validation& v) {
  EXPECT_TRUE(v.passed) << v.reference << ": " << v.failed_elements << " of " << v.checked_elements
                        << " failed (" << v.non_finite_elements << " non-finite), max |err| "
                        << v.max_abs_error << ", worst ratio " << v.worst_ratio << "; " << v.detail;
  EXPECT_GT(v.checked_elements, 0);
  EXPECT_EQ(v.non_finite_elements, 0);
}

/// A gemm point of M = batch rows (decode: seq_len 1) at explicit N and K.
Shape gemm_shape(int64_t m, int64_t n, int64_t k, Dtype dtype) {
  Shape shape;
  shape.batch = m;
  shape.seq_len = 1;
  shape.dtype = dtype;
  shape.gemm_n = n;
  shape.gemm_k = k;
  return shape;
}

/// Waves of gemm_wgmma_tma's persistent grid at (m, n) with `cols`-wide tiles, counted here
/// rather than asked of the kernel: work units of two vertically adjacent 128-row tiles over
/// one 2-block cluster per pair of SMs (what cudaOccupancyMaxActiveClusters gives on the H100
/// and H200).
int64_t wgmma_waves(int64_t m, int64_t n, int64_t cols) {
  int device = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int64_t units = (m + 255) / 256 * ((n + cols - 1) / cols);
  const int64_t pairs = sms / 2;
  return (units + pairs - 1) / pairs;
}

/// The version that must run for `key` ("v6", "v4", "v3", "v7" or "v8") at M = `m` rows and
/// N = `n` columns, worked out here from the documented rules (kernels/gemm.cu) rather than
/// asked of the code under test: up to 64 rows v6 on compute capability 9.0 when asked, else
/// v4; above, v6 and v4 (the default) run, on compute capability 9.0, the tile width with the
/// fewest wave-columns (waves × tile columns; ties to the wider; a narrower one only when it
/// saves an eighth of v3's): v3 (256), v8 (192) or v7 (128); v3, v7 and v8 by name run as
/// named; everything falls back to v1 off compute capability 9.0.
std::string expected_version(const std::string& key, int64_t m, int64_t n) {
  const bool sm90 = test_device_is_sm90();
  if (key == "v6" && m <= 64 && sm90) return "gemm_v6_skinny_wgmma";
  if ((key == "v4" || key == "v6") && m <= 64) return "gemm_v4_skinny_splitk";
  if (!sm90) return "gemm_v1_mma_sync";
  if (key == "v7") return "gemm_v7_wgmma_n128";
  if (key == "v8") return "gemm_v8_wgmma_n192";
  if (key == "v3") return "gemm_v3_wgmma_multicast";
  const int64_t c256 = wgmma_waves(m, n, 256) * 256;
  const int64_t c192 = wgmma_waves(m, n, 192) * 192;
  const int64_t c128 = wgmma_waves(m, n, 128) * 128;
  const bool ok192 = 8 * c192 <= 7 * c256;
  const bool ok128 = 8 * c128 <= 7 * c256;
  if (ok128 && (!ok192 || c128 < c192)) return "gemm_v7_wgmma_n128";
  if (ok192) return "gemm_v8_wgmma_n192";
  return "gemm_v3_wgmma_multicast";
}

std::string expected_kernel(const std::string& version) {
  if (version == "gemm_v6_skinny_wgmma") return "gemm_skinny_wgmma";
  if (version == "gemm_v4_skinny_splitk") return "gemm_skinny_splitk";
  return version == "gemm_v1_mma_sync" ? "gemm_mma_sync" : "gemm_wgmma_tma";
}

/// Runs gemm at `shape` with version `key`, checks which version ran, and validates it.
void run_and_validate(const Shape& shape, const std::string& key, uint64_t seed) {
  const OperatorSpec& spec = find_operator("gemm");
  spec.check_shape(shape);
  const std::unique_ptr<OperatorRun> run = spec.create(shape, key);
  const std::string version = expected_version(key, shape.tokens(), shape.gemm_n);
  EXPECT_EQ(run->version(), version);
  EXPECT_EQ(run->kernel_names(), std::vector<std::string>{expected_kernel(version)});
  run->fill_random(seed);
  const Validation v = run->validate();
  expect_valid(v);
  const GemmDims d = shape.gemm_dims();
  // Every element against cuBLAS, plus the CPU's sampled rows (up to 8).
  EXPECT_EQ(v.checked_elements, d.m * d.n + std::min<int64_t>(8, d.m) * d.n);
}

// Llama-3.1-8B (d_model 4096, H 32, H_kv 8, d 128, ffn 14336): N, K of each projection.
struct LayerGemm {
  const char* name;
  int64_t n;
  int64_t k;
};
constexpr LayerGemm kLlama8bGemms[] = {
    {"qkv", (32 + 2 * 8) * 128, 4096},  // N = 6144
    {"o", 4096, 32 * 128},
    {"gate_up", 14336, 4096},
    {"down", 4096, 14336},
};

// projection index, M, dtype, version key ("v6": the default, skinny up to 64 rows on sm_90,
// then v3, v8 or v7 by waves; "v4": skinny mma.sync; "v3": tiled, 256-column tiles)
using LayerParam = std::tuple<int, int64_t, Dtype, std::string>;

class GemmLayerShapes : public testing::TestWithParam<LayerParam> {};

TEST_P(GemmLayerShapes, MatchesCublasAndFloat64) {
  const auto [index, m, dtype, key] = GetParam();
  const LayerGemm& g = kLlama8bGemms[index];
  run_and_validate(gemm_shape(m, g.n, g.k, dtype), key, 1000 + static_cast<uint64_t>(m));
}

INSTANTIATE_TEST_SUITE_P(
    Llama8b, GemmLayerShapes,
    testing::Combine(testing::Range(0, 4), testing::Values<int64_t>(1, 3, 16, 64, 130),
                     testing::Values(Dtype::kBf16, Dtype::kFp16),
                     testing::Values(std::string("v6"), std::string("v4"), std::string("v3"))),
    [](const testing::TestParamInfo<LayerParam>& info) {
      return std::string(kLlama8bGemms[std::get<0>(info.param)].name) + "_M" +
             std::to_string(std::get<1>(info.param)) + "_" + to_string(std::get<2>(info.param)) +
             "_" + std::get<3>(info.param);
    });

// Shapes at the skinny kernel's edges, each with the split it gets (core/kernel_tiles.hpp):
// K = 8 and 40 (one partial slice; two slices, the second partial), K = 4104 and 1000 (the last
// split shorter, its last slice partial), N = 8, 136, 264 and 1000 (the last column tile
// partial), M at 1, 3, 17, 33, 48 and 64 (each row-tile count, partial and full), and N = 65536
// (one split: C written directly, no partials).
TEST(GemmSkinny, EdgeShapes) {
  struct Case {
    int64_t m, n, k;
  };
  const Case cases[] = {{1, 8, 8},       {3, 136, 40},   {17, 264, 4104}, {33, 1000, 1000},
                        {48, 4104, 520}, {64, 8, 14336}, {1, 65536, 256}, {64, 6144, 4104}};
  for (const Case& c : cases) {
    for (const Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      const GemmSplitK split = gemm_skinny_split(c.m, c.n, c.k);
      SCOPED_TRACE(testing::Message()
                   << "M " << c.m << " N " << c.n << " K " << c.k << " " << to_string(dtype) << ": "
                   << split.splits << " splits of " << split.k_per_split);
      run_and_validate(gemm_shape(c.m, c.n, c.k, dtype), "v4", 77);
    }
  }
}

// gemm_v6_skinny_wgmma's edges (sm_90 only), each with its split (gemm_skinny_wgmma_split):
// M = 1, 7, 8, 9, 16, 32, 33 and 64 (each wgmma N extent, partial and full: TMA zero-fills the
// rows of X past M, the epilogue masks them); N = 8, 72, 136, 200, 264 and 1000 (the last 64-column
// strip partial) and 65536 (one split: C written directly); K = 8 and 40 (one partial slice),
// 1000 and 4104 (the last split shorter, down to one 8-deep slice, so that the second consumer
// warpgroup gets nothing), 14336 at N = 8. Most run the deep-ring mode (one block per strip, the
// whole K: every case with K ≤ 4096 and ≤ 132 strips, and 32 or 64 rows at any K); {7, 72, 4104}
// runs the split ring (8 rows, K past 4096), {1, 65536, 256} too (1024 strips, over one wave).
TEST(GemmSkinnyWgmma, EdgeShapes) {
  if (!test_device_is_sm90()) GTEST_SKIP() << "gemm_v6_skinny_wgmma needs compute capability 9.0";
  struct Case {
    int64_t m, n, k;
  };
  const Case cases[] = {{1, 8, 8},       {7, 136, 40},     {33, 1000, 1000}, {64, 8, 14336},
                        {1, 65536, 256}, {64, 6144, 4104}, {7, 72, 4104},    {33, 264, 520},
                        {16, 4104, 520}, {8, 200, 136},    {9, 72, 200},     {32, 4096, 1024},
                        {64, 1000, 4096}};
  for (const Case& c : cases) {
    for (const Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      const GemmSplitK split = gemm_skinny_wgmma_split(c.m, c.n, c.k);
      SCOPED_TRACE(testing::Message()
                   << "M " << c.m << " N " << c.n << " K " << c.k << " " << to_string(dtype) << ": "
                   << split.splits << " splits of " << split.k_per_split);
      run_and_validate(gemm_shape(c.m, c.n, c.k, dtype), "v6", 79);
    }
  }
}

// gemm_v7_wgmma_n128 and gemm_v8_wgmma_n192 by name (sm_90 only): N = 8 and 136 (the last tile
// partial, 8 columns; 136 = 192 - 56), M = 1 and 130 (the second tile row nearly empty, a spare
// tile in the 2-block unit), K = 8 and 1000 (one partial k block; the last partial), N = 4104
// (192 · 21 + 72), and the layer shapes where the default picks them (M = 512 at N = 4096, K =
// 4096 and 14336: v7; N = 6144: v8).
class GemmWgmmaNarrower : public testing::TestWithParam<std::string> {};

TEST_P(GemmWgmmaNarrower, EdgeShapes) {
  if (!test_device_is_sm90()) GTEST_SKIP() << "v7 and v8 need compute capability 9.0";
  struct Case {
    int64_t m, n, k;
  };
  const Case cases[] = {{1, 8, 8},          {130, 136, 1000},  {300, 264, 520},
                        {4096, 1000, 264},  {512, 4096, 4096}, {512, 4096, 14336},
                        {2048, 4104, 2048}, {512, 6144, 4096}};
  for (const Case& c : cases) {
    for (const Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      SCOPED_TRACE(testing::Message()
                   << "M " << c.m << " N " << c.n << " K " << c.k << " " << to_string(dtype));
      run_and_validate(gemm_shape(c.m, c.n, c.k, dtype), GetParam(), 81);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, GemmWgmmaNarrower, testing::Values("v7", "v8"));

// The default above 64 rows: v7 at M = 512 of the O and down projections (N = 4096: 32, 44
// and 64 units at 256, 192 and 128 columns, one wave each), v8 at M = 512 of QKV (N = 6144: 48,
// 64, 96 units: one, one and two waves), v3 where it wins or ties (M = 4096 at N = 4096: 4, 6
// and 8 waves).
TEST(GemmWgmmaNarrowerDefault, PicksTheTileThatShouldFinishSoonest) {
  if (!test_device_is_sm90()) GTEST_SKIP() << "the tiled default is v1 off compute capability 9.0";
  const OperatorSpec& spec = find_operator("gemm");
  EXPECT_EQ(spec.create(gemm_shape(512, 4096, 4096, Dtype::kBf16), "v6")->version(),
            "gemm_v7_wgmma_n128");
  EXPECT_EQ(spec.create(gemm_shape(512, 6144, 4096, Dtype::kBf16), "v6")->version(),
            "gemm_v8_wgmma_n192");
  EXPECT_EQ(spec.create(gemm_shape(4096, 4096, 4096, Dtype::kBf16), "v6")->version(),
            "gemm_v3_wgmma_multicast");
}

// M = batch·seq_len either way: prefill of 16 tokens (batch 1) runs the skinny version too.
TEST(GemmSkinny, RowsFromSeqLenToo) {
  Shape shape = gemm_shape(1, 4096, 4096, Dtype::kBf16);
  shape.seq_len = 16;
  run_and_validate(shape, "v4", 5);
}

/// Launch after launch the split-K result of version `key` at `shape` is the same bits: the last
/// block of each column tile re-arms its counter and sums the partials in split order whatever
/// the arrival order.
void expect_same_bits_across_launches(const Shape& shape, const std::string& key) {
  const std::unique_ptr<OperatorRun> run = find_operator("gemm").create(shape, key);
  ASSERT_EQ(run->version(), expected_version(key, shape.tokens(), shape.gemm_n));
  run->fill_random(11);
  expect_valid(run->validate());
  const std::vector<DeviceTensorView> tensors = run->tensors();
  ASSERT_EQ(tensors.size(), 3u);
  ASSERT_EQ(tensors[2].name, "c");
  const DeviceTensorView& c = tensors[2];
  ASSERT_EQ(c.count, shape.tokens() * shape.gemm_n);
  std::vector<uint16_t> first(static_cast<size_t>(c.count));
  std::vector<uint16_t> again(first.size());
  RFL_CUDA_CHECK(cudaMemcpy(first.data(), c.data, first.size() * 2, cudaMemcpyDeviceToHost));
  for (int launch = 0; launch < 5; ++launch) {
    RFL_CUDA_CHECK(cudaMemset(c.data, 0, again.size() * 2));
    run->launch(nullptr);
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
    RFL_CUDA_CHECK(cudaMemcpy(again.data(), c.data, again.size() * 2, cudaMemcpyDeviceToHost));
    EXPECT_EQ(again, first) << "launch " << launch;
  }
  expect_valid(run->validate());  // and still right after them
}

TEST(GemmSkinny, SplitKIsDeterministicAcrossLaunches) {
  ASSERT_GT(gemm_skinny_split(16, 4096, 14336).splits, 1);
  expect_same_bits_across_launches(gemm_shape(16, 4096, 14336, Dtype::kBf16), "v4");
}

// v6 at the down projection (4 splits) and at 64 rows of O (the deep-ring mode: one split, C
// written directly after both consumer warpgroups' sums are exchanged through shared memory).
TEST(GemmSkinnyWgmma, SplitKIsDeterministicAcrossLaunches) {
  if (!test_device_is_sm90()) GTEST_SKIP() << "gemm_v6_skinny_wgmma needs compute capability 9.0";
  ASSERT_EQ(gemm_skinny_wgmma_split(16, 4096, 14336).splits, 4);
  expect_same_bits_across_launches(gemm_shape(16, 4096, 14336, Dtype::kBf16), "v6");
  ASSERT_TRUE(gemm_skinny_wgmma_deep_ring(64, 4096, 4096));
  ASSERT_EQ(gemm_skinny_wgmma_split(64, 4096, 4096).splits, 1);
  expect_same_bits_across_launches(gemm_shape(64, 4096, 4096, Dtype::kFp16), "v6");
}

}  // namespace
}  // namespace rooflinectl
