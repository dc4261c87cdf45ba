// flash_attention_v3_wgmma_tma: the Hopper (sm_90a) path of the attention forward, head_dim 64,
// 96, 128 and 256 (FlashWgmmaTraits<64>, <96>, <128>, <256>),
// bf16/fp16 in, fp32 accumulation, O in the input dtype plus the row log-sum-exp in fp32. The
// contract (layouts, bottom-right causal mask, GQA, rows without visible keys) is
// flash_attention_v2_mma_sync's (kernels/flash_attention.cu), which selects this file on compute
// capability 9.0 and keeps v2 elsewhere.
//
// The structure is FlashAttention-3's (Shah et al. 2024, "FlashAttention-3: Fast and Accurate
// Attention with Asynchrony and Low-precision", arXiv 2407.08608, §3.1-3.2, Algorithm 1-2):
//   - warp specialisation: warpgroup 0 is the producer (in one warp, lane 0 issues TMA loads of
//     Q once per query tile and of K and V per key tile, each completing on its own mbarrier);
//     warpgroups 1 and 2 are consumers, 64 query rows each (Br = 128 per block), and
//     setmaxnreg moves registers from the producer (24) to them (240);
//   - S = Q·Kᵀ is wgmma m64nBck16 with both operands in shared memory (Q and K both K-major);
//     O += P·V is wgmma m64nDk16 (D = head_dim) with A = P from registers (the fp32 S accumulator
//     fragment, rounded to pairs, is exactly the register-A fragment of a k16 step) and B = V from
//     shared memory, which is MN-major for this product: transpose-B = 1 (legal for 16-bit types);
//   - K and V tiles of Bc keys (128 at d = 64, 96 and 128; 80 at d = 256, FA3's tile there, so
//     Q and two stages of K and V fit in 227 KiB) flow through a 2-stage ring; a consumer warp
//     hands a stage back with one mbarrier arrive as soon as the wgmma that read it have
//     completed;
//   - intra-warpgroup pipelining (Algorithm 2): the S GEMM of key tile j is issued together with
//     the P·V GEMM of tile j−1, and the softmax of tile j runs while P·V(j−1) is in flight;
//   - ping-pong between the two consumer warpgroups: two named barriers make them take turns
//     issuing their GEMMs, so one warpgroup's softmax overlaps the other's GEMMs;
//   - a persistent grid (one block per SM) pulls (query tile, head, batch) work items from a
//     global queue (an atomic counter, as the dynamic persistent tile scheduler of the FA3 code,
//     Dao-AILab/flash-attention hopper/tile_scheduler.hpp), so a block that drew short causal
//     items draws more (a static round-robin aliased with the grid: at L 16384 block b always
//     drew the same query-tile positions, up to ~3x another block's work). Items are ordered in
//     sections of heads whose K and V fit in a slice of L2 (see FlashWgmmaLaunch::section_heads),
//     the last query tile of every head of a section first: longest causal items first (greedy
//     longest-processing-time), short ones at the end of the launch fill the gaps, and the blocks
//     in flight read the K/V of one or two sections only.
// Online softmax per row in fp32 with exp2 and scale·log2(e) folded into one FFMA; O is
// normalised once at the end (FA2, arXiv 2307.08691, Algorithm 1).
//
// Shared-memory layouts (written by TMA, read through wgmma descriptors): every tile is cut into
// boxes of one swizzle span of columns, [rows][span], each row one swizzle row. 128-byte swizzle
// at d = 64, 128 and 256 (boxes of 64 d: d 0-63, 64-127, ...); 64-byte swizzle at d = 96, whose
// 192-byte rows are no whole number of 128-byte spans (3 boxes of 32 d; FlashWgmmaTraits):
//   Q: d/span boxes of [128 rows][span], 16 KiB (8 KiB at d = 96) each; consumer c reads rows
//      64c..64c+63;
//   K, V stage: d/span boxes of [Bc keys][span] each (16 KiB at Bc = 128, 10 KiB at 80, 8 KiB at
//      d = 96).
// S descriptors (K-major A and B): a k16 step is +32 B inside a swizzle row; stride byte offset
// one atom (next 8 rows: 1024 B, 512 at d = 96). V descriptor (MN-major B): a k16 step is 16 keys
// (16 swizzle rows); leading byte offset = one box (next span of N = d), stride byte offset one
// atom (next 8 keys).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/error.hpp"
#include "core/kernel_tiles.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/common/fast_math.hpp"
#include "kernels/common/hopper_ptx.hpp"
#include "kernels/common/pack_pair.hpp"
#include "kernels/common/sm90_host.hpp"
#include "kernels/flash_attention_wgmma.hpp"

namespace rooflinectl {
namespace {

/// Compile-time tiling of flash_attention_wgmma_fwd at head_dim kHeadDimValue (64, 96, 128 or
/// 256); derives the shared-memory plan. Sizes noted as "d 64 / 96 / 128 / 256".
template <int kHeadDimValue>
struct FlashWgmmaTraits {
  static constexpr int kHeadDim = kHeadDimValue;
  static constexpr int kBlockM = kFlashWgmmaQueryTileRows;  ///< query rows per work item (Br)
  static constexpr int kBlockN = flash_wgmma_key_tile_cols(kHeadDim);  ///< keys per K/V tile (Bc)
  static constexpr int kConsumers = 2;
  static constexpr int kWgmmaM = 64;  ///< rows per consumer warpgroup
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kStages = 2;
  static constexpr int kSAccumulators = kWgmmaM * kBlockN / 128;   ///< S fp32: 64/64/64/40
  static constexpr int kOAccumulators = kWgmmaM * kHeadDim / 128;  ///< O fp32: 32/48/64/128
  static constexpr int kKSteps = kHeadDim / 16;                    ///< k16 steps of S = Q·Kᵀ
  static constexpr int kPSteps = kBlockN / 16;                     ///< k16 steps of O += P·V

