// The two flash_attention versions in the GPU tests: each flash test runs once with
// RFL_FLASH_VERSION unset (the default: flash_attention_v3_wgmma_tma on compute capability 9.0
// at head_dim 128, v2 elsewhere) and once with RFL_FLASH_VERSION=2 (flash_attention_v2_mma_sync
// everywhere), so both versions stay validated.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "device_capability.hpp"

namespace rooflinectl {

constexpr const char* kFlashVersionVariable = "RFL_FLASH_VERSION";

/// Sets an environment variable (or unsets it, for nullopt) for the lifetime of the object and
/// restores the previous state afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (saved_) {
      setenv(name_.c_str(), saved_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

/// RFL_FLASH_VERSION settings every flash test runs under: unset (default) and "2".
inline const std::vector<std::optional<std::string>> kFlashVersionSettings = {std::nullopt,
                                                                              std::string("2")};

/// Test-name suffix of a setting: "default" or "forced_v2".
inline std::string flash_setting_name(const std::optional<std::string>& setting) {
  return setting ? "forced_v" + *setting : "default";
}

/// The version kernels/flash_attention.cu must pick under the current RFL_FLASH_VERSION, worked
/// out here from the device attributes (not from the code under test): v3 on compute capability
/// 9.0 at head_dim 128 unless RFL_FLASH_VERSION is "2"; v2 otherwise.
inline std::string expected_flash_version(int64_t head_dim) {
  const char* requested = std::getenv(kFlashVersionVariable);
  const bool forced_v2 = requested != nullptr && std::string(requested) == "2";
  const bool v3 = !forced_v2 && test_device_is_sm90() && head_dim == 128;
  return v3 ? "flash_attention_v3_wgmma_tma" : "flash_attention_v2_mma_sync";
}

/// The kernel name OperatorRun::kernel_names() gives for `version`.
inline std::string flash_kernel_name(const std::string& version) {
  return version == "flash_attention_v3_wgmma_tma" ? "flash_attention_wgmma_fwd"
                                                   : "flash_attention_fwd";
}

}  // namespace rooflinectl
