// Which kernel version runs at which compute capability (src/core/kernel_dispatch.hpp), by
// declared version key: the Hopper versions on 9.0 only, the portable ones on Ampere, Ada,
// Blackwell and later; and flash_attention by head_dim (flash_wgmma_supports, the shape check):
// host code, no GPU needed.
#include <gtest/gtest.h>

#include <string>

#include "bad_input_message.hpp"
#include "core/kernel_dispatch.hpp"
#include "kernels/flash_attention_wgmma.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

constexpr ComputeCapability kA100{8, 0};
constexpr ComputeCapability kRtx3090{8, 6};
constexpr ComputeCapability kL40s{8, 9};
constexpr ComputeCapability kH200{9, 0};
constexpr ComputeCapability kB200{10, 0};
constexpr ComputeCapability kRtx5090{12, 0};

TEST(KernelDispatch, Sm90aCodeRunsOnComputeCapability90Only) {
  EXPECT_TRUE(runs_sm90a_code(kH200));
  for (const ComputeCapability cc :
       {kA100, kRtx3090, kL40s, kB200, kRtx5090, ComputeCapability{9, 1}}) {
    SCOPED_TRACE(testing::Message() << cc.major << "." << cc.minor);
    EXPECT_FALSE(runs_sm90a_code(cc));
  }
}

TEST(KernelDispatch, GemmRunsTheRequestedVersionOnHopper) {
  for (const int64_t m : {1, 64, 65, 4096}) {
    SCOPED_TRACE(m);
    EXPECT_EQ(gemm_version_for("v3", m, kH200), "v3");
    EXPECT_EQ(gemm_version_for("v2", m, kH200), "v2");
    EXPECT_EQ(gemm_version_for("v1", m, kH200), "v1");
  }
}

TEST(KernelDispatch, GemmFallsBackToMmaSyncOffHopper) {
  for (const ComputeCapability cc : {kA100, kRtx3090, kL40s, kB200, kRtx5090}) {
    SCOPED_TRACE(testing::Message() << cc.major << "." << cc.minor);
    EXPECT_EQ(gemm_version_for("v3", 4096, cc), "v1");
    EXPECT_EQ(gemm_version_for("v2", 4096, cc), "v1");
    EXPECT_EQ(gemm_version_for("v1", 4096, cc), "v1");
    EXPECT_EQ(gemm_version_for("v4", 65, cc), "v1");  // v4 -> v3 -> v1
  }
}

// The wgmma skinny version (the default) runs at M = batch·seq_len up to 64 on compute capability
// 9.0 only; elsewhere it gives way to v4, and above 64 rows to v3 (v1 off Hopper).
TEST(KernelDispatch, GemmSkinnyWgmmaOnHopperUpTo64Rows) {
  for (const int64_t m : {1, 7, 8, 9, 33, 64}) EXPECT_EQ(gemm_version_for("v6", m, kH200), "v6");
  EXPECT_EQ(gemm_version_for("v6", 65, kH200), "v3");
  for (const ComputeCapability cc : {kA100, kRtx3090, kL40s, kB200, kRtx5090}) {
    SCOPED_TRACE(testing::Message() << cc.major << "." << cc.minor);
    EXPECT_EQ(gemm_version_for("v6", 1, cc), "v4");
    EXPECT_EQ(gemm_version_for("v6", 64, cc), "v4");
    EXPECT_EQ(gemm_version_for("v6", 65, cc), "v1");  // v6 -> v4 -> v3 -> v1
  }
}

// The skinny split-K mma.sync version runs at M = batch·seq_len up to 64 on every device,
// and above that gives way to v3 (v1 off Hopper).
TEST(KernelDispatch, GemmSkinnyRunsUpTo64RowsAnywhere) {
  for (const ComputeCapability cc : {kA100, kRtx3090, kL40s, kH200, kB200, kRtx5090}) {
    SCOPED_TRACE(testing::Message() << cc.major << "." << cc.minor);
    for (const int64_t m : {1, 3, 16, 17, 63, 64}) EXPECT_EQ(gemm_version_for("v4", m, cc), "v4");
    EXPECT_EQ(gemm_version_for("v4", 65, cc), cc.major == 9 && cc.minor == 0 ? "v3" : "v1");
  }
}

