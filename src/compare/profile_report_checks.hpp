// What `compare` checks of two profile reports before any kernel is judged (options, schema,
// GPU, unique keys), what it warns about (settings that differ), and the message when no kernel
// matched. Pure host code; used by compare_profiles (profile_compare.hpp).
#pragma once

#include <string>
#include <vector>

#include "compare/profile_compare.hpp"
#include "profile/profile_report.hpp"

namespace rooflinectl {

/// Throws a bad-input Error naming the flag when time_threshold, counter_threshold or
/// traffic_threshold is not in (0, 1), or min_share not in [0, 1).
void check_profile_compare_options(const ProfileCompareOptions& options);

/// Throws a bad-input Error when the schema versions differ, when the first devices differ
/// (same_gpu; name, compute capability, SM count) and `allow_different_gpu` is false, or when a
/// report holds one kernel key twice (naming the report and the key). Reports without a device
/// (no kernel ran) are not refused here: nothing of theirs can match.
void check_profiles_comparable(const ProfileReport& base, const ProfileReport& current,
                               bool allow_different_gpu);

/// One line per thing a reader of the verdicts must know: different GPUs (when allowed), CUDA
/// driver or runtime differ, a report incomplete (a process wrote no end record), a program that
/// did not exit 0, the profiles ran with different filters or counters off.
std::vector<std::string> profile_setting_warnings(const ProfileReport& base,
                                                  const ProfileReport& current);

/// The one-line message when no kernel key of `current` is one of `base`: the kernel counts and
/// the first three keys of each side.
std::string describe_no_kernel_matched(const ProfileReport& base, const ProfileReport& current);

}  // namespace rooflinectl
