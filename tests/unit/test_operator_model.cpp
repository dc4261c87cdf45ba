#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "core/kernel_tiles.hpp"
#include "model/operator_model.hpp"
#include "result/tokens_per_second.hpp"

namespace rooflinectl {
namespace {

Shape default_shape(int64_t seq_len) {
  Shape s;  // B = 1, H = H_kv = 16, d = 128, bf16
  s.seq_len = seq_len;
  return s;
}

TEST(OperatorModel, NaiveAttentionAtL4096) {
  const AnalyticResult r = analytic_model("naive_attention", default_shape(4096));
  EXPECT_DOUBLE_EQ(r.flop, 4.0 * 16 * 4096.0 * 4096.0 * 128);  // 137.4 GFLOP
  // Q, K, V, O: 4 × 16 × 4096 × 128 × 2 B = 67.1 MB; S and P per head 33.5 MB each, 2× traffic.
  EXPECT_DOUBLE_EQ(r.min_dram_bytes, 4.0 * 16 * 4096 * 128 * 2);
  EXPECT_DOUBLE_EQ(r.implemented_dram_bytes - r.min_dram_bytes, 4.0 * 16 * 4096.0 * 4096.0 * 2);
  // The S/P traffic alone caps the intensity at d / e = 64 FLOP/B for bf16.
  EXPECT_NEAR(r.flop / (r.implemented_dram_bytes - r.min_dram_bytes), 64.0, 1e-12);
}

TEST(OperatorModel, FlashAttentionCausalCountsVisiblePairs) {
  Shape s = default_shape(1024);
  s.causal = true;
  const AnalyticResult r = analytic_model("flash_attention", s);
  EXPECT_DOUBLE_EQ(r.flop, 4.0 * 16 * 128 * (1024.0 * 1025.0 / 2.0));
  EXPECT_NE(r.flop_formula.find("(L+1)/2"), std::string::npos);
  s.causal = false;
  EXPECT_DOUBLE_EQ(analytic_model("flash_attention", s).flop, 4.0 * 16 * 1024.0 * 1024 * 128);
  EXPECT_DOUBLE_EQ(attention_pairs(3, 3, true), 6.0);
}

TEST(OperatorModel, FlashImplementedBytesGrowWithQueryTiles) {
  const AnalyticResult r = analytic_model("flash_attention", default_shape(4096));
  const double qkvo = 4.0 * 16 * 4096 * 128 * 2;
  const double lse = 4.0 * 16 * 4096;
  EXPECT_DOUBLE_EQ(r.min_dram_bytes, qkvo + lse);
  EXPECT_DOUBLE_EQ(r.implemented_dram_bytes, qkvo / 2 + lse + 32.0 * qkvo / 2);
}

// The flash kernel's tiles per head_dim (kernels/flash_attention.cu's FlashTraits takes them from
// core/kernel_tiles.hpp): Br, rows per warp and Bc as designed there (FA2's forward tiles), which
// the implemented bytes and the whole-tile pairs below are computed from.
TEST(OperatorModel, FlashTilesPerHeadDim) {
  struct Tiles {
    int64_t head_dim, query_rows, warp_rows, key_cols;
  };
  for (const Tiles& t : {Tiles{64, 128, 32, 128}, Tiles{96, 128, 32, 64}, Tiles{128, 128, 32, 64},
                         Tiles{256, 64, 16, 32}}) {
    SCOPED_TRACE(t.head_dim);
    EXPECT_EQ(flash_query_tile_rows(t.head_dim), t.query_rows);
    EXPECT_EQ(flash_warp_rows(t.head_dim), t.warp_rows);
    EXPECT_EQ(flash_key_tile_cols(t.head_dim), t.key_cols);
    EXPECT_EQ(kFlashWarps * flash_warp_rows(t.head_dim), flash_query_tile_rows(t.head_dim));
  }
}

// d = 256: 64-row query tiles, so K and V are streamed 64 times at L = 4096 (32 times at d = 96,
// as at d = 128), and the formula names the tile.
TEST(OperatorModel, FlashImplementedBytesFollowTheQueryTileOfTheHeadDim) {
  for (const int64_t d : {96, 256}) {
    SCOPED_TRACE(d);
    Shape s = default_shape(4096);
    s.head_dim = d;
    const double q_o = 2.0 * 16 * 4096 * d * 2;
    const double lse = 4.0 * 16 * 4096;
    const double kv_pass = 2.0 * 16 * 4096 * d * 2;  // K and V of every query head, once
    const double tiles = d == 256 ? 64 : 32;
    const AnalyticResult r = analytic_model("flash_attention", s);
    EXPECT_DOUBLE_EQ(r.min_dram_bytes, q_o + kv_pass + lse);
    EXPECT_DOUBLE_EQ(r.implemented_dram_bytes, q_o + lse + tiles * kv_pass);
    EXPECT_NE(r.bytes_formula.find(d == 256 ? "query tiles of 64 rows" : "query tiles of 128 rows"),
              std::string::npos)
        << r.bytes_formula;
    // Causal: tile t streams keys 0 .. (t+1)·Br − 1, Br·(1 + ... + tiles) keys in all.
    s.causal = true;
    const double br = 4096 / tiles;
    EXPECT_DOUBLE_EQ(analytic_model("flash_attention", s).implemented_dram_bytes,
                     q_o + lse + kv_pass / 4096 * br * tiles * (tiles + 1) / 2);
  }
}

TEST(OperatorModel, GemmIsTwoMNK) {
  const AnalyticResult r = analytic_model("gemm", default_shape(4096));
  const double m = 4096, k = 2048, n = 8192;
  EXPECT_DOUBLE_EQ(r.flop, 2 * m * n * k);
  EXPECT_DOUBLE_EQ(r.min_dram_bytes, (m * k + k * n + m * n) * 2);
}

// Llama-3.1-8B's QKV projection at prefill M = 512: N = (32 + 2·8)·128 = 6144, K = 4096.
// FLOPs 2·512·6144·4096 = 25 769 803 776; bytes (512·4096 + 4096·6144 + 512·6144)·2
// = (2 097 152 + 25 165 824 + 3 145 728)·2 = 60 817 408. Above 64 rows no partials.
TEST(OperatorModel, GemmAtExplicitDims) {
  Shape s = default_shape(512);
  s.gemm_n = 6144;
  s.gemm_k = 4096;
  const AnalyticResult r = analytic_model("gemm", s);
  EXPECT_DOUBLE_EQ(r.flop, 25769803776.0);
  EXPECT_DOUBLE_EQ(r.min_dram_bytes, 60817408.0);
  EXPECT_DOUBLE_EQ(r.implemented_dram_bytes, 60817408.0);
  EXPECT_EQ(r.flop_formula, "2*M*N*K, M = B*L, K = gemm_k, N = gemm_n");
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("gemm", s), 512.0 * 6144 * 2);
  // The explicit dims beat a preset's widths too.
  const LayerWidths widths{4096, 14336, FfnKind::kSwiglu, NormKind::kRmsNorm};
  EXPECT_DOUBLE_EQ(analytic_model("gemm", s, widths).flop, 25769803776.0);
}

// The default shape is the FFN up projection as before: M = 4096, K = 2048, N = 8192.
TEST(OperatorModel, GemmDefaultDimsUnchanged) {
  const AnalyticResult r = analytic_model("gemm", default_shape(4096));
  EXPECT_DOUBLE_EQ(r.implemented_dram_bytes, r.min_dram_bytes);
  EXPECT_EQ(r.flop_formula, "2*M*N*K, M = B*L, K = d_model, N = 4*d_model");
  EXPECT_EQ(r.bytes_formula, "(M*K + K*N + M*N)*e");
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("gemm", default_shape(4096)), 4096.0 * 8192 * 2);
}

