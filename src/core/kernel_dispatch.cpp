#include "core/kernel_dispatch.hpp"

namespace rooflinectl {

bool runs_sm90a_code(ComputeCapability cc) { return cc.major == 9 && cc.minor == 0; }

std::string gemm_version_for(const std::string& requested, ComputeCapability cc) {
  return requested != "v1" && runs_sm90a_code(cc) ? requested : "v1";
}

std::string flash_attention_version_for(const std::string& requested, bool wgmma_covers_problem,
                                        ComputeCapability cc) {
  return requested == "v3" && wgmma_covers_problem && runs_sm90a_code(cc) ? "v3" : "v2";
}

}  // namespace rooflinectl
