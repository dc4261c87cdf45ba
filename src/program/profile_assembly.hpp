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

/// Run 2 of full mode: the records of the FLOP run and how it ended.
struct FlopRunInputs {
  std::vector<ProcessRecords> processes;
  FlopRunOutcome outcome;
};

/// What assemble_profile needs besides the records.
struct ProfileInputs {
  std::vector<ProcessRecords> processes;  ///< run 1 (the only run of single-pass mode)
  ProgramOutcome program;
  /// Full mode: run 2. nullopt in single-pass mode; in full mode when run 1 failed, with the
  /// reason in outcome.failure and no processes.
  std::optional<FlopRunInputs> flop_run;
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
///   (counters_from_passes); in full mode the range of its run-2 counterpart (match_flop_run,
///   processes paired in pid order) is merged in as a further session, and a launch without one
///   keeps run 1's counters with flop_null_reason; a run 2 that did not exit 0 gives no launch
///   FLOPs (outcome.failure says why);
/// - a launch is placed with all its counted FLOPs (KernelCounters::counted_flop) under its
///   device's roof for the pipe most of them ran on (dominant_flop_pipe: bf16 or fp16 tensor,
///   fp32 SIMT); a launch without counted FLOPs is judged by its DRAM throughput
///   (kMemoryBoundDramFraction) and left unplaced, as is one whose FLOPs ran mostly on a pipe the
///   roofs have no ceiling for (tf32, fp8, fp16 or fp64 SIMT);
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