// Decode M = 16 (batch 16, L = 1), Llama-3.1-8B's down projection K = 14336, N = 4096:
// 32 column tiles of 128 → 16 splits wanted (512 blocks); the cap K/(8·M) = 112 and the 448
// slices of 32 allow them; 448/16 = 28 slices = 896 per split. Partials 2·16·16·4096·4 bytes
// = 8 388 608 on top of (16·14336 + 14336·4096 + 16·4096)·2 = 118 030 336.
TEST(OperatorModel, GemmDecodeCountsSplitKPartials) {
  Shape s = default_shape(1);
  s.batch = 16;
  s.gemm_n = 4096;
  s.gemm_k = 14336;
  const GemmSplitK split = gemm_skinny_split(16, 4096, 14336);
  EXPECT_EQ(split.splits, 16);
  EXPECT_EQ(split.k_per_split, 896);
  const AnalyticResult r = analytic_model("gemm", s);
  EXPECT_DOUBLE_EQ(r.flop, 2.0 * 16 * 4096 * 14336);
  EXPECT_DOUBLE_EQ(r.min_dram_bytes, 118030336.0);
  EXPECT_DOUBLE_EQ(r.implemented_dram_bytes, 118030336.0 + 8388608.0);
  // v6 splits the same GEMM 4 ways (64 strips of 64 columns, 264 / 64 = 4 blocks each); the
  // model keeps v4's larger count, which bounds both.
  EXPECT_EQ(gemm_skinny_wgmma_split(16, 4096, 14336).splits, 4);
  EXPECT_NE(r.bytes_formula.find("S = 16,"), std::string::npos) << r.bytes_formula;
  EXPECT_NE(r.bytes_formula.find("gemm_v6_skinny_wgmma: 4"), std::string::npos) << r.bytes_formula;
}

