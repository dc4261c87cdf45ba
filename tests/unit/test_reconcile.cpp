// Reconciliation against a real H200 sweep (tests/unit/data/h200-sweep-first-run.json, the
// session-1 first run): the findings that must be flagged are, the ones that match are not, and
// every flag is explained. Plus synthetic cases for the bands and the JSON round trip.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "model/operator_model.hpp"
#include "model/reconcile.hpp"
#include "render/reconcile_writer.hpp"

#ifndef RFL_SOURCE_DIR
#error "RFL_SOURCE_DIR (the repository root) must be defined by the build"
#endif

namespace rooflinectl {
namespace {

Pipe pipe_of(const std::string& op) {
  return op == "naive_attention" || op == "flash_attention" || op == "gemm" ? Pipe::kTensor
                                                                            : Pipe::kFp32;
}

const Report& h200_report() {
  static const Report report =
      load_report(std::string(RFL_SOURCE_DIR) + "/tests/unit/data/h200-sweep-first-run.json");
  return report;
}

const PointResult& point(const std::string& op, int64_t seq_len) {
  for (const auto& p : h200_report().points) {
    if (p.op == op && p.shape.seq_len == seq_len) return p;
  }
  throw std::runtime_error("point not in the example report: " + op);
}

Reconciliation reconcile_h200(const std::string& op, int64_t seq_len) {
  return reconcile(point(op, seq_len), pipe_of(op), h200_report().device);
}

const ReconcileCheck* find_check(const Reconciliation& r, const std::string& quantity,
                                 const std::string& reference_prefix) {
  for (const auto& c : r.checks) {
    if (c.quantity == quantity && c.reference.rfind(reference_prefix, 0) == 0) return &c;
  }
  return nullptr;
}

TEST(Reconcile, EveryH200FlagIsExplained) {
  for (const auto& p : h200_report().points) {
    const Reconciliation r = reconcile(p, pipe_of(p.op), h200_report().device);
    EXPECT_TRUE(r.null_reason.empty()) << p.op;
    EXPECT_FALSE(r.checks.empty()) << p.op;
    for (const auto& c : r.checks) {
      EXPECT_GT(c.ratio, 0) << p.op;
      if (c.flagged) EXPECT_FALSE(c.explanation.empty()) << p.op << " " << c.quantity;
    }
  }
}

TEST(Reconcile, GemmReReadsAreAFinding) {
  const Reconciliation r = reconcile_h200("gemm", 4096);
  const ReconcileCheck* dram = find_check(r, "dram_bytes", "min_dram_bytes");
  ASSERT_NE(dram, nullptr);
  EXPECT_TRUE(dram->flagged);
  EXPECT_NEAR(dram->ratio, 3.05, 0.01);  // 358.5 MB measured vs 117.4 MB minimum
  // Reads alone: 274.3 MB vs X + W = 50.3 MB, 5.45x.
  EXPECT_NE(dram->explanation.find("5.45x the inputs"), std::string::npos) << dram->explanation;
  EXPECT_NE(dram->explanation.find("re-read"), std::string::npos) << dram->explanation;
  const ReconcileCheck* flop = find_check(r, "tensor_flop", "analytic.flop");
  ASSERT_NE(flop, nullptr);
  EXPECT_FALSE(flop->flagged);
  EXPECT_NEAR(flop->ratio, 1.0, 1e-9);
}

// An FP8 GEMM point: its counted tensor FLOPs come from the fp8 pipe (tensor_fp8_flop, the metric
// times kTensorFp8FlopPerMetricUnit) and reconcile against 2·M·N·K like bf16's; a count off by
// the FLOPs-vs-ops factor is flagged, with the tile-granular count of the 128 × 256 tile.
TEST(Reconcile, Fp8GemmTensorFlopsFromTheFp8Pipe) {
  PointResult p = point("gemm", 4096);
  p.version = "gemm_fp8_v1_wgmma";
  p.shape.gemm_dtype = GemmDtype::kFp8E4m3;
  p.analytic = analytic_model("gemm", p.shape);
  const double flop = p.analytic.flop;
  ASSERT_FALSE(p.counters.null_reason);
  p.counters.total.tensor_bf16_flop = 0.0;  // counted, but the FP8 kernel issues no bf16 MMA
  p.counters.total.tensor_fp8_flop = flop;
  Reconciliation r = reconcile(p, Pipe::kTensor, h200_report().device);
  const ReconcileCheck* check = find_check(r, "tensor_flop", "analytic.flop");
  ASSERT_NE(check, nullptr);
  EXPECT_FALSE(check->flagged);
  EXPECT_NEAR(check->ratio, 1.0, 1e-12);

  p.counters.total.tensor_fp8_flop = 2.0 * flop;  // a counter of ops read as FLOPs, or vice versa
  r = reconcile(p, Pipe::kTensor, h200_report().device);
  check = find_check(r, "tensor_flop", "analytic.flop");
  ASSERT_NE(check, nullptr);
  EXPECT_TRUE(check->flagged);
  EXPECT_NEAR(check->ratio, 2.0, 1e-12);
  EXPECT_NE(check->explanation.find("tile-granular"), std::string::npos) << check->explanation;
  EXPECT_EQ(gemm_block_tile("gemm_fp8_v1_wgmma", 4096).cols, 256);

  // No fp8 count (a sweep before the counter existed): the bf16 zero alone is a flagged 0x.
  p.counters.total.tensor_fp8_flop.reset();
  r = reconcile(p, Pipe::kTensor, h200_report().device);
  check = find_check(r, "tensor_flop", "analytic.flop");
  ASSERT_NE(check, nullptr);
  EXPECT_TRUE(check->flagged);
}

TEST(Reconcile, GeluErfPolynomialIsFlaggedAndExplained) {
  const Reconciliation r = reconcile_h200("gelu", 4096);
  const ReconcileCheck* flop = find_check(r, "flop", "analytic.flop");
  ASSERT_NE(flop, nullptr);
  EXPECT_TRUE(flop->flagged);
  EXPECT_NEAR(flop->ratio, 5.0, 0.05);
  EXPECT_NE(flop->explanation.find("polynomial"), std::string::npos) << flop->explanation;
  EXPECT_NE(flop->explanation.find("FLOP/element"), std::string::npos) << flop->explanation;
  EXPECT_FALSE(
      find_check(r, "dram_bytes", "min_dram_bytes")->flagged);  // 1.00x: memory-bound, clean
}

TEST(Reconcile, AttentionFlopsMatchTheTensorCounters) {
  for (const int64_t l : {512, 4096, 32768}) {
    for (const char* op : {"naive_attention", "flash_attention"}) {
      const Reconciliation r = reconcile_h200(op, l);
      const ReconcileCheck* flop = find_check(r, "tensor_flop", "analytic.flop");
      ASSERT_NE(flop, nullptr);
      EXPECT_FALSE(flop->flagged) << op << " " << l << " ratio " << flop->ratio;
    }
  }
  // Naive attention moves what its model says: S and P written and read once.
  const ReconcileCheck* naive =
      find_check(reconcile_h200("naive_attention", 8192), "dram_bytes", "implemented_dram_bytes");
  ASSERT_NE(naive, nullptr);
  EXPECT_NEAR(naive->ratio, 1.01, 0.02);
  EXPECT_FALSE(naive->flagged);
}

TEST(Reconcile, FlashShowsIoBoundAndL2Absorption) {
  const Reconciliation r = reconcile_h200("flash_attention", 4096);
  const ReconcileCheck* io = find_check(r, "dram_bytes", "flash_io_bound");
  ASSERT_NE(io, nullptr);
  EXPECT_FALSE(io->flagged);
  EXPECT_LT(io->ratio, 0.1);  // 80 MB against a 1.1 GB paper-tile count
  EXPECT_NE(io->explanation.find("Br = min"), std::string::npos) << io->explanation;
  const ReconcileCheck* l2 = find_check(r, "l2_bytes", "dram_bytes");
  ASSERT_NE(l2, nullptr);
  EXPECT_NEAR(l2->ratio, 3268044672.0 / 80151552.0, 1e-6);
  EXPECT_NE(l2->explanation.find("L2 absorbed 99."), std::string::npos) << l2->explanation;
  // Against its no-reuse model the kernel is far below; against the minimum, near it.
  EXPECT_LT(find_check(r, "dram_bytes", "implemented_dram_bytes")->ratio, 0.05);
  EXPECT_NEAR(find_check(r, "dram_bytes", "min_dram_bytes")->ratio, 1.19, 0.01);
}

TEST(Reconcile, DecodeShortContextWritesAreFlagged) {
  const Reconciliation r = reconcile_h200("decode_attention", 512);
  const ReconcileCheck* dram = find_check(r, "dram_bytes", "min_dram_bytes");
  ASSERT_NE(dram, nullptr);
  EXPECT_TRUE(dram->flagged);  // 7.0 MB vs 4.2 MB: the excess is writes
  EXPECT_NE(dram->explanation.find("writes"), std::string::npos) << dram->explanation;
  EXPECT_FALSE(find_check(reconcile_h200("decode_attention", 32768), "dram_bytes", "min")->flagged);
}

TEST(Reconcile, ElementwiseAndReductionsAreClean) {
  for (const int64_t l : {512, 4096, 32768}) {
    EXPECT_FALSE(has_flags(reconcile_h200("layernorm", l))) << l;
  }
}

TEST(Reconcile, TilePaddingExplainsAFlashFlopExcess) {
  PointResult p;
  p.op = "flash_attention";
  p.shape.seq_len = 1000;
  p.analytic = analytic_model(p.op, p.shape);
  // What the tensor pipe does: whole tiles, 1024 rows × 1024 keys.
  p.counters.total.tensor_bf16_flop = 4.0 * 16 * 128 * 1024 * 1024;
  p.counters.total.tensor_fp16_flop = 0.0;
  DeviceRecord device;
  device.cc_major = 9;
  const Reconciliation r = reconcile(p, Pipe::kTensor, device);
  const ReconcileCheck* flop = find_check(r, "tensor_flop", "analytic.flop");
  ASSERT_NE(flop, nullptr);
  EXPECT_TRUE(flop->flagged);
  EXPECT_NEAR(flop->ratio, 1024.0 * 1024 / 1e6, 1e-9);
  EXPECT_NE(flop->explanation.find("whole tiles"), std::string::npos) << flop->explanation;
  // Without DRAM counters there are no byte checks, and nothing is invented.
  EXPECT_EQ(find_check(r, "dram_bytes", ""), nullptr);
  // A count that matches neither model is called a bug.
  p.counters.total.tensor_bf16_flop = 1.5 * p.analytic.flop;
  EXPECT_NE(
      find_check(reconcile(p, Pipe::kTensor, device), "tensor_flop", "")->explanation.find("wrong"),
      std::string::npos);
}

// The tensor_flop check of a flash point of `version` at `shape` whose tensor pipe counted
// `counted_flop` bf16 FLOPs, on a compute capability 9.0 device.
ReconcileCheck flash_tensor_flop_check(const Shape& shape, const std::string& version,
                                       double counted_flop) {
  PointResult p;
  p.op = "flash_attention";
  p.shape = shape;
  p.version = version;
  p.analytic = analytic_model(p.op, p.shape);
  p.counters.total.tensor_bf16_flop = counted_flop;
  p.counters.total.tensor_fp16_flop = 0.0;
  DeviceRecord device;
  device.cc_major = 9;
  const Reconciliation r = reconcile(p, Pipe::kTensor, device);
  const ReconcileCheck* flop = find_check(r, "tensor_flop", "analytic.flop");
  EXPECT_NE(flop, nullptr);
  return flop ? *flop : ReconcileCheck{};
}

/// A causal attention shape of B = 1, H = 16 (the defaults) at `seq_len` keys, `head_dim`, and
/// `q_len` queries (0: seq_len).
Shape causal_attention_shape(int64_t seq_len, int64_t head_dim, int64_t q_len = 0) {
  Shape s;
  s.seq_len = seq_len;
  s.head_dim = head_dim;
  s.q_len = q_len;
  s.causal = true;
  return s;
}

// flash_attention_v3_wgmma_tma computes 128 × 128 tiles per 128-row query tile, both warpgroups up
// to the tile's diagonal: the H100 counted 1.124x the visible pairs at L = 1024 causal and 1.083x
// for 512 queries over 1024 keys (a --q-len sweep), which v2's 32-row warps would not explain.
TEST(Reconcile, WgmmaTilesExplainCausalFlashFlops) {
  EXPECT_DOUBLE_EQ(flash_wgmma_computed_pairs(1024, 1024, 128, true), 36.0 * 128 * 128);
  EXPECT_DOUBLE_EQ(flash_wgmma_computed_pairs(512, 1024, 128, true), 26.0 * 128 * 128);
  EXPECT_DOUBLE_EQ(flash_wgmma_computed_pairs(1000, 1000, 128, false), 1024.0 * 1024);
  const Shape chunk = causal_attention_shape(1024, 128, 512);
  const double counted = 4.0 * 16 * 128 * 26 * 128 * 128;
  const ReconcileCheck flop = flash_tensor_flop_check(chunk, kFlashWgmmaVersionName, counted);
  EXPECT_NEAR(flop.ratio, 1.0826, 1e-4);
  EXPECT_NE(flop.explanation.find("whole tiles"), std::string::npos) << flop.explanation;
  // The same count under v2's name is not explained by v2's tiles.
  EXPECT_NE(flash_tensor_flop_check(chunk, "flash_attention_v2_mma_sync", counted)
                .explanation.find("wrong"),
            std::string::npos);
}

// At head_dim 256 v3's key tiles are 80 wide (core/kernel_tiles.hpp flash_wgmma_key_tile_cols),
// its query tiles still 128 rows: causal L = 1024 computes 2 + 4 + 5 + 7 + 8 + 10 + 12 + 13 = 61
// tiles of 128 × 80 per head (ceil(128·(t+1)/80) for t = 0..7), 1.190× the visible pairs.
TEST(Reconcile, WgmmaTilesAtHeadDim256Are128By80) {
  EXPECT_EQ(flash_wgmma_key_tile_cols(128), 128);
  EXPECT_EQ(flash_wgmma_key_tile_cols(256), 80);
  EXPECT_DOUBLE_EQ(flash_wgmma_computed_pairs(1024, 1024, 256, true), 61.0 * 128 * 80);
  EXPECT_DOUBLE_EQ(flash_wgmma_computed_pairs(1000, 1000, 256, false), 1024.0 * 13 * 80);
  // 100 queries over 1000 keys: one query tile, rows up to 99 see keys up to 999: 13 key tiles.
  EXPECT_DOUBLE_EQ(flash_wgmma_computed_pairs(100, 1000, 256, true), 128.0 * 13 * 80);
  // 1000 queries over 100 keys: only the last query tile (rows 896-999) sees keys, all 100.
  EXPECT_DOUBLE_EQ(flash_wgmma_computed_pairs(1000, 100, 256, true), 128.0 * 2 * 80);
  const Shape full = causal_attention_shape(1024, 256);
  const ReconcileCheck flop =
      flash_tensor_flop_check(full, kFlashWgmmaVersionName, 4.0 * 16 * 256 * 61 * 128 * 80);
  EXPECT_NEAR(flop.ratio, 61.0 * 128 * 80 / (1024.0 * 1025 / 2), 1e-9);
  EXPECT_NE(flop.explanation.find("whole tiles"), std::string::npos) << flop.explanation;
  // d = 128's 128 × 128 tiles (36 per head, 1.124×) would not explain this count.
  EXPECT_NE(flash_wgmma_computed_pairs(1024, 1024, 128, true), 61.0 * 128 * 80);
}

// At head_dim 64 and 96 v3 keeps d = 128's 128 × 128 tiles (flash_wgmma_key_tile_cols): causal
// L = 1024 computes 36 tiles per head, 1.124× the visible pairs, where v2's 32-row warps and
// 64-key tiles at d = 96 compute 1.0588× fewer (17 · 32 tile pairs of 32 × 64 per warp row).
TEST(Reconcile, WgmmaTilesAtHeadDim96Are128By128) {
  EXPECT_EQ(flash_wgmma_key_tile_cols(64), 128);
  EXPECT_EQ(flash_wgmma_key_tile_cols(96), 128);
  EXPECT_DOUBLE_EQ(flash_wgmma_computed_pairs(1024, 1024, 96, true), 36.0 * 128 * 128);
  EXPECT_DOUBLE_EQ(flash_wgmma_computed_pairs(1000, 1000, 96, false), 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(flash_computed_pairs(1024, 1024, 96, true), 2.0 * 136 * 32 * 64);
  const Shape full = causal_attention_shape(1024, 96);
  const double counted = 4.0 * 16 * 96 * 36 * 128 * 128;
  const ReconcileCheck flop = flash_tensor_flop_check(full, kFlashWgmmaVersionName, counted);
  EXPECT_NEAR(flop.ratio, 36.0 * 128 * 128 / (1024.0 * 1025 / 2), 1e-9);
  EXPECT_NE(flop.explanation.find("whole tiles"), std::string::npos) << flop.explanation;
  // The same count under v2's name is not explained by v2's tiles.
  EXPECT_NE(flash_tensor_flop_check(full, "flash_attention_v2_mma_sync", counted)
                .explanation.find("wrong"),
            std::string::npos);
}

// Decode attention's tensor-core kernel (v5, placed under the tensor roof) pads a KV head's g
// query heads to whole MMA tiles: per key 48·d for an 8-head block against the formula's 4·g·d.
PointResult decode_tensor_point(int64_t heads, int64_t kv_heads, int64_t head_dim) {
  PointResult p;
  p.op = "decode_attention";
  p.version = "decode_attention_v5_mma_gqa_fused_merge";
  p.shape.heads = heads;
  p.shape.kv_heads = kv_heads;
  p.shape.head_dim = head_dim;
  p.analytic = analytic_model(p.op, p.shape);
  p.counters.total.tensor_fp16_flop = 0.0;
  return p;
}

TEST(Reconcile, DecodeGqaTensorPaddingIsExplained) {
  PointResult p = decode_tensor_point(32, 8, 128);  // g = 4: 48·d / 16·d = 3x
  p.counters.total.tensor_bf16_flop = 3.0 * p.analytic.flop;
  const ReconcileCheck* flop =
      find_check(reconcile(p, Pipe::kTensor, DeviceRecord{}), "tensor_flop", "");
  ASSERT_NE(flop, nullptr);
  EXPECT_TRUE(flop->flagged);
  EXPECT_NEAR(flop->ratio, 3.0, 1e-9);
  EXPECT_NE(flop->explanation.find("whole MMA tiles"), std::string::npos) << flop->explanation;
  EXPECT_NE(flop->explanation.find("3.00x the useful"), std::string::npos) << flop->explanation;
  EXPECT_NE(flop->explanation.find("read 1.0000x the whole-tile count"), std::string::npos)
      << flop->explanation;
  // A count the tiles do not explain says so.
  p.counters.total.tensor_bf16_flop = 2.0 * p.analytic.flop;
  const ReconcileCheck* off =
      find_check(reconcile(p, Pipe::kTensor, DeviceRecord{}), "tensor_flop", "");
  ASSERT_NE(off, nullptr);
  EXPECT_NE(off->explanation.find("neither explains"), std::string::npos) << off->explanation;
  // Each key range of the split pads its last 16-key step: on an H100 (132 SMs) B 1, H_kv 8,
  // L 32768 fell into ranges of 497 keys, walked as 512: counted 1.0302x the whole-tile count.
  PointResult long_cache = decode_tensor_point(32, 8, 128);
  long_cache.shape.seq_len = 32768;
  long_cache.analytic = analytic_model(long_cache.op, long_cache.shape);
  long_cache.counters.total.tensor_bf16_flop = 1659273216.0;  // the H100's count
  DeviceRecord h100;
  h100.sm_count = 132;
  const ReconcileCheck* stepped =
      find_check(reconcile(long_cache, Pipe::kTensor, h100), "tensor_flop", "");
  ASSERT_NE(stepped, nullptr);
  EXPECT_NE(stepped->explanation.find("whole 16-key steps"), std::string::npos)
      << stepped->explanation;
  EXPECT_NE(stepped->explanation.find("read 1.0302x"), std::string::npos) << stepped->explanation;
  // Over an FP8 KV cache g = 1 runs the tensor-core kernel too: one real head of 8 rows, 12x.
  PointResult fp8 = decode_tensor_point(32, 32, 128);
  fp8.shape.kv_dtype = KvDtype::kFp8E4m3;
  fp8.analytic = analytic_model(fp8.op, fp8.shape);
  fp8.counters.total.tensor_fp16_flop = 12.0 * fp8.analytic.flop;
  fp8.counters.total.tensor_bf16_flop = 0.0;
  const ReconcileCheck* one =
      find_check(reconcile(fp8, Pipe::kTensor, DeviceRecord{}), "tensor_flop", "");
  ASSERT_NE(one, nullptr);
  EXPECT_NE(one->explanation.find("12.00x the useful"), std::string::npos) << one->explanation;
}

// At d = 256 a tensor-core block holds 8 heads at most (decode_max_heads_per_block), so g = 16
// runs two 8-head blocks per key: 2 × 48·d against 4·16·d = 1.5x, where d = 96 and 128 fill one
// 16-head block exactly (64·d, 1.00x: not flagged).
TEST(Reconcile, DecodeTensorPaddingFollowsTheHeadDim) {
  for (const auto& [d, padding] :
       {std::pair<int64_t, double>{128, 1.0}, std::pair<int64_t, double>{96, 1.0},
        std::pair<int64_t, double>{256, 1.5}}) {
    SCOPED_TRACE(d);
    PointResult p = decode_tensor_point(32, 2, d);  // g = 16
    p.counters.total.tensor_bf16_flop = padding * p.analytic.flop;
    const ReconcileCheck* flop =
        find_check(reconcile(p, Pipe::kTensor, DeviceRecord{}), "tensor_flop", "");
    ASSERT_NE(flop, nullptr);
    EXPECT_EQ(flop->flagged, padding > 1.0);
    if (flop->flagged) {
      EXPECT_NE(flop->explanation.find("1.50x the useful"), std::string::npos) << flop->explanation;
    }
  }
}

TEST(Reconcile, NoCountersGiveANullReason) {
  PointResult p;
  p.op = "gemm";
  p.analytic = analytic_model(p.op, p.shape);
  p.counters.null_reason = "counters disabled (--no-counters)";
  const Reconciliation r = reconcile(p, Pipe::kTensor, DeviceRecord{});
  EXPECT_TRUE(r.checks.empty());
  EXPECT_NE(r.null_reason.find("--no-counters"), std::string::npos);
}

TEST(Reconcile, DramBelowHalfTheMinimumIsFlagged) {
  PointResult p;
  p.op = "layernorm";
  p.analytic = analytic_model(p.op, p.shape);
  p.counters.total.dram_read_bytes = 0.1 * p.analytic.min_dram_bytes;
  p.counters.total.dram_write_bytes = 0.1 * p.analytic.min_dram_bytes;
  p.counters.cache_policy = "warm L2";
  const ReconcileCheck* c =
      find_check(reconcile(p, Pipe::kFp32, DeviceRecord{}), "dram_bytes", "min");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->flagged);
  EXPECT_NEAR(c->ratio, 0.2, 1e-12);
  EXPECT_NE(c->explanation.find("warm L2"), std::string::npos) << c->explanation;
}

TEST(Reconcile, SurvivesTheJsonRoundTripAndOldReportsReadWithoutIt) {
  Report report = h200_report();
  EXPECT_FALSE(report.points.front().reconciliation.has_value());  // written before the field
  for (auto& p : report.points) p.reconciliation = reconcile(p, pipe_of(p.op), report.device);
  const Report back = report_from_json_text(report_to_json_text(report), "round-trip");
  ASSERT_EQ(back.points.size(), report.points.size());
  for (size_t i = 0; i < back.points.size(); ++i) {
    ASSERT_TRUE(back.points[i].reconciliation.has_value());
    const auto& a = report.points[i].reconciliation->checks;
    const auto& b = back.points[i].reconciliation->checks;
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].quantity, b[k].quantity);
      EXPECT_EQ(a[k].reference, b[k].reference);
      EXPECT_DOUBLE_EQ(a[k].ratio, b[k].ratio);
      EXPECT_EQ(a[k].band_low, b[k].band_low);
      EXPECT_EQ(a[k].band_high, b[k].band_high);
      EXPECT_EQ(a[k].flagged, b[k].flagged);
      EXPECT_EQ(a[k].explanation, b[k].explanation);
    }
  }
}

