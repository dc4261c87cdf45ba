// Device enumeration and the static facts of one GPU, for the report and for sizing (L2 flush,
// memory pre-check). Counter availability is decided elsewhere (src/cupti).
#pragma once

#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// Number of CUDA devices visible to this process; 0 when there is no driver or no GPU (never
/// throws, so that `rooflinectl devices` and the GPU tests can report "no GPU" themselves).
int device_count();

/// Why device_count() is 0: cudaGetDeviceCount's error in no_device_cause's words ("no NVIDIA
/// driver is loaded: ..." without a driver, else e.g. "cudaErrorNoDevice: no CUDA-capable device
/// is detected"), or "cudaGetDeviceCount reports 0 devices" when it succeeded with none. Empty
/// when there is a device. Never throws.
std::string no_device_reason();

/// The one message every command gives when no GPU is found: "no CUDA GPU found (<reason>):
/// <fix> (`rooflinectl doctor` says more)", the reason from no_device_reason(), the fix from
/// no_device_fix (device/ environment_facts.hpp: load the driver when none is loaded, else check
/// nvidia-smi and CUDA_VISIBLE_DEVICES). Never throws.
std::string no_device_message();

/// The GPU UUID as nvidia-smi and NVML print it, "GPU-" and the 16 bytes of cudaDeviceProp::uuid
/// in lowercase hex grouped 4-2-2-2-6 bytes, e.g. "GPU-5f2c3a8e-1b4d-7e90-a1b2-c3d4e5f60718".
std::string gpu_uuid_text(const unsigned char* bytes);

/// Static facts of device `index` (name, UUID, PCI bus id, compute capability, SM count, L2 and
/// memory bytes, peak SM and memory clocks in Hz, bus width in bits, driver and runtime versions).
/// Leaves `counters_available` false and `counters_reason` empty: the CUPTI probe fills them.
/// Throws a bad-input Error when `index` is outside 0..count-1, an environment Error when there is
/// no device or a CUDA query fails.
DeviceRecord query_device(int index);

}  // namespace rooflinectl