// gemm_v7_wgmma_n128 and gemm_v8_wgmma_n192 by name: any M on compute capability 9.0, v1
// elsewhere.
TEST(KernelDispatch, GemmNarrowerWgmmaTilesOnHopperOnly) {
  for (const char* key : {"v7", "v8"}) {
    for (const int64_t m : {1, 64, 65, 512, 32768}) EXPECT_EQ(gemm_version_for(key, m, kH200), key);
    for (const ComputeCapability cc : {kA100, kL40s, kB200}) {
      EXPECT_EQ(gemm_version_for(key, 512, cc), "v1");
    }
  }
}

// Tile width by wave-columns (waves × tile columns), ties to the wider tile, a narrower one
// only when it saves at least an eighth of the 256-column tile's. Waves as 66
// resident 2-block clusters give them (H100, H200), at (256, 192, 128) columns: M = 512, N =
// 4096 (o, down) 1, 1, 1; M = 512, N = 6144 (qkv) 1, 1, 2; M = 512, N = 14336 (gate_up) 2, 3, 4;
// M = 4096, N = 4096 4, 6, 8.
TEST(KernelDispatch, GemmWgmmaTileColsFewestWaveColumns) {
  EXPECT_EQ(gemm_wgmma_tile_cols(1, 1, 1), 128);
  EXPECT_EQ(gemm_wgmma_tile_cols(1, 1, 2), 192);
  EXPECT_EQ(gemm_wgmma_tile_cols(2, 3, 4), 256);     // 512, 576, 512: a tie with 128
  EXPECT_EQ(gemm_wgmma_tile_cols(4, 6, 8), 256);     // 1024, 1152, 1024
  EXPECT_EQ(gemm_wgmma_tile_cols(3, 3, 5), 192);     // 768, 576, 640
  EXPECT_EQ(gemm_wgmma_tile_cols(3, 4, 5), 128);     // 768, 768, 640
  EXPECT_EQ(gemm_wgmma_tile_cols(3, 4, 6), 256);     // 768, 768, 768: the widest of a three-way tie
  EXPECT_EQ(gemm_wgmma_tile_cols(16, 21, 32), 256);  // 4096, 4032 (1.6% less), 4096
  EXPECT_EQ(gemm_wgmma_tile_cols(8, 9, 14), 192);    // 2048, 1728 (an eighth less: 1792), 1792
  EXPECT_EQ(gemm_wgmma_tile_cols(8, 10, 14), 128);   // 2048, 1920, 1792 (exactly an eighth)
}

TEST(KernelDispatch, FlashRunsV3OnHopperForTheProblemsItCovers) {
  EXPECT_EQ(flash_attention_version_for("v3", true, kH200), "v3");
  EXPECT_EQ(flash_attention_version_for("v3", false, kH200), "v2");  // e.g. head_dim 64
  EXPECT_EQ(flash_attention_version_for("v2", true, kH200), "v2");
}

AttentionProblem flash_problem(int64_t head_dim) {
  AttentionProblem p;
  p.heads = 16;
  p.kv_heads = 16;
  p.head_dim = head_dim;
  p.q_len = 4096;
  p.kv_len = 4096;
  return p;
}

// v3 (wgmma) runs every head_dim the shape check takes (64, 96, 128, 256) on Hopper (9.0 only;
// v2 elsewhere and under "v2"); FlashAttentionRun::version follows the same choice.
TEST(KernelDispatch, FlashRunsV3AtEveryHeadDimOnHopperOnly) {
  for (const int64_t head_dim : {64, 96, 128, 256}) {
    SCOPED_TRACE(head_dim);
    const bool covered = flash_wgmma_supports(flash_problem(head_dim));
    EXPECT_TRUE(covered);
    EXPECT_EQ(flash_attention_version_for("v3", covered, kH200), "v3");
    EXPECT_EQ(flash_attention_version_for("v2", covered, kH200), "v2");
    for (const ComputeCapability cc : {kA100, kRtx3090, kL40s, kB200, kRtx5090}) {
      EXPECT_EQ(flash_attention_version_for("v3", covered, cc), "v2");
    }
  }
  // v3 is instantiated at 64, 96, 128 and 256 only.
  for (const int64_t head_dim : {32, 80, 192, 512}) {
    EXPECT_FALSE(flash_wgmma_supports(flash_problem(head_dim))) << head_dim;
  }
}

