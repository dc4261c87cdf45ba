// Facts about the host that decide whether GPU performance counters can be read, gathered
// without NVML (not available at build time) and without a GPU: the NVIDIA driver's profiling
// restriction, the process's privileges, and whether another profiler injected itself. Pure host
// code (POSIX /proc files and the environment); the parsers are separate so tests can feed text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rooflinectl {

/// Value of `RmProfilingAdminOnly` in the text of /proc/driver/nvidia/params: true when the
/// driver option NVreg_RestrictProfilingToAdminUsers is on (counters for admin users only),
/// false when off, nullopt when the line is missing or malformed.
std::optional<bool> parse_profiling_admin_only(std::string_view params_text);

/// Whether the effective capability set in the text of /proc/<pid>/status (`CapEff:` hex mask)
/// contains CAP_SYS_ADMIN (bit 21, linux/capability.h); nullopt when the line is missing or
/// malformed.
std::optional<bool> parse_cap_sys_admin(std::string_view status_text);

/// True when a CUDA device name marks a MIG instance ("NVIDIA A100-SXM4-40GB MIG 1g.5gb"): the
/// CUDA runtime has no MIG-mode query, so the name is the only sign it gives.
bool device_name_says_mig(std::string_view name);

/// What a host says about counter access. Each field is nullopt when it cannot be known here.
struct HostProfilingFacts {
  /// RmProfilingAdminOnly from /proc/driver/nvidia/params (nullopt: no NVIDIA driver loaded or
  /// the file is unreadable, e.g. in a container without /proc/driver).
  std::optional<bool> driver_admin_only;
  bool is_root = false;               ///< effective uid 0
  std::optional<bool> cap_sys_admin;  ///< CAP_SYS_ADMIN in the effective set
  /// CUDA_INJECTION64_PATH: set when ncu, nsys or another CUDA tool injected itself into this
  /// process, which makes CUPTI refuse a second subscriber; empty when unset.
  std::string injection_path;
};

/// Reads the facts above for the calling process. Never throws.
HostProfilingFacts read_host_profiling_facts();

/// Why CUDA found no GPU, from cudaGetDeviceCount's error (`cuda_error_name`, e.g.
/// "cudaErrorNoDevice", and its description): without a loaded NVIDIA kernel driver
/// (`driver_loaded` false: no /proc/driver/nvidia/version) "no NVIDIA driver is loaded (...)",
/// naming CUDA's error but not its description, which for a missing driver is "CUDA driver version
/// is insufficient for CUDA runtime version" and sends the reader after a version; with a driver,
/// "<name>: <description>".
std::string no_device_cause(const std::string& cuda_error_name,
                            const std::string& cuda_error_description, bool driver_loaded);

/// The fix to print when CUDA finds no GPU: without a loaded NVIDIA kernel driver
/// (`driver_loaded` false) loading the driver, not another CUDA version; with one, the GPU is
/// hidden (CUDA_VISIBLE_DEVICES) or absent. Without a pointer to `doctor`, which prints it
/// itself; no_device_message (device/device_info.hpp) adds the pointer.
std::string no_device_fix(bool driver_loaded);

/// Whether the NVIDIA kernel driver is loaded (/proc/driver/nvidia/version exists).
bool nvidia_driver_loaded();

}  // namespace rooflinectl
