// `rooflinectl list`: operators with their kernel versions, axes with their defaults, the
// counters collected and the model presets.
#pragma once

#include <CLI/CLI.hpp>

namespace rooflinectl {

struct ListOptions {
  bool json = false;  ///< print JSON instead of text
};

/// Binds the flags of `list` to `options`.
CLI::App* setup_list(CLI::App& app, ListOptions& options);

/// Prints operators (name, pipe, summary, and each kernel version: its --kernel key, the name
/// points report, what it needs and its fallback, the default marked), the sweep axes with
/// defaults, the metric names and the model presets (--model); with --json the same content as
/// one object {"operators": [...], "axes": [...], "counters": {...}, "model_presets": [...]}, each
/// operator with "default_version" and "versions" [{"key", "name", "needs", "fallback" (null:
/// none)}], each preset with its values and "sources" (key → where the value comes from). Needs no
/// GPU. Returns 0; a standard output that cannot be written (a full disk, a closed pipe) is an
/// environment Error (exit 3).
int run_list_command(const ListOptions& options);

}  // namespace rooflinectl
