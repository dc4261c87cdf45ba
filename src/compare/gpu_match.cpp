#include "compare/gpu_match.hpp"

#include <fmt/format.h>

namespace rooflinectl {

bool same_gpu(const DeviceRecord& a, const DeviceRecord& b) {
  return a.name == b.name && a.cc_major == b.cc_major && a.cc_minor == b.cc_minor &&
         a.sm_count == b.sm_count;
}

std::string describe_gpu(const DeviceRecord& d) {
  return fmt::format("'{}' (cc {}.{}, {} SMs)", d.name, d.cc_major, d.cc_minor, d.sm_count);
}

}  // namespace rooflinectl