// gemm_v6_skinny_wgmma's split: ceil(N/64) strips × splits within 264 blocks (one wave of two
// blocks per SM on 132 SMs), partials within an eighth of W (splits ≤ K/(32·M)), whole 64-deep
// slices, none empty; none in the deep-ring mode (one block per SM, ~200 KiB ring), which applies
// when the ceil(N/64) strips fit 132 SMs once and there are 32 or 64 rows of X, or 8 or 16 with
// K ≤ 4096.
TEST(OperatorModel, GemmSkinnyWgmmaDeepRingInOneWaveAtLongRowsOrShortK) {
  EXPECT_TRUE(gemm_skinny_wgmma_deep_ring(64, 6144, 4096));
  EXPECT_TRUE(gemm_skinny_wgmma_deep_ring(33, 4096, 14336));
  EXPECT_TRUE(gemm_skinny_wgmma_deep_ring(17, 4096, 14336));   // 32 rows: any K
  EXPECT_FALSE(gemm_skinny_wgmma_deep_ring(16, 4096, 14336));  // 16 rows, K past 4096
  EXPECT_TRUE(gemm_skinny_wgmma_deep_ring(16, 4096, 4096));
  EXPECT_TRUE(gemm_skinny_wgmma_deep_ring(1, 6144, 4096));
  EXPECT_FALSE(gemm_skinny_wgmma_deep_ring(1, 4096, 4097));
  EXPECT_TRUE(gemm_skinny_wgmma_deep_ring(64, 132 * 64, 14336));       // 132 strips: one wave
  EXPECT_FALSE(gemm_skinny_wgmma_deep_ring(64, 132 * 64 + 8, 14336));  // 133 strips
  EXPECT_FALSE(gemm_skinny_wgmma_deep_ring(64, 14336, 4096));          // gate/up: 224 strips
  EXPECT_FALSE(gemm_skinny_wgmma_deep_ring(1, 14336, 4096));
}

