// Measures the SM clock the GPU is actually running at (clocks are not locked: the H200 was seen
// between 1.78 and 1.98 GHz from one kernel to the next, cupti-on-h200.md).
#pragma once

#include <cuda_runtime.h>

namespace rooflinectl {

/// SM clock in Hz, measured by a one-block kernel on `stream` that reads clock64() (SM cycles)
/// and %globaltimer (ns) at its start and again after spinning for ~200 µs:
/// Δcycles / Δns · 1e9. Synchronous (waits for `stream`). The result reflects the clock right
/// after whatever ran before it, so call it right after the timed samples. Throws an environment
/// Error when a CUDA call fails or the timer does not advance.
double measure_sm_clock_hz(cudaStream_t stream);

}  // namespace rooflinectl
