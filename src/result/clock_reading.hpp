// Clocks on record: the SM and memory clock and NVML's clock event reasons read
// right after each timed sample, and what `sweep --lock-clocks` locked. Plain records and the
// decoding of NVML's reason bits; no NVML, no CUDA (the reading itself is device/nvml_clocks.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rooflinectl {

// NVML clock event reason bits (the bitmask nvmlDeviceGetCurrentClocksEventReasons returns, called
// nvmlDeviceGetCurrentClocksThrottleReasons before driver 535), as defined in the NVML API
// reference, "Clock Event Reasons" (docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons
// .html; nvml.h: nvmlClocksEventReason* / nvmlClocksThrottleReason*).
/// GPU idle: nothing is running, clocks drop to idle.
inline constexpr uint64_t kClockEventGpuIdle = 0x1;
/// Clocks limited by the applications clocks setting (or locked clocks).
inline constexpr uint64_t kClockEventApplicationsClocksSetting = 0x2;
/// Software power scaling: the power draw reached the power limit (SW power cap).
inline constexpr uint64_t kClockEventSwPowerCap = 0x4;
/// Hardware slowdown (clocks cut by a factor of 2 or more): temperature too high, external power
/// brake assertion or power draw too high.
inline constexpr uint64_t kClockEventHwSlowdown = 0x8;
/// Sync boost: clocks held down to match another GPU of a sync-boost group.
inline constexpr uint64_t kClockEventSyncBoost = 0x10;
/// Software thermal slowdown: the GPU or memory temperature is above its maximum operating one.
inline constexpr uint64_t kClockEventSwThermalSlowdown = 0x20;
/// Hardware thermal slowdown (HW slowdown caused by temperature).
inline constexpr uint64_t kClockEventHwThermalSlowdown = 0x40;
/// Hardware power brake slowdown (HW slowdown caused by the external power brake).
inline constexpr uint64_t kClockEventHwPowerBrakeSlowdown = 0x80;
/// Clocks limited by the display clock setting.
inline constexpr uint64_t kClockEventDisplayClockSetting = 0x100;

/// The reasons that mean the sample ran slower than the clocks it was allowed because of power or
/// temperature: SW power cap, HW slowdown, SW thermal, HW thermal, HW power brake. Idle, the
/// applications clocks setting (a lock), sync boost and the display clock do not count: they are
/// settings or states, not power or heat.
inline constexpr uint64_t kPowerOrThermalClockEvents =
    kClockEventSwPowerCap | kClockEventHwSlowdown | kClockEventSwThermalSlowdown |
    kClockEventHwThermalSlowdown | kClockEventHwPowerBrakeSlowdown;

/// True when `reasons` (an NVML clock event reason bitmask) holds a power or thermal reason
/// (kPowerOrThermalClockEvents).
bool is_power_or_thermal_throttled(uint64_t reasons);

/// The names of the bits set in `reasons`, in bit order, joined by ", ": "SW power cap, HW
/// slowdown"; unknown bits as "0x200"; "none" for 0. Names as nvidia-smi -q -d PERFORMANCE spells
/// them, shortened.
std::string describe_clock_event_reasons(uint64_t reasons);

/// One NVML reading, taken on the host right after a timed sample completed (its stop event
/// synchronized): the state the sample ended in, not an average over it.
struct ClockReading {
  double sm_clock_hz = 0;            ///< nvmlDeviceGetClockInfo(NVML_CLOCK_SM), MHz × 1e6
  double memory_clock_hz = 0;        ///< nvmlDeviceGetClockInfo(NVML_CLOCK_MEM), MHz × 1e6
  uint64_t clock_event_reasons = 0;  ///< NVML clock event reason bitmask (kClockEvent*)
  /// is_power_or_thermal_throttled(clock_event_reasons); derived (recomputed when read).
  bool power_or_thermal_throttled = false;
};

/// Builds a reading with power_or_thermal_throttled derived from `reasons`.
ClockReading make_clock_reading(double sm_clock_hz, double memory_clock_hz, uint64_t reasons);

/// How many readings are power- or thermal-throttled.
size_t count_throttled(const std::vector<ClockReading>& readings);

/// The power or thermal reasons (only those) set in any throttled reading, as
/// describe_clock_event_reasons names them; "" when none is throttled.
std::string throttle_reasons_text(const std::vector<ClockReading>& readings);

/// Reason recorded for a report written before per-sample clocks existed (the JSON key is absent).
inline constexpr const char* kSampleClocksAbsentReason =
    "report written before per-sample clocks were recorded";

/// What `sweep --lock-clocks` did to the GPU's SM clocks, recorded in the report's device.
struct ClockLockRecord {
  std::string setting;     ///< the --lock-clocks value, "base"
  double sm_clock_hz = 0;  ///< the SM clock locked to (min = max), Hz
  /// Where the value came from, e.g. "nvmlDeviceGetDefaultApplicationsClock(NVML_CLOCK_GRAPHICS)"
  std::string source;
  /// How the lock ended: "reset with nvmlDeviceResetGpuLockedClocks after the last point", or why
  /// the reset failed (then the GPU may still be locked: nvidia-smi -rgc resets it).
  std::string restore;
};

}  // namespace rooflinectl