  static constexpr int kElemBytes = 2;
  /// The widest swizzle whose span divides a row: 128 B where a row is whole 128-byte spans
  /// (d 64, 128, 256), 64 B at d 96 (a 192-byte row is 1.5 spans of 128 B but 3 of 64 B). P·V
  /// reads V MN-major with N = d, and a canonical MN-major layout is a whole number of
  /// swizzle-span columns (PTX ISA, "Shared Memory Matrix Layout": ((T,8,m),(8,k)) at 128 B,
  /// ((T,4,m),(8,k)) at 64 B, T = 8 16-bit elements), so d 96 cannot use 128-byte boxes.
  static constexpr int kSwizzleBytes = kHeadDim * kElemBytes % 128 == 0 ? 128 : 64;
  static constexpr int kBoxCols = kSwizzleBytes / kElemBytes;  ///< d per TMA box: 64/32/64/64
  static constexpr int kBoxes = kHeadDim / kBoxCols;           ///< boxes per tile: 1/3/2/4
  static constexpr int kStepsPerBox = kBoxCols / 16;           ///< k16 steps per box: 4/2/4/4
  static constexpr int kQBoxBytes = kBlockM * kSwizzleBytes;   ///< 16/8/16/16 KiB
  static constexpr int kQBytes = kBoxes * kQBoxBytes;          ///< 16/24/32/64 KiB
  static constexpr int kKvBoxBytes = kBlockN * kSwizzleBytes;  ///< 16/8/16/10 KiB
  static constexpr int kKvBytes = kBoxes * kKvBoxBytes;        ///< 16/24/32/40 KiB per K or V
  static constexpr int kAtomBytes = 8 * kSwizzleBytes;  ///< swizzle atom: 1024 B, 512 at d 96
  /// Alignment of the tile base and of every box: 1024 B, the 128-byte swizzle's atom and a
  /// multiple of the 64-byte one's (TMA and wgmma apply the swizzle to address bits, so a box
  /// must start where the pattern starts; descriptor base offset 0).
  static constexpr int kAlignBytes = 1024;
  /// 82,944 / 123,904 / 164,864 / 230,400 B (Q + 2 stages of K and V + alignment slack).
  static constexpr int kSmemBytes = kQBytes + 2 * kStages * kKvBytes + kAlignBytes;
  /// Static shared memory beside it (mbarriers, the work-item slot) stays below this.
  static constexpr int kStaticSmemBytes = 128;

  // Block-pool registers: 168 per thread at launch (65536 / 384, rounded down to 8) = 64512;
  // 24 · 128 + 240 · 256 = 64512, so the consumers' setmaxnreg.inc is always satisfiable.
  static constexpr int kProducerRegisters = 24;
  static constexpr int kConsumerRegisters = 240;
  static constexpr int kLaunchRegisters = 168;
  // Named barriers 1 and 2 (0 is __syncthreads): "consumer c may issue its GEMMs".
  static constexpr int kSchedulerBarrier = 1;
  static constexpr int kSchedulerThreads = 128 * kConsumers;
  // The work-item handoff through item_slot (see flash_attention_wgmma_fwd). Barrier 3, "the
  // slot may be rewritten": the producer warp waits, every consumer thread arrives. Barriers 4
  // and 5, "consumer c may read the slot": the producer warp arrives, consumer c waits; one per
  // consumer, so neither consumer waits for the other to finish its item.
  static constexpr int kItemEmptyBarrier = 3;
  static constexpr int kItemEmptyThreads = 32 + 128 * kConsumers;
  static constexpr int kItemFullBarrier = 4;
  static constexpr int kItemFullThreads = 32 + 128;