// The table notes each flagged check once per operator (with every flagged L and its ratio), not
// once per point: GELU's erf FLOP ratio is flagged at all seven lengths of the H200 sweep.
TEST(Reconcile, TableNotesEachFlaggedCheckOncePerOperator) {
  Report report = h200_report();
  for (auto& p : report.points) p.reconciliation = reconcile(p, pipe_of(p.op), report.device);
  const std::string text = format_reconciliation_flags(report);
  EXPECT_NE(text.find("  gelu: flop / analytic.flop (band "), std::string::npos) << text;
  EXPECT_NE(text.find("at 7 points: L=512 "), std::string::npos) << text;
  const auto count = [&text](const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
      ++n;
    }
    return n;
  };
  EXPECT_EQ(count("erf is not one special-function instruction"), 1u) << text;
  EXPECT_EQ(count("  gelu: flop / analytic.flop"), 1u) << text;
  EXPECT_NE(text.find("gemm: dram_bytes / "), std::string::npos) << text;
}

// Points of one L that differ in another axis (a chunked prefill's q_len) are told apart.
TEST(Reconcile, TableNamesTheShapeVariantBesideL) {
  Report report = h200_report();
  for (auto& p : report.points) {
    if (p.op == "gelu" && p.shape.seq_len == 1024) p.shape.q_len = 512;
    p.reconciliation = reconcile(p, pipe_of(p.op), report.device);
  }
  const std::string text = format_reconciliation_flags(report);
  EXPECT_NE(text.find("L=512 "), std::string::npos) << text;
  EXPECT_NE(text.find("L=1024 q=512 "), std::string::npos) << text;
}

