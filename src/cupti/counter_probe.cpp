#include "cupti/counter_probe.hpp"

#include <cupti_version.h>

#include <exception>
#include <string>
#include <vector>

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
    // The session makes `device` current and creates its context itself. The fp8 tensor
    // metrics are left out: only sweeps with FP8 GEMM points (compute capability 9.0) collect
    // them, and a chip without FP8 tensor cores need not know them.
    std::vector<std::string> metrics;
    for (const std::string& name : counter_metric_names()) {
      if (name != kMetricTensorFp8Ops && name != kMetricTensorFp8PeakPerCycle) {
        metrics.push_back(name);
      }
    }
    const ProfilerSession session(device, metrics);
    access.readable = true;
  } catch (const std::exception& e) {
    access.reason = e.what();
  }
  return access;
}

}  // namespace rooflinectl
