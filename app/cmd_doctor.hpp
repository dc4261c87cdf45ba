// `rooflinectl doctor`: everything that decides whether a sweep can run with counters, in one
// report a user can paste into a bug: driver, CUDA runtime and CUPTI versions, each device with
// its clocks and MIG/MPS state, the host's profiling permissions, and — on refusal — the CUPTI
// error symbol with its fix.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

namespace rooflinectl {

struct DoctorOptions {
  std::optional<int> device;  ///< only this device; unset: every visible device
  bool json = false;          ///< print JSON instead of text
};

/// Binds the flags of `doctor` to `options`.
CLI::App* setup_doctor(CLI::App& app, DoctorOptions& options);

/// Prints the diagnosis on stdout, as text or (with --json) as one JSON object with the same
/// content: "versions", "host", "visible_devices", "devices" (one object per checked device) and
/// "verdict" {"ready", "text", "exit_code", and "hint" when no GPU is visible}. Returns 0 when
/// every checked device can run a sweep with counters, 3 (environment) when there is no GPU or a
/// device's counters cannot be read; what cannot be known without NVML (current application clocks,
/// the GPU's MIG mode) is said so. Throws a bad-input Error for a --device outside the visible
/// range.
int run_doctor_command(const DoctorOptions& options);

}  // namespace rooflinectl
