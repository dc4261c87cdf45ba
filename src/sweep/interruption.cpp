#include "sweep/interruption.hpp"

#include <fmt/format.h>

#include "core/interrupt.hpp"

namespace rooflinectl {

bool mark_if_interrupted(PointResult& point) {
  const int signal_number = pending_interrupt();
  if (signal_number == 0) return false;
  const std::string reason =
      fmt::format("not run: the sweep was interrupted by {}", signal_name(signal_number));
  point.status = PointStatus::kInterrupted;
  point.reason = reason;
  point.validation.reset();
  point.timing.reset();
  point.roofline.reset();
  point.tokens_per_s.reset();
  point.counters = CounterResult{};
  point.counters.null_reason = reason;
  point.roofline_null_reason = reason;
  return true;
}

bool report_was_interrupted(const Report& report) {
  for (const PointResult& point : report.points) {
    if (point.status == PointStatus::kInterrupted) return true;
  }
  return false;
}

}  // namespace rooflinectl
