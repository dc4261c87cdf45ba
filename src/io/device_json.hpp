// The JSON of a device's identity and limits, shared by `devices --json` and `doctor --json` so
// that both name and order the fields alike.
#pragma once

#include <nlohmann/json.hpp>

#include "result/report.hpp"

namespace rooflinectl {

/// index, name, compute_capability ("9.0"), sm_count, memory_bytes, l2_bytes, sm_clock_max_hz,
/// memory_clock_hz, memory_bus_width_bits of `d`, in that order; callers append their own keys.
nlohmann::ordered_json device_identity_json(const DeviceRecord& d);

}  // namespace rooflinectl
