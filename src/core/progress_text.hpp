// The text of a sweep's progress lines: durations, the estimate of the time left and the line of
// one point. Pure functions (no clock, no terminal), so the arithmetic is unit-tested; the app's
// sweep_progress decides where and how the lines are shown.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace rooflinectl {

/// A duration for people: "0.42 s" and "12.3 s" below a minute, "4 min 05 s" below an hour,
/// "1 h 02 min" above. Negative or NaN seconds print as "0.00 s".
std::string format_duration(double seconds);

/// Seconds left for `points_left` more points at the mean time of the `points_done` so far
/// (`seconds_so_far` in all); nullopt before the first point is done.
std::optional<double> estimate_seconds_left(double seconds_so_far, size_t points_done,
                                            size_t points_left);

/// "[3/42] flash_attention L=2048 ..." with, once a point is done, " (last 1.2 s, about 45.0 s
/// left)": the line shown while point `index` (1-based) of `total` runs.
std::string point_start_line(size_t index, size_t total, const std::string& point,
                             std::optional<double> last_point_s, std::optional<double> left_s);

/// "[3/42] flash_attention L=2048: 1.23 s, about 45.0 s left" (", done" for the last point): the
/// plain line after point `index` took `point_s`.
std::string point_done_line(size_t index, size_t total, const std::string& point, double point_s,
                            std::optional<double> left_s);

}  // namespace rooflinectl
