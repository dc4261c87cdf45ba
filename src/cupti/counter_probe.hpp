// Whether hardware counters can be read on a device, asked the only reliable way: by opening the
// same CUPTI range-profiler session the sweep uses. Shared by `doctor` and `sweep
// --require-counters` so that both give the same answer and the same message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rooflinectl {

/// API version of the loaded CUPTI library (cuptiGetVersion, e.g. 130001 = CUDA 13.0 Update 1);
/// nullopt when the call fails. Needs no GPU.
std::optional<uint32_t> cupti_api_version();

/// CUPTI_API_VERSION of the headers rooflinectl was built with.
uint32_t cupti_header_version();

/// Outcome of a counter probe.
struct CounterAccess {
  bool readable = false;
  /// Empty when readable; otherwise one line naming the failed CUPTI call, the CUPTI error symbol
  /// (e.g. CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) and the fix (ProfilerSession's messages).
  std::string reason;
};

/// Opens and closes a ProfilerSession with the sweep's metric list on `device` (which becomes
/// the current device). Never throws: every failure, CUDA ones included, becomes `reason`.
CounterAccess probe_counter_access(int device);

}  // namespace rooflinectl