// The shape check (`sweep` and `model` run it before any GPU work) takes the four head dims v2
// runs and names them when it refuses another.
TEST(KernelDispatch, FlashShapeCheckTakesHeadDims64_96_128_256) {
  const OperatorSpec& spec = find_operator("flash_attention");
  Shape s;
  s.seq_len = 1000;
  for (const int64_t head_dim : {64, 96, 128, 256}) {
    s.head_dim = head_dim;
    EXPECT_NO_THROW(spec.check_shape(s)) << head_dim;
  }
  for (const int64_t head_dim : {80, 112, 192, 512}) {
    s.head_dim = head_dim;
    EXPECT_EQ(bad_input_message([&] { spec.check_shape(s); }),
              "flash_attention: unsupported head-dim " + std::to_string(head_dim) +
                  " (supported: 64, 96, 128, 256)");
  }
}

// Decode attention's points go under the roof of the pipe its kernel runs the products on: the
// CUDA-core kernel at g = 1 over a 16-bit cache, the tensor-core kernel under GQA or over FP8.
// Under the fp32 roof, v5's padded tensor FLOPs (48·d per key per 8-head block) over an FP8
// cache's 2·d bytes put it at 24 FLOP/B, past the fp32 ridge (H200: 14): "compute-bound".
TEST(KernelDispatch, DecodeRoofFollowsTheKernelThatRuns) {
  const OperatorSpec& spec = find_operator("decode_attention");
  Shape s;
  s.heads = 32;
  for (const int64_t kv_heads : {32, 16, 8, 4, 2, 1}) {
    for (const KvDtype kv : {KvDtype::kAuto, KvDtype::kFp8E4m3}) {
      s.kv_heads = kv_heads;
      s.kv_dtype = kv;
      const bool tensor = kv_heads < 32 || kv == KvDtype::kFp8E4m3;
      EXPECT_EQ(spec.pipe(s), tensor ? Pipe::kTensor : Pipe::kFp32) << kv_heads;
    }
  }
  EXPECT_NE(spec.pipe_rule.find("GQA"), std::string::npos);
  for (const OperatorSpec& other : operator_specs()) {
    if (other.name != spec.name) EXPECT_TRUE(other.pipe_rule.empty()) << other.name;
  }
}

// The counter pass collects the tensor-pipe metric of every MMA input type a sweep's points
// declare: a type left out reads as 0 tensor FLOPs (v5's fp16 products over an FP8 KV cache
// read 0 at a bf16 dtype before the fp16 pipe was counted). Tensor-pipe operators declare some
// type at every shape, CUDA-core ones none.
TEST(KernelDispatch, MmaInputsAreTheTypesTheKernelMultiplies) {
  const auto same = [](MmaInputs a, MmaInputs b) {
    return a.bf16 == b.bf16 && a.fp16 == b.fp16 && a.fp8 == b.fp8;
  };
  MmaInputs fp8;
  fp8.fp8 = true;
  Shape s;
  s.heads = 32;
  for (const Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
    s.dtype = dtype;
    for (const OperatorSpec& spec : operator_specs()) {
      ASSERT_TRUE(spec.mma_inputs) << spec.name;
      s.kv_heads = 32;
      s.kv_dtype = KvDtype::kAuto;
      s.gemm_dtype = GemmDtype::kAuto;
      EXPECT_EQ(spec.mma_inputs(s).any(), spec.pipe(s) == Pipe::kTensor) << spec.name;
    }
    const OperatorSpec& decode = find_operator("decode_attention");
    s.kv_heads = 8;
    EXPECT_TRUE(same(decode.mma_inputs(s), mma_inputs_of(dtype)));
    for (const int64_t kv_heads : {32, 8}) {
      s.kv_heads = kv_heads;
      s.kv_dtype = KvDtype::kFp8E4m3;
      EXPECT_TRUE(same(decode.mma_inputs(s), mma_inputs_of(Dtype::kFp16))) << kv_heads;
      EXPECT_TRUE(same(mma_inputs_besides(decode.mma_inputs(s), dtype),
                       dtype == Dtype::kFp16 ? MmaInputs{} : mma_inputs_of(Dtype::kFp16)));
    }
    s.gemm_dtype = GemmDtype::kFp8E4m3;
    EXPECT_TRUE(same(find_operator("gemm").mma_inputs(s), fp8));
  }
}

TEST(KernelDispatch, FlashRunsV2OffHopper) {
  for (const ComputeCapability cc : {kA100, kRtx3090, kL40s, kB200, kRtx5090}) {
    SCOPED_TRACE(testing::Message() << cc.major << "." << cc.minor);
    EXPECT_EQ(flash_attention_version_for("v3", true, cc), "v2");
    EXPECT_EQ(flash_attention_version_for("v2", true, cc), "v2");
  }
}

}  // namespace
}  // namespace rooflinectl