  static_assert(kBlockM == kConsumers * kWgmmaM, "each consumer owns one m64 slab");
  static_assert(kSchedulerBarrier + kConsumers <= kItemEmptyBarrier &&
                    kItemEmptyBarrier < kItemFullBarrier && kItemFullBarrier + kConsumers <= 16,
                "named barrier ids are distinct and below 16");
  static_assert(
      kHeadDim % kBoxCols == 0 && kBlockN % 16 == 0 && kBlockN <= 256 && kHeadDim <= 256,
      "wgmma N (Bc for S, d for P·V) is a multiple of 8 up to 256 and d whole swizzle-span "
      "columns of V; K of P·V is k16 steps");
  static_assert(kBoxCols % 16 == 0, "a k16 step of S (32 B) stays inside one swizzle row");
  static_assert(kHeadDim % 16 == 0, "the epilogue stores O in whole 16-column (32 B) sectors");
  static_assert(kAlignBytes % kAtomBytes == 0 && kQBoxBytes % kAlignBytes == 0 &&
                    kKvBoxBytes % kAlignBytes == 0 && (kWgmmaM * kSwizzleBytes) % kAtomBytes == 0,
                "every box, and each consumer's 64 rows of Q, start on a swizzle atom");
  static_assert(kSmemBytes + kStaticSmemBytes <= 227 * 1024,
                "sm_90 opt-in shared memory per block (dynamic + static)");
  static_assert(kProducerRegisters * 128 + kConsumerRegisters * 128 * kConsumers <=
                    kLaunchRegisters * kThreads,
                "setmaxnreg redistributes the block's registers, it cannot add any");
  static_assert(kProducerRegisters % 8 == 0 && kConsumerRegisters % 8 == 0,
                "setmaxnreg takes multiples of 8");
};

/// Kernel arguments besides the tensor maps (see FlashWgmmaLaunch).
struct FlashWgmmaParams {
  void* o;
  float* lse;
  unsigned int* queue;  ///< [0] items claimed past the first wave, [1] blocks finished
  int heads, group, q_len, kv_len, q_tiles, tiles;
  int section_heads, wide_sections;
  float scale, scale_log2;
  bool causal;
};

/// One work item: query rows m0..m0+127 of head `bh` (batch·heads + head), reading K/V head
/// `kv_bh`, over key tiles 0..n_tiles−1 (0 when causal hides every key from these rows).
struct WorkItem {
  int m0;
  int bh;
  int kv_bh;
  int n_tiles;
};

/// Work item `tile`: batch·heads is cut into sections of consecutive heads (the first
/// wide_sections have section_heads + 1 heads, the rest section_heads); items are numbered
/// section by section, and inside a section query tile by query tile, the last query tile first,
/// head by head. The causal key range is v2's: row i sees key j iff j <= i + (kv_len − q_len)
/// (bottom-right).
template <class Tr>
__device__ __forceinline__ WorkItem work_item(const FlashWgmmaParams& p, int tile) {
  const int wide_items = p.wide_sections * (p.section_heads + 1) * p.q_tiles;
  int heads_here = p.section_heads + 1;
  int first_bh = 0;
  int offset = tile;  // item number inside its section
  if (tile >= wide_items) {
    heads_here = p.section_heads;
    first_bh = p.wide_sections * (p.section_heads + 1);
    offset = tile - wide_items;
  }
  const int section = offset / (heads_here * p.q_tiles);
  first_bh += section * heads_here;
  offset -= section * heads_here * p.q_tiles;
  const int step = offset / heads_here;  // 0: the last query tile
  WorkItem w;
  w.bh = first_bh + offset - step * heads_here;
  w.m0 = (p.q_tiles - 1 - step) * Tr::kBlockM;
  const int batch = w.bh / p.heads;
  const int head = w.bh - batch * p.heads;
  w.kv_bh = batch * (p.heads / p.group) + head / p.group;
  int key_end = p.kv_len;
  if (p.causal) key_end = min(p.kv_len, min(w.m0 + Tr::kBlockM, p.q_len) + p.kv_len - p.q_len);
  w.n_tiles = key_end > 0 ? (key_end + Tr::kBlockN - 1) / Tr::kBlockN : 0;
  return w;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

#define RFL_F8(d, i)                                                                          \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define RFL_ACC32(d) RFL_F8(d, 0), RFL_F8(d, 8), RFL_F8(d, 16), RFL_F8(d, 24)
#define RFL_ACC40(d) RFL_F8(d, 0), RFL_F8(d, 8), RFL_F8(d, 16), RFL_F8(d, 24), RFL_F8(d, 32)
#define RFL_ACC48(d) RFL_ACC40(d), RFL_F8(d, 40)
#define RFL_ACC64(d)                                                                      \
  RFL_F8(d, 0), RFL_F8(d, 8), RFL_F8(d, 16), RFL_F8(d, 24), RFL_F8(d, 32), RFL_F8(d, 40), \
      RFL_F8(d, 48), RFL_F8(d, 56)
#define RFL_ACC128(d)                                                                      \
  RFL_ACC64(d), RFL_F8(d, 64), RFL_F8(d, 72), RFL_F8(d, 80), RFL_F8(d, 88), RFL_F8(d, 96), \
      RFL_F8(d, 104), RFL_F8(d, 112), RFL_F8(d, 120)
#define RFL_D32                                                                                \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
  " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define RFL_D40                                                                                \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
  " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
  " %38, %39}"
#define RFL_D48                                                                                \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
  " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
  " %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}"
#define RFL_D64                                                                                \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
  " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
  " %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
  " %56, %57, %58, %59, %60, %61, %62, %63}"
#define RFL_D128                                                                               \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
  " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
  " %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
  " %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73," \
  " %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91," \
  " %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107,"   \
  " %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122," \
  " %123, %124, %125, %126, %127}"

// m64n128k16 (d 128) and m64n80k16 (d 256), A and B from shared memory, both K-major
// (imm-trans-a = imm-trans-b = 0); the two operands after D are the descriptors, the next one
// selects D = A·B + D (1) or D = A·B (0).
#define RFL_WGMMA_M64N128K16_SS(TYPE, d, desc_a, desc_b, accumulate)           \
  asm volatile(                                                                \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                             \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " " RFL_D64 \
      ", %64, %65, p, 1, 1, 0, 0;\n}\n"                                        \
      : RFL_ACC64(d)                                                           \
      : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define RFL_WGMMA_M64N80K16_SS(TYPE, d, desc_a, desc_b, accumulate)           \
  asm volatile(                                                               \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"                            \
      "wgmma.mma_async.sync.aligned.m64n80k16.f32." TYPE "." TYPE " " RFL_D40 \
      ", %40, %41, p, 1, 1, 0, 0;\n}\n"                                       \
      : RFL_ACC40(d)                                                          \
      : "l"(desc_a), "l"(desc_b), "r"(accumulate))

// m64n64k16 (d 64), m64n96k16 (d 96), m64n128k16 (d 128) and m64n256k16 (d 256), A from
// registers (the four operands after D: the m16n8k16-style A fragment of each warp's 16 rows), B
// from shared memory MN-major (imm-trans-b = 1); scale-d is a true predicate: D = A·B + D.
#define RFL_WGMMA_M64N64K16_RS(TYPE, d, a, desc_b)                            \
  asm volatile(                                                               \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                            \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPE "." TYPE " " RFL_D32 \
      ", {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"                         \
      : RFL_ACC32(d)                                                          \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1))
#define RFL_WGMMA_M64N96K16_RS(TYPE, d, a, desc_b)                            \
  asm volatile(                                                               \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %53, 0;\n"                            \
      "wgmma.mma_async.sync.aligned.m64n96k16.f32." TYPE "." TYPE " " RFL_D48 \
      ", {%48, %49, %50, %51}, %52, p, 1, 1, 1;\n}\n"                         \
      : RFL_ACC48(d)                                                          \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1))
#define RFL_WGMMA_M64N128K16_RS(TYPE, d, a, desc_b)                            \
  asm volatile(                                                                \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"                             \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " " RFL_D64 \
      ", {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"                          \
      : RFL_ACC64(d)                                                           \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1))
#define RFL_WGMMA_M64N256K16_RS(TYPE, d, a, desc_b)                             \
  asm volatile(                                                                 \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                             \
      "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE " " RFL_D128 \
      ", {%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}\n"                      \
      : RFL_ACC128(d)                                                           \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1))

/// One k16 step of S = Q·Kᵀ into d (64 fp32: N = 128; 40: N = 80).
template <class T, int kN>
__device__ __forceinline__ void wgmma_qk(float (&d)[kN], uint64_t desc_a, uint64_t desc_b,
                                         int accumulate) {
  static_assert(kN == 64 || kN == 40, "S is m64n128 (d 128) or m64n80 (d 256)");
  constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
  if constexpr (kN == 64 && kBf16) {
    RFL_WGMMA_M64N128K16_SS("bf16", d, desc_a, desc_b, accumulate);
  } else if constexpr (kN == 64) {
    RFL_WGMMA_M64N128K16_SS("f16", d, desc_a, desc_b, accumulate);
  } else if constexpr (kBf16) {
    RFL_WGMMA_M64N80K16_SS("bf16", d, desc_a, desc_b, accumulate);
  } else {
    RFL_WGMMA_M64N80K16_SS("f16", d, desc_a, desc_b, accumulate);
  }
}

/// One k16 step of O += P·V into d (kN fp32 = d / 2: N = d = 64, 96, 128 or 256).
template <class T, int kN>
__device__ __forceinline__ void wgmma_pv(float (&d)[kN], const uint32_t* a, uint64_t desc_b) {
  static_assert(kN == 32 || kN == 48 || kN == 64 || kN == 128,
                "O is m64n64 (d 64), m64n96 (d 96), m64n128 (d 128) or m64n256 (d 256)");
  constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
  if constexpr (kN == 64 && kBf16) {
    RFL_WGMMA_M64N128K16_RS("bf16", d, a, desc_b);
  } else if constexpr (kN == 64) {
    RFL_WGMMA_M64N128K16_RS("f16", d, a, desc_b);
  } else if constexpr (kN == 32 && kBf16) {
    RFL_WGMMA_M64N64K16_RS("bf16", d, a, desc_b);
  } else if constexpr (kN == 32) {
    RFL_WGMMA_M64N64K16_RS("f16", d, a, desc_b);
  } else if constexpr (kN == 48 && kBf16) {
    RFL_WGMMA_M64N96K16_RS("bf16", d, a, desc_b);
  } else if constexpr (kN == 48) {
    RFL_WGMMA_M64N96K16_RS("f16", d, a, desc_b);
  } else if constexpr (kBf16) {
    RFL_WGMMA_M64N256K16_RS("bf16", d, a, desc_b);
  } else {
    RFL_WGMMA_M64N256K16_RS("f16", d, a, desc_b);
  }
}

template <int kN>
__device__ __forceinline__ void fence_all(float (&x)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) register_fence(x[i]);
}

template <int kN>
__device__ __forceinline__ void fence_all(uint32_t (&x)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) register_fence(x[i]);
}

/// Issues S = Q·Kᵀ for this consumer's 64 rows and one K tile (d/16 wgmma, one commit group).
/// Both operands K-major: a k16 step is 32 B further along a swizzle row of its box (4 steps per
/// 128-byte box, 2 per 64-byte one), the stride byte offset one atom (the next 8 rows); the
/// leading byte offset is unused (a k16 step never leaves the swizzle span).
template <class T, class Tr>
__device__ __forceinline__ void issue_qk(float (&s)[Tr::kSAccumulators], uint32_t q_rows,
                                         uint32_t k_tile) {
  // q_rows is the same for the whole consumer loop, so the compiler hoists every Q descriptor out
  // of it: 16 registers at d = 256, where O (128), S (40) and P (20) leave too few under 240
  // (ptxas spilled 28 B). An empty asm that "changes" q_rows makes it rebuild them at each issue
  // (one add per k16 step). d = 128 has room for its 8 and keeps them hoisted.
  if constexpr (Tr::kHeadDim > 128) asm volatile("" : "+r"(q_rows));
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < Tr::kKSteps; ++kk) {
    const uint32_t step = (kk / Tr::kStepsPerBox) * Tr::kQBoxBytes + (kk % Tr::kStepsPerBox) * 32;
    const uint32_t k_step =
        (kk / Tr::kStepsPerBox) * Tr::kKvBoxBytes + (kk % Tr::kStepsPerBox) * 32;
    wgmma_qk<T>(s, swizzled_descriptor<Tr::kSwizzleBytes>(q_rows + step, 16, Tr::kAtomBytes),
                swizzled_descriptor<Tr::kSwizzleBytes>(k_tile + k_step, 16, Tr::kAtomBytes),
                kk > 0 ? 1 : 0);
  }
  wgmma_commit();
}

/// Issues O += P·V for one V tile (Bc/16 wgmma, one commit group); p holds 4 registers per k16
/// step. V is MN-major: a k16 step is 16 keys = 16 swizzle rows in every box (Bc = 80: 5 steps,
/// the box's 10 groups of 8 keys); the stride byte offset is one atom (the next 8 keys), the
/// leading byte offset one box (the next kBoxCols columns of N = d), so N = d spans the tile's
/// boxes: 3 of 32 columns at d 96, 2 or 4 of 64 at d 128 and 256.
template <class T, class Tr>
__device__ __forceinline__ void issue_pv(float (&o)[Tr::kOAccumulators],
                                         const uint32_t (&p)[4 * Tr::kPSteps], uint32_t v_tile) {
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < Tr::kPSteps; ++kk) {
    wgmma_pv<T>(o, p + 4 * kk,
                swizzled_descriptor<Tr::kSwizzleBytes>(v_tile + kk * 16 * Tr::kSwizzleBytes,
                                                       Tr::kKvBoxBytes, Tr::kAtomBytes));
  }
  wgmma_commit();
}

/// Per-thread softmax state of the thread's two rows (wgmma D layout: rows lane/4 and lane/4 + 8
/// of the warp's 16; s[4j + 2r + c] is row r, key 8j + 2·(lane%4) + c of the tile).
struct RowState {
  float max[2];  ///< running maximum of the raw scores, −inf before any visible key
  float sum[2];  ///< running sum of this thread's probabilities (quad-reduced at the end)
};

/// −inf for scores of keys past kv_len or, under the causal mask, right of row + diag.
template <class Tr>
__device__ __forceinline__ void mask_scores(float (&s)[Tr::kSAccumulators], int key0, int row0,
                                            int kv_len, bool causal, int diag) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
#pragma unroll
  for (int j = 0; j < Tr::kBlockN / 8; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int key = key0 + 8 * j + 2 * (lane % 4) + e % 2;
      const int row = row0 + 8 * (e / 2);
      if (key >= kv_len || (causal && key > row + diag)) s[4 * j + e] = -INFINITY;
    }
  }
}

