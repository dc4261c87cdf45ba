#include "model/reconcile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/kernel_tiles.hpp"
#include "core/operator_names.hpp"
#include "model/operator_model.hpp"

namespace rooflinectl {
namespace {

std::string mb(double bytes) {
  if (bytes < 1e5) return fmt::format("{:.1f} KB", bytes / 1e3);
  return fmt::format("{:.1f} MB", bytes / 1e6);
}

ReconcileCheck make_check(std::string quantity, std::string reference, double measured,
                          double reference_value, std::optional<double> low,
                          std::optional<double> high) {
  ReconcileCheck c;
  c.quantity = std::move(quantity);
  c.reference = std::move(reference);
  c.measured = measured;
  c.reference_value = reference_value;
  c.ratio = measured / reference_value;
  c.band_low = low;
  c.band_high = high;
  c.flagged = (low && c.ratio < *low) || (high && c.ratio > *high);
  return c;
}

/// Tensor FLOPs of decode attention's tensor-core kernel at `s` (kernels/decode_attention.cu's
/// FLOP note): per key, a block of n = decode_block_heads query heads executes 2·16·d for S (16
/// MMA rows) and 2·n·d for P·V (n columns), 48·d at n = 8 and 64·d at n = 16, and each KV head
/// takes ceil(g / n) blocks. nullopt at n = 1, the CUDA-core kernel.
std::optional<double> decode_tile_tensor_flop(const Shape& s) {
  const int64_t g = s.group_size();
  const int64_t n = decode_block_heads(g, s.head_dim, s.kv_dtype == KvDtype::kFp8E4m3);
  if (n == 1) return std::nullopt;
  const double blocks = static_cast<double>((g + n - 1) / n);
  return static_cast<double>(s.batch * s.kv_heads) * static_cast<double>(s.seq_len) *
         static_cast<double>(s.head_dim) * blocks * static_cast<double>(32 + 2 * n);
}

/// FLOPs the tensor cores execute at tile granularity, when the kernel's tiling is known.
std::optional<double> tile_granular_tensor_flop(const PointResult& p) {
  const Shape& s = p.shape;
  if (p.op == kFlashAttentionOp) {
    const double pairs =
        p.version == kFlashWgmmaVersionName
            ? flash_wgmma_computed_pairs(s.query_len(), s.seq_len, s.head_dim, s.causal)
            : flash_computed_pairs(s.query_len(), s.seq_len, s.head_dim, s.causal);
    return 4.0 * s.batch * s.heads * s.head_dim * pairs;
  }
  if (p.op == kGemmOp) {
    const auto [m, n, k] = s.gemm_dims();
    const GemmBlockTile tile = gemm_block_tile(p.version, m);
    const double m_padded = static_cast<double>((m + tile.rows - 1) / tile.rows * tile.rows);
    const double n_padded = static_cast<double>((n + tile.cols - 1) / tile.cols * tile.cols);
    return 2.0 * m_padded * n_padded * static_cast<double>(k);
  }
  return std::nullopt;
}

/// Largest factor by which decode attention's tensor-core kernel can exceed
/// decode_tile_tensor_flop: each key range of the split (at most parts + B·H_kv - 1 of them) pads
/// its last kDecodeMmaKeysPerStep-key step. The part count depends on the kernel's occupancy,
/// which the report does not hold; bounded by ceil(B·H_kv·L / kDecodeMinKeysPerPart) and by one
/// wave of kDecodeMmaThreads-thread blocks at the most an SM can hold (kMaxThreadsPerSm) on
/// `sm_count` SMs when known.
double decode_key_step_padding_bound(const Shape& s, int sm_count) {
  const int64_t keys = s.batch * s.kv_heads * s.seq_len;
  int64_t parts = (keys + kDecodeMinKeysPerPart - 1) / kDecodeMinKeysPerPart;
  if (sm_count > 0) {
    parts = std::min<int64_t>(parts, int64_t{sm_count} * (kMaxThreadsPerSm / kDecodeMmaThreads));
  }
  const int64_t ranges = parts + s.batch * s.kv_heads - 1;
  return 1.0 +
         static_cast<double>(ranges * (kDecodeMmaKeysPerStep - 1)) / static_cast<double>(keys);
}

std::string explain_tensor_flop(const PointResult& p, double ratio, const DeviceRecord& device) {
  if (p.op == kDecodeAttentionOp) {
    if (const auto tile = decode_tile_tensor_flop(p.shape)) {
      const double measured = *p.counters.total.tensor_flop();
      const double tile_ratio = measured / *tile;
      const double bound = decode_key_step_padding_bound(p.shape, device.sm_count);
      if (tile_ratio >= kTensorFlopBandLow && tile_ratio <= bound + (kTensorFlopBandHigh - 1.0)) {
        return fmt::format(
            "the tensor-core kernel (GQA, and any g over an FP8 KV cache) runs Q*K^T and P*V with "
            "mma.sync m16n8k16, the g = {} query heads of a KV head padded to whole MMA tiles, so "
            "the tensor pipe executes {:.2f}x the useful products ({:.4g} FLOP), and each key "
            "range of the split is walked in whole {}-key steps (up to {:.2f}x more here); the "
            "counters read {:.4f}x the whole-tile count. Padding costs no DRAM bytes",
            p.shape.group_size(), *tile / p.analytic.flop, *tile, kDecodeMmaKeysPerStep, bound,
            tile_ratio);
      }
      return fmt::format(
          "counted tensor FLOPs are {:.3f}x the analytic count and {:.3f}x the whole-tile count "
          "{:.4g} (at most {:.3f}x with the key steps' padding): neither explains them, so a "
          "FLOP formula or the counter mapping is wrong",
          ratio, tile_ratio, *tile, bound);
    }
  }
  if (const auto tile = tile_granular_tensor_flop(p)) {
    const double measured = *p.counters.total.tensor_flop();
    const double tile_ratio = measured / *tile;
    if (std::abs(tile_ratio - 1.0) <= kTensorFlopBandHigh - 1.0) {
      return fmt::format(
          "the kernel computes whole tiles (padded rows{} included): {:.4g} FLOP at tile "
          "granularity, and the counters match it ({:.4f}x); the analytic count only has the "
          "useful pairs",
          p.shape.causal ? " and masked keys of diagonal tiles" : "", *tile, tile_ratio);
    }
    return fmt::format(
        "counted tensor FLOPs are {:.3f}x the analytic count and {:.3f}x the tile-granular count "
        "{:.4g}: neither explains them, so a FLOP formula or the counter mapping is wrong",
        ratio, tile_ratio, *tile);
  }
  if (p.op == kNaiveAttentionOp) {
    return fmt::format(
        "cuBLAS runs its own tile shapes, so at lengths that are not multiples of them it "
        "computes padding; a ratio of {:.3f} beyond that is a formula or counter bug",
        ratio);
  }
  return fmt::format(
      "counted tensor FLOPs are {:.3f}x the analytic count: check the operator's "
      "FLOP formula against its kernels",
      ratio);
}

std::string explain_cuda_core_flop(const PointResult& p, double ratio) {
  if (p.op == kGeluOp) {
    const double elements = static_cast<double>(p.shape.tokens()) * p.shape.ffn_width();
    return fmt::format(
        "{0} is not one special-function instruction but an FMA polynomial around MUFU "
        "instructions (CUDA's {0}f in gelu_v1, the kernel's own approximation from gelu_v2 on), "
        "and the FP32 counters count those FMAs but not the MUFU work, while the analytic "
        "convention counts only the {1} FLOP/element around {0}: counted {2:.1f} FLOP/element = "
        "{3:.2f}x. A property of how {0} is evaluated, not of the counters",
        to_string(p.shape.gelu_form), p.shape.gelu_form == GeluForm::kErf ? 4 : 8,
        *p.counters.total.total_flop() / elements, ratio);
  }
  if (p.op == kGegluOp) {
    // B·L·d_ff outputs; the convention is GELU's count plus the product with up.
    const double elements = static_cast<double>(p.shape.tokens()) * p.shape.ffn_width();
    return fmt::format(
        "geglu's {0} is the gelu kernel's own approximation (an FMA polynomial around MUFU "
        "instructions), and the FP32 counters count those FMAs but not the MUFU work, while the "
        "analytic convention counts only the {1} FLOP/element around {0} and the product with "
        "up: counted {2:.1f} FLOP/element = {3:.2f}x. A property of how {0} is evaluated, not of "
        "the counters",
        to_string(p.shape.gelu_form), p.shape.gelu_form == GeluForm::kErf ? 5 : 9,
        *p.counters.total.total_flop() / elements, ratio);
  }
  if (p.op == kDecodeAttentionOp && (p.version == "decode_attention_v2_flat_split" ||
                                     p.version == "decode_attention_v4_flat_fused_merge")) {
    return fmt::format(
        "counted {:.2f}x: besides q*k and p*v, each key's score is summed across the d/8 lanes of "
        "its row group (16 at d = 96, where 4 of them multiply zeros: 4/3 of the q*k and p*v "
        "FMAs) by shuffle-adds and every lane of the group repeats the online-softmax "
        "update, and each part's partial is rescaled and merged (by decode_combine in v2, by the "
        "last block of each KV head from v4 on); the extra "
        "work per key is fixed while the merges grow with the part count, so the ratio is "
        "largest at short caches. CUDA-core work only: decode stays memory-bound",
        ratio);
  }
  return fmt::format(
      "the CUDA-core counters see {:.2f}x the arithmetic of the analytic convention ({}): compare "
      "the kernel's FLOP comment with what it executes",
      ratio, p.analytic.flop_formula);
}

/// Reads and writes apart: which side of the traffic the gap is on.
std::string traffic_split(const PointResult& p) {
  const auto& t = p.counters.total;
  if (!t.dram_read_bytes || !t.dram_write_bytes) return "";
  const double min_write = min_dram_write_bytes(p.op, p.shape);
  const double min_read = p.analytic.min_dram_bytes - min_write;
  return fmt::format("reads {} = {:.2f}x the inputs ({}), writes {} = {:.2f}x the outputs ({})",
                     mb(*t.dram_read_bytes), *t.dram_read_bytes / min_read, mb(min_read),
                     mb(*t.dram_write_bytes), *t.dram_write_bytes / min_write, mb(min_write));
}

std::string explain_dram_above(const PointResult& p, const DeviceRecord& device) {
  const auto& t = p.counters.total;
  const std::string split = traffic_split(p);
  if (p.op == kGemmOp && t.dram_read_bytes) {
    const double min_write = min_dram_write_bytes(p.op, p.shape);
    const double min_read = p.analytic.min_dram_bytes - min_write;
    const GemmBlockTile tile = gemm_block_tile(p.version, p.shape.tokens());
    const double no_reuse = gemm_no_reuse_read_bytes(p.shape, tile);
    const double absorbed = 1.0 - (*t.dram_read_bytes - min_read) / (no_reuse - min_read);
    const bool grouped = p.version == "gemm_v2_wgmma_tma" ||
                         p.version == "gemm_v3_wgmma_multicast" || p.version == "gemm_fp8_v1_wgmma";
    return fmt::format(
        "{}. With {}x{} block tiles X is re-read by every column of tiles and W by every row "
        "({} if L2 kept nothing); L2 absorbed {:.1f}% of those re-reads but not the rest: {} "
        "while X and W together are {} against a {} L2. The model assumes each input is read once",
        split, tile.rows, tile.cols, mb(no_reuse), 100.0 * absorbed,
        grouped ? "tiles are visited in groups of 16 tile rows (so a group re-reads the W "
                  "columns it sweeps), and each group's X and W slices compete for L2"
                : "blocks are launched row by row, so a wave sweeps all of W (a grouped block "
                  "order or larger tiles would cut the re-reads)",
        mb(min_read), mb(static_cast<double>(device.l2_bytes)));
  }
  if (p.op == kDecodeAttentionOp) {
    const Shape& s = p.shape;
    const int64_t kv_rows = s.batch * s.kv_heads;
    const int64_t max_parts =
        (kv_rows * s.seq_len + kDecodeMinKeysPerPart - 1) / kDecodeMinKeysPerPart;
    // Each part writes one partial per query head of each KV head it touches: at most
    // parts + B·H_kv (part, KV head) pairs, each g·(d + 2) floats.
    const double workspace = static_cast<double>(max_parts + kv_rows) *
                             static_cast<double>(s.group_size()) *
                             static_cast<double>(s.head_dim + 2) * 4.0;
    return fmt::format(
        "{}. The excess is writes beyond o. The split-KV workspace (fp32 partial o, max and sum "
        "per part and query head, written by decode_split_kv and read back by the merge) "
        "is outside the model but at most {} here ((ceil(B*H_kv*L/{}) + B*H_kv)*g*(d+2)*4), so "
        "most extra writes are not explained by the algorithm: suspect dirty L2 lines from "
        "before the launch being written back inside the counter range",
        split, mb(workspace), kDecodeMinKeysPerPart);
  }
  return fmt::format("{}. Traffic the as-implemented model ({}) does not contain", split,
                     p.analytic.bytes_formula);
}

std::string explain_dram_below(const PointResult& p) {
  return fmt::format(
      "{}. Fewer bytes than the operator's own inputs and outputs: inputs were still in L2 "
      "(cache policy: {}) or outputs had not left L2 when the range closed",
      traffic_split(p), p.counters.cache_policy.empty() ? "unknown" : p.counters.cache_policy);
}

void add_flash_checks(Reconciliation& r, const PointResult& p, const DeviceRecord& device,
                      double dram) {
  const auto sram = shared_memory_per_sm_bytes(device.cc_major, device.cc_minor);
  if (sram) {
    const FlashIoBound io = flash_io_bound(p.shape, *sram);
    ReconcileCheck c = make_check("dram_bytes", "flash_io_bound.paper_io_bytes", dram,
                                  io.paper_io_bytes, std::nullopt, std::nullopt);
    c.explanation = fmt::format(
        "FlashAttention Theorem 2 count for M = {:.0f} KiB of shared memory per SM (cc {}.{}): "
        "paper block Br = min(ceil(M/(4*d*e)), d) = {} rows gives {}; the kernel's Br = {} gives "
        "{} (implemented_dram_bytes), Theta(B*H*L^2*d^2*e^2/M) with constant 1 is {}. DRAM moved "
        "{:.3f}x the paper count and {:.2f}x the minimum: {}",
        io.sram_bytes / 1024.0, device.cc_major, device.cc_minor, io.paper_query_tile_rows,
        mb(io.paper_io_bytes), io.kernel_query_tile_rows, mb(io.kernel_io_bytes),
        mb(io.theta_bytes), c.ratio, dram / p.analytic.min_dram_bytes,
        dram <= kDramAboveImplemented * p.analytic.min_dram_bytes
            ? fmt::format("the {} L2 kept K and V across query tiles, so the re-reads cost L2, "
                          "not HBM, bandwidth",
                          mb(static_cast<double>(device.l2_bytes)))
            : std::string("part of the K/V re-reads reached DRAM: the K and V of the heads in "
                          "flight did not stay in L2"));
    r.checks.push_back(c);
  }
  const auto l2 = p.counters.total.l2_bytes;
  if (l2 && dram > 0) {
    ReconcileCheck c =
        make_check("l2_bytes", "dram_bytes (measured)", *l2, dram, std::nullopt, std::nullopt);
    const double rereads = p.analytic.implemented_dram_bytes - p.analytic.min_dram_bytes;
    const double absorbed =
        rereads > 0 ? std::clamp(1.0 - (dram - p.analytic.min_dram_bytes) / rereads, 0.0, 1.0)
                    : 1.0;
    c.explanation = fmt::format(
        "L2 moved {:.1f}x the DRAM bytes; of the {} of K/V re-reads the kernel's query tiles "
        "imply (implemented minus minimum, from the point's own analytic record), L2 absorbed "
        "{:.1f}%",
        c.ratio, mb(rereads), 100.0 * absorbed);
    r.checks.push_back(c);
  }
}

/// DRAM writes of the isolated launch against the bytes the SMs stored into L2: each stored
/// sector reaches DRAM once, sooner (in the kernel's window) or later (the write-back sweep).
void add_write_check(Reconciliation& r, const PointResult& p) {
  const auto writes = p.counters.dram_write_bytes_isolated();
  const auto stored = p.counters.total.l2_write_bytes;
  if (!writes || !stored || !(*stored > 0)) return;
  ReconcileCheck c = make_check("dram_write_bytes_isolated", "l2_write_bytes", *writes, *stored,
                                kWriteCheckBandLow, kWriteCheckBandHigh);
  if (c.flagged) {
    c.explanation = fmt::format(
        "DRAM writes (in window {} + write-back {}) are {:.3f}x the {} the SMs stored into L2: {}",
        mb(*p.counters.total.dram_write_bytes), mb(*p.counters.dram_writeback_bytes), c.ratio,
        mb(*stored),
        c.ratio < 1.0
            ? "sectors stored more than once (split-K partials, a buffer rewritten in place) "
              "reach DRAM once, or the sweep left dirty lines in L2"
            : "DRAM saw writes the kernels did not store: lines left dirty before the launch, a "
              "copy engine writing (a library's memset of its workspace), or another process");
  }
  r.checks.push_back(c);
}

}  // namespace

bool has_flags(const Reconciliation& r) {
  return std::any_of(r.checks.begin(), r.checks.end(),
                     [](const ReconcileCheck& c) { return c.flagged; });
}

Reconciliation reconcile(const PointResult& p, Pipe pipe, const DeviceRecord& device) {
  Reconciliation r;
  if (p.counters.null_reason) {
    r.null_reason = "no counters: " + *p.counters.null_reason;
    return r;
  }
  const KernelCounters& t = p.counters.total;

  const auto flop = pipe == Pipe::kTensor ? t.tensor_flop() : t.total_flop();
  if (flop && p.analytic.flop > 0) {
    const bool tensor = pipe == Pipe::kTensor;
    ReconcileCheck c =
        make_check(tensor ? "tensor_flop" : "flop", "analytic.flop", *flop, p.analytic.flop,
                   tensor ? kTensorFlopBandLow : kCudaCoreFlopBandLow,
                   tensor ? kTensorFlopBandHigh : kCudaCoreFlopBandHigh);
    if (c.flagged) {
      c.explanation =
          tensor ? explain_tensor_flop(p, c.ratio, device) : explain_cuda_core_flop(p, c.ratio);
    }
    r.checks.push_back(c);
  }

  // The isolated launch's traffic (with the deferred write-back) when measured; schema-1 reports
  // and passes without the write-back sweep have the in-window bytes only.
  const auto isolated = p.counters.dram_bytes_isolated();
  const auto dram = isolated ? isolated : t.dram_bytes();
  if (dram && p.analytic.min_dram_bytes > 0) {
    const bool same = p.analytic.implemented_dram_bytes == p.analytic.min_dram_bytes;
    ReconcileCheck low = make_check(
        "dram_bytes", same ? "min_dram_bytes (= implemented_dram_bytes)" : "min_dram_bytes", *dram,
        p.analytic.min_dram_bytes, kDramBelowMinimum,
        same ? std::optional<double>(kDramAboveImplemented) : std::nullopt);
    if (low.flagged) {
      low.explanation =
          low.ratio < kDramBelowMinimum ? explain_dram_below(p) : explain_dram_above(p, device);
    }
    r.checks.push_back(low);
    if (!same && p.analytic.implemented_dram_bytes > 0) {
      ReconcileCheck high =
          make_check("dram_bytes", "implemented_dram_bytes", *dram,
                     p.analytic.implemented_dram_bytes, std::nullopt, kDramAboveImplemented);
      if (high.flagged) high.explanation = explain_dram_above(p, device);
      r.checks.push_back(high);
    }
    if (p.op == kFlashAttentionOp) add_flash_checks(r, p, device, *dram);
  }
  add_write_check(r, p);
  if (r.checks.empty()) r.null_reason = "counters lack FLOP and DRAM values for this point";
  return r;
}

}  // namespace rooflinectl
