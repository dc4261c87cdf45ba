// The console view of a profile report: where the program's GPU time goes, kernel by kernel,
// and what limits each one. Pure; never throws.
#pragma once

#include <string>

#include "profile/profile_report.hpp"

namespace rooflinectl {

/// A header (program, exit, launch and kernel counts, GPU time, roof source), one row per kernel
/// in report order (longest total time first: share of GPU time, total and median time,
/// launches profiled/all, DRAM bytes of the isolated launch, FLOP/B, achieved TFLOP/s and TB/s,
/// % of roof, verdict, name with launch configuration and NVTX path), then the bytes basis and
/// the report's warnings. At most `max_rows` kernels (the rest summed in one line).
std::string format_profile_table(const ProfileReport& report, size_t max_rows = 30);

}  // namespace rooflinectl
