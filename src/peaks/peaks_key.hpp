// The cache key of a GPU's measured ceilings, read from the device and the driver.
#pragma once

#include "result/peak_set.hpp"

namespace rooflinectl {

/// Key of device `index`: its UUID (cudaDeviceProp::uuid, formatted as nvidia-smi prints it,
/// "GPU-8-4-4-4-12 hex"), the driver (the kernel-module version from /proc/driver/nvidia/version
/// when readable, else "cuda-<cudaDriverGetVersion>") and the maximum SM clock
/// (cudaDevAttrClockRate, Hz). Throws an environment Error when a CUDA query fails.
PeaksKey query_peaks_key(int index);

}  // namespace rooflinectl
