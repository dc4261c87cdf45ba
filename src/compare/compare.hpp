// `rooflinectl compare`: a verdict per point between a base report and a new one, and the exit
// code CI gates on. Pure host code (no CUDA, no I/O); writers are in compare_writer.hpp.
//
// Two independent gates decide a point:
//  * Counter gate. FLOPs of one kernel version at one shape are exact (--counter-threshold, 1%);
//    DRAM and L2 bytes are not quite: which re-reads L2 absorbs depends on block scheduling, and
//    two back-to-back H200 sweeps of one build differed by up to 4.0% in DRAM bytes (flash
//    attention L = 32768; GEMM 2.8%) and by 5.5% in L2 bytes (gemm_v2_wgmma_tma, L = 1024;
//    cause not established), so DRAM bytes have --traffic-threshold (5%) and L2 bytes
//    --l2-threshold (10%). A change
//    beyond its threshold is a real change whatever the timing noise: an increase is a
//    regression, a decrease an improvement.
//  * Time gate, on the raw samples. A regression needs the median to change by more than
//    --time-threshold AND the two sample sets to be separated (two-sided Mann-Whitney U test,
//    Holm-adjusted over all points of the comparison, below kMannWhitneyAlpha); a change beyond
//    the threshold that the test cannot separate from noise is "inconclusive", never a
//    regression. Improvements never fail.
// Points are matched by operator and shape. Across a kernel version change the counter gate is
// off (a faster kernel may well move more bytes): its changes are shown, the time gate decides.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "result/point_key.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// What the time gate compares: the median time (lower is better) or the fraction of the
/// attainable roof (higher is better; the roof already carries the clock measured by the counter
/// pass, so no clock normalization is applied).
enum class CompareBy { kTime, kRoof };
std::string to_string(CompareBy by);
/// Parses "time" | "roof"; throws a bad-input Error naming the token otherwise.
CompareBy parse_compare_by(const std::string& text);

/// Thresholds and switches of a comparison. Thresholds are fractions (0.05 = 5%).
struct CompareOptions {
  double time_threshold = 0.05;     ///< relative change of the median that may count
  double counter_threshold = 0.01;  ///< relative change of counted FLOPs that counts
  double traffic_threshold = 0.05;  ///< relative change of DRAM bytes that counts
  double l2_threshold = 0.10;       ///< relative change of L2 bytes that counts
  CompareBy by = CompareBy::kTime;
  bool strict = false;               ///< inconclusive and removed points also fail (exit 1)
  bool allow_different_gpu = false;  ///< compare reports from different GPUs instead of refusing
};

/// A difference of the median time below this is never called faster or slower: CUDA events
/// resolve about 0.5 µs (CUDA Runtime API, cudaEventElapsedTime), and a sample is the difference
/// of two events, so two medians closer than 2 × 0.5 µs cannot be told apart by the clock that
/// measured them. Matters only for kernels under ~20 µs at a 5% threshold; their counters are
/// still gated.
inline constexpr double kTimeResolutionFloorS = 1e-6;

/// Traffic changes smaller than this are below what the byte counters resolve: every write-back
/// sweep on the H200 carries 0.1–0.7 MB of DRAM writes that no kernel stored
/// (docs/counter-method.md); two back-to-back sweeps of one build differed by 0.27 MB (6%) in
/// layernorm's 4.5 MB at L = 512. Never gated, in the sweep or the profile comparison.
inline constexpr double kTrafficResolutionFloorBytes = 1e6;

/// SM clocks of two points closer than this (relative) are treated as equal: the clock probe
/// reads 1.965 to 1.980 GHz on an idle H200 between consecutive points of one sweep.
inline constexpr double kClockTolerance = 0.01;

