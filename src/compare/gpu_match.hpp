// Whether two reports come from the same GPU, and the GPU in words for the messages that refuse
// or warn about a comparison across GPUs. Shared by the sweep and the profile comparison. Pure
// host code.
#pragma once

#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// True when `a` and `b` name the same GPU: same name, compute capability and SM count (a MIG
/// slice of one GPU model has fewer SMs under the same name).
bool same_gpu(const DeviceRecord& a, const DeviceRecord& b);

/// "'NVIDIA H200' (cc 9.0, 132 SMs)".
std::string describe_gpu(const DeviceRecord& device);

}  // namespace rooflinectl
