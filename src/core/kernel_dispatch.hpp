// Which kernel version runs at which compute capability: the Hopper versions (gemm v2/v3,
// flash_attention v3) are sm_90a code, which runs on compute capability 9.0 only ("a" targets
// are not forward compatible: not on 10.x or 12.x); every other device runs the portable
// versions; the GEMM's skinny version runs at small M on any of them. Versions are the keys the
// operators declare (kernels/gemm.cu, flash_attention.cu).
// Pure functions, so the choice is unit-tested without a GPU.
#pragma once

#include <cstdint>
#include <string>

namespace rooflinectl {

/// A device's compute capability, as cudaDevAttrComputeCapabilityMajor / Minor report it.
struct ComputeCapability {
  int major;
  int minor;
};

/// True when sm_90a code (wgmma, TMA, setmaxnreg, clusters as the Hopper kernels use them) runs
/// on `cc`: 9.0 and nothing else.
bool runs_sm90a_code(ComputeCapability cc);

/// The GEMM version that runs for `requested` ("v1" to "v4", "v6" to "v8"; a declared key) at
/// M = `m` rows (batch·seq_len) on `cc`: at m ≤ kGemmSkinnyMaxRows (core/kernel_tiles.hpp) "v6"
/// (gemm_v6_skinny_wgmma) when requested and cc runs sm_90a code, "v4" (gemm_v4_skinny_splitk,
/// sm_80 and up) when v6 or v4 is requested; above that v6 and v4 count as "v3" (whose tile
/// width the kernel then picks by gemm_wgmma_tile_cols: v3, v7 or v8); "v2", "v3", "v7" and
/// "v8" where cc runs sm_90a code, else "v1" (gemm_v1_mma_sync, sm_80 and up).
std::string gemm_version_for(const std::string& requested, int64_t m, ComputeCapability cc);

/// Columns of gemm_wgmma_tma's block tile (256, 192 or 128: kGemmWgmmaTile, kGemmWgmmaN192Tile,
/// kGemmWgmmaN128Tile) that should finish soonest on this device, given the waves its persistent
/// grid runs with each (ceil(work units / resident clusters)): a tile's time is taken as
/// proportional to its columns (same rows and K), so the width with the fewest wave-columns
/// (waves × columns) wins, ties going to the wider tile; a narrower tile must also save at least
/// an eighth of the 256-column tile's wave-columns, since the estimate ignores what narrower
/// tiles lose per tile (more X re-reads per FLOP, 4 stages at 192 columns). On 66 resident
/// pairs: M = 512, N = 4096: 1, 1, 1 wave → 128; N = 6144: 1, 1, 2 → 192; M = 4096, N = 4096:
/// 4, 6, 8 → 256; M = 8192, N = 8192: 16, 21, 32 → 256 (4032 saves 1.6% of 4096).
int64_t gemm_wgmma_tile_cols(int64_t waves_256, int64_t waves_192, int64_t waves_128);

/// The FlashAttention version that runs for `requested` ("v2" or "v3"; a declared key) on `cc`:
/// "v3" when requested, `wgmma_covers_problem` (flash_wgmma_supports: head_dim 64, 96, 128 or
/// 256, ...) and cc runs sm_90a code; else "v2" (flash_attention_v2_mma_sync, sm_80 and up).
std::string flash_attention_version_for(const std::string& requested, bool wgmma_covers_problem,
                                        ComputeCapability cc);

}  // namespace rooflinectl
