// Clocks on record through NVML: the SM and memory clock and the clock event
// reasons after each timed sample, and `sweep --lock-clocks base`. NVML is loaded at run time
// with dlopen("libnvidia-ml.so.1") (it ships with the driver, not the toolkit), so the build has no
// link-time or header dependency on it and a machine without a driver builds and runs: NVML is
// then "unavailable" with a one-line reason and the sweep records that reason instead of clocks.
// The few entry points are declared here from NVIDIA's NVML API reference
// (docs.nvidia.com/deploy/nvml-api); every call goes through NvmlApi, a table of functions that
// tests replace with a fake. No CUDA: the GPU is named by its PCI bus id.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "result/clock_reading.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// The library dlopen loads: NVML's soname on Linux (NVML API reference, "Initialization and
/// Cleanup"; installed by the driver as libnvidia-ml.so.1).
inline constexpr const char* kNvmlLibraryName = "libnvidia-ml.so.1";

/// nvmlDevice_t, an opaque handle.
using NvmlDevice = void*;

// nvmlReturn_t values used here (NVML API reference, "Device Enums" → nvmlReturn_t,
// docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html).
inline constexpr int kNvmlSuccess = 0;                 ///< NVML_SUCCESS
inline constexpr int kNvmlErrorNotSupported = 3;       ///< NVML_ERROR_NOT_SUPPORTED
inline constexpr int kNvmlErrorNoPermission = 4;       ///< NVML_ERROR_NO_PERMISSION
inline constexpr int kNvmlErrorNotFound = 6;           ///< NVML_ERROR_NOT_FOUND
inline constexpr int kNvmlErrorDriverNotLoaded = 9;    ///< NVML_ERROR_DRIVER_NOT_LOADED
inline constexpr int kNvmlErrorFunctionNotFound = 13;  ///< NVML_ERROR_FUNCTION_NOT_FOUND

// nvmlClockType_t values (NVML API reference, "Device Enums" → nvmlClockType_t). Clocks are MHz.
inline constexpr int kNvmlClockGraphics = 0;  ///< NVML_CLOCK_GRAPHICS
inline constexpr int kNvmlClockSm = 1;        ///< NVML_CLOCK_SM
inline constexpr int kNvmlClockMem = 2;       ///< NVML_CLOCK_MEM

/// The NVML entry points used, each returning an nvmlReturn_t as int (kNvml*). load_nvml fills it
/// from the real library; tests fill it with fakes. An empty std::function is an entry point the
/// library lacks (the optional ones: error_string, default_applications_clock,
/// set_gpu_locked_clocks, reset_gpu_locked_clocks and the fingerprint's four).
struct NvmlApi {
  std::function<int()> init;      ///< nvmlInit_v2
  std::function<int()> shutdown;  ///< nvmlShutdown
  /// nvmlErrorString: the text of a return code, e.g. "Insufficient Permissions".
  std::function<std::string(int)> error_string;
  /// nvmlDeviceGetHandleByPciBusId_v2(pciBusId "domain:bus:device.function", hex).
  std::function<int(const std::string&, NvmlDevice*)> handle_by_pci_bus_id;
  /// nvmlDeviceGetClockInfo(device, nvmlClockType_t, MHz): the current clock.
  std::function<int(NvmlDevice, int, unsigned*)> clock_info;
  /// nvmlDeviceGetCurrentClocksEventReasons (driver 535+), else the older
  /// nvmlDeviceGetCurrentClocksThrottleReasons: the bitmask of result/clock_reading.hpp.
  std::function<int(NvmlDevice, unsigned long long*)> clock_event_reasons;
  /// nvmlDeviceGetDefaultApplicationsClock(device, nvmlClockType_t, MHz): the applications clock
  /// the GPU boots with (what --lock-clocks base locks to).
  std::function<int(NvmlDevice, int, unsigned*)> default_applications_clock;
  /// nvmlDeviceSetGpuLockedClocks(device, minGpuClockMHz, maxGpuClockMHz): root only, Volta+.
  std::function<int(NvmlDevice, unsigned, unsigned)> set_gpu_locked_clocks;
  /// nvmlDeviceResetGpuLockedClocks(device): back to the default (unlocked) behaviour.
  std::function<int(NvmlDevice)> reset_gpu_locked_clocks;
  // The fingerprint a report records per GPU (device/nvml_fingerprint.hpp); optional entries.
  /// nvmlDeviceGetVbiosVersion(device, char* version, unsigned length).
  std::function<int(NvmlDevice, char*, unsigned)> vbios_version;
  /// nvmlDeviceGetEccMode(device, nvmlEnableState_t* current, nvmlEnableState_t* pending):
  /// NVML_FEATURE_DISABLED 0, NVML_FEATURE_ENABLED 1.
  std::function<int(NvmlDevice, int*, int*)> ecc_mode;
  /// nvmlDeviceGetEnforcedPowerLimit(device, unsigned* milliwatts): the limit in force.
  std::function<int(NvmlDevice, unsigned*)> enforced_power_limit;
  /// nvmlDeviceGetMigMode(device, unsigned* current, unsigned* pending):
  /// NVML_DEVICE_MIG_DISABLE 0, NVML_DEVICE_MIG_ENABLE 1.
  std::function<int(NvmlDevice, unsigned*, unsigned*)> mig_mode;
  /// Keeps the dlopen handle alive while any copy of the table lives (null for fakes).
  std::shared_ptr<void> library;
};

/// The outcome of loading NVML: the table, or why there is none (one line).
struct NvmlLoad {
  std::optional<NvmlApi> api;
  std::string reason;  ///< empty when api is set
};

