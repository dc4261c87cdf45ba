#include "result/clock_notes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/statistics.hpp"

namespace rooflinectl {
namespace {

constexpr double kHzPerMhz = 1e6;

}  // namespace

std::string throttled_samples_text(const TimingResult& timing) {
  if (!timing.sample_clocks) return "";
  const size_t throttled = count_throttled(*timing.sample_clocks);
  if (throttled == 0) return "";
  return fmt::format("{} of {} samples throttled ({})", throttled, timing.sample_clocks->size(),
                     throttle_reasons_text(*timing.sample_clocks));
}

std::string throttle_note(const PointResult& base, const PointResult& current) {
  const std::string base_text = base.timing ? throttled_samples_text(*base.timing) : "";
  const std::string new_text = current.timing ? throttled_samples_text(*current.timing) : "";
  std::string note;
  if (!base_text.empty()) note = "base: " + base_text;
  if (!new_text.empty()) note += (note.empty() ? "" : "; ") + ("new: " + new_text);
  return note;
}

std::optional<std::string> sample_clocks_summary(const Report& report) {
  std::vector<double> sm_mhz;
  std::vector<double> memory_mhz;
  std::vector<ClockReading> all;
  size_t points = 0;
  for (const PointResult& p : report.points) {
    if (!p.timing || !p.timing->sample_clocks || p.timing->sample_clocks->empty()) continue;
    ++points;
    for (const ClockReading& c : *p.timing->sample_clocks) {
      sm_mhz.push_back(c.sm_clock_hz / kHzPerMhz);
      memory_mhz.push_back(c.memory_clock_hz / kHzPerMhz);
      all.push_back(c);
    }
  }
  if (all.empty()) return std::nullopt;
  const auto [low, high] = std::minmax_element(sm_mhz.begin(), sm_mhz.end());
  std::string line = fmt::format(
      "clocks (NVML, after each timed sample): SM median {:.0f} MHz ({:.0f}..{:.0f} MHz), "
      "memory median {:.0f} MHz, over {} samples of {} point{}; ",
      median(sm_mhz), *low, *high, median(memory_mhz), all.size(), points, points == 1 ? "" : "s");
  const size_t throttled = count_throttled(all);
  line += throttled == 0 ? "no sample power- or thermal-throttled"
                         : fmt::format("{} sample{} power- or thermal-throttled ({})", throttled,
                                       throttled == 1 ? "" : "s", throttle_reasons_text(all));
  if (report.device.clock_lock) {
    line += fmt::format("; SM clocks locked to {:.0f} MHz ({})",
                        report.device.clock_lock->sm_clock_hz / kHzPerMhz,
                        report.device.clock_lock->setting);
  }
  return line;
}

}  // namespace rooflinectl
