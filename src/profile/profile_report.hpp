// Records of `rooflinectl profile`: what the injection library saw of each kernel launch of a
// program it did not write, and the report built from it (per launch, per kernel, the program).
// Same units and null conventions as result/report.hpp: SI units, std::nullopt with a reason for
// what was not measured. Pure host code.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "result/report.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {

/// Version of the profile report layout (docs/profile-report-schema.json); bump on any
/// incompatible change.
inline constexpr int kProfileSchemaVersion = 1;
/// Minor version within kProfileSchemaVersion: additions a reader of an older minor version
/// would not know (1: `profile --mode full`: "flop_run", each launch's "flop_source" and
/// "flop_null_reason", config.mode "full"). Reports without "schema_minor_version" are minor 0.
inline constexpr int kProfileSchemaMinorVersion = 1;

/// config.mode of the default: one range-profiler pass of the byte set per selected launch.
inline constexpr const char* kModeSinglePass = "single-pass";
/// config.mode of `--mode full`: the program runs twice, the second time for the FLOP set.
inline constexpr const char* kModeFull = "full";

/// One kernel launch as the injection library recorded it at its launch call (the callback API).
struct LaunchRecord {
  uint64_t sequence = 0;     ///< launch ordinal in its process, from 0, in call order
  int64_t pid = 0;           ///< the process that launched it (children write their own files)
  uint32_t correlation = 0;  ///< CUPTI correlation id: joins the activity record
  std::string api;           ///< the driver call, e.g. "cuLaunchKernel", "cuLaunchKernelEx"
  std::string mangled_name;  ///< the function's symbol as the driver has it
  std::array<uint32_t, 3> grid{};
  std::array<uint32_t, 3> block{};
  uint32_t dynamic_shared_bytes = 0;
  uint64_t stream = 0;  ///< the CUstream handle as a number (0: the legacy default stream)
  int device = 0;       ///< CUDA device ordinal of the launching context
  std::vector<std::string> nvtx_path;  ///< NVTX push/pop ranges open on the thread, outermost first
  /// The filters selected it for counters (whether or not they could be collected).
  bool selected = false;
  bool profiled = false;  ///< counters were collected for this launch
  /// The call was recorded into a CUDA graph by stream capture: nothing ran; its executions are
  /// the graph's nodes, seen as kernel activities of the graph launch.
  bool captured = false;
  std::string not_profiled_reason;  ///< why not (a filter, stream capture, an error)
  /// The profiled ranges' metric values: the kernel, then the read-only write-back sweep.
  std::vector<std::map<std::string, double>> ranges;
};

/// One kernel execution as the CUPTI activity API recorded it (every kernel, profiled or not).
struct KernelActivity {
  uint32_t correlation = 0;
  int64_t pid = 0;
  std::string name;  ///< as the activity record gives it (mangled)
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  int device = 0;
  uint32_t stream = 0;    ///< CUPTI's stream id
  uint32_t graph_id = 0;  ///< non-zero: the kernel ran as a node of a CUDA graph
  std::array<int32_t, 3> grid{};
  std::array<int32_t, 3> block{};
  int32_t dynamic_shared_bytes = 0;
};

/// What one process's raw file holds, parsed (io/profile_json.hpp).
struct ProcessRecords {
  int64_t pid = 0;
  std::vector<LaunchRecord> launches;
  std::vector<KernelActivity> activities;
  std::vector<uint32_t> tool_correlations;  ///< the injection library's own launches (flushes)
  std::vector<std::string> warnings;        ///< what the library reported, one line each
  /// The metric sets the library collected, as recorded in each launch's counters.
  std::vector<CounterSession> sessions;
  std::string cache_policy;     ///< how L2 was left before each profiled launch
  std::string sweep_method;     ///< how the write-back was measured
  bool complete = false;        ///< the library's end record was written (the process exited)
  uint64_t graph_launches = 0;  ///< cuGraphLaunch calls
};

/// How the program ended.
struct ProgramOutcome {
  std::vector<std::string> command;  ///< CMD ARGS as given
  std::optional<int> exit_code;      ///< when it exited
  std::optional<int> signal;         ///< when a signal killed it
  double wall_time_s = 0;            ///< fork to exit, as `profile` measured it
};