/// Verdict of one point. kSlower and kFailed are regressions.
enum class Verdict {
  kSame,          ///< no change beyond the thresholds
  kFaster,        ///< improvement (time, or a counter decrease)
  kSlower,        ///< regression (time, or a counter increase)
  kInconclusive,  ///< a change beyond the threshold that noise cannot be ruled out for, or no data
  kAdded,         ///< only in the new report
  kRemoved,       ///< only in the base report
  /// failed in the new report (validation or CUDA error), or above its roof there (a unit,
  /// formula or counter error), whatever the base holds; an added point too
  kFailed,
};
std::string to_string(Verdict verdict);
bool is_regression(Verdict verdict);

/// The verdicts ordered by what needs attention first: the order of summaries and Markdown
/// tables, and of a layer point's verdict (the first of its rows' in this order).
inline constexpr std::array<Verdict, 7> kVerdictAttentionOrder = {
    Verdict::kFailed,  Verdict::kSlower, Verdict::kInconclusive, Verdict::kFaster,
    Verdict::kRemoved, Verdict::kAdded,  Verdict::kSame};

/// The exit code every comparison (sweep, profile, layer) ends with, from any result with
/// regressions() and count(Verdict): 1 (ExitCode::kPartial) when an item regressed, or with
/// `strict` when one is inconclusive or removed; otherwise 0.
template <class Result>
int gate_exit_code(const Result& result, bool strict) {
  if (result.regressions() > 0) return static_cast<int>(ExitCode::kPartial);
  if (strict && (result.count(Verdict::kInconclusive) > 0 || result.count(Verdict::kRemoved) > 0)) {
    return static_cast<int>(ExitCode::kPartial);
  }
  return static_cast<int>(ExitCode::kOk);
}

/// One gated counter of one point.
struct CounterChange {
  std::string metric;  ///< "dram_bytes" | "flop" | "l2_bytes" (sums over the operator's kernels)
  double base = 0;
  double current = 0;
  /// (current - base) / base; nullopt when base is 0 (then any nonzero current is beyond).
  std::optional<double> relative_change;
  bool beyond_threshold = false;
};

/// The time gate's evidence for one point.
struct TimeEvidence {
  CompareBy by = CompareBy::kTime;
  /// Medians of what was compared: seconds (by time; the new one clock-normalized when
  /// clock_scale is set) or fractions of the roof (by roof).
  double base_median = 0;
  double current_median = 0;
  double relative_change = 0;  ///< (current_median - base_median) / base_median
  size_t base_samples = 0;
  size_t current_samples = 0;
  std::optional<double> p_value;  ///< Mann-Whitney U, two-sided; nullopt when not computed
  bool exact_p = false;
  /// p_value after the Holm adjustment over every tested point of the comparison; the time gate
  /// calls a change separated from noise when this is below kMannWhitneyAlpha.
  std::optional<double> p_value_adjusted;
  size_t family_size = 0;  ///< points whose p-values were adjusted together
  /// New samples were multiplied by this (new SM clock / base SM clock) to express them at the
  /// base clock; set only for compute-bound points whose clocks differ by > kClockTolerance.
  std::optional<double> clock_scale;
  /// Why the clocks differed by more than kClockTolerance at a compute-bound point and still no
  /// scaling was applied (throttled samples); empty otherwise.
  std::string clock_scale_skipped;
  std::optional<double> base_sm_clock_hz;
  std::optional<double> current_sm_clock_hz;
  /// By roof: whether each side's placement is above the DRAM slope by write-back after the
  /// kernel's window (RooflinePoint::write_back_after_window: a fraction above 1 that is not an
  /// error); false by time.
  bool base_write_back_after_window = false;
  bool current_write_back_after_window = false;
};

