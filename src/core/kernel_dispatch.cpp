#include "core/kernel_dispatch.hpp"

namespace rooflinectl {

bool runs_sm90a_code(ComputeCapability cc) { return cc.major == 9 && cc.minor == 0; }

int gemm_version_for(int requested, ComputeCapability cc) {
  return requested >= 2 && runs_sm90a_code(cc) ? requested : 1;
}

int flash_attention_version_for(int requested, bool wgmma_covers_problem, ComputeCapability cc) {
  return requested == 3 && wgmma_covers_problem && runs_sm90a_code(cc) ? 3 : 2;
}

}  // namespace rooflinectl
