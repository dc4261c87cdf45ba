// Parsers behind `rooflinectl doctor`'s host facts: the driver's profiling restriction, the
// CAP_SYS_ADMIN bit and the MIG-instance name test, fed with text as the kernel writes it.
#include <gtest/gtest.h>

#include "device/environment_facts.hpp"

namespace rooflinectl {
namespace {

// Excerpt of a real /proc/driver/nvidia/params (driver 580).
constexpr const char* kParamsRestricted =
    "ResmanDebugLevel: 4294967295\n"
    "RmLogonRC: 1\n"
    "RmProfilingAdminOnly: 1\n"
    "EnableMSI: 1\n";

TEST(EnvironmentFacts, ProfilingAdminOnlyReadsTheDriverParameter) {
  EXPECT_EQ(parse_profiling_admin_only(kParamsRestricted), true);
  EXPECT_EQ(parse_profiling_admin_only("RmProfilingAdminOnly: 0\n"), false);
  EXPECT_EQ(parse_profiling_admin_only("RmProfilingAdminOnly: 0"), false);  // no final newline
}

TEST(EnvironmentFacts, ProfilingAdminOnlyUnknownWhenMissingOrMalformed) {
  EXPECT_EQ(parse_profiling_admin_only(""), std::nullopt);
  EXPECT_EQ(parse_profiling_admin_only("EnableMSI: 1\n"), std::nullopt);
  EXPECT_EQ(parse_profiling_admin_only("RmProfilingAdminOnly: yes\n"), std::nullopt);
  EXPECT_EQ(parse_profiling_admin_only("RmProfilingAdminOnly: 2\n"), std::nullopt);
  // A key that merely starts with the name is another key.
  EXPECT_EQ(parse_profiling_admin_only("RmProfilingAdminOnlyX: 1\n"), std::nullopt);
}

TEST(EnvironmentFacts, CapSysAdminIsBit21OfCapEff) {
  // Root in a default Docker container: no CAP_SYS_ADMIN (0xa80425fb has bit 21 clear).
  EXPECT_EQ(parse_cap_sys_admin("Name:\tbash\nCapInh:\t0000000000000000\n"
                                "CapEff:\t00000000a80425fb\n"),
            false);
  // --cap-add SYS_ADMIN sets bit 21 (0x200000).
  EXPECT_EQ(parse_cap_sys_admin("CapEff:\t00000000a82425fb\n"), true);
  EXPECT_EQ(parse_cap_sys_admin("CapEff:\t000001ffffffffff\n"), true);  // full root
  EXPECT_EQ(parse_cap_sys_admin("CapEff:\t0000000000000000\n"), false);
  EXPECT_EQ(parse_cap_sys_admin("CapPrm:\t000001ffffffffff\n"), std::nullopt);
  EXPECT_EQ(parse_cap_sys_admin("CapEff:\tzz\n"), std::nullopt);
}

TEST(EnvironmentFacts, MigInstanceRecognizedByName) {
  EXPECT_TRUE(device_name_says_mig("NVIDIA A100-SXM4-40GB MIG 1g.5gb"));
  EXPECT_TRUE(device_name_says_mig("NVIDIA H100 80GB HBM3 MIG 3g.40gb"));
  EXPECT_FALSE(device_name_says_mig("NVIDIA H200"));
  EXPECT_FALSE(device_name_says_mig("NVIDIA MIGHTY"));
}

TEST(EnvironmentFacts, ReadsThisProcessWithoutThrowing) {
  const HostProfilingFacts facts = read_host_profiling_facts();
  // Linux always writes CapEff for the calling process.
  EXPECT_TRUE(facts.cap_sys_admin.has_value());
}

}  // namespace
}  // namespace rooflinectl

namespace rooflinectl {
namespace {

TEST(NoDeviceCause, WithoutADriverSaysSoNotThatTheDriverIsInsufficient) {
  const std::string insufficient = "CUDA driver version is insufficient for CUDA runtime version";
  const std::string no_driver = no_device_cause("cudaErrorInsufficientDriver", insufficient, false);
  EXPECT_EQ(no_driver.rfind("no NVIDIA driver is loaded", 0), 0u) << no_driver;
  EXPECT_NE(no_driver.find("cudaErrorInsufficientDriver"), std::string::npos) << no_driver;
  EXPECT_EQ(no_driver.find("insufficient"), std::string::npos) << no_driver;
  EXPECT_EQ(no_device_cause("cudaErrorNoDevice", "no CUDA-capable device is detected", true),
            "cudaErrorNoDevice: no CUDA-capable device is detected");
}

TEST(NoDeviceFix, WithoutADriverTheFixIsTheDriverNotTheCudaVersion) {
  const std::string no_driver = no_device_fix(false);
  EXPECT_NE(no_driver.find("install or load the NVIDIA driver"), std::string::npos) << no_driver;
  EXPECT_EQ(no_driver.find("doctor"), std::string::npos) << no_driver;  // doctor prints it
  const std::string hidden = no_device_fix(true);
  EXPECT_NE(hidden.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << hidden;
  EXPECT_EQ(hidden.find("driver is loaded"), std::string::npos) << hidden;
}

}  // namespace
}  // namespace rooflinectl
