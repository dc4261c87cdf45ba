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

/// The GEMM version that runs for `requested` ("v1" to "v4", "v6" or "v7"; a declared key) at
/// M = `m` rows (batch·seq_len) on `cc`: at m ≤ kGemmSkinnyMaxRows (core/kernel_tiles.hpp) "v6"
/// (gemm_v6_skinny_wgmma) when requested and cc runs sm_90a code, "v4" (gemm_v4_skinny_splitk,
/// sm_80 and up) when v6 or v4 is requested; above that v6 and v4 count as "v3" (whose tile
/// width the kernel then picks by gemm_wgmma_narrow_tile_is_faster); "v2", "v3" and "v7" where
/// cc runs sm_90a code, else "v1" (gemm_v1_mma_sync, sm_80 and up).
std::string gemm_version_for(const std::string& requested, int64_t m, ComputeCapability cc);

/// True when gemm_wgmma_tma's 128-column tile (kGemmWgmmaNarrowTile) should finish sooner than
/// its 256-column tile (kGemmWgmmaTile) on this device: each persistent block runs whole tiles in
/// waves (ceil(work units / resident clusters)), a tile's time is taken as proportional to its
/// columns (same rows and K), so the narrow tile wins when narrow_waves·128 < wide_waves·256.
/// Ties keep the wide tile (fewer X re-reads). M = 512, N = 4096 on 66 resident pairs: 1 narrow
/// wave against 1 wide wave, narrow; M = 4096, N = 4096: 8 against 4, a tie, wide.
bool gemm_wgmma_narrow_tile_is_faster(int64_t wide_waves, int64_t narrow_waves);

/// The FlashAttention version that runs for `requested` ("v2" or "v3"; a declared key) on `cc`:
/// "v3" when requested, `wgmma_covers_problem` (flash_wgmma_supports: head_dim 64, 96, 128 or
/// 256, ...) and cc runs sm_90a code; else "v2" (flash_attention_v2_mma_sync, sm_80 and up).
std::string flash_attention_version_for(const std::string& requested, bool wgmma_covers_problem,
                                        ComputeCapability cc);

}  // namespace rooflinectl
