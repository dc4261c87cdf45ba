// Wall-clock seconds between a steady_clock time point and now, for the phase and session times
// the sweep and the counter sessions record.
#pragma once

#include <chrono>

namespace rooflinectl {

/// Seconds of steady_clock time from `start` to now (>= 0).
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace rooflinectl
