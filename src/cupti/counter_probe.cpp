#include "cupti/counter_probe.hpp"

#include <cupti_version.h>

#include <exception>

#include "core/error.hpp"
#include "cupti/metrics.hpp"
#include "cupti/profiler_session.hpp"

namespace rooflinectl {

std::optional<uint32_t> cupti_api_version() {
  uint32_t version = 0;
  if (cuptiGetVersion(&version) != CUPTI_SUCCESS) return std::nullopt;
  return version;
}

uint32_t cupti_header_version() { return CUPTI_API_VERSION; }

CounterAccess probe_counter_access(int device) {
  CounterAccess access;
  try {
    // The session makes `device` current and creates its context itself.
    const ProfilerSession session(device, counter_metric_names());
    access.readable = true;
  } catch (const std::exception& e) {
    access.reason = e.what();
  }
  return access;
}

}  // namespace rooflinectl
