#include "device/nvml_clocks.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdio>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

constexpr double kHzPerMhz = 1e6;

// The C signatures, from the NVML API reference (docs.nvidia.com/deploy/nvml-api): nvmlReturn_t
// and nvmlClockType_t are C enums (int), nvmlDevice_t is a pointer to an opaque struct.
using InitFn = int (*)();
using ShutdownFn = int (*)();
using ErrorStringFn = const char* (*)(int);
using HandleByPciBusIdFn = int (*)(const char*, void**);
using ClockInfoFn = int (*)(void*, int, unsigned*);
using ClockEventReasonsFn = int (*)(void*, unsigned long long*);
using DefaultApplicationsClockFn = int (*)(void*, int, unsigned*);
using SetGpuLockedClocksFn = int (*)(void*, unsigned, unsigned);
using ResetGpuLockedClocksFn = int (*)(void*);
using VbiosVersionFn = int (*)(void*, char*, unsigned);
using EccModeFn = int (*)(void*, int*, int*);
using EnforcedPowerLimitFn = int (*)(void*, unsigned*);
using MigModeFn = int (*)(void*, unsigned*, unsigned*);

template <typename Fn>
Fn symbol(void* library, const char* name) {
  return reinterpret_cast<Fn>(dlsym(library, name));
}

std::string reason_for_missing_entry_point(const std::string& library_name, const char* name) {
  return fmt::format("{} has no {} (driver too old for this tool's NVML use)", library_name, name);
}

}  // namespace

