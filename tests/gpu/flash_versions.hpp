// The two flash_attention versions in the GPU tests: each flash test runs once with the default
// version key (flash_attention_v3_wgmma_tma on compute capability 9.0 at head_dim 64, 96, 128
// and 256, v2 elsewhere) and once with "v2" (flash_attention_v2_mma_sync everywhere), passed to
// OperatorSpec::create and launch_flash_attention, so both versions stay validated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/kernel_version.hpp"
#include "device_capability.hpp"

namespace rooflinectl {

/// Version keys every flash test runs under: the default and "v2".
inline const std::vector<std::string> kFlashVersionKeys = {kDefaultVersionKey, "v2"};

/// Test-name suffix of a key: "default" or the key ("v2").
inline std::string flash_key_name(const std::string& key) { return key.empty() ? "default" : key; }

/// The version kernels/flash_attention.cu must run for `key`, worked out here from the device
/// attributes (not from the code under test): v3 on compute capability 9.0 at head_dim 64, 96,
/// 128 and 256 unless the key is "v2"; v2 otherwise.
inline std::string expected_flash_version(const std::string& key, int64_t head_dim) {
  const bool v3 = key != "v2" && test_device_is_sm90() &&
                  (head_dim == 64 || head_dim == 96 || head_dim == 128 || head_dim == 256);
  return v3 ? "flash_attention_v3_wgmma_tma" : "flash_attention_v2_mma_sync";
}

/// The kernel name OperatorRun::kernel_names() gives for `version`.
inline std::string flash_kernel_name(const std::string& version) {
  return version == "flash_attention_v3_wgmma_tma" ? "flash_attention_wgmma_fwd"
                                                   : "flash_attention_fwd";
}

}  // namespace rooflinectl
