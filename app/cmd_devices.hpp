// `rooflinectl devices`: the GPUs CUDA sees and whether their counters can be read.
#pragma once

#include <CLI/CLI.hpp>

namespace rooflinectl {

struct DevicesOptions {
  bool json = false;  ///< print JSON instead of a table
};

/// Binds the flags of `devices` to `options`.
CLI::App* setup_devices(CLI::App& app, DevicesOptions& options);

/// Prints one line per device (name, compute capability, SMs, memory, clocks, counters), or with
/// --json an array of one object per device. Returns 0. Without a GPU throws an environment Error
/// (exit 3) naming CUDA's reason; with --json it first prints {"devices": [], "error": ...,
/// "reason": <CUDA error>, "hint": ...} on stdout.
int run_devices_command(const DevicesOptions& options);

}  // namespace rooflinectl
