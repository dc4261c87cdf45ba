#include "io/device_json.hpp"

#include <fmt/format.h>

namespace rooflinectl {

nlohmann::ordered_json device_identity_json(const DeviceRecord& d) {
  return {{"index", d.index},
          {"name", d.name},
          {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
          {"sm_count", d.sm_count},
          {"memory_bytes", d.memory_bytes},
          {"l2_bytes", d.l2_bytes},
          {"sm_clock_max_hz", d.sm_clock_max_hz},
          {"memory_clock_hz", d.memory_clock_hz},
          {"memory_bus_width_bits", d.memory_bus_width_bits}};
}

}  // namespace rooflinectl
