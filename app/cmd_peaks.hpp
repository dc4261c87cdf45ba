// `rooflinectl peaks`: measured ceilings of the GPU next to the datasheet and counter-derived
// peaks, cached for `sweep --roof measured`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rooflinectl {

/// Flags of `peaks`.
struct PeaksOptions {
  int device = 0;
  std::string format = "table";  ///< stdout format: table | json (the cache file's layout)
  bool no_cache = false;         ///< measure even when cached; the new result replaces the entry
};

/// Binds the flags of `peaks` to `options`.
CLI::App* setup_peaks(CLI::App& app, PeaksOptions& options);

/// Runs `peaks`: uses the cache entry of this GPU (UUID, driver, max SM clock) unless --no-cache,
/// else runs the microbenchmarks (src/peaks/bench/peak_benchmarks.hpp) and a counter pass over
/// them, and writes the cache entry atomically. The datasheet column is always taken from the
/// builtin table as it is now. Prints the table or JSON on stdout, notices on stderr. Returns 0, or
/// 1 when a benchmark failed; throws a bad-input Error for a bad --format or --device, an
/// environment Error when there is no GPU.
int run_peaks_command(const PeaksOptions& options);

}  // namespace rooflinectl
