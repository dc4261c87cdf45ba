// The GPU fingerprint (VBIOS, ECC, power limit, MIG) read through a fake NVML: every field read,
// the fields a GPU does not support left null with NVML's reason, an NVML without the entry
// points, NVML unavailable, and the report's JSON round trip (old reports read with a reason).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "device/nvml_fingerprint.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"

namespace rooflinectl {
namespace {

int device_token = 0;

// An NVML that opens one GPU; the fingerprint entries answer with `rc` each (success: the values).
NvmlLoad fake_nvml(bool with_fingerprint, int ecc_rc = kNvmlSuccess, int mig_rc = kNvmlSuccess) {
  NvmlApi api;
  api.init = [] { return kNvmlSuccess; };
  api.shutdown = [] { return kNvmlSuccess; };
  api.error_string = [](int code) {
    return std::string(code == kNvmlErrorNotSupported ? "Not Supported" : "Unknown Error");
  };
  api.handle_by_pci_bus_id = [](const std::string&, NvmlDevice* device) {
    *device = &device_token;
    return kNvmlSuccess;
  };
  api.clock_info = [](NvmlDevice, int, unsigned* mhz) {
    *mhz = 1980;
    return kNvmlSuccess;
  };
  api.clock_event_reasons = [](NvmlDevice, unsigned long long* bits) {
    *bits = 0;
    return kNvmlSuccess;
  };
  if (with_fingerprint) {
    api.vbios_version = [](NvmlDevice device, char* text, unsigned length) {
      EXPECT_EQ(device, &device_token);
      EXPECT_GE(length, 32u);
      std::strncpy(text, "96.00.99.00.01", length);
      return kNvmlSuccess;
    };
    api.ecc_mode = [ecc_rc](NvmlDevice, int* current, int* pending) {
      *current = 1;
      *pending = 0;
      return ecc_rc;
    };
    api.enforced_power_limit = [](NvmlDevice, unsigned* milliwatts) {
      *milliwatts = 700000;
      return kNvmlSuccess;
    };
    api.mig_mode = [mig_rc](NvmlDevice, unsigned* current, unsigned* pending) {
      *current = 0;
      *pending = 0;
      return mig_rc;
    };
  }
  return NvmlLoad{api, ""};
}

TEST(NvmlFingerprint, EveryFieldRead) {
  const NvmlClocks nvml(fake_nvml(true), "0000:19:00.0");
  DeviceRecord device;
  read_nvml_fingerprint(nvml, device);
  EXPECT_EQ(device.vbios_version, "96.00.99.00.01");
  EXPECT_EQ(device.ecc_enabled, true);
  EXPECT_EQ(device.power_limit_w, 700.0);
  EXPECT_EQ(device.mig_enabled, false);
  EXPECT_EQ(device.fingerprint_null_reason, "");
}

TEST(NvmlFingerprint, UnsupportedQueriesAreNullWithNvmlsReason) {
  const NvmlClocks nvml(fake_nvml(true, kNvmlErrorNotSupported, kNvmlErrorNotSupported),
                        "0000:19:00.0");
  DeviceRecord device;
  read_nvml_fingerprint(nvml, device);
  EXPECT_FALSE(device.ecc_enabled.has_value());
  EXPECT_FALSE(device.mig_enabled.has_value());
  EXPECT_EQ(device.power_limit_w, 700.0);
  EXPECT_NE(device.fingerprint_null_reason.find("ECC: Not Supported"), std::string::npos)
      << device.fingerprint_null_reason;
  EXPECT_NE(device.fingerprint_null_reason.find("; MIG: Not Supported"), std::string::npos)
      << device.fingerprint_null_reason;
}

TEST(NvmlFingerprint, OldDriverWithoutTheEntryPoints) {
  const NvmlClocks nvml(fake_nvml(false), "0000:19:00.0");
  DeviceRecord device;
  read_nvml_fingerprint(nvml, device);
  EXPECT_FALSE(device.vbios_version.has_value());
  EXPECT_NE(device.fingerprint_null_reason.find("VBIOS: this driver's NVML lacks the query"),
            std::string::npos)
      << device.fingerprint_null_reason;
}

TEST(NvmlFingerprint, NvmlUnavailableGivesItsReasonOnce) {
  const NvmlClocks nvml(NvmlLoad{std::nullopt, "libnvidia-ml.so.1 could not be loaded"},
                        "0000:19:00.0");
  DeviceRecord device;
  device.power_limit_w = 1.0;  // stale values are cleared
  read_nvml_fingerprint(nvml, device);
  EXPECT_FALSE(device.power_limit_w.has_value());
  EXPECT_EQ(device.fingerprint_null_reason,
            "NVML unavailable: libnvidia-ml.so.1 could not be loaded");
}

TEST(NvmlFingerprint, ReportJsonRoundTripAndOldReports) {
  Report report = load_report(std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-sweep.json");
  EXPECT_FALSE(report.device.power_limit_w.has_value());
  EXPECT_NE(report.device.fingerprint_null_reason.find("not recorded"), std::string::npos);
  const NvmlClocks nvml(fake_nvml(true, kNvmlSuccess, kNvmlErrorNotSupported), "0000:19:00.0");
  // Written back unchanged, as read: no UUID or fingerprint keys.
  EXPECT_EQ(report_to_json_text(report).find("\"vbios_version\""), std::string::npos);
  // A device a sweep queried now (query_device's record) has them.
  report.device.identity_recorded = true;
  read_nvml_fingerprint(nvml, report.device);
  const Report back = report_from_json_text(report_to_json_text(report), "round trip");
  EXPECT_EQ(back.device.vbios_version, "96.00.99.00.01");
  EXPECT_EQ(back.device.ecc_enabled, true);
  EXPECT_EQ(back.device.power_limit_w, 700.0);
  EXPECT_FALSE(back.device.mig_enabled.has_value());
  EXPECT_EQ(back.device.fingerprint_null_reason, report.device.fingerprint_null_reason);
}

}  // namespace
}  // namespace rooflinectl