/// Online softmax of one S tile (FA2 Algorithm 1, lines 8-10): updates the row maxima and sums,
/// turns s into probabilities exp2(s·scale_log2 − max·scale_log2) and returns in `correction`
/// the factor the O accumulator must be scaled by. A row whose maximum is still −inf subtracts
/// 0 instead, so its masked scores give exp2(−inf) = 0, not NaN.
template <class Tr>
__device__ __forceinline__ void online_softmax(float (&s)[Tr::kSAccumulators], RowState& st,
                                               float scale_log2, float (&correction)[2]) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float tile_max = st.max[r];
#pragma unroll
    for (int j = 0; j < Tr::kBlockN / 8; ++j) {
      tile_max = fmaxf(tile_max, fmaxf(s[4 * j + 2 * r], s[4 * j + 2 * r + 1]));
    }
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
    const float max_scaled = tile_max == -INFINITY ? 0.f : tile_max * scale_log2;
    correction[r] = ex2_approx(st.max[r] * scale_log2 - max_scaled);  // 0 while max was −inf
    st.max[r] = tile_max;
    float tile_sum = 0.f;
#pragma unroll
    for (int j = 0; j < Tr::kBlockN / 8; ++j) {
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const float prob = ex2_approx(fmaf(s[4 * j + 2 * r + c], scale_log2, -max_scaled));
        s[4 * j + 2 * r + c] = prob;
        tile_sum += prob;
      }
    }
    st.sum[r] = st.sum[r] * correction[r] + tile_sum;
  }
}