/// Comparison of one point.
struct PointComparison {
  PointKey key;
  Verdict verdict = Verdict::kSame;
  std::string reason;  ///< one line: why this verdict, with the numbers
  std::optional<TimeEvidence> time;
  std::vector<CounterChange> counters;  ///< the gated counters present in both reports
  std::string counter_note;             ///< why the counter gate did not apply; empty if it did
  /// Traffic changes beyond their thresholds that were not gated because the point is
  /// compute-bound in both runs (so its DRAM and L2 roofs do not bind); empty when none.
  std::string traffic_note;
  /// The new report's kernel version when it differs from key.version (then only the time gate
  /// decides: counters of different kernels legitimately differ); empty otherwise.
  std::string new_version;
  bool version_changed() const { return !new_version.empty(); }
  /// Which side's samples were taken while power- or thermal-throttled, e.g. "new: 3 of 10
  /// samples throttled (SW power cap)" (result/clock_notes.hpp); empty when none. Informative: it
  /// never changes the verdict.
  std::string throttle_note;
};

/// The two canaries side by side.
struct CanaryComparison {
  std::optional<double> base_bytes_per_s;
  std::optional<double> current_bytes_per_s;
  std::optional<double> relative_change;  ///< set when both are measured
  /// |relative_change| > the time threshold: time verdicts may reflect the machine, not the code.
  bool machine_changed = false;
};

/// Which report a side of the comparison is.
struct ReportIdentity {
  std::string tool_version;
  std::string git_revision;
  std::string timestamp_utc;
  std::string device_name;
};

/// Whole comparison; points in base order, then the added ones in new-report order.
struct CompareResult {
  CompareOptions options;
  ReportIdentity base;
  ReportIdentity current;
  CanaryComparison canary;
  std::vector<std::string> warnings;  ///< one line each (machine changed, settings differ, ...)
  std::vector<PointComparison> points;

  size_t count(Verdict verdict) const;
  size_t regressions() const;      ///< kSlower + kFailed
  size_t version_changes() const;  ///< matched points whose kernel version changed
  /// 1 (ExitCode::kPartial, "a regression") when any point regressed, or with options.strict when
  /// any point is inconclusive; otherwise 0. Improvements, added and removed points never fail.
  int exit_code() const;
};

/// A comparison in which no point matched would pass on nothing (every point added or removed):
/// a change of the sweep's settings must not turn the gate off. Throws a bad-input Error naming
/// `current_name` ("the new report", "the planned sweep") and the axes whose values differ
/// (describe_point_set_difference) when no point of `current` matches one of `base`
/// (PointKey::same_point); an empty report on either side passes.
void check_something_matches(const Report& base, const Report& current,
                             const std::string& current_name);

/// Compares `current` against `base`. Points are matched by operator and shape
/// (PointKey::same_point). A matched point of the same kernel version goes through both gates; one
/// whose version changed is judged by the time gate only, its counter changes reported but not
/// gated, and its reason starts "version changed: <base> -> <new>; counters not gated". Removed
/// points add a warning (without options.strict). Throws a bad-input Error (exit 2) when: the
/// schema versions differ; the GPUs differ (name, compute capability or SM count) and
/// options.allow_different_gpu is false; a report holds the same operator and shape twice; a
/// report fails check_report_consistency; no point matched (the message lists the axes whose
/// values differ); the time gate cannot reach kMannWhitneyAlpha with the sample counts and the
/// number of tested points (check_time_gate_power, before any verdict); a threshold is not in
/// (0, 1).
CompareResult compare_reports(const Report& base, const Report& current,
                              const CompareOptions& options);

/// A duration for people: "8.78 µs", "1.448 ms", "2.100 s"; "-" for a non-finite value.
std::string format_duration_s(double seconds);

/// Parses a threshold flag value: "5%" → 0.05, or a fraction "0.05" (decimal only: no hex, inf or
/// nan). Must lie in (0, 1), or in [0, 1) when `zero_allowed` (--min-share: 0 gates every
/// kernel); otherwise a bad-input Error "<flag>: '<text>' is not a number" or "... is out of
/// range", with what is allowed (a bare "5" is refused as ambiguous, with a hint).
double parse_threshold(const std::string& text, const std::string& flag, bool zero_allowed = false);

}  // namespace rooflinectl