TEST(OperatorModel, GemmSkinnyWgmmaSplitRules) {
  // At M = 1 and 16: QKV (N 6144: 96 strips) and O (64 strips) in the deep-ring mode (K 4096),
  // gate/up (224 strips → 1, no partials; no deep ring) and down (K 14336 at 8 or 16 rows: 64
  // strips → 4, 224 slices → 56 each); at M = 64 (≤ 132 strips) QKV, O and down run their whole
  // K in one block per strip. Outside the mode, M = 1 at N = 6144, K = 8192: 96 strips → 2.
  EXPECT_EQ(gemm_skinny_wgmma_split(1, 6144, 4096).splits, 1);
  EXPECT_EQ(gemm_skinny_wgmma_split(1, 6144, 4096).k_per_split, 4096);
  EXPECT_EQ(gemm_skinny_wgmma_split(1, 6144, 8192).splits, 2);
  EXPECT_EQ(gemm_skinny_wgmma_split(1, 6144, 8192).k_per_split, 4096);
  EXPECT_EQ(gemm_skinny_wgmma_split(64, 6144, 4096).splits, 1);
  EXPECT_EQ(gemm_skinny_wgmma_split(1, 4096, 4096).splits, 1);
  EXPECT_EQ(gemm_skinny_wgmma_split(16, 4096, 4096).splits, 1);
  EXPECT_EQ(gemm_skinny_wgmma_split(64, 4096, 4096).splits, 1);
  EXPECT_EQ(gemm_skinny_wgmma_split(64, 4096, 4096).k_per_split, 4096);
  EXPECT_EQ(gemm_skinny_wgmma_split(16, 14336, 4096).splits, 1);
  EXPECT_EQ(gemm_skinny_wgmma_split(64, 14336, 4096).splits, 1);
  EXPECT_EQ(gemm_skinny_wgmma_split(1, 4096, 14336).splits, 4);
  EXPECT_EQ(gemm_skinny_wgmma_split(16, 4096, 14336).splits, 4);
  EXPECT_EQ(gemm_skinny_wgmma_split(32, 4096, 14336).splits, 1);
  EXPECT_EQ(gemm_skinny_wgmma_split(64, 4096, 14336).splits, 1);
  EXPECT_EQ(gemm_skinny_wgmma_split(64, 4096, 14336).k_per_split, 14336);
  EXPECT_EQ(gemm_skinny_wgmma_split(33, 1000, 1000).k_per_split, 1024);  // whole slices
  // Outside the mode (K past 4096 at 8 rows): K = 4104 at N = 200 (4 strips → 66 wanted, cap
  // 4104/32 = 128, 65 slices): 65 splits of one slice, the last 8 deep. K = 5000 at N = 10000
  // (157 strips, over one wave: 264/157 = 1): one split.
  EXPECT_EQ(gemm_skinny_wgmma_split(1, 200, 4104).splits, 65);
  EXPECT_EQ(gemm_skinny_wgmma_split(1, 200, 4104).k_per_split, 64);
  EXPECT_EQ(gemm_skinny_wgmma_split(1, 10000, 5000).splits, 1);
  // The tile: 8, 16, 32 or 64 rows (the wgmma N extent) × one 64-column strip.
  EXPECT_EQ(gemm_skinny_wgmma_rows(1), 8);
  EXPECT_EQ(gemm_skinny_wgmma_rows(7), 8);
  EXPECT_EQ(gemm_skinny_wgmma_rows(9), 16);
  EXPECT_EQ(gemm_skinny_wgmma_rows(33), 64);
  EXPECT_EQ(gemm_block_tile("gemm_v6_skinny_wgmma", 17).rows, 32);
  EXPECT_EQ(gemm_block_tile("gemm_v6_skinny_wgmma", 17).cols, 64);
  // Partials per version: v6's at down M = 16 (4 splits) are written and read back,
  // 2·4·16·4096·4 bytes; in the deep-ring mode (O M = 16; O, down and QKV at M = 64: no split)
  // none; other versions none.
  EXPECT_DOUBLE_EQ(gemm_skinny_partial_bytes("gemm_v6_skinny_wgmma", 16, 4096, 14336),
                   2.0 * 4 * 16 * 4096 * 4);
  EXPECT_DOUBLE_EQ(gemm_skinny_partial_bytes("gemm_v6_skinny_wgmma", 16, 4096, 4096), 0.0);
  EXPECT_DOUBLE_EQ(gemm_skinny_partial_bytes("gemm_v6_skinny_wgmma", 64, 4096, 4096), 0.0);
  EXPECT_DOUBLE_EQ(gemm_skinny_partial_bytes("gemm_v6_skinny_wgmma", 64, 4096, 14336), 0.0);
  EXPECT_DOUBLE_EQ(gemm_skinny_partial_bytes("gemm_v6_skinny_wgmma", 64, 6144, 4096), 0.0);
  EXPECT_DOUBLE_EQ(gemm_skinny_partial_bytes("gemm_v3_wgmma_multicast", 64, 6144, 4096), 0.0);
  EXPECT_DOUBLE_EQ(gemm_skinny_partial_bytes(64, 6144, 4096),
                   gemm_skinny_partial_bytes("gemm_v4_skinny_splitk", 64, 6144, 4096));
  for (const int64_t m : {1, 3, 7, 16, 33, 64}) {
    for (const auto [n, k] :
         {std::pair<int64_t, int64_t>{6144, 4096}, {4096, 4096}, {14336, 4096}, {4096, 14336}}) {
      const GemmSplitK sp = gemm_skinny_wgmma_split(m, n, k);
      SCOPED_TRACE(testing::Message() << m << " " << n << " " << k);
      EXPECT_EQ(sp.k_per_split % 64, 0);
      EXPECT_LT((sp.splits - 1) * sp.k_per_split, k);  // the last split is not empty
      EXPECT_GE(sp.splits * sp.k_per_split, k);        // and they reach K
      EXPECT_LE((n + 63) / 64 * sp.splits, 264);       // one wave
      EXPECT_LE(gemm_skinny_partial_bytes("gemm_v6_skinny_wgmma", m, n, k),
                static_cast<double>(k * n * 2) / 8);
      EXPECT_GE(gemm_skinny_partial_bytes(m, n, k),
                gemm_skinny_partial_bytes("gemm_v6_skinny_wgmma", m, n, k));
    }
  }
}

