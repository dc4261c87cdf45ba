// How `sweep` shows its progress on stderr: on a terminal one live line, rewritten in place at
// each point with its index, the point, the last point's time and the time left; otherwise
// (CI logs, files) plain lines, one when a point starts and one with its time when it ends.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>

namespace rooflinectl {

class SweepProgress {
 public:
  /// Progress of `total` points on `out`; live when `out` is std::cerr (or std::clog) and
  /// standard error is a terminal.
  SweepProgress(std::ostream& out, size_t total);

  /// Point `index` (1-based), e.g. "gemm L=4096", starts.
  void start(size_t index, const std::string& point);
  /// The point started last ends (whatever its status).
  void done();
  /// A line of its own (a point's status, an error), below the live line.
  void note(const std::string& line);
  /// Ends the live line, if any.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::ostream& out_;
  size_t total_;
  bool live_;
  bool line_shown_ = false;
  size_t index_ = 0;
  std::string point_;
  Clock::time_point point_start_{};
  double seconds_so_far_ = 0;
  size_t points_done_ = 0;
  std::optional<double> last_point_s_;

  void clear_live_line();
};

}  // namespace rooflinectl
