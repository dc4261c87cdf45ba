// The cache of `rooflinectl peaks` results: one JSON file per (GPU UUID, driver, max SM clock),
// so that `sweep` can use measured ceilings without re-running the microbenchmarks. Pure host
// code (paths, file I/O, JSON); the key is queried from the GPU in peaks_key.hpp.
#pragma once

#include <optional>
#include <string>

#include "result/peak_set.hpp"

namespace rooflinectl {

/// The cache directory per the XDG base-directory spec: "$XDG_CACHE_HOME/rooflinectl" when that
/// variable is set to an absolute path, else "$HOME/.cache/rooflinectl" when HOME is set and
/// non-empty, else std::nullopt (no cache). Arguments are the variables' values (nullptr = unset).
std::optional<std::string> peaks_cache_dir(const char* xdg_cache_home, const char* home);

/// peaks_cache_dir of this process's environment.
std::optional<std::string> default_peaks_cache_dir();

/// "peaks-<uuid>-<driver>-<MHz>MHz.json"; any character outside [A-Za-z0-9._-] becomes '_', so a
/// key can never name a path outside the cache directory.
std::string peaks_cache_file_name(const PeaksKey& key);

/// Writes `record` to dir/peaks_cache_file_name(record.key) atomically, creating `dir` first.
/// Returns the path. Throws a bad-input Error naming the path and the OS reason when the directory
/// cannot be created or the file cannot be written.
std::string save_peaks_cache(const std::string& dir, const PeaksRecord& record);

/// The cached record for `key` in `dir`, or std::nullopt with `why_not` set: no file, an
/// unreadable or malformed file, another layout version, or a file whose stored key differs from
/// `key`. Never throws for a bad cache file: a stale cache only means measuring again.
std::optional<PeaksRecord> load_peaks_cache(const std::string& dir, const PeaksKey& key,
                                            std::string& why_not);

/// The NVIDIA kernel-module version ("580.159.04") from the text of /proc/driver/nvidia/version
/// ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  <date>"); std::nullopt when the
/// text has no such line.
std::optional<std::string> parse_nvidia_module_version(const std::string& proc_text);

}  // namespace rooflinectl