// The split: capped by the partials (K/(8·M)) and by the slices, never leaving a split empty, and
// one split (no partials) where the column tiles alone fill the target.
TEST(OperatorModel, GemmSkinnySplitRules) {
  // M = 64, N = K = 4096: 16 wanted, the cap K/(8·64) = 8 holds it; 128 slices / 8 = 16 each.
  EXPECT_EQ(gemm_skinny_split(64, 4096, 4096).splits, 8);
  EXPECT_EQ(gemm_skinny_split(64, 4096, 4096).k_per_split, 512);
  // M = 1, QKV N = 6144: 48 tiles → 11 wanted; 128 slices → 12 per split → 11 splits (the last
  // 8 slices).
  EXPECT_EQ(gemm_skinny_split(1, 6144, 4096).splits, 11);
  EXPECT_EQ(gemm_skinny_split(1, 6144, 4096).k_per_split, 384);
  // K = 40: 2 slices (the second one partial); 10 splits wanted, 2 allowed by the slices, but the
  // cap 40/(8·1) = 5 does not bind; each split one slice.
  EXPECT_EQ(gemm_skinny_split(1, 8, 40).splits, 2);
  EXPECT_EQ(gemm_skinny_split(1, 8, 40).k_per_split, 32);
  // K = 8 at M = 64: the cap is 0, one split.
  EXPECT_EQ(gemm_skinny_split(64, 4096, 8).splits, 1);
  // N = 65536: 512 column tiles fill the target alone: one split, C written directly.
  EXPECT_EQ(gemm_skinny_split(1, 65536, 4096).splits, 1);
  EXPECT_DOUBLE_EQ(gemm_skinny_partial_bytes(1, 65536, 4096), 0.0);
  // Above 64 rows the skinny kernel does not run: no partials.
  EXPECT_DOUBLE_EQ(gemm_skinny_partial_bytes(65, 4096, 4096), 0.0);
  // Every (M, N, K) of the Llama-3.1-8B layer: the splits cover K exactly once, none empty.
  for (const int64_t m : {1, 3, 16, 64}) {
    for (const auto [n, k] :
         {std::pair<int64_t, int64_t>{6144, 4096}, {4096, 4096}, {14336, 4096}, {4096, 14336}}) {
      const GemmSplitK sp = gemm_skinny_split(m, n, k);
      SCOPED_TRACE(testing::Message() << m << " " << n << " " << k);
      EXPECT_EQ(sp.k_per_split % 32, 0);
      EXPECT_LT((sp.splits - 1) * sp.k_per_split, k);  // the last split is not empty
      EXPECT_GE(sp.splits * sp.k_per_split, k);        // and they reach K
      EXPECT_LE(sp.splits, std::max<int64_t>(1, k / (8 * m)));
    }
  }
}

TEST(OperatorModel, ElementwiseConventions) {
  Shape s = default_shape(512);
  const double n_gelu = 512.0 * 4 * 2048;
  EXPECT_DOUBLE_EQ(analytic_model("gelu", s).flop, 4 * n_gelu);
  EXPECT_DOUBLE_EQ(analytic_model("gelu", s).min_dram_bytes, 2 * n_gelu * 2);
  s.gelu_form = GeluForm::kTanh;
  EXPECT_DOUBLE_EQ(analytic_model("gelu", s).flop, 8 * n_gelu);
  const double n_ln = 512.0 * 2048;
  EXPECT_DOUBLE_EQ(analytic_model("layernorm", s).flop, 8 * n_ln);
  EXPECT_DOUBLE_EQ(analytic_model("layernorm", s).min_dram_bytes, 2 * n_ln * 2 + 2 * 2048 * 2);
}

TEST(OperatorModel, RmsNormCountsFourFlopAndOneWeight) {
  // B = 2, L = 3, H = 4, d = 8: N = 6 rows · 32 = 192 elements. 4 FLOP each (square-accumulate 2,
  // normalize 1, scale 1) = 768; bytes x + y = 2 · 192 · 2 = 768, γ 32 · 2 = 64.
  Shape s = default_shape(3);
  s.batch = 2;
  s.heads = s.kv_heads = 4;
  s.head_dim = 8;
  const AnalyticResult r = analytic_model("rmsnorm", s);
  EXPECT_DOUBLE_EQ(r.flop, 768.0);
  EXPECT_DOUBLE_EQ(r.min_dram_bytes, 832.0);
  EXPECT_DOUBLE_EQ(r.implemented_dram_bytes, 832.0);
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("rmsnorm", s), 384.0);  // y alone
  EXPECT_EQ(r.flop_formula.find("4*N, N = B*L*d_model"), 0u) << r.flop_formula;
  EXPECT_NE(r.bytes_formula.find("gamma"), std::string::npos) << r.bytes_formula;
  // Half of layernorm's FLOPs and one weight vector fewer at the default shape.
  const Shape d = default_shape(512);
  EXPECT_DOUBLE_EQ(analytic_model("rmsnorm", d).flop, analytic_model("layernorm", d).flop / 2);
  EXPECT_DOUBLE_EQ(
      analytic_model("layernorm", d).min_dram_bytes - analytic_model("rmsnorm", d).min_dram_bytes,
      2048.0 * 2);
}