/// P for O += P·V: the D fragment of S columns 16kk..16kk+15 is the A fragment of k16 step kk
/// (a0: row r, cols +0/1; a1: row r+8; a2: row r, cols +8/9; a3: row r+8, cols +8/9).
template <class T, class Tr>
__device__ __forceinline__ void pack_probabilities(const float (&s)[Tr::kSAccumulators],
                                                   uint32_t (&p)[4 * Tr::kPSteps]) {
#pragma unroll
  for (int i = 0; i < 4 * Tr::kPSteps; ++i) {
    p[i] = pack_pair<T>(s[2 * i], s[2 * i + 1]);
  }
}

template <class Tr>
__device__ __forceinline__ void scale_rows(float (&o)[Tr::kOAccumulators],
                                           const float (&factor)[2]) {
#pragma unroll
  for (int j = 0; j < Tr::kHeadDim / 8; ++j) {
    o[4 * j] *= factor[0];
    o[4 * j + 1] *= factor[0];
    o[4 * j + 2] *= factor[1];
    o[4 * j + 3] *= factor[1];
  }
}

#endif

/// Persistent forward kernel: block b runs work item b, then items it claims from p.queue (see
/// work_item for the order). The producer claims the next item once it has issued every load of
/// the current one (about two key tiles before the consumers finish it: late enough that the
/// queue stays greedy, early enough to hide the atomic's latency) and hands it to the consumers
/// through one shared-memory slot, item_slot (accessed with atomics), ordered by named barriers
/// (kItemEmptyBarrier, kItemFullBarrier + c); the value p.tiles ends the loop. The last block to
/// finish sets both counters back to 0 for the next launch.
template <class T, int kHeadDim>
__global__ void __launch_bounds__(FlashWgmmaTraits<kHeadDim>::kThreads, 1)
    flash_attention_wgmma_fwd(const __grid_constant__ CUtensorMap q_map,
                              const __grid_constant__ CUtensorMap k_map,
                              const __grid_constant__ CUtensorMap v_map, const FlashWgmmaParams p) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Tr = FlashWgmmaTraits<kHeadDim>;
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t q_full, q_empty;
  __shared__ __align__(8) uint64_t k_full[Tr::kStages], k_empty[Tr::kStages];
  __shared__ __align__(8) uint64_t v_full[Tr::kStages], v_empty[Tr::kStages];
  __shared__ int item_slot;
  const uint32_t smem_base = (smem_u32(smem_raw) + Tr::kAlignBytes - 1) & ~(Tr::kAlignBytes - 1);
  const uint32_t q_tile = smem_base;
  const auto k_tile = [&](int s) { return smem_base + Tr::kQBytes + s * Tr::kKvBytes; };
  const auto v_tile = [&](int s) {
    return smem_base + Tr::kQBytes + (Tr::kStages + s) * Tr::kKvBytes;
  };
  constexpr int kConsumerWarps = Tr::kConsumers * 4;  // one arrive per consumer warp

  if (threadIdx.x == 0) {
    mbarrier_init(smem_u32(&q_full), 1);  // the producer's arrive; TMA adds the bytes
    mbarrier_init(smem_u32(&q_empty), kConsumerWarps);
    for (int s = 0; s < Tr::kStages; ++s) {
      mbarrier_init(smem_u32(&k_full[s]), 1);
      mbarrier_init(smem_u32(&v_full[s]), 1);
      mbarrier_init(smem_u32(&k_empty[s]), kConsumerWarps);
      mbarrier_init(smem_u32(&v_empty[s]), kConsumerWarps);
    }
    mbarrier_init_fence();
  }
  __syncthreads();

  const int warpgroup = static_cast<int>(threadIdx.x) / 128;

  // Both sides walk the same work items (the producer publishes each in item_slot) and number
  // the key tiles they stream the same way (kv_iter, across items): tile kv_iter lives in stage
  // kv_iter % 2 with phase (kv_iter / 2) % 2.
  //
  // The slot handoff is ordered by named barriers, not mbarriers: compute-sanitizer's racecheck
  // does not take an mbarrier arrive/wait as ordering plain shared-memory accesses and reports
  // the slot's write and reads as hazards. PTX ISA, "bar, barrier": the accesses a thread makes
  // before bar.arrive or bar.sync are performed relative to every participating thread once the
  // barrier completes; bar.arrive does not wait; a completed barrier is reinitialised for its
  // next use. Per item k: the producer waits on kItemEmptyBarrier (phase k − 1: every consumer
  // has read item k − 1; not before the first item), writes the slot and arrives on
  // kItemFullBarrier + c for c = 0, 1; consumer c waits on its full barrier, reads the slot and,
  // unless it read the end value, arrives on kItemEmptyBarrier. No barrier gets arrivals of two
  // phases at once: phase k + 1 of a full barrier needs the producer past empty phase k, which
  // needs both consumers past full phase k, and a consumer's empty arrival for item k + 1 needs
  // full phase k + 1.
  // The slot itself is written and read with shared-memory atomics (atomicExch; atomicOr of 0 by
  // lane 0 of each consumer warp, then a shuffle): with plain accesses racecheck still reports
  // the read of item k against the write of item k + 1, whose order comes from the consumers'
  // bar.arrive and the producer's bar.sync. Atomic accesses to one location are morally strong
  // and never form a data race (PTX ISA, "Memory Consistency Model"); the barriers above still
  // give the order, so every consumer reads each item exactly once.
  if (warpgroup == 0) {
    setmaxnreg_dec<Tr::kProducerRegisters>();
    // Warp 0 runs the producer loop; its lane 0 issues every mbarrier arrive, TMA load and claim
    // and writes the slot, the other lanes only wait with it (a claimed item reaches them by
    // shuffle) and take part in the named barriers of the handoff.
    if (threadIdx.x >= 32) return;
    const bool leader = threadIdx.x == 0;
    int kv_iter = 0;
    uint32_t q_phase = 0;
    for (int tile = static_cast<int>(blockIdx.x), item = 0;; ++item) {
      if (item > 0) named_barrier_sync(Tr::kItemEmptyBarrier, Tr::kItemEmptyThreads);
      if (leader) atomicExch(&item_slot, tile);
      __syncwarp();  // bar is .aligned: the whole warp executes each arrive together
#pragma unroll
      for (int c = 0; c < Tr::kConsumers; ++c) {
        named_barrier_arrive(Tr::kItemFullBarrier + c, Tr::kItemFullThreads);
      }
      if (tile >= p.tiles) break;
      const WorkItem w = work_item<Tr>(p, tile);
      if (w.n_tiles > 0) {
        mbarrier_wait(smem_u32(&q_empty), q_phase ^ 1);  // the consumers' last S GEMM of the
        q_phase ^= 1;                                    // previous item has read Q
        if (leader) {
          mbarrier_arrive_expect_tx(smem_u32(&q_full), Tr::kQBytes);
#pragma unroll
          for (int b = 0; b < Tr::kBoxes; ++b) {
            tma_load_3d(q_tile + b * Tr::kQBoxBytes, &q_map, smem_u32(&q_full), b * Tr::kBoxCols,
                        w.m0, w.bh);
          }
        }
      }
      for (int j = 0; j < w.n_tiles; ++j, ++kv_iter) {
        const int stage = kv_iter % Tr::kStages;
        const uint32_t empty_parity = ((kv_iter / Tr::kStages) & 1) ^ 1;
        mbarrier_wait(smem_u32(&k_empty[stage]), empty_parity);
        if (leader) {
          mbarrier_arrive_expect_tx(smem_u32(&k_full[stage]), Tr::kKvBytes);
#pragma unroll
          for (int b = 0; b < Tr::kBoxes; ++b) {
            tma_load_3d(k_tile(stage) + b * Tr::kKvBoxBytes, &k_map, smem_u32(&k_full[stage]),
                        b * Tr::kBoxCols, j * Tr::kBlockN, w.kv_bh);
          }
        }
        mbarrier_wait(smem_u32(&v_empty[stage]), empty_parity);
        if (leader) {
          mbarrier_arrive_expect_tx(smem_u32(&v_full[stage]), Tr::kKvBytes);
#pragma unroll
          for (int b = 0; b < Tr::kBoxes; ++b) {
            tma_load_3d(v_tile(stage) + b * Tr::kKvBoxBytes, &v_map, smem_u32(&v_full[stage]),
                        b * Tr::kBoxCols, j * Tr::kBlockN, w.kv_bh);
          }
        }
      }
      unsigned int claimed = 0;
      if (leader) claimed = atomicAdd(p.queue, 1u) + gridDim.x;
      claimed = __shfl_sync(0xffffffffu, claimed, 0);
      tile = static_cast<int>(min(claimed, static_cast<unsigned int>(p.tiles)));
    }
    // Every claim of this block is ordered before its "finished" count; the last block to count
    // comes after all claims of the launch and resets the queue.
    if (leader) {
      __threadfence();
      if (atomicAdd(p.queue + 1, 1u) == gridDim.x - 1) {
        atomicExch(p.queue, 0u);
        atomicExch(p.queue + 1, 0u);
      }
    }
    return;
  }

  setmaxnreg_inc<Tr::kConsumerRegisters>();
  const int consumer = warpgroup - 1;
  const int thread = static_cast<int>(threadIdx.x) % 128;
  const int lane = thread % 32;
  const int warp = thread / 32;
  const bool warp_leader = lane == 0;
  const int diag = p.kv_len - p.q_len;
  const uint32_t q_rows = q_tile + consumer * Tr::kWgmmaM * Tr::kSwizzleBytes;
  // Ping-pong: consumer c issues its GEMMs after the other one has issued its own (barrier
  // kSchedulerBarrier + c), then lets the other go. Consumer 1 lets consumer 0 start.
  const auto wait_turn = [&] {
    named_barrier_sync(Tr::kSchedulerBarrier + consumer, Tr::kSchedulerThreads);
  };
  const auto pass_turn = [&] {
    named_barrier_arrive(Tr::kSchedulerBarrier + (consumer ^ 1), Tr::kSchedulerThreads);
  };
  if (consumer == 1) pass_turn();

  float s[Tr::kSAccumulators];
  float o[Tr::kOAccumulators];
  uint32_t pr[4 * Tr::kPSteps];