// A sweep with lists names each flagged point by the values of its varying axes, as the table
// does, so that two decode points of one L that differ in H_kv and the KV dtype read apart (a
// trial found "L=4096 kv=fp8_e4m3" twice in one list, and "at L=4096" heading the explanation).
TEST(Reconcile, ListNamesTheSweptAxesAsTheTableDoes) {
  Report report = h200_report();
  report.config.axes.kv_heads = {16, 4};
  report.config.axes.kv_dtype = {KvDtype::kAuto, KvDtype::kFp8E4m3};
  std::vector<PointResult> decode;
  for (const auto& p : report.points) {
    if (p.op == "decode_attention" && p.shape.seq_len == 4096) decode.push_back(p);
  }
  ASSERT_EQ(decode.size(), 1u);
  report.points.clear();
  for (const int64_t kv_heads : {16, 4}) {
    PointResult p = decode.front();
    p.shape.kv_heads = kv_heads;
    p.shape.kv_dtype = KvDtype::kFp8E4m3;
    ReconcileCheck flagged;
    flagged.quantity = "dram_write_bytes_isolated";
    flagged.reference = "l2_write_bytes";
    flagged.ratio = 1.05;
    flagged.band_low = 0.98;
    flagged.band_high = 1.02;
    flagged.flagged = true;
    flagged.explanation = "write-back baseline";
    p.reconciliation = Reconciliation{};
    p.reconciliation->checks = {flagged};
    report.points.push_back(p);
  }
  const std::string text = format_reconciliation_flags(report);
  EXPECT_NE(text.find("L=4096 H_kv=16 kv=fp8_e4m3 1.050, L=4096 H_kv=4 kv=fp8_e4m3 1.050"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("at L=4096 H_kv=16 kv=fp8_e4m3: write-back baseline"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace rooflinectl