NvmlLoad load_nvml(const std::string& library_name) {
  NvmlLoad out;
  void* handle = dlopen(library_name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    out.reason = fmt::format("{} could not be loaded (no NVIDIA driver?): {}", library_name,
                             why != nullptr ? why : "dlopen failed");
    return out;
  }
  std::shared_ptr<void> library(handle, [](void* h) { dlclose(h); });

  const auto init = symbol<InitFn>(handle, "nvmlInit_v2");
  const auto shutdown = symbol<ShutdownFn>(handle, "nvmlShutdown");
  const auto by_pci = symbol<HandleByPciBusIdFn>(handle, "nvmlDeviceGetHandleByPciBusId_v2");
  const auto clock_info = symbol<ClockInfoFn>(handle, "nvmlDeviceGetClockInfo");
  auto reasons = symbol<ClockEventReasonsFn>(handle, "nvmlDeviceGetCurrentClocksEventReasons");
  // The name before driver 535; same signature and bits.
  if (reasons == nullptr) {
    reasons = symbol<ClockEventReasonsFn>(handle, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  const std::pair<const void*, const char*> required[] = {
      {reinterpret_cast<const void*>(init), "nvmlInit_v2"},
      {reinterpret_cast<const void*>(shutdown), "nvmlShutdown"},
      {reinterpret_cast<const void*>(by_pci), "nvmlDeviceGetHandleByPciBusId_v2"},
      {reinterpret_cast<const void*>(clock_info), "nvmlDeviceGetClockInfo"},
      {reinterpret_cast<const void*>(reasons), "nvmlDeviceGetCurrentClocksEventReasons"},
  };
  for (const auto& [address, name] : required) {
    if (address == nullptr) {
      out.reason = reason_for_missing_entry_point(library_name, name);
      return out;
    }
  }

  NvmlApi api;
  api.library = library;
  api.init = [init] { return init(); };
  api.shutdown = [shutdown] { return shutdown(); };
  if (const auto error_string = symbol<ErrorStringFn>(handle, "nvmlErrorString")) {
    api.error_string = [error_string](int code) {
      const char* text = error_string(code);
      return std::string(text != nullptr ? text : "");
    };
  }
  api.handle_by_pci_bus_id = [by_pci](const std::string& id, NvmlDevice* device) {
    return by_pci(id.c_str(), device);
  };
  api.clock_info = [clock_info](NvmlDevice d, int type, unsigned* mhz) {
    return clock_info(d, type, mhz);
  };
  api.clock_event_reasons = [reasons](NvmlDevice d, unsigned long long* bits) {
    return reasons(d, bits);
  };
  if (const auto f =
          symbol<DefaultApplicationsClockFn>(handle, "nvmlDeviceGetDefaultApplicationsClock")) {
    api.default_applications_clock = [f](NvmlDevice d, int type, unsigned* mhz) {
      return f(d, type, mhz);
    };
  }
  if (const auto f = symbol<SetGpuLockedClocksFn>(handle, "nvmlDeviceSetGpuLockedClocks")) {
    api.set_gpu_locked_clocks = [f](NvmlDevice d, unsigned lo, unsigned hi) {
      return f(d, lo, hi);
    };
  }
  if (const auto f = symbol<ResetGpuLockedClocksFn>(handle, "nvmlDeviceResetGpuLockedClocks")) {
    api.reset_gpu_locked_clocks = [f](NvmlDevice d) { return f(d); };
  }
  if (const auto f = symbol<VbiosVersionFn>(handle, "nvmlDeviceGetVbiosVersion")) {
    api.vbios_version = [f](NvmlDevice d, char* text, unsigned length) {
      return f(d, text, length);
    };
  }
  if (const auto f = symbol<EccModeFn>(handle, "nvmlDeviceGetEccMode")) {
    api.ecc_mode = [f](NvmlDevice d, int* current, int* pending) { return f(d, current, pending); };
  }
  if (const auto f = symbol<EnforcedPowerLimitFn>(handle, "nvmlDeviceGetEnforcedPowerLimit")) {
    api.enforced_power_limit = [f](NvmlDevice d, unsigned* milliwatts) { return f(d, milliwatts); };
  }
  if (const auto f = symbol<MigModeFn>(handle, "nvmlDeviceGetMigMode")) {
    api.mig_mode = [f](NvmlDevice d, unsigned* current, unsigned* pending) {
      return f(d, current, pending);
    };
  }
  out.api = std::move(api);
  return out;
}

// ---------------------------------------------------------------------------------------------

NvmlClocks::NvmlClocks(NvmlLoad load, const std::string& pci_bus_id) : api_(std::move(load.api)) {
  if (!api_) {
    reason_ = load.reason.empty() ? "NVML not loaded" : load.reason;
    return;
  }
  if (pci_bus_id.empty()) {
    reason_ = "the GPU's PCI bus id is unknown (CUDA gave none), so NVML cannot find it";
    return;
  }
  const int init = api_->init();
  if (init != kNvmlSuccess) {
    reason_ = "nvmlInit_v2 failed: " + error_text(init);
    return;
  }
  initialized_ = true;
  NvmlDevice device = nullptr;
  const int found = api_->handle_by_pci_bus_id(pci_bus_id, &device);
  if (found != kNvmlSuccess || device == nullptr) {
    reason_ = fmt::format("nvmlDeviceGetHandleByPciBusId_v2({}) failed: {}", pci_bus_id,
                          found != kNvmlSuccess ? error_text(found) : "no handle");
    return;
  }
  device_ = device;
}

NvmlClocks::NvmlClocks(const std::string& pci_bus_id) : NvmlClocks(load_nvml(), pci_bus_id) {}

NvmlClocks::~NvmlClocks() {
  if (initialized_) (void)api_->shutdown();
}

std::string NvmlClocks::error_text(int code) const {
  std::string text = api_ && api_->error_string ? api_->error_string(code) : "";
  if (code == kNvmlErrorNoPermission && text.empty()) text = "Insufficient Permissions";
  if (text.empty()) text = "NVML error";
  return fmt::format("{} (code {})", text, code);
}

std::optional<ClockReading> NvmlClocks::read(std::string& error) const {
  if (!available()) {
    error = reason_;
    return std::nullopt;
  }
  unsigned sm_mhz = 0;
  unsigned mem_mhz = 0;
  unsigned long long reasons = 0;
  if (const int rc = api_->clock_info(device_, kNvmlClockSm, &sm_mhz); rc != kNvmlSuccess) {
    error = "nvmlDeviceGetClockInfo(NVML_CLOCK_SM) failed: " + error_text(rc);
    return std::nullopt;
  }
  if (const int rc = api_->clock_info(device_, kNvmlClockMem, &mem_mhz); rc != kNvmlSuccess) {
    error = "nvmlDeviceGetClockInfo(NVML_CLOCK_MEM) failed: " + error_text(rc);
    return std::nullopt;
  }
  if (const int rc = api_->clock_event_reasons(device_, &reasons); rc != kNvmlSuccess) {
    error = "nvmlDeviceGetCurrentClocksEventReasons failed: " + error_text(rc);
    return std::nullopt;
  }
  return make_clock_reading(sm_mhz * kHzPerMhz, mem_mhz * kHzPerMhz, reasons);
}

// ---------------------------------------------------------------------------------------------

std::function<void()> SampleClockRecorder::callback() {
  if (!clocks_.available()) return {};
  return [this] {
    if (!error_.empty()) return;  // the first failure decides; later samples are not read
    if (const auto reading = clocks_.read(error_)) {
      readings_.push_back(*reading);
    } else {
      error_ = fmt::format("not recorded: after timed sample {}: {}", readings_.size() + 1, error_);
    }
  };
}

void SampleClockRecorder::store(TimingResult& timing) const {
  timing.sample_clocks.reset();
  if (!clocks_.available()) {
    timing.sample_clocks_null_reason =
        "not recorded: NVML unavailable: " + clocks_.unavailable_reason();
    return;
  }
  if (!error_.empty()) {
    timing.sample_clocks_null_reason = error_;
    return;
  }
  if (readings_.size() != timing.samples_s.size()) {
    timing.sample_clocks_null_reason = fmt::format(
        "not recorded: {} clock readings for {} timed samples (the timing pass did "
        "not call back once per sample)",
        readings_.size(), timing.samples_s.size());
    return;
  }
  timing.sample_clocks = readings_;
  timing.sample_clocks_null_reason.clear();
}

// ---------------------------------------------------------------------------------------------

GpuClockLock::GpuClockLock(const NvmlClocks& clocks, const std::string& setting) : clocks_(clocks) {
  record_.setting = setting;
  auto fail = [&](const std::string& what) {
    throw environment_error(fmt::format("--lock-clocks {}: {}; {}", setting, what, kLockClocksFix));
  };
  if (!clocks.available()) fail("NVML is unavailable: " + clocks.unavailable_reason());
  const NvmlApi& api = clocks.api();
  if (!api.default_applications_clock || !api.set_gpu_locked_clocks ||
      !api.reset_gpu_locked_clocks) {
    fail(
        "this driver's NVML lacks nvmlDeviceGetDefaultApplicationsClock, "
        "nvmlDeviceSetGpuLockedClocks or nvmlDeviceResetGpuLockedClocks");
  }
  // Locked clocks are GPU (graphics) clocks; the SM clock runs at the graphics clock.
  unsigned mhz = 0;
  int rc = api.default_applications_clock(clocks.device(), kNvmlClockGraphics, &mhz);
  record_.source = "nvmlDeviceGetDefaultApplicationsClock(NVML_CLOCK_GRAPHICS)";
  if (rc != kNvmlSuccess || mhz == 0) {
    const int graphics_rc = rc;
    rc = api.default_applications_clock(clocks.device(), kNvmlClockSm, &mhz);
    record_.source = "nvmlDeviceGetDefaultApplicationsClock(NVML_CLOCK_SM)";
    if (rc != kNvmlSuccess || mhz == 0) {
      fail(fmt::format(
          "the GPU reports no default applications clock "
          "(nvmlDeviceGetDefaultApplicationsClock: graphics {}, SM {})",
          clocks.error_text(graphics_rc), rc != kNvmlSuccess ? clocks.error_text(rc) : "0 MHz"));
    }
  }
  rc = api.set_gpu_locked_clocks(clocks.device(), mhz, mhz);
  if (rc != kNvmlSuccess) {
    std::string why = clocks.error_text(rc);
    if (rc == kNvmlErrorNotSupported) {
      why +=
          ": this GPU or its virtualization does not allow locked clocks (Volta or newer, "
          "bare metal or passthrough)";
    }
    fail(fmt::format("nvmlDeviceSetGpuLockedClocks({0}, {0} MHz) refused: {1}", mhz, why));
  }
  locked_ = true;
  record_.sm_clock_hz = mhz * kHzPerMhz;
  record_.restore = "still locked (the sweep had not ended when this was written)";
}

GpuClockLock::~GpuClockLock() {
  if (!locked_) return;
  const ClockLockRecord record = restore();
  // The one way to tell anyone that the GPU stays locked after an error path.
  if (record.restore.rfind("reset with", 0) != 0) {
    std::fprintf(stderr, "rooflinectl: warning: %s\n", record.restore.c_str());
  }
}

ClockLockRecord GpuClockLock::restore() {
  if (!locked_) return record_;
  locked_ = false;
  const int rc = clocks_.api().reset_gpu_locked_clocks(clocks_.device());
  record_.restore =
      rc == kNvmlSuccess
          ? "reset with nvmlDeviceResetGpuLockedClocks after the last point"
          : fmt::format(
                "nvmlDeviceResetGpuLockedClocks failed: {}; the GPU may still be locked "
                "at {:.0f} MHz: reset it with `sudo nvidia-smi -rgc`",
                clocks_.error_text(rc), record_.sm_clock_hz / kHzPerMhz);
  return record_;
}

std::string GpuClockLock::description() const {
  return fmt::format("SM clocks locked to {:.0f} MHz ({}, from {}) until the sweep ends",
                     record_.sm_clock_hz / kHzPerMhz, record_.setting, record_.source);
}

std::unique_ptr<GpuClockLock> lock_sweep_clocks(const std::string& setting,
                                                const NvmlClocks& clocks) {
  if (setting.empty()) return nullptr;
  if (setting != "base") {
    throw bad_input(fmt::format("invalid --lock-clocks '{}' (allowed: base)", setting));
  }
  return std::make_unique<GpuClockLock>(clocks, setting);
}

}  // namespace rooflinectl
