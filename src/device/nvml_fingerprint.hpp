// The fingerprint of a GPU a report records beside CUDA's properties: VBIOS version, ECC mode,
// the enforced power limit and MIG mode, read through NVML (device/nvml_clocks.hpp's table, so
// tests use a fake). When points of one sweep come from several GPUs (`sweep --devices`, `merge`)
// these tell two boards of one model apart and show a state that changes performance (a lowered
// power limit, ECC toggled, MIG on). No CUDA; never throws.
#pragma once

#include "device/nvml_clocks.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// Fills device.vbios_version, ecc_enabled, power_limit_w (the milliwatts NVML reports / 1000)
/// and mig_enabled from `nvml` (the GPU it was opened for). A field stays nullopt when NVML is
/// unavailable, the driver's NVML lacks the entry point, or the call fails (e.g. ECC or MIG "Not
/// Supported" on a GPU without them); device.fingerprint_null_reason then names each missing
/// field and why, "; "-separated ("MIG: Not Supported (code 3)"), or NVML's unavailable reason
/// once. Never throws.
void read_nvml_fingerprint(const NvmlClocks& nvml, DeviceRecord& device);

}  // namespace rooflinectl