#pragma unroll
  for (int i = 0; i < Tr::kSAccumulators; ++i) s[i] = 0.f;

  int kv_iter = 0;
  uint32_t q_phase = 0;
  for (;;) {
    named_barrier_sync(Tr::kItemFullBarrier + consumer, Tr::kItemFullThreads);
    int tile = 0;
    if (lane == 0) tile = atomicOr(&item_slot, 0);
    tile = __shfl_sync(0xffffffffu, tile, 0);
    if (tile >= p.tiles) break;  // the producer has stopped waiting on kItemEmptyBarrier
    named_barrier_arrive(Tr::kItemEmptyBarrier, Tr::kItemEmptyThreads);
    const WorkItem w = work_item<Tr>(p, tile);
    const int wg_row0 = w.m0 + consumer * Tr::kWgmmaM;  // first row of this warpgroup
    const int row0 = wg_row0 + warp * 16 + lane / 4;    // this thread's rows: row0, row0 + 8
    RowState st;
    st.max[0] = st.max[1] = -INFINITY;
    st.sum[0] = st.sum[1] = 0.f;
#pragma unroll
    for (int i = 0; i < Tr::kOAccumulators; ++i) o[i] = 0.f;

    if (w.n_tiles > 0) {
      const auto stage_of = [](int it) { return it % Tr::kStages; };
      const auto parity_of = [](int it) { return static_cast<uint32_t>((it / Tr::kStages) & 1); };
      const auto release = [&](uint64_t* bars, int it) {
        if (warp_leader) mbarrier_arrive(smem_u32(&bars[stage_of(it)]));
      };
      const auto needs_mask = [&](int j) {
        const int key0 = j * Tr::kBlockN;
        return key0 + Tr::kBlockN > p.kv_len ||
               (p.causal && key0 + Tr::kBlockN - 1 > wg_row0 + diag);
      };
      float correction[2];

      mbarrier_wait(smem_u32(&q_full), q_phase);
      q_phase ^= 1;
      mbarrier_wait(smem_u32(&k_full[stage_of(kv_iter)]), parity_of(kv_iter));
      wait_turn();
      issue_qk<T, Tr>(s, q_rows, k_tile(stage_of(kv_iter)));
      pass_turn();
      wgmma_wait<0>();
      fence_all(s);
      release(k_empty, kv_iter);
      if (w.n_tiles == 1 && warp_leader) mbarrier_arrive(smem_u32(&q_empty));
      if (needs_mask(0)) mask_scores<Tr>(s, 0, row0, p.kv_len, p.causal, diag);
      online_softmax<Tr>(s, st, p.scale_log2, correction);
      pack_probabilities<T, Tr>(s, pr);

      for (int j = 1; j < w.n_tiles; ++j) {
        const int k_it = kv_iter + j;  // K tile j
        const int v_it = k_it - 1;     // V tile j − 1
        mbarrier_wait(smem_u32(&k_full[stage_of(k_it)]), parity_of(k_it));
        mbarrier_wait(smem_u32(&v_full[stage_of(v_it)]), parity_of(v_it));
        wait_turn();
        fence_all(o);
        fence_all(pr);
        issue_qk<T, Tr>(s, q_rows, k_tile(stage_of(k_it)));
        issue_pv<T, Tr>(o, pr, v_tile(stage_of(v_it)));
        pass_turn();
        wgmma_wait<1>();  // S(j) is complete; P·V(j − 1) may still run
        fence_all(s);
        release(k_empty, k_it);
        if (j == w.n_tiles - 1 && warp_leader) mbarrier_arrive(smem_u32(&q_empty));
        if (needs_mask(j)) mask_scores<Tr>(s, j * Tr::kBlockN, row0, p.kv_len, p.causal, diag);
        online_softmax<Tr>(s, st, p.scale_log2, correction);
        wgmma_wait<0>();  // P·V(j − 1) is complete: O and P may change
        fence_all(o);
        fence_all(pr);
        release(v_empty, v_it);
        scale_rows<Tr>(o, correction);
        pack_probabilities<T, Tr>(s, pr);
      }

      const int v_last = kv_iter + w.n_tiles - 1;
      mbarrier_wait(smem_u32(&v_full[stage_of(v_last)]), parity_of(v_last));
      wait_turn();
      fence_all(o);
      fence_all(pr);
      issue_pv<T, Tr>(o, pr, v_tile(stage_of(v_last)));
      pass_turn();
      wgmma_wait<0>();
      fence_all(o);
      release(v_empty, v_last);
      kv_iter += w.n_tiles;
    }

    // Epilogue (FA2 Algorithm 1, lines 12-13): O /= sum, LSE = max·scale + ln(sum). A row that
    // saw a key has sum >= 1 (its maximum contributes exp2(0)); a row that saw none (or an item
    // with no key tile) has sum 0, O 0 and LSE −inf. Rows at or past q_len are not written.
    T* o_head = static_cast<T*>(p.o) + static_cast<int64_t>(w.bh) * p.q_len * Tr::kHeadDim;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float sum = st.sum[r];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      const float inv_sum = sum > 0.f ? 1.f / sum : 0.f;
      const int row = row0 + 8 * r;
      const bool in_range = row < p.q_len;  // the same for the 4 lanes of a quad (one row)
      if (in_range && lane % 4 == 0) {
        p.lse[static_cast<int64_t>(w.bh) * p.q_len + row] =
            sum > 0.f ? st.max[r] * p.scale + logf(sum) : -INFINITY;
      }
      // Lane t = lane % 4 of a quad holds the row's columns 8j + 2t and 8j + 2t + 1 of every j
      // (the wgmma accumulator layout): stored as they are, each 32-byte sector of O arrives at
      // L2 as two 16-byte halves (j even, j odd), and L2 counts two sector writes. Four shuffles
      // regroup columns 8j .. 8j + 15 (j even) so that lane t stores 8j + 4t .. 8j + 4t + 3, and
      // the quad one whole sector. Every lane shuffles; only rows before q_len store.
      const int t = lane % 4;
      const int source = (lane & ~3) | (2 * (t & 1));  // quad lanes holding 4t .. 4t + 3 mod 8
      T* o_row = o_head + static_cast<int64_t>(row) * Tr::kHeadDim + 4 * t;
#pragma unroll
      for (int j = 0; j < Tr::kHeadDim / 8; j += 2) {
        const uint32_t low =  // columns 8j + 2t, + 1
            pack_pair<T>(o[4 * j + 2 * r] * inv_sum, o[4 * j + 2 * r + 1] * inv_sum);
        const uint32_t high =  // columns 8j + 8 + 2t, + 1
            pack_pair<T>(o[4 * j + 4 + 2 * r] * inv_sum, o[4 * j + 4 + 2 * r + 1] * inv_sum);
        const uint32_t low0 = __shfl_sync(0xffffffffu, low, source);
        const uint32_t low1 = __shfl_sync(0xffffffffu, low, source + 1);
        const uint32_t high0 = __shfl_sync(0xffffffffu, high, source);
        const uint32_t high1 = __shfl_sync(0xffffffffu, high, source + 1);
        if (in_range) {
          *reinterpret_cast<uint2*>(o_row + 8 * j) =
              t < 2 ? make_uint2(low0, low1) : make_uint2(high0, high1);
        }
      }
    }
  }
