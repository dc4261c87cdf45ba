// `rooflinectl list`: operators, axes with their defaults, and the counters collected.
#pragma once

#include <CLI/CLI.hpp>

namespace rooflinectl {

/// Binds `list` (no flags).
CLI::App* setup_list(CLI::App& app);

/// Prints operators (name, pipe, summary), the sweep axes with defaults, and the metric names.
/// Needs no GPU. Returns 0.
int run_list_command();

}  // namespace rooflinectl