TEST(OperatorModel, GatedActivationsCountTheProductOnTopOfTheActivation) {
  // B = 1, L = 5, H = 2, d = 4: d_model 8, d_ff = 32, N = 5 · 32 = 160 outputs.
  Shape s = default_shape(5);
  s.heads = s.kv_heads = 2;
  s.head_dim = 4;
  const AnalyticResult swiglu = analytic_model("swiglu", s);
  EXPECT_DOUBLE_EQ(swiglu.flop, 640.0);            // 4 per output (add, divide, multiply, ·up)
  EXPECT_DOUBLE_EQ(swiglu.min_dram_bytes, 960.0);  // gate, up, y: 3 · 160 · 2
  EXPECT_DOUBLE_EQ(swiglu.implemented_dram_bytes, 960.0);
  EXPECT_NE(swiglu.flop_formula.find("SiLU"), std::string::npos) << swiglu.flop_formula;
  EXPECT_NE(swiglu.flop_formula.find("N = B*L*4*d_model"), std::string::npos)
      << swiglu.flop_formula;
  // geglu follows --gelu-form: gelu's 4 (erf) or 8 (tanh), plus the product; swiglu ignores it.
  EXPECT_DOUBLE_EQ(analytic_model("geglu", s).flop, 800.0);
  s.gelu_form = GeluForm::kTanh;
  EXPECT_DOUBLE_EQ(analytic_model("geglu", s).flop, 1440.0);
  EXPECT_NE(analytic_model("geglu", s).flop_formula.find("tanh itself not counted"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(analytic_model("swiglu", s).flop, 640.0);
  EXPECT_DOUBLE_EQ(analytic_model("geglu", s).min_dram_bytes, 960.0);
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("swiglu", s), 320.0);  // y: 160 · 2
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("geglu", s), 320.0);
}

TEST(OperatorModel, GatedAndNormAtAPresetsWidths) {
  // Llama 3.1 8B's widths at M = 1024 rows: RMSNorm over 1024·4096, SwiGLU over 1024·14336.
  const LayerWidths llama{4096, 14336, FfnKind::kSwiglu, NormKind::kRmsNorm};
  const Shape s = default_shape(1024);
  const AnalyticResult norm = analytic_model("rmsnorm", s, llama);
  EXPECT_DOUBLE_EQ(norm.flop, 4.0 * 1024 * 4096);
  EXPECT_DOUBLE_EQ(norm.min_dram_bytes, 2.0 * 1024 * 4096 * 2 + 4096 * 2);
  const AnalyticResult gated = analytic_model("swiglu", s, llama);
  EXPECT_DOUBLE_EQ(gated.flop, 4.0 * 1024 * 14336);
  EXPECT_DOUBLE_EQ(gated.min_dram_bytes, 3.0 * 1024 * 14336 * 2);
  EXPECT_NE(gated.flop_formula.find("N = B*L*ffn_dim"), std::string::npos) << gated.flop_formula;
}

TEST(OperatorModel, DecodeIntensityIsAboutTheGroupSize) {
  Shape s = default_shape(32768);
  s.batch = 8;
  s.heads = 32;
  s.kv_heads = 32;
  const AnalyticResult mha = analytic_model("decode_attention", s);
  EXPECT_NEAR(mha.flop / mha.min_dram_bytes, 1.0, 1e-3);
  s.kv_heads = 8;
  const AnalyticResult gqa = analytic_model("decode_attention", s);
  EXPECT_NEAR(gqa.flop / gqa.min_dram_bytes, 4.0, 4e-3);
}

// Block-table bytes by hand. B = 2, H = 32, H_kv = 8 (g = 4: one head chunk of 8 heads per
// block), L = 1000 (not a page multiple), P = 16: ceil(1000/16) = 63 pages per sequence, 126
// int32 entries = 504 bytes once; each of the 8 KV heads reads its sequence's row: 4032 bytes.
TEST(OperatorModel, DecodePagedCountsTheBlockTable) {
  Shape s = default_shape(1000);
  s.batch = 2;
  s.heads = 32;
  s.kv_heads = 8;
  const AnalyticResult contiguous = analytic_model("decode_attention", s);
  // K and V: 2 × 2 × 8 × 1000 × 128 × 2 B = 8 192 000; q and o: 2 × 2 × 32 × 128 × 2 B = 32 768.
  EXPECT_DOUBLE_EQ(contiguous.min_dram_bytes, 8192000.0 + 32768.0);
  EXPECT_DOUBLE_EQ(contiguous.implemented_dram_bytes, contiguous.min_dram_bytes);
  EXPECT_NE(contiguous.bytes_formula.find("contiguous KV cache"), std::string::npos);

  s.kv_layout = KvLayout::kPaged;
  s.page_size = 16;
  const BlockTableBytes table = decode_block_table_bytes(s);
  EXPECT_DOUBLE_EQ(table.min_bytes, 504.0);
  EXPECT_DOUBLE_EQ(table.implemented_bytes, 4032.0);
  const AnalyticResult paged = analytic_model("decode_attention", s);
  EXPECT_DOUBLE_EQ(paged.flop, contiguous.flop);
  EXPECT_DOUBLE_EQ(paged.min_dram_bytes, 8224768.0 + 504.0);
  EXPECT_DOUBLE_EQ(paged.implemented_dram_bytes, 8224768.0 + 4032.0);
  EXPECT_NE(paged.bytes_formula.find("paged KV cache, 16-position pages"), std::string::npos);
}

