#include "device/nvml_fingerprint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

namespace rooflinectl {
namespace {

// NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE of the NVML API reference ("Constants").
constexpr unsigned kVbiosBufferBytes = 32;

}  // namespace

void read_nvml_fingerprint(const NvmlClocks& nvml, DeviceRecord& device) {
  device.vbios_version.reset();
  device.ecc_enabled.reset();
  device.power_limit_w.reset();
  device.mig_enabled.reset();
  if (!nvml.available()) {
    device.fingerprint_null_reason = "NVML unavailable: " + nvml.unavailable_reason();
    return;
  }
  const NvmlApi& api = nvml.api();
  const NvmlDevice handle = nvml.device();
  std::vector<std::string> missing;
  // Runs `query` when the entry point exists; a failure or an absent entry point is noted.
  const auto attempt = [&](const char* field, bool present, const auto& query) {
    if (!present) {
      missing.push_back(fmt::format("{}: this driver's NVML lacks the query", field));
      return;
    }
    const int rc = query();
    if (rc != kNvmlSuccess) missing.push_back(fmt::format("{}: {}", field, nvml.error_text(rc)));
  };
  attempt("VBIOS", static_cast<bool>(api.vbios_version), [&] {
    char text[kVbiosBufferBytes] = {};
    const int rc = api.vbios_version(handle, text, kVbiosBufferBytes);
    if (rc == kNvmlSuccess) device.vbios_version = std::string(text);
    return rc;
  });
  attempt("ECC", static_cast<bool>(api.ecc_mode), [&] {
    int current = 0;
    int pending = 0;
    const int rc = api.ecc_mode(handle, &current, &pending);
    if (rc == kNvmlSuccess) device.ecc_enabled = current != 0;
    return rc;
  });
  attempt("power limit", static_cast<bool>(api.enforced_power_limit), [&] {
    unsigned milliwatts = 0;
    const int rc = api.enforced_power_limit(handle, &milliwatts);
    if (rc == kNvmlSuccess) device.power_limit_w = milliwatts / 1000.0;
    return rc;
  });
  attempt("MIG", static_cast<bool>(api.mig_mode), [&] {
    unsigned current = 0;
    unsigned pending = 0;
    const int rc = api.mig_mode(handle, &current, &pending);
    if (rc == kNvmlSuccess) device.mig_enabled = current != 0;
    return rc;
  });
  device.fingerprint_null_reason = fmt::format("{}", fmt::join(missing, "; "));
}

}  // namespace rooflinectl
