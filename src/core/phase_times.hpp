// Where a sweep's wall time goes: named phases (set-up, validation, timing, the counter passes),
// their seconds summed over the points, and the one line `sweep` prints at the end. Pure code (the
// caller reads the clock), so the arithmetic and the text are unit-tested.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace rooflinectl {

/// Seconds per named phase, in the order each phase was first added.
class PhaseTimes {
 public:
  /// Adds `seconds` (wall time, >= 0) to phase `name`, creating it at the end if new.
  void add(const std::string& name, double seconds);
  /// The phases and their summed seconds, in first-added order.
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }
  /// Sum over all phases, in seconds.
  double total_s() const;

 private:
  std::vector<std::pair<std::string, double>> phases_;
};

/// "sweep time 40.1 s: setup 2.10 s (5%), validate 6.00 s (15%), ..., other 0.40 s (1%)": each
/// phase with its share of `wall_s`, and "other" for wall time no phase covers (omitted below
/// 5 ms). Shares are rounded to whole percent; a wall time of 0 prints no shares.
std::string phase_times_line(const PhaseTimes& times, double wall_s);

}  // namespace rooflinectl