#else
  // Never launched: the host checks compute capability 9.0, the only target this file builds.
  __trap();
#endif
}

// ---------------------------------------------------------------------------------------------
// Host side

/// Tensor map of a [heads_total, len, kHeadDim] 16-bit tensor read in boxes of kBoxCols (d: 64
/// under the 128-byte swizzle, 32 under the 64-byte one at d 96) × `box_rows` rows of one head;
/// rows past `len` of a head are zero-filled, never the next head's.
template <int kHeadDim>
CUtensorMap encode_heads(const void* base, int64_t heads_total, int64_t len, int box_rows,
                         bool bf16, const char* what) {
  using Tr = FlashWgmmaTraits<kHeadDim>;
  const uint64_t dims[3] = {static_cast<uint64_t>(Tr::kHeadDim), static_cast<uint64_t>(len),
                            static_cast<uint64_t>(heads_total)};
  const uint64_t row_bytes = static_cast<uint64_t>(Tr::kHeadDim) * Tr::kElemBytes;
  const uint64_t strides[2] = {row_bytes, row_bytes * static_cast<uint64_t>(len)};
  const uint32_t box[3] = {static_cast<uint32_t>(Tr::kBoxCols), static_cast<uint32_t>(box_rows), 1};
  return encode_tensor_map_swizzled(base, 3, dims, strides, box, Tr::kSwizzleBytes,
                                    tensor_map_element_16bit(bf16), "flash_attention_wgmma_tma",
                                    what);
}

/// K+V bytes of the heads one section of work items reads: 16 MiB, a bit over a quarter of the
/// H200's 60 MiB L2 (H100: 50 MiB), so the two sections in flight at a boundary stay resident
/// next to the streamed Q and O.
constexpr int64_t kSectionBytes = int64_t{16} << 20;