// g = 32 (H = 64, H_kv = 2) takes two head chunks of 16 heads, and each reads the table: B = 1,
// L = 4096, P = 128: 32 entries = 128 bytes once, × 2 KV heads × 2 chunks = 512 bytes.
TEST(OperatorModel, DecodePagedTableIsReadPerHeadChunk) {
  Shape s = default_shape(4096);
  s.heads = 64;
  s.kv_heads = 2;
  s.kv_layout = KvLayout::kPaged;
  s.page_size = 128;
  const BlockTableBytes table = decode_block_table_bytes(s);
  EXPECT_DOUBLE_EQ(table.min_bytes, 128.0);
  EXPECT_DOUBLE_EQ(table.implemented_bytes, 512.0);
  s.kv_layout = KvLayout::kContiguous;
  s.page_size = 0;
  EXPECT_DOUBLE_EQ(decode_block_table_bytes(s).min_bytes, 0.0);
  EXPECT_DOUBLE_EQ(decode_block_table_bytes(s).implemented_bytes, 0.0);
}

// An FP8 KV cache by hand. B = 2, H = 32, H_kv = 8 (g = 4: one head chunk), L = 1000, d = 128:
// K and V 2 × 2 × 8 × 1000 × 128 × 1 B = 4 096 000 (half of bf16's 8 192 000); q and o stay bf16,
// 2 × 2 × 32 × 128 × 2 B = 32 768; scales 2 × 8 × 4 B = 64 once, and once per sequence as
// implemented: 2 × 64 = 128. FLOPs unchanged (dequantization not counted).
TEST(OperatorModel, DecodeFp8KvCacheIsOneBytePerElementPlusScales) {
  Shape s = default_shape(1000);
  s.batch = 2;
  s.heads = 32;
  s.kv_heads = 8;
  const AnalyticResult bf16 = analytic_model("decode_attention", s);
  s.kv_dtype = KvDtype::kFp8E4m3;
  const KvScaleBytes scales = decode_kv_scale_bytes(s);
  EXPECT_DOUBLE_EQ(scales.min_bytes, 64.0);
  EXPECT_DOUBLE_EQ(scales.implemented_bytes, 128.0);
  const AnalyticResult fp8 = analytic_model("decode_attention", s);
  EXPECT_DOUBLE_EQ(fp8.flop, bf16.flop);
  EXPECT_DOUBLE_EQ(fp8.min_dram_bytes, 4096000.0 + 32768.0 + 64.0);
  EXPECT_DOUBLE_EQ(fp8.implemented_dram_bytes, 4096000.0 + 32768.0 + 128.0);
  EXPECT_NE(fp8.bytes_formula.find("fp8_e4m3 KV cache"), std::string::npos) << fp8.bytes_formula;
  EXPECT_NE(fp8.flop_formula.find("dequantizing"), std::string::npos) << fp8.flop_formula;
  EXPECT_DOUBLE_EQ(min_dram_write_bytes("decode_attention", s), 2 * 32 * 128 * 2.0);

  // Paged as well: the block table (504 B once, 4032 B as implemented, as above) adds to both.
  s.kv_layout = KvLayout::kPaged;
  s.page_size = 16;
  const AnalyticResult paged = analytic_model("decode_attention", s);
  EXPECT_DOUBLE_EQ(paged.min_dram_bytes, fp8.min_dram_bytes + 504.0);
  EXPECT_DOUBLE_EQ(paged.implemented_dram_bytes, fp8.implemented_dram_bytes + 4032.0);
  EXPECT_NE(paged.bytes_formula.find("paged KV cache, 16-position pages: 2*B*H_kv*L*d*1"),
            std::string::npos)
      << paged.bytes_formula;

  // g = 32 (H = 64, H_kv = 2): two head chunks each read the scales. B = 1: 16 B once, 32 B.
  s = default_shape(4096);
  s.heads = 64;
  s.kv_heads = 2;
  s.kv_dtype = KvDtype::kFp8E4m3;
  EXPECT_DOUBLE_EQ(decode_kv_scale_bytes(s).min_bytes, 16.0);
  EXPECT_DOUBLE_EQ(decode_kv_scale_bytes(s).implemented_bytes, 32.0);
  s.kv_dtype = KvDtype::kAuto;
  EXPECT_DOUBLE_EQ(decode_kv_scale_bytes(s).implemented_bytes, 0.0);
}