/// dlopen(`library_name`) and dlsym of the entry points of NvmlApi. A missing library or a missing
/// required entry point (init, shutdown, handle_by_pci_bus_id, clock_info, clock_event_reasons)
/// gives no table and the reason ("libnvidia-ml.so.1 could not be loaded (no NVIDIA driver?):
/// <dlerror>"). Never throws.
NvmlLoad load_nvml(const std::string& library_name = kNvmlLibraryName);

/// NVML opened for one GPU, matched by PCI bus id (CUDA's and NVML's device orders can differ, so
/// never by index). RAII: nvmlShutdown on destruction when nvmlInit_v2 succeeded. When NVML is
/// missing or refuses (no library, init or the handle lookup failing) it is "unavailable" with a
/// one-line reason; nothing here throws, so a sweep never stops for it.
class NvmlClocks {
 public:
  /// Initializes NVML from `load` and finds the GPU whose PCI bus id is `pci_bus_id` (as
  /// cudaDeviceGetPCIBusId writes it, e.g. "0000:19:00.0"); an empty id is unavailable.
  NvmlClocks(NvmlLoad load, const std::string& pci_bus_id);
  /// Loads the real library (load_nvml()) and opens it for `pci_bus_id`.
  explicit NvmlClocks(const std::string& pci_bus_id);
  ~NvmlClocks();
  NvmlClocks(const NvmlClocks&) = delete;
  NvmlClocks& operator=(const NvmlClocks&) = delete;

  bool available() const { return device_ != nullptr; }
  /// Why clocks cannot be read (one line); empty when available.
  const std::string& unavailable_reason() const { return reason_; }

  /// The SM clock, memory clock and clock event reasons now. nullopt, with `error` set to one
  /// line naming the call and NVML's error, when unavailable or a call fails.
  std::optional<ClockReading> read(std::string& error) const;

  /// "<NVML error text> (code N)" for an nvmlReturn_t.
  std::string error_text(int code) const;
  /// The table and the device, for GpuClockLock; the device is null when unavailable.
  const NvmlApi& api() const { return *api_; }
  NvmlDevice device() const { return device_; }

 private:
  std::optional<NvmlApi> api_;
  NvmlDevice device_ = nullptr;
  bool initialized_ = false;
  std::string reason_;
};

/// Collects one NVML reading per timed sample for TimingOptions::after_each_sample and stores
/// them in the point's TimingResult (one per samples_s entry, same order).
class SampleClockRecorder {
 public:
  /// `clocks` must outlive the recorder and the callback.
  explicit SampleClockRecorder(const NvmlClocks& clocks) : clocks_(clocks) {}
  /// The callback that appends one reading; an empty function when NVML is unavailable (then
  /// time_launches keeps its one-wait-for-all-samples timing).
  std::function<void()> callback();
  /// Sets timing.sample_clocks to the readings, or leaves it nullopt with
  /// timing.sample_clocks_null_reason: NVML unavailable (its reason), a reading that failed (which
  /// sample, which call), or a count that differs from timing.samples_s.
  void store(TimingResult& timing) const;

 private:
  const NvmlClocks& clocks_;
  std::vector<ClockReading> readings_;
  std::string error_;
};

/// The fix printed when clocks cannot be locked.
inline constexpr const char* kLockClocksFix =
    "locking GPU clocks needs root: run the sweep as root (sudo), or lock them before it with "
    "`sudo nvidia-smi -lgc <MHz>` (reset with `sudo nvidia-smi -rgc`) and sweep without "
    "--lock-clocks";

/// The SM (graphics) clocks locked through NVML for the life of the object: min = max = the
/// GPU's default applications clock. RAII: the destructor resets them
/// (nvmlDeviceResetGpuLockedClocks) unless restore() already did, so every way out of the scope
/// that holds it (normal return, an interrupted sweep returning normally, an exception) resets
/// exactly once. Only a process killed outright (a second SIGINT, SIGKILL) leaves them locked:
/// `sudo nvidia-smi -rgc` resets them. The reset also clears a lock set earlier by
/// `nvidia-smi -lgc`.
class GpuClockLock {
 public:
  /// Locks the clocks of `clocks`' GPU for `setting` ("base"). Throws an environment Error (exit
  /// 3) naming the NVML call, its error and kLockClocksFix when NVML is unavailable, the entry
  /// points are missing, the default applications clock is unknown, or the lock is refused (no
  /// root: NVML_ERROR_NO_PERMISSION; unsupported GPU: NVML_ERROR_NOT_SUPPORTED). `clocks` must
  /// outlive the lock.
  GpuClockLock(const NvmlClocks& clocks, const std::string& setting);
  ~GpuClockLock();
  GpuClockLock(const GpuClockLock&) = delete;
  GpuClockLock& operator=(const GpuClockLock&) = delete;

  /// Resets the clocks now (once; later calls and the destructor do nothing) and returns what
  /// was locked and how the reset went.
  ClockLockRecord restore();
  /// What is locked, in one line for the progress stream.
  std::string description() const;

 private:
  const NvmlClocks& clocks_;
  ClockLockRecord record_;
  bool locked_ = false;
};

/// The lock for SweepConfig::lock_clocks: none for "" (nullptr), a GpuClockLock for "base";
/// another value is a bad-input Error. Errors of GpuClockLock propagate (exit 3).
std::unique_ptr<GpuClockLock> lock_sweep_clocks(const std::string& setting,
                                                const NvmlClocks& clocks);

}  // namespace rooflinectl
