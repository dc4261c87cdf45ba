// gemm_fp8_v1_wgmma (--gemm-dtype fp8_e4m3): validated through the operator's own validate()
// (cuBLAS over every element on the widened E4M3 inputs, CPU float64 over sampled rows) at the
// usual tolerance of the output dtype, at FFN-like and ragged shapes: M, N not multiples of the
// 128 × 256 tile (TMA zero fill, clipped stores), K not a multiple of the 128-element K tile, one
// K tile, M = 1, bf16 and fp16 C. Off compute capability 9.0 the point is refused naming 9.0.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "core/validation.hpp"
#include "device_capability.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

constexpr uint64_t kSeed = 20261206;

struct Fp8GemmCase {
  int64_t m, n, k;
  Dtype dtype;
};

Shape fp8_gemm_shape(const Fp8GemmCase& c) {
  Shape s;
  s.batch = 1;
  s.seq_len = c.m;
  s.gemm_n = c.n;
  s.gemm_k = c.k;
  s.dtype = c.dtype;
  s.gemm_dtype = GemmDtype::kFp8E4m3;
  return s;
}

TEST(GemmFp8, MatchesReferencesAtEdgeShapes) {
  if (!test_device_is_sm90()) GTEST_SKIP() << "FP8 GEMM needs compute capability 9.0";
  const OperatorSpec& spec = find_operator("gemm");
  const Fp8GemmCase cases[] = {
      {4096, 4096, 4096, Dtype::kBf16},  // whole tiles
      {1000, 1000, 1008, Dtype::kBf16},  // ragged M, N; K = 7 tiles + 112
      {130, 264, 144, Dtype::kFp16},     // one row and 8 columns past a tile; K = 128 + 16
      {1, 256, 128, Dtype::kBf16},       // M = 1, one K tile
      {77, 8, 16, Dtype::kFp16},         // N = 8, K = 16: the smallest multiples allowed
      {512, 14336, 4096, Dtype::kBf16},  // Llama-3.1-8B up projection at 512 tokens
      {384, 4096, 14336, Dtype::kFp16},  // down projection, K = 112 tiles
  };
  for (const Fp8GemmCase& c : cases) {
    SCOPED_TRACE("M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) +
                 " K=" + std::to_string(c.k) + " " + to_string(c.dtype));
    const Shape shape = fp8_gemm_shape(c);
    spec.check_shape(shape);
    std::unique_ptr<OperatorRun> run = spec.create(shape, "");
    EXPECT_EQ(run->version(), "gemm_fp8_v1_wgmma");
    run->fill_random(kSeed);
    const Validation v = run->validate();
    EXPECT_TRUE(v.passed) << v.detail;
    EXPECT_EQ(v.failed_elements, 0);
    EXPECT_EQ(v.non_finite_elements, 0);
    EXPECT_LE(v.worst_ratio, 1.0);
    std::printf("fp8 gemm M=%lld N=%lld K=%lld %s: max_abs_error %.3g worst_ratio %.3g\n",
                static_cast<long long>(c.m), static_cast<long long>(c.n),
                static_cast<long long>(c.k), to_string(c.dtype).c_str(), v.max_abs_error,
                v.worst_ratio);
  }
}

TEST(GemmFp8, RefusedOffHopperNamingComputeCapability) {
  if (test_device_is_sm90()) GTEST_SKIP() << "compute capability 9.0 runs FP8 GEMM";
  const OperatorSpec& spec = find_operator("gemm");
  try {
    spec.create(fp8_gemm_shape({256, 256, 256, Dtype::kBf16}), "");
    FAIL() << "an FP8 gemm point was created off compute capability 9.0";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("compute capability 9.0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rooflinectl
