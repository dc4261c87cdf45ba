#include "core/progress_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace rooflinectl {

std::string format_duration(double seconds) {
  if (!(seconds > 0)) return "0.00 s";
  if (seconds < 10) return fmt::format("{:.2f} s", seconds);
  if (seconds < 59.95) return fmt::format("{:.1f} s", seconds);
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 3600) return fmt::format("{} min {:02} s", whole / 60, whole % 60);
  const long long minutes = (whole + 30) / 60;
  return fmt::format("{} h {:02} min", minutes / 60, minutes % 60);
}

std::optional<double> estimate_seconds_left(double seconds_so_far, size_t points_done,
                                            size_t points_left) {
  if (points_done == 0) return std::nullopt;
  return seconds_so_far / static_cast<double>(points_done) * static_cast<double>(points_left);
}

std::string point_start_line(size_t index, size_t total, const std::string& point,
                             std::optional<double> last_point_s, std::optional<double> left_s) {
  std::string line = fmt::format("[{}/{}] {} ...", index, total, point);
  if (last_point_s && left_s) {
    line += fmt::format(" (last {}, about {} left)", format_duration(*last_point_s),
                        format_duration(*left_s));
  }
  return line;
}

std::string point_done_line(size_t index, size_t total, const std::string& point, double point_s,
                            std::optional<double> left_s) {
  const std::string rest = index == total || !left_s
                               ? std::string("done")
                               : fmt::format("about {} left", format_duration(*left_s));
  return fmt::format("[{}/{}] {}: {}, {}", index, total, point, format_duration(point_s), rest);
}

}  // namespace rooflinectl