// Query heads per decode block and head chunks by hand (src/core/kernel_tiles.hpp): 1 at g = 1,
// 8 up to g = 8, then 16 up to d = 128 but 8 at d = 256 (a 16-head block does not fit there), so
// g = 16 is one chunk at d = 64, 96 and 128 and two at d = 256, and g = 32 two and four.
TEST(OperatorModel, DecodeHeadsPerBlockDependOnHeadDim) {
  for (const int64_t d : {64, 96, 128}) {
    SCOPED_TRACE(d);
    EXPECT_EQ(decode_max_heads_per_block(d), 16);
    EXPECT_EQ(decode_heads_per_block(1, d), 1);
    EXPECT_EQ(decode_heads_per_block(2, d), 8);
    EXPECT_EQ(decode_heads_per_block(8, d), 8);
    EXPECT_EQ(decode_heads_per_block(16, d), 16);
    EXPECT_EQ(decode_head_chunks(16, d), 1);
    EXPECT_EQ(decode_head_chunks(32, d), 2);
  }
  EXPECT_EQ(decode_max_heads_per_block(256), 8);
  EXPECT_EQ(decode_heads_per_block(1, 256), 1);
  EXPECT_EQ(decode_heads_per_block(2, 256), 8);  // Gemma 2 9B: 16 heads over 8 KV heads
  EXPECT_EQ(decode_heads_per_block(16, 256), 8);
  EXPECT_EQ(decode_head_chunks(8, 256), 1);
  EXPECT_EQ(decode_head_chunks(9, 256), 2);
  EXPECT_EQ(decode_head_chunks(16, 256), 2);
  EXPECT_EQ(decode_head_chunks(32, 256), 4);
}

// The chunks reach the bytes model: g = 16 (H = 32, H_kv = 2), B = 1, L = 4096, P = 128: 32
// entries = 128 bytes once; read by 2 KV heads × 1 chunk = 256 bytes at d = 96 and 128, by 2 × 2
// = 512 at d = 256. FP8 scales likewise: 16 bytes once, 16 × 1 or 16 × 2 as implemented.
TEST(OperatorModel, DecodeHeadChunksAtHeadDim256DoubleTheTableReads) {
  Shape s = default_shape(4096);
  s.heads = 32;
  s.kv_heads = 2;
  s.kv_layout = KvLayout::kPaged;
  s.page_size = 128;
  s.kv_dtype = KvDtype::kFp8E4m3;
  for (const int64_t d : {96, 128, 256}) {
    SCOPED_TRACE(d);
    s.head_dim = d;
    const double chunks = d == 256 ? 2.0 : 1.0;
    EXPECT_DOUBLE_EQ(decode_block_table_bytes(s).min_bytes, 128.0);
    EXPECT_DOUBLE_EQ(decode_block_table_bytes(s).implemented_bytes, 256.0 * chunks);
    EXPECT_DOUBLE_EQ(decode_kv_scale_bytes(s).min_bytes, 16.0);
    EXPECT_DOUBLE_EQ(decode_kv_scale_bytes(s).implemented_bytes, 16.0 * chunks);
    const AnalyticResult r = analytic_model("decode_attention", s);
    // K and V: 2 × 2 × 4096 × d × 1 B; q and o: 2 × 32 × d × 2 B.
    const double kv_and_qo = 2.0 * 2 * 4096 * d + 2.0 * 32 * d * 2;
    EXPECT_DOUBLE_EQ(r.min_dram_bytes, kv_and_qo + 128.0 + 16.0);
    EXPECT_DOUBLE_EQ(r.implemented_dram_bytes, kv_and_qo + (256.0 + 16.0) * chunks);
    EXPECT_NE(r.bytes_formula.find(d == 256 ? "implemented 4*B*H_kv*2*ceil(L/128)"
                                            : "implemented 4*B*H_kv*1*ceil(L/128)"),
              std::string::npos)
        << r.bytes_formula;
  }
}

TEST(OperatorModel, TokensPerSecond) {
  Shape s = default_shape(4096);
  s.batch = 2;
  EXPECT_DOUBLE_EQ(tokens_per_second("flash_attention", s, 1e-3), 8192.0 / 1e-3);
  EXPECT_DOUBLE_EQ(tokens_per_second("decode_attention", s, 1e-3), 2.0 / 1e-3);
  EXPECT_THROW(tokens_per_second("gemm", s, 0.0), Error);
}

TEST(OperatorModel, UnknownOperatorIsBadInput) {
  try {
    analytic_model("conv2d", default_shape(512));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
  }
}

}  // namespace
}  // namespace rooflinectl
