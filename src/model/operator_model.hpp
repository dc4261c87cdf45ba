// Analytic FLOP and DRAM-byte models of the nine operators (pure host code, no CUDA). These are
// what the algorithm implies; the counters say what the hardware did, and reports show both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/kernel_tiles.hpp"
#include "core/layer_widths.hpp"
#include "core/shape.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// The tile of `version` as reported per point, at M = `m` rows: "gemm_v3_wgmma_multicast",
/// "gemm_v2_wgmma_tma" and "gemm_fp8_v1_wgmma" get kGemmWgmmaTile, "gemm_v7_wgmma_n128"
/// kGemmWgmmaN128Tile, "gemm_v8_wgmma_n192" kGemmWgmmaN192Tile, "gemm_v4_skinny_splitk"
/// gemm_skinny_tile(m), "gemm_v6_skinny_wgmma" gemm_skinny_wgmma_tile(m), "gemm_v1_mma_sync"
/// kGemmMmaSyncTile; any other name (older or unknown reports) gets v1's tile.
GemmBlockTile gemm_block_tile(const std::string& version, int64_t m);

/// Number of (query, key) pairs attention computes for L_q = `q_len` queries over L_k = `kv_len`
/// keys: L_q·L_k without a mask; with the bottom-right causal mask (query i sees keys
/// 0..i + L_k − L_q, kCausalMaskAlignment) Σ_i clamp(i + L_k − L_q + 1, 0, L_k), which is
/// L_q·L_k − L_q·(L_q − 1)/2 when L_q ≤ L_k (L·(L+1)/2 at L_q = L_k = L) and L_k·(L_k + 1)/2
/// when L_q > L_k (the first L_q − L_k queries see no key).
double attention_pairs(int64_t q_len, int64_t kv_len, bool causal);

/// FLOPs and DRAM bytes of operator `op` at `shape` (e = 2 bytes per element; formulas as in
/// the design doc's operator table, FlashAttention-2 paper §4.1 for the attention FLOP count):
///   naive_attention:  flop 4·B·H·L_q·L·d (cuBLAS computes every pair, masked or not);
///                     min bytes (2·B·H·L_q + 2·B·H_kv·L)·d·e; implemented adds S and P written
///                     once and read once: + 4·B·H·L_q·L·e
///   flash_attention:  flop 4·B·H·d·attention_pairs(L_q, L, causal); min bytes Q,K,V,O + LSE
///                     (4·B·H·L_q); implemented re-reads K,V once per query tile of Br rows
///                     (flash_streamed_keys)
///   (L_q = shape.query_len(): L unless --q-len sets a chunk of queries over the L keys; the
///   formulas say L² where L_q = L, as reports before --q-len did)
///   gemm:             flop 2·M·N·K with M = B·L, K = d_model, N = ffn_dim (or the shape's
///                     gemm_k, gemm_n); min bytes (MK+KN+MN)·e; implemented adds, at M ≤ 64,
///                     gemm_skinny_partial_bytes (the larger of the two default versions' there:
///                     this model does not know the device); with gemm_dtype fp8_e4m3, min =
///                     implemented = gemm_fp8_min_dram_bytes
///   gelu:             N = B·L·ffn_dim; flop 4·N (erf form) or 8·N (tanh form), counting the
///                     add/mul/FMA-as-2 arithmetic around the special function, which itself is
///                     not counted (SFU work is invisible to the FLOP counters too); bytes 2·N·e
///   layernorm:        N = B·L·d_model; flop 8·N (sum 1, centre 1, square-accumulate 2,
///                     normalize 2, affine 2); bytes 2·N·e + 2·d_model·e
///   decode_attention: flop 4·B·H·L·d (q·k and p·v only: an FP8 cache's dequantization, like
///                     the softmax, is not counted); bytes 2·B·H_kv·L·d·e_kv (KV cache, e_kv =
///                     kv_element_bytes: 1 for fp8_e4m3) + 2·B·H·d·e (q, o), plus for a paged KV
///                     cache the block table (decode_block_table_bytes) and for an FP8 one the
///                     scales (decode_kv_scale_bytes), each min and implemented; the bytes formula
///                     names the layout, page size and KV dtype
///   rmsnorm:          N = B·L·d_model; flop 4·N (square-accumulate 2, normalize 1, scale by γ 1;
///                     Zhang & Sennrich 2019, eq. 4); bytes 2·N·e + d_model·e (x, y, γ)
///   swiglu, geglu:    N = B·L·ffn_dim outputs of act(gate)·up (Shazeer 2020, eqs. 5-6); flop
///                     4·N (SiLU: add, divide, multiply; then the product) for swiglu, 5·N (erf
///                     form) or 9·N (tanh form) for geglu (gelu's count + the product), the
///                     special function itself not counted; bytes 3·N·e (gate, up read; output
///                     written)
/// at the sweep kernels' widths (kernel_layer_widths: d_model = the shape's hidden, else H·d;
/// ffn_dim = the shape's ffn_dim, else 4·d_model).
/// Throws a bad-input Error for an unknown operator name.
AnalyticResult analytic_model(const std::string& op, const Shape& shape);

