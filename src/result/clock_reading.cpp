#include "result/clock_reading.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace rooflinectl {
namespace {

// Bit order; the names shortened from nvidia-smi -q -d PERFORMANCE ("SW Power Cap", ...).
constexpr std::array<std::pair<uint64_t, const char*>, 9> kReasonNames = {{
    {kClockEventGpuIdle, "GPU idle"},
    {kClockEventApplicationsClocksSetting, "applications clocks setting"},
    {kClockEventSwPowerCap, "SW power cap"},
    {kClockEventHwSlowdown, "HW slowdown"},
    {kClockEventSyncBoost, "sync boost"},
    {kClockEventSwThermalSlowdown, "SW thermal slowdown"},
    {kClockEventHwThermalSlowdown, "HW thermal slowdown"},
    {kClockEventHwPowerBrakeSlowdown, "HW power brake slowdown"},
    {kClockEventDisplayClockSetting, "display clock setting"},
}};

}  // namespace

bool is_power_or_thermal_throttled(uint64_t reasons) {
  return (reasons & kPowerOrThermalClockEvents) != 0;
}

std::string describe_clock_event_reasons(uint64_t reasons) {
  if (reasons == 0) return "none";
  std::string text;
  uint64_t known = 0;
  for (const auto& [bit, name] : kReasonNames) {
    known |= bit;
    if ((reasons & bit) != 0) text += (text.empty() ? "" : ", ") + std::string(name);
  }
  for (int b = 0; b < 64; ++b) {
    const uint64_t bit = uint64_t{1} << b;
    if ((reasons & bit) != 0 && (known & bit) == 0) {
      text += (text.empty() ? "" : ", ") + fmt::format("{:#x}", bit);
    }
  }
  return text;
}

ClockReading make_clock_reading(double sm_clock_hz, double memory_clock_hz, uint64_t reasons) {
  return ClockReading{sm_clock_hz, memory_clock_hz, reasons,
                      is_power_or_thermal_throttled(reasons)};
}

size_t count_throttled(const std::vector<ClockReading>& readings) {
  size_t n = 0;
  for (const auto& r : readings) n += r.power_or_thermal_throttled ? 1 : 0;
  return n;
}

std::string throttle_reasons_text(const std::vector<ClockReading>& readings) {
  uint64_t seen = 0;
  for (const auto& r : readings) {
    if (r.power_or_thermal_throttled) seen |= r.clock_event_reasons & kPowerOrThermalClockEvents;
  }
  return seen == 0 ? "" : describe_clock_event_reasons(seen);
}

}  // namespace rooflinectl
