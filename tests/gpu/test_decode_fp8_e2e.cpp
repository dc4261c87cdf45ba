// On the GPU, through the real `rooflinectl sweep --kv-dtype auto,fp8_e4m3`: the FP8 KV cache's
// decode point reads about half the DRAM bytes of the bf16 one at the same shape (counters, the
// one-pass byte session), both validate, and only the FP8 point carries a quantization error.
// Both run the tensor-core kernel (g = 4), the FP8 one in fp16 MMAs at the bf16 dtype: both go
// under the tensor roof, memory-bound, with the same tensor FLOPs counted (the fp16 pipe's for
// FP8, which a bf16 sweep's engine collects only because of such points).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "io/json_reader.hpp"
#include "run_rooflinectl.hpp"

namespace rooflinectl {
namespace {

TEST(DecodeFp8EndToEnd, Fp8KvCacheHalvesDramBytes) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "rooflinectl-decode-fp8.json").string();
  std::filesystem::remove(path);
  // L = 32768 at B = 4, H = 32, H_kv = 8: a 537 MB bf16 cache (268 MB in E4M3), far beyond L2.
  ASSERT_EQ(run_rooflinectl("sweep --ops decode_attention --seq 32768 --batch 4 --heads 32 "
                            "--kv-heads 8 --kv-dtype auto,fp8_e4m3 --repetitions 3 "
                            "--require-counters --output " +
                            path + " > /dev/null"),
            0);
  const Report report = load_report(path);
  ASSERT_EQ(report.points.size(), 2u);
  const PointResult& bf16 = report.points[0];
  const PointResult& fp8 = report.points[1];
  ASSERT_EQ(bf16.shape.kv_dtype, KvDtype::kAuto);
  ASSERT_EQ(fp8.shape.kv_dtype, KvDtype::kFp8E4m3);
  for (const PointResult* p : {&bf16, &fp8}) {
    ASSERT_EQ(p->status, PointStatus::kOk) << p->reason;
    ASSERT_TRUE(p->validation && p->validation->passed);
    ASSERT_FALSE(p->counters.null_reason) << *p->counters.null_reason;
    ASSERT_TRUE(p->counters.total.dram_read_bytes);
  }
  EXPECT_FALSE(bf16.validation->quantization.has_value());
  ASSERT_TRUE(fp8.validation->quantization.has_value());

  const double ratio = *fp8.counters.total.dram_read_bytes / *bf16.counters.total.dram_read_bytes;
  const double analytic = fp8.analytic.min_dram_bytes / bf16.analytic.min_dram_bytes;
  std::printf("DRAM read bytes fp8 / bf16: %.4f (analytic minimum %.4f); time %.3g / %.3g s\n",
              ratio, analytic, fp8.timing->median_s, bf16.timing->median_s);
  EXPECT_NEAR(analytic, 0.5, 0.01);
  EXPECT_NEAR(ratio, analytic, 0.05);

  ASSERT_TRUE(fp8.counters.total.tensor_fp16_flop.has_value());
  ASSERT_TRUE(bf16.counters.total.tensor_bf16_flop.has_value());
  std::printf("tensor FLOPs fp8 (fp16 pipe) %.4g, bf16 %.4g\n",
              *fp8.counters.total.tensor_fp16_flop, *bf16.counters.total.tensor_bf16_flop);
  // Equal but for the key steps' padding, which follows each kernel's part count (occupancy).
  EXPECT_NEAR(*fp8.counters.total.tensor_fp16_flop / *bf16.counters.total.tensor_bf16_flop, 1.0,
              0.05);
  for (const PointResult* p : {&bf16, &fp8}) {
    ASSERT_TRUE(p->roofline.has_value()) << p->roofline_null_reason;
    EXPECT_EQ(p->roofline->roof.pipe, Pipe::kTensor);
    EXPECT_EQ(p->roofline->bound, Bound::kMemory);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rooflinectl