/// analytic_model at explicit layer widths (a model preset's): gemm is the FFN up projection
/// M = B·L, K = widths.d_model, N = widths.ffn_dim unless the shape's gemm_k, gemm_n say
/// otherwise (a gated FFN's gate projection is a second GEMM of the same size, not included);
/// gelu, swiglu and geglu run over N = B·L·widths.ffn_dim outputs; layernorm and rmsnorm over
/// B·L·widths.d_model. The attention operators depend on `shape` alone. Throws as analytic_model.
AnalyticResult analytic_model(const std::string& op, const Shape& shape, const LayerWidths& widths);

/// A GEMM C[M,N] = X[M,K]·W[K,N] at any M, N, K in `dtype` (the gemm operator's formula, which
/// analytic_model's gemm applies at M = B·L, K = d_model, N = ffn_dim): flop 2·M·N·K (one
/// multiply and one add per term); min bytes = implemented bytes = (M·K + K·N + M·N)·e, X and W
/// read once and C written once. flop_formula names M, N and K with the caller's
/// `dims_text`, e.g. "M = B*L, K = d_model, N = ffn_dim".
AnalyticResult gemm_analytic(int64_t m, int64_t n, int64_t k, Dtype dtype,
                             const std::string& dims_text);

/// Minimum DRAM bytes of an FP8 GEMM (gemm_fp8_v1_wgmma) at (M, N, K): E4M3 X and W read once
/// (M·K + N·K, one byte each), C written once in `out_dtype` (M·N·e), and the two fp32 scales
/// (8). FLOPs are the 16-bit GEMM's, 2·M·N·K. Example: M = N = K = 4096, bf16 C: 67 108 872.
double gemm_fp8_min_dram_bytes(int64_t m, int64_t n, int64_t k, Dtype out_dtype);

/// DRAM bytes of the skinny GEMM `version`'s fp32 partials at (M, N, K): 2·S·M·N·4 (written by
/// each of its S K splits, read back by the reduction; S = gemm_skinny_split(M, N, K).splits for
/// "gemm_v4_skinny_splitk", gemm_skinny_wgmma_split(M, N, K).splits for "gemm_v6_skinny_wgmma")
/// when M ≤ kGemmSkinnyMaxRows and S > 1; 0 otherwise (S = 1 writes C directly; above 64 rows
/// the skinny kernels do not run; any other version writes no partials). An upper bound: L2 may
/// keep the partials until they are read.
double gemm_skinny_partial_bytes(const std::string& version, int64_t m, int64_t n, int64_t k);

/// The larger of v4's and v6's gemm_skinny_partial_bytes at (M, N, K): the implemented bytes of
/// the default version at M ≤ 64, which is v6 on compute capability 9.0 and v4 elsewhere (the
/// analytic model does not know the device, so it keeps the bound that holds for both).
double gemm_skinny_partial_bytes(int64_t m, int64_t n, int64_t k);

/// Block-table bytes decode attention reads over a paged KV cache of P-position pages
/// (kernels/decode_attention.cu; int32 entries, [B, ceil(L/P)]). Both 0 for a contiguous cache.
struct BlockTableBytes {
  double min_bytes = 0;  ///< 4·B·ceil(L/P): each entry once
  /// 4·B·H_kv·C·ceil(L/P), C = decode_head_chunks(g, d): every block reads the entries of its own
  /// keys, so a sequence's row is read once per KV head and head chunk (the entries of the ≤
  /// parts pages a part boundary cuts, read by both parts, are left out: the part count depends
  /// on the device and they add at most 4 bytes per part).
  double implemented_bytes = 0;
};
BlockTableBytes decode_block_table_bytes(const Shape& shape);

/// Scale bytes decode attention reads over an FP8 KV cache (kernels/decode_attention.cu: one fp32
/// scale per KV head for K and one for V, [H_kv] each). Both 0 for a 16-bit cache.
struct KvScaleBytes {
  double min_bytes = 0;  ///< 8·H_kv: each scale once
  /// 8·B·H_kv·C, C = decode_head_chunks(g, d): each block reads its KV head's two scales at the
  /// start of every segment (its keys of one sequence and KV head), so once per sequence, KV head
  /// and head chunk (the ≤ parts extra segments a part boundary makes, 8 bytes each, are left out:
  /// the part count depends on the device).
  double implemented_bytes = 0;
};
KvScaleBytes decode_kv_scale_bytes(const Shape& shape);

/// DRAM bytes the operator's outputs alone take (written once): the write part of the minimum
/// bytes of analytic_model (naive_attention: O; flash_attention: O + LSE; gemm: C; gelu, layernorm,
/// rmsnorm, swiglu, geglu: y; decode_attention: o), at the sweep kernels' widths. Reconciliation
/// splits measured reads and writes with it. Throws a bad-input Error for an unknown operator name.
double min_dram_write_bytes(const std::string& op, const Shape& shape);

