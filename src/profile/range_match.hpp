// Which counter ranges of a collection belong to which profiled launch, from the range names
// CUPTI gives auto ranges (the kernel's name). Pure host code.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rooflinectl {

/// Whether an auto range named `range_name` can be a launch of the kernel whose symbol is
/// `mangled`: the name is the symbol or a part of its demangled form (its function name, or all
/// of it). Loose on purpose: find_launch_range also requires the range's place.
bool range_names_kernel(const std::string& range_name, const std::string& mangled);

/// The index of the range of a launch of `mangled` at or after `from` that sits where the
/// injection puts a profiled launch: right after the ranges of one L2 flush (`flush_names`, in
/// order) and right before the write-back sweep (`sweep_name`). std::nullopt when no range fits
/// (a kernel rooflinectl does not hook ran inside the launch's window, or the names differ).
std::optional<size_t> find_launch_range(const std::vector<std::string>& names, size_t from,
                                        const std::vector<std::string>& flush_names,
                                        const std::string& sweep_name, const std::string& mangled);

}  // namespace rooflinectl
