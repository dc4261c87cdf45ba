// The profile report from what the injection library recorded: launches joined with their
// activity records, counters converted as the sweep converts them, each profiled launch placed
// on its device's roofs, and launches grouped into kernels. Pure host code (no GPU): the CPU
// tests feed it synthetic records.
#pragma once

#include <map>
#include <vector>

#include "profile/profile_report.hpp"
#include "result/peak_set.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// Fraction of the DRAM roof at and above which a profiled kernel with no tensor-pipe work is
/// called memory-bound in single-pass mode (its SIMT FLOPs are not counted, so it cannot be
/// placed): a kernel that streams DRAM at half the roof or more spends its time on memory
/// traffic whatever its FLOP count, as every element-wise kernel does.
inline constexpr double kMemoryBoundDramFraction = 0.5;

/// What assemble_profile needs besides the records.
struct ProfileInputs {
  std::vector<ProcessRecords> processes;
  ProgramOutcome program;
  ProfileConfig config;
  std::map<int, DeviceRecord> devices;  ///< by CUDA ordinal: every device a launch ran on
  std::map<int, PeaksBlock> peaks;      ///< by CUDA ordinal: the roof sources of each device
};

/// Builds the report:
/// - each launch record joined to its activity record by (pid, correlation id); the launch's
///   duration is the activity's end − start; the library's own launches (flush, sweep) are
///   dropped; an activity without a launch record becomes a launch of its own (a kernel run by a
///   CUDA graph launch: not profiled, reason given);
/// - a profiled launch's ranges (kernel, write-back sweep) become its CounterResult
///   (counters_from_passes); it is placed under its device's roof when it did bf16 tensor work,
///   otherwise judged by its DRAM throughput (kMemoryBoundDramFraction) and left unplaced;
/// - launches with the same demangled name, grid, block, dynamic shared memory and NVTX path form
///   one kernel: launch count, durations, total and median, share of all kernel time, and the
///   counters and placement of its median profiled launch; kernels sorted by total time;
/// - a process without its end record marks the report incomplete, with a warning.
/// A device or peaks entry missing for a launch's device leaves that launch unplaced with the
/// reason.
ProfileReport assemble_profile(const ProfileInputs& inputs);

/// The key of a kernel: "name grid=(x,y,z) block=(x,y,z) smem=N nvtx=a/b" ("nvtx=-" without
/// ranges).
std::string kernel_key(const std::string& name, const std::array<uint32_t, 3>& grid,
                       const std::array<uint32_t, 3>& block, uint32_t dynamic_shared_bytes,
                       const std::vector<std::string>& nvtx_path);

}  // namespace rooflinectl
