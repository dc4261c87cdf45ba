#include "core/kernel_dispatch.hpp"

#include <utility>

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

int64_t gemm_wgmma_tile_cols(int64_t waves_256, int64_t waves_192, int64_t waves_128) {
  const int64_t wide = waves_256 * kGemmWgmmaTile.cols;
  int64_t cols = kGemmWgmmaTile.cols;
  int64_t best = wide;
  for (const auto& [waves, width] : {std::pair{waves_192, kGemmWgmmaN192Tile.cols},
                                     std::pair{waves_128, kGemmWgmmaN128Tile.cols}}) {
    if (8 * waves * width <= 7 * wide && waves * width < best) {
      best = waves * width;
      cols = width;
    }
  }
  return cols;
}

std::string flash_attention_version_for(const std::string& requested, bool wgmma_covers_problem,
                                        ComputeCapability cc) {
  return requested == "v3" && wgmma_covers_problem && runs_sm90a_code(cc) ? "v3" : "v2";
}

}  // namespace rooflinectl