/// Keys of one (batch, query head) that the flash kernel streams from K (and V) over all its query
/// tiles of L_q = `q_len` queries over L_k = `kv_len` keys: Σ_t key_end_t with key_end_t = L_k
/// without a mask, clamp(min((t+1)·Br, L_q) + L_k − L_q, 0, L_k) with the bottom-right causal
/// mask (kernels/flash_attention.cu and flash_attention_wgmma.cu stop each query tile at its last
/// row's diagonal). Br = `query_tile_rows`. Non-causal: ceil(L_q/Br)·L_k. Throws a bad-input
/// Error when L_q, L_k or Br ≤ 0.
double flash_streamed_keys(int64_t q_len, int64_t kv_len, bool causal, int64_t query_tile_rows);

/// (query, key) pairs the flash kernel's tensor cores compute for L_q = `q_len` queries over L_k =
/// `kv_len` keys: each of the 4·ceil(L_q/Br) warps (Br = flash_query_tile_rows(head_dim), R =
/// flash_warp_rows(head_dim) rows each, padded rows included) computes whole key tiles of Bc =
/// flash_key_tile_cols(head_dim) keys up to key_end_w = L_k without a mask,
/// clamp(min(R·(w+1), L_q) + L_k − L_q, 0, L_k) with the causal one, masked keys included;
/// counted tensor FLOPs = 4·B·H·d·flash_computed_pairs. Equals L² when L_q = L_k = L is a
/// multiple of Br and of Bc and there is no mask.
double flash_computed_pairs(int64_t q_len, int64_t kv_len, int64_t head_dim, bool causal);

/// As flash_computed_pairs, for flash_attention_v3_wgmma_tma: each ceil(L_q/Br) query tile of Br =
/// kFlashWgmmaQueryTileRows rows (padded rows included) computes whole key tiles of Bc =
/// flash_wgmma_key_tile_cols(head_dim) keys (128 at d = 64, 96 and 128, 80 at 256) up to key_end_t
/// = L_k without a mask, clamp(min(Br·(t+1), L_q) + L_k − L_q, 0, L_k) with the causal one. E.g.
/// L_q = L_k = 1024 causal at d = 128: 36 tiles of 128² per head, 1.124× the 1024·1025/2 visible
/// pairs (measured on the H100: 1.124).
double flash_wgmma_computed_pairs(int64_t q_len, int64_t kv_len, int64_t head_dim, bool causal);

/// Shared memory per SM in bytes, the SRAM size M of the FlashAttention IO analysis, by compute
/// capability, from the CUDA C++ Programming Guide (v13.0), "Technical Specifications per Compute
/// Capability", maximum amount of shared memory per SM: 8.0 → 164 KB, 8.6 / 8.9 → 100 KB,
/// 9.0 → 228 KB, 10.0 → 228 KB, 12.0 → 100 KB (KB = 1024 bytes). nullopt for any other.
std::optional<double> shared_memory_per_sm_bytes(int cc_major, int cc_minor);

/// The FlashAttention IO bound at one shape, in DRAM bytes. Dao et al. 2022 (FlashAttention,
/// arXiv 2205.14135), Theorem 2: with SRAM of M elements, d ≤ M ≤ L·d, FlashAttention makes
/// Θ(L²·d²/M) HBM accesses per head, because each K/V (FA2: each Q) block of ~M/(4d) rows forces
/// one more pass over the other operand. FlashAttention-2 (Dao 2023, arXiv 2307.08691, §3.1,
/// Algorithm 1) keeps the outer loop over query tiles of Br rows, so K and V are read
/// ceil(L/Br) times: bytes = Q + O + LSE + Σ_t key_end_t·2·d·e per (batch, query head).
struct FlashIoBound {
  double sram_bytes = 0;               ///< M: shared memory per SM (shared_memory_per_sm_bytes)
  int64_t paper_query_tile_rows = 0;   ///< Br = min(ceil(M/(4·d·e)), d): the paper's block size
  double paper_io_bytes = 0;           ///< the count above with the paper's Br
  int64_t kernel_query_tile_rows = 0;  ///< the kernel's Br: flash_query_tile_rows(head_dim)
  int64_t kernel_key_tile_cols = 0;    ///< the kernel's Bc: flash_key_tile_cols(head_dim)
  double kernel_io_bytes = 0;          ///< with the kernel's Br: DRAM bytes if L2 kept nothing
  /// Θ's leading term with constant 1: B·H·L²·d²/M_elements·e (shows the L² growth; the two
  /// counts above carry the constants).
  double theta_bytes = 0;
};

/// FlashIoBound at `shape` for SRAM size `sram_bytes`. Throws a bad-input Error when sram_bytes ≤
/// 0.
FlashIoBound flash_io_bound(const Shape& shape, double sram_bytes);

/// DRAM bytes the GEMM reads when L2 keeps nothing between blocks: each of the ceil(N/cols)
/// column blocks reads all of X (M·K) and each of the ceil(M/rows) row blocks all of W (K·N),
/// times e (gemm_input_element_bytes: 1 for FP8 inputs), at the shape's gemm_dims(). The measured
/// reads fall between (M·K + K·N)·e and this.
double gemm_no_reuse_read_bytes(const Shape& shape, const GemmBlockTile& tile);

}  // namespace rooflinectl
