#include "core/phase_times.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/progress_text.hpp"

namespace rooflinectl {

void PhaseTimes::add(const std::string& name, double seconds) {
  const auto found = std::find_if(phases_.begin(), phases_.end(),
                                  [&](const auto& phase) { return phase.first == name; });
  if (found == phases_.end()) {
    phases_.emplace_back(name, seconds);
  } else {
    found->second += seconds;
  }
}

double PhaseTimes::total_s() const {
  double total = 0;
  for (const auto& phase : phases_) total += phase.second;
  return total;
}

namespace {

std::string phase_text(const std::string& name, double seconds, double wall_s) {
  if (wall_s <= 0) return fmt::format("{} {}", name, format_duration(seconds));
  return fmt::format("{} {} ({:.0f}%)", name, format_duration(seconds), 100.0 * seconds / wall_s);
}

}  // namespace

std::string phase_times_line(const PhaseTimes& times, double wall_s) {
  std::string line = fmt::format("sweep time {}:", format_duration(wall_s));
  const char* separator = " ";
  for (const auto& [name, seconds] : times.phases()) {
    line += separator + phase_text(name, seconds, wall_s);
    separator = ", ";
  }
  const double other_s = wall_s - times.total_s();
  if (other_s >= 0.005) line += separator + phase_text("other", other_s, wall_s);
  return line;
}

}  // namespace rooflinectl