template <class T, int kHeadDim>
void raise_smem_limit() {
  RFL_CUDA_CHECK(cudaFuncSetAttribute(
      reinterpret_cast<const void*>(flash_attention_wgmma_fwd<T, kHeadDim>),
      cudaFuncAttributeMaxDynamicSharedMemorySize, FlashWgmmaTraits<kHeadDim>::kSmemBytes));
}

/// prepare_flash_wgmma at head_dim kHeadDim (p.head_dim == kHeadDim).
template <int kHeadDim>
FlashWgmmaLaunch prepare_head_dim(const AttentionProblem& p, void* out, float* lse,
                                  unsigned int* queue) {
  using Tr = FlashWgmmaTraits<kHeadDim>;
  int device = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  int sm_count = 0;
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  int optin_bytes = 0;
  RFL_CUDA_CHECK(
      cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (optin_bytes < Tr::kSmemBytes + Tr::kStaticSmemBytes) {
    throw environment_error(fmt::format(
        "flash_attention_wgmma_tma needs {} bytes of shared memory per block at head-dim {}, "
        "device {} allows {}",
        Tr::kSmemBytes + Tr::kStaticSmemBytes, kHeadDim, device, optin_bytes));
  }
  const bool bf16 = p.dtype == Dtype::kBf16;
  if (bf16) {
    raise_smem_limit<__nv_bfloat16, kHeadDim>();
  } else {
    raise_smem_limit<__half, kHeadDim>();
  }

  FlashWgmmaLaunch l;
  l.q_map = encode_heads<kHeadDim>(p.q, p.batch * p.heads, p.q_len, Tr::kBlockM, bf16, "Q");
  l.k_map = encode_heads<kHeadDim>(p.k, p.batch * p.kv_heads, p.kv_len, Tr::kBlockN, bf16, "K");
  l.v_map = encode_heads<kHeadDim>(p.v, p.batch * p.kv_heads, p.kv_len, Tr::kBlockN, bf16, "V");
  l.o = out;
  l.lse = lse;
  l.queue = queue;
  l.head_dim = kHeadDim;
  l.heads = static_cast<int>(p.heads);
  l.group = static_cast<int>(p.heads / p.kv_heads);
  l.q_len = static_cast<int>(p.q_len);
  l.kv_len = static_cast<int>(p.kv_len);
  l.q_tiles = static_cast<int>((p.q_len + Tr::kBlockM - 1) / Tr::kBlockM);
  l.tiles = static_cast<int>(int64_t{l.q_tiles} * p.batch * p.heads);
  l.scale = p.scale;
  l.scale_log2 = static_cast<float>(p.scale * 1.4426950408889634);  // log2(e)
  l.causal = p.causal;
  l.bf16 = bf16;
  l.grid_blocks = std::min(l.tiles, sm_count);
  // Sections of whole KV heads whose K and V take at most kSectionBytes (at least one KV head),
  // then cut batch·heads into that many sections of equal size (a short last section would
  // leave its long causal items for the end of the launch).
  const int64_t kv_head_bytes = 2 * p.kv_len * Tr::kHeadDim * Tr::kElemBytes;
  const int64_t per_section =
      std::max<int64_t>(1, kSectionBytes / std::max<int64_t>(1, kv_head_bytes)) * l.group;
  const int64_t heads_total = p.batch * p.heads;
  const int64_t sections = (heads_total + per_section - 1) / per_section;
  l.section_heads = static_cast<int>(heads_total / sections);
  l.wide_sections = static_cast<int>(heads_total % sections);
  return l;
}

/// Calls `f` with std::integral_constant<int, d> for the instantiated head_dim d == head_dim
/// (64, 96, 128 or 256; flash_wgmma_supports has refused the others) and returns what it returns.
template <class F>
decltype(auto) with_head_dim(int64_t head_dim, F&& f) {
  switch (head_dim) {
    case 64:
      return f(std::integral_constant<int, 64>{});
    case 96:
      return f(std::integral_constant<int, 96>{});
    case 256:
      return f(std::integral_constant<int, 256>{});
    default:
      return f(std::integral_constant<int, 128>{});
  }
}

/// Launches the instantiation of element type T for l.head_dim.
template <class T>
void launch_dtype(const FlashWgmmaLaunch& l, const FlashWgmmaParams& params, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned int>(l.grid_blocks));
  with_head_dim(l.head_dim, [&](auto head_dim) {
    constexpr int kHeadDim = decltype(head_dim)::value;
    using Tr = FlashWgmmaTraits<kHeadDim>;
    flash_attention_wgmma_fwd<T, kHeadDim>
        <<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(l.q_map, l.k_map, l.v_map, params);
  });
}

}  // namespace

bool flash_wgmma_supports(const AttentionProblem& p) {
  constexpr int64_t kIntMax = 0x7FFFFFFF;
  if (p.head_dim != 64 && p.head_dim != 96 && p.head_dim != 128 && p.head_dim != 256) return false;
  if (p.dtype != Dtype::kBf16 && p.dtype != Dtype::kFp16) return false;
  const int64_t q_tiles = (p.q_len + kFlashWgmmaQueryTileRows - 1) / kFlashWgmmaQueryTileRows;
  return p.batch * p.heads <= kIntMax && p.batch * p.kv_heads <= kIntMax &&
         q_tiles * p.batch * p.heads <= kIntMax;
}

FlashWgmmaLaunch prepare_flash_wgmma(const AttentionProblem& p, void* out, float* lse,
                                     unsigned int* queue) {
  return with_head_dim(p.head_dim, [&](auto head_dim) {
    return prepare_head_dim<decltype(head_dim)::value>(p, out, lse, queue);
  });
}

void launch_flash_wgmma(const FlashWgmmaLaunch& l, cudaStream_t stream) {
  FlashWgmmaParams params{};
  params.o = l.o;
  params.lse = l.lse;
  params.queue = l.queue;
  params.heads = l.heads;
  params.group = l.group;
  params.q_len = l.q_len;
  params.kv_len = l.kv_len;
  params.q_tiles = l.q_tiles;
  params.tiles = l.tiles;
  params.section_heads = l.section_heads;
  params.wide_sections = l.wide_sections;
  params.scale = l.scale;
  params.scale_log2 = l.scale_log2;
  params.causal = l.causal;
  if (l.bf16) {
    launch_dtype<__nv_bfloat16>(l, params, stream);
  } else {
    launch_dtype<__half>(l, params, stream);
  }
  RFL_CHECK_LAUNCH();
}

}  // namespace rooflinectl
