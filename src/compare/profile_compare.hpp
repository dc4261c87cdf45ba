// `rooflinectl compare` on two profile reports (`rooflinectl profile`): a verdict per kernel of a
// user's program and the exit code CI gates on, by the rules of the sweep comparison
// (compare.hpp). Pure host code (no CUDA, no I/O); writers are in
// render/profile_compare_writer.hpp.
//
// Kernels are matched by KernelSummary::key (demangled name, grid, block, dynamic shared memory,
// NVTX path). Per matched kernel:
//  * Time gate, on the durations of every launch (durations_s): a regression needs the median to
//    change by more than --time-threshold AND the two sets of launches to be separated
//    (two-sided Mann-Whitney U, Holm-adjusted over the kernels tested by time, below
//    kMannWhitneyAlpha); beyond the threshold but not separated is "inconclusive". Medians closer
//    than kTimeResolutionFloorS never differ. No clock normalization: a profile reads no SM clock
//    per launch.
//  * Which kernels are tested by time: those taking at least --min-share of the base program's
//    GPU time (below it: "same" by time, counters still gated) and whose launch counts can reach
//    kMannWhitneyAlpha after the Holm adjustment over the kernels tested together
//    (powered_family, compare_power.hpp). One that cannot is "inconclusive", with the launches
//    it would need; when no kernel above --min-share can be tested, the comparison is refused
//    (exit 2) before any verdict, as the sweep's is.
//  * Counter gate, when both reports hold counters: DRAM bytes of the isolated launch
//    (--traffic-threshold; not gated when the kernel is compute-bound in both reports, or when
//    the change is below kTrafficResolutionFloorBytes) and bf16 tensor FLOPs
//    (--counter-threshold). An increase beyond the threshold is a regression, a decrease an
//    improvement, whatever the timing noise.
//  * A kernel of the new report placed above its roof fails (a unit, formula or counter error).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "profile/profile_report.hpp"

namespace rooflinectl {

/// Default of --min-share: kernels under 1% of the base program's GPU time are not gated by time.
inline constexpr double kDefaultMinShare = 0.01;

/// Thresholds and switches of a profile comparison.
struct ProfileCompareOptions {
  /// time_threshold, counter_threshold, traffic_threshold, strict and allow_different_gpu apply
  /// as in the sweep comparison; `by` and l2_threshold do not (a profile is compared by time, and
  /// its L2 bytes are not gated).
  CompareOptions gate;
  /// Fraction of the base program's GPU time (KernelSummary::share_of_gpu_time) a kernel needs
  /// to be tested by time, in [0, 1).
  double min_share = kDefaultMinShare;
};

/// Characters of a demangled name kept by kernel_label: templated library kernels have names of
/// several thousand characters.
inline constexpr size_t kKernelLabelNameChars = 80;

/// A kernel key for messages and reason lines: `key` with its leading demangled `name` cut to
/// kKernelLabelNameChars characters and "...", the launch configuration and NVTX path kept
/// ("gemm grid=(2,66,1) block=(384,1,1) smem=0 nvtx=block/mlp"). A key that does not start with
/// `name` is cut the same way.
std::string kernel_label(const std::string& key, const std::string& name);

/// Comparison of one kernel.
struct KernelComparison {
  std::string key;                     ///< KernelSummary::key, the match
  std::string name;                    ///< demangled kernel name
  std::vector<std::string> nvtx_path;  ///< outermost first
  Verdict verdict = Verdict::kSame;
  std::string reason;  ///< one line: why this verdict, with the numbers
  /// Share of the base program's GPU time, 0..1; nullopt for an added kernel.
  std::optional<double> base_share;
  int base_launches = 0;  ///< KernelSummary::launches in the base (0 when added)
  int new_launches = 0;   ///< in the new report (0 when removed)
  /// Medians (seconds), counts of timed launches and, for a kernel tested by time, the
  /// Mann-Whitney p-values; nullopt when a side has no launch duration. by is kTime, the clock
  /// fields stay empty.
  std::optional<TimeEvidence> time;
  bool time_gated = false;              ///< in the Holm family (its p-value decided the time gate)
  std::vector<CounterChange> counters;  ///< "dram_bytes" and "tensor_bf16_flop", when in both
  std::string counter_note;             ///< why the counter gate did not apply; empty if it did
  /// DRAM changes beyond the threshold that were not gated (compute-bound in both reports, or
  /// below the byte floor); empty when none.
  std::string traffic_note;

  std::string label() const { return kernel_label(key, name); }  ///< the key, name shortened
};

/// Whole comparison; kernels in base order (by total time), then the added ones in new order.
struct ProfileCompareResult {
  ProfileCompareOptions options;
  ReportIdentity base;  ///< device_name: the first device of the report
  ReportIdentity current;
  std::vector<std::string> warnings;  ///< one line each (removed kernels, settings differ, ...)
  std::vector<KernelComparison> kernels;
  size_t time_family_size = 0;  ///< kernels tested by time together (Holm)

  size_t count(Verdict verdict) const;
  size_t regressions() const;  ///< kSlower + kFailed
  /// 1 (ExitCode::kPartial) when a kernel regressed, or with options.gate.strict when one is
  /// inconclusive or removed; otherwise 0.
  int exit_code() const;
};

/// Compares `current` against `base`. Throws a bad-input Error (exit 2) when: a threshold is not
/// in (0, 1) or min_share not in [0, 1); the schema versions differ; the first devices differ
/// (same_gpu) and options.gate.allow_different_gpu is false; a report holds one key twice; no
/// kernel matched (the message shows a few keys of each side); no matched kernel above
/// min_share has launch durations in both reports, or none of them can be tested by time (the
/// message names the best one, its launches and the launches needed).
ProfileCompareResult compare_profiles(const ProfileReport& base, const ProfileReport& current,
                                      const ProfileCompareOptions& options);

}  // namespace rooflinectl
