// The sweep configuration file (--config) as `sweep` and `model` read it.
#pragma once

#include <string>

#include "core/sweep_config.hpp"

namespace rooflinectl {

/// load_sweep_config(path), and the file's "kernels" requests checked against the operators'
/// declared versions there and then, so that a bad one is reported as "<path>: key 'kernels':
/// <why>" rather than as a flag the user never typed. Throws bad-input Errors (exit 2).
SweepConfig load_config_file(const std::string& path);

}  // namespace rooflinectl
