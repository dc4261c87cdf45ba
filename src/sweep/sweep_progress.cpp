#include "sweep/sweep_progress.hpp"

#include <unistd.h>

#include <iostream>

#include "core/progress_text.hpp"

namespace rooflinectl {
namespace {

bool is_terminal(const std::ostream& out) {
  return (&out == &std::cerr || &out == &std::clog) && isatty(STDERR_FILENO) == 1;
}

// Carriage return and "erase to end of line" (ANSI EL): the live line is rewritten in place.
constexpr const char* kRewriteLine = "\r\x1b[K";

}  // namespace

SweepProgress::SweepProgress(std::ostream& out, size_t total)
    : out_(out), total_(total), live_(is_terminal(out)) {}

void SweepProgress::start(size_t index, const std::string& point) {
  index_ = index;
  point_ = point;
  point_start_ = Clock::now();
  const auto left = estimate_seconds_left(seconds_so_far_, points_done_, total_ - index + 1);
  const std::string line = point_start_line(index, total_, point, last_point_s_, left);
  if (live_) {
    out_ << kRewriteLine << line << std::flush;
    line_shown_ = true;
  } else {
    out_ << line << '\n' << std::flush;
  }
}

void SweepProgress::done() {
  const double seconds = std::chrono::duration<double>(Clock::now() - point_start_).count();
  seconds_so_far_ += seconds;
  ++points_done_;
  last_point_s_ = seconds;
  if (!live_) {
    const auto left = estimate_seconds_left(seconds_so_far_, points_done_, total_ - index_);
    out_ << point_done_line(index_, total_, point_, seconds, left) << '\n' << std::flush;
  }
}

void SweepProgress::note(const std::string& line) {
  clear_live_line();
  out_ << line << '\n' << std::flush;
}

void SweepProgress::finish() {
  if (line_shown_) {
    out_ << kRewriteLine
         << point_done_line(index_, total_, point_, last_point_s_.value_or(0), std::nullopt) << '\n'
         << std::flush;
    line_shown_ = false;
  }
}

void SweepProgress::clear_live_line() {
  if (line_shown_) {
    out_ << kRewriteLine;
    line_shown_ = false;
  }
}

}  // namespace rooflinectl