/// One launch of the report: the record, its activity and its placement.
struct ProfiledLaunch {
  LaunchRecord record;
  std::string name;                  ///< demangled
  std::optional<double> duration_s;  ///< from the activity record; nullopt when none joined
  std::string duration_null_reason;
  std::optional<CounterResult> counters;  ///< when profiled
  /// Where the launch's FLOPs come from, e.g. "counted, run 2, kernel replay, 9 passes" (full
  /// mode) or "counted, run 1, one pass: bf16 tensor FLOPs only" (single-pass mode); empty
  /// when no FLOPs were counted for it (flop_null_reason says why).
  std::string flop_source;
  std::string flop_null_reason;
  std::optional<RooflinePoint> roofline;
  std::string roofline_null_reason;
  /// memory-bound / compute-bound in words, and on what basis (placement or DRAM throughput).
  std::string verdict;
};

/// The launches of one kernel (demangled name + grid + block + dynamic shared memory + NVTX path).
struct KernelSummary {
  std::string key;  ///< "name grid=(x,y,z) block=(x,y,z) smem=N nvtx=a/b": what compare matches
  std::string name;
  std::array<uint32_t, 3> grid{};
  std::array<uint32_t, 3> block{};
  uint32_t dynamic_shared_bytes = 0;
  std::vector<std::string> nvtx_path;
  int launches = 0;
  int profiled_launches = 0;
  std::vector<double> durations_s;  ///< every launch with an activity record, in launch order
  double total_time_s = 0;          ///< sum of durations_s
  std::optional<double> median_time_s;
  double share_of_gpu_time = 0;  ///< total_time_s over the program's total kernel time
  /// The median profiled launch's counters and placement (by duration).
  std::optional<CounterResult> counters;
  std::optional<RooflinePoint> roofline;
  std::string roofline_null_reason;
  std::string verdict;
};

/// The DRAM bandwidth `k` sustained while it ran, bytes/s: the in-window DRAM bytes of its median
/// profiled launch over that launch's counted duration. The write-backs measured after the window
/// are left out (for a kernel whose output stays in L2 they would put it above the DRAM roof).
/// std::nullopt when the kernel has no counters, or they lack the bytes or a duration > 0.
inline std::optional<double> in_window_dram_bytes_per_s(const KernelSummary& k) {
  if (!k.counters) return std::nullopt;
  const std::optional<double> bytes = k.counters->total.dram_bytes();
  const std::optional<double> time = k.counters->total.duration_s;
  if (!bytes || !time || !(*time > 0)) return std::nullopt;
  return *bytes / *time;
}

/// The filters and mode a profile ran with.
struct ProfileConfig {
  std::string kernel_regex;               ///< ECMAScript regex on the demangled name; empty: all
  std::vector<std::string> nvtx_include;  ///< ncu-style expressions, OR-ed; empty: all
  uint64_t launch_skip = 0;
  std::optional<uint64_t> launch_count;  ///< nullopt: no limit
  uint64_t sample_every = 1;
  bool counters = true;
  bool include_nccl = false;  ///< profile NCCL kernels too (--include-nccl); default: timed only
  std::string mode = kModeSinglePass;  ///< kModeSinglePass or kModeFull
};

/// Run 2 of full mode (the FLOP run): how the program ended the second time.
struct FlopRunOutcome {
  std::optional<int> exit_code;  ///< when it exited
  std::optional<int> signal;     ///< when a signal killed it
  double wall_time_s = 0;        ///< fork to exit
  bool complete = true;          ///< every process wrote its end record
  /// Why run 2 did not run (run 1 failed), or failed; empty when it ran and exited 0.
  std::string failure;
};

/// A whole profile report.
struct ProfileReport {
  int schema_version = kProfileSchemaVersion;
  int schema_minor_version = kProfileSchemaMinorVersion;
  std::string tool_version;
  std::string git_revision;
  std::string timestamp_utc;
  ProgramOutcome program;  ///< run 1: its exit status passes through, its durations are reported
  /// Full mode: run 2, the FLOP run (nullopt in single-pass mode); run 1 is `program`.
  std::optional<FlopRunOutcome> flop_run;
  ProfileConfig config;
  std::vector<DeviceRecord> devices;  ///< each device a launch ran on
  std::optional<PeaksBlock> peaks;    ///< the roof sources of the first device
  std::vector<ProfiledLaunch> launches;
  std::vector<KernelSummary> kernels;  ///< by total time, longest first
  double total_kernel_time_s = 0;      ///< every kernel execution the activity API saw
  uint64_t graph_launches = 0;
  std::vector<std::string> warnings;  ///< what a reader must know, one line each
  bool complete = true;               ///< every process wrote its end record
};

}  // namespace rooflinectl
