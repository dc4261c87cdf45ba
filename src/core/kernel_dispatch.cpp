#include "core/kernel_dispatch.hpp"

#include "core/kernel_tiles.hpp"

namespace rooflinectl {

bool runs_sm90a_code(ComputeCapability cc) { return cc.major == 9 && cc.minor == 0; }

std::string gemm_version_for(const std::string& requested, int64_t m, ComputeCapability cc) {
  const bool skinny = requested == "v4" || requested == "v6";
  if (skinny && m <= kGemmSkinnyMaxRows) {
    return requested == "v6" && runs_sm90a_code(cc) ? "v6" : "v4";
  }
  const std::string tiled = skinny ? "v3" : requested;
  return tiled != "v1" && runs_sm90a_code(cc) ? tiled : "v1";
}

bool gemm_wgmma_narrow_tile_is_faster(int64_t wide_waves, int64_t narrow_waves) {
  return narrow_waves * kGemmWgmmaNarrowTile.cols < wide_waves * kGemmWgmmaTile.cols;
}

std::string flash_attention_version_for(const std::string& requested, bool wgmma_covers_problem,
                                        ComputeCapability cc) {
  return requested == "v3" && wgmma_covers_problem && runs_sm90a_code(cc) ? "v3" : "v2";
}

}  // namespace rooflinectl
