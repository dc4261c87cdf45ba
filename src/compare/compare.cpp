#include "compare/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "compare/compare_power.hpp"
#include "compare/gpu_match.hpp"
#include "compare/point_set_difference.hpp"
#include "compare/significance.hpp"
#include "core/error.hpp"
#include "core/statistics.hpp"
#include "result/clock_notes.hpp"
#include "result/consistency.hpp"
#include "roofline/above_roof_guard.hpp"

namespace rooflinectl {
namespace {

/// Outcome of one gate before the two are combined.
struct GateOutcome {
  Verdict verdict = Verdict::kSame;  // kSame, kFaster, kSlower or kInconclusive
  std::string reason;
};

std::string percent(double fraction) { return fmt::format("{:+.1f}%", 100.0 * fraction); }

std::vector<double> finite_only(const std::vector<double>& values) {
  std::vector<double> out;
  for (const double v : values) {
    if (std::isfinite(v)) out.push_back(v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Counter gate.

struct GatedMetric {
  const char* name;
  std::optional<double> (*read)(const CounterResult&);
  double CompareOptions::*threshold;  ///< the option that gates it
  /// For traffic: the memory level whose roof this traffic meets; nullopt for FLOPs (always
  /// gated).
  std::optional<RoofLevel> level;
};

/// The DRAM bytes the roofline is placed with (result/placement_inputs.hpp): read + in-window
/// write + deferred write-back, or the in-window bytes when the write-back was not measured.
std::optional<double> gated_dram_bytes(const CounterResult& c) {
  const auto isolated = c.dram_bytes_isolated();
  return isolated ? isolated : c.total.dram_bytes();
}

constexpr GatedMetric kGatedMetrics[] = {
    {"dram_bytes", gated_dram_bytes, &CompareOptions::traffic_threshold, RoofLevel::kDram},
    {"flop", [](const CounterResult& c) { return c.total.total_flop(); },
     &CompareOptions::counter_threshold, std::nullopt},
    {"l2_bytes", [](const CounterResult& c) { return c.total.l2_bytes; },
     &CompareOptions::l2_threshold, RoofLevel::kL2},
};

std::string format_count(double v) { return fmt::format("{:.4g}", v); }

/// Whether a traffic change at `level` cannot move the point's roof: both runs are placed, both
/// compute-bound (binding level compute), so more bytes at that level lower no attainable
/// performance while the point stays right of the ridge; a time regression is still the time
/// gate's. Flash attention's DRAM bytes at L = 32768 differed by 11% between two back-to-back
/// sweeps of one build on the H200 (its dynamic work queue decides the L2 reuse), with the time
/// unchanged (docs/ci.md).
bool traffic_cannot_bind(const PointResult& base, const PointResult& current) {
  return base.roofline && current.roofline && base.roofline->binding_level == RoofLevel::kCompute &&
         current.roofline->binding_level == RoofLevel::kCompute;
}

std::string describe_change(const CounterChange& c) {
  const std::string change = c.relative_change ? percent(*c.relative_change) : "from 0";
  return fmt::format("{} {} ({} -> {})", c.metric, change, format_count(c.base),
                     format_count(c.current));
}

GateOutcome counter_gate(const PointResult& base, const PointResult& current,
                         const CompareOptions& options, PointComparison& out) {
  if (base.counters.null_reason) {
    out.counter_note = "no counters in the base report: " + *base.counters.null_reason;
    return {};
  }
  if (current.counters.null_reason) {
    out.counter_note = "no counters in the new report: " + *current.counters.null_reason;
    return {};
  }
  std::vector<std::string> worse;
  std::vector<std::string> better;
  for (const GatedMetric& metric : kGatedMetrics) {
    const std::optional<double> b = metric.read(base.counters);
    const std::optional<double> c = metric.read(current.counters);
    if (!b || !c || !std::isfinite(*b) || !std::isfinite(*c)) continue;
    const double threshold = options.*metric.threshold;
    CounterChange change;
    change.metric = metric.name;
    change.base = *b;
    change.current = *c;
    if (*b != 0) {
      change.relative_change = (*c - *b) / *b;
      change.beyond_threshold = std::fabs(*change.relative_change) > threshold;
    } else {
      change.beyond_threshold = *c != 0;
    }
    if (change.beyond_threshold && metric.level &&
        std::fabs(*c - *b) < kTrafficResolutionFloorBytes) {
      change.beyond_threshold = false;
      out.traffic_note += fmt::format(
          "{}{}: {:.2f} MB, below the {:.0f} MB floor of the byte measurement (the write-back "
          "sweep's stray writes): traffic not gated",
          out.traffic_note.empty() ? "" : "; ", describe_change(change), std::fabs(*c - *b) / 1e6,
          kTrafficResolutionFloorBytes / 1e6);
    }
    if (change.beyond_threshold && metric.level && traffic_cannot_bind(base, current)) {
      change.beyond_threshold = false;
      out.traffic_note += fmt::format(
          "{}{} at a compute-bound point (binding: compute in both runs): traffic not gated",
          out.traffic_note.empty() ? "" : "; ", describe_change(change));
    }
    if (change.beyond_threshold) (*c > *b ? worse : better).push_back(describe_change(change));
    out.counters.push_back(change);
  }
  if (out.counters.empty()) {
    out.counter_note = "DRAM bytes, FLOPs and L2 bytes missing in one of the reports";
    return {};
  }
  auto join = [](const std::vector<std::string>& parts) {
    std::string text;
    for (const auto& p : parts) text += (text.empty() ? "" : ", ") + p;
    return text;
  };
  // Any increase is a regression even when another counter fell: a deliberate trade-off (more
  // bytes for fewer FLOPs) needs a new baseline, not a silent pass.
  if (!worse.empty()) return {Verdict::kSlower, "counters up: " + join(worse)};
  if (!better.empty()) return {Verdict::kFaster, "counters down: " + join(better)};
  return {};
}

// ---------------------------------------------------------------------------------------------
// Time gate.

// Samples of what is compared, higher-is-worse made explicit by `by`. Fills `why` and returns
// false when the point lacks the data.
bool collect_samples(const PointResult& p, CompareBy by, const char* side, std::vector<double>& out,
                     std::string& why) {
  if (!p.timing) {
    why = fmt::format("no timing in the {} report", side);
    return false;
  }
  const std::vector<double> times = finite_only(p.timing->samples_s);
  if (times.empty()) {
    why = fmt::format("no finite timing samples in the {} report", side);
    return false;
  }
  if (by == CompareBy::kTime) {
    out = times;
    return true;
  }
  if (!p.roofline) {
    why = fmt::format("no roofline placement in the {} report: {}", side, p.roofline_null_reason);
    return false;
  }
  // The placement used the median time; each sample's fraction follows from fraction ∝ 1/time.
  const double scale = p.roofline->fraction_of_roof * p.roofline->time_s;
  if (!std::isfinite(scale) || scale <= 0) {
    why = fmt::format("fraction of roof not usable in the {} report", side);
    return false;
  }
  for (const double t : times) {
    if (t > 0) out.push_back(scale / t);
  }
  if (out.empty()) {
    why = fmt::format("no positive timing samples in the {} report", side);
    return false;
  }
  return true;
}

// Clock normalization (by time only): a compute-bound kernel's time scales with 1/SM clock, so
// new samples are re-expressed at the base clock. A memory-bound kernel's time follows the DRAM
// clock, not the SM clock; scaling it would invent a change, so it is left alone.
std::optional<double> clock_scale(const PointResult& base, const PointResult& current,
                                  TimeEvidence& ev) {
  ev.base_sm_clock_hz = base.timing->sm_clock_hz;
  ev.current_sm_clock_hz = current.timing->sm_clock_hz;
  if (!ev.base_sm_clock_hz || !ev.current_sm_clock_hz || *ev.base_sm_clock_hz <= 0 ||
      *ev.current_sm_clock_hz <= 0) {
    return std::nullopt;
  }
  const double ratio = *ev.current_sm_clock_hz / *ev.base_sm_clock_hz;
  if (std::fabs(ratio - 1) <= kClockTolerance) return std::nullopt;
  const RooflinePoint* placement = base.roofline      ? &*base.roofline
                                   : current.roofline ? &*current.roofline
                                                      : nullptr;
  if (placement == nullptr || placement->bound != Bound::kCompute) return std::nullopt;
  // Under power or thermal capping the clock moves during the samples, and the one reading taken
  // after them does not describe it: on the H200 (2026-12-02) flash attention at L = 16384, power
  // capped in every sample, read 1.68 and 1.98 GHz after two sweeps of one build whose medians
  // agreed, and scaling by that ratio invented a 5% regression. Compared as measured instead.
  const auto throttled = [](const PointResult& p) {
    const auto n = p.timing->throttled_samples();
    return n && *n > 0;
  };
  if (throttled(base) || throttled(current)) {
    ev.clock_scale_skipped =
        "samples power- or thermal-throttled, so the SM clock read after them "
        "is not the clock during them: medians compared as measured";
    return std::nullopt;
  }
  return ratio;
}

// What the time gate can say before the p-values of all points are adjusted together.
struct TimeCheck {
  GateOutcome settled;      // the outcome unless needs_test
  bool needs_test = false;  // the change passed threshold and floor: the adjusted p decides
  bool worse = false;       // direction of that change
  std::string what;         // "median 1.000 ms -> 1.100 ms (+10.0%)"
};

TimeCheck time_gate(const PointResult& base, const PointResult& current,
                    const CompareOptions& options, PointComparison& out) {
  TimeCheck check;
  std::vector<double> a;
  std::vector<double> b;
  std::string why;
  if (!collect_samples(base, options.by, "base", a, why) ||
      !collect_samples(current, options.by, "new", b, why)) {
    check.settled = {Verdict::kInconclusive, why};
    return check;
  }
  TimeEvidence ev;
  ev.by = options.by;
  if (options.by == CompareBy::kRoof) {
    // collect_samples placed both by roof, so both have a placement.
    ev.base_write_back_after_window = base.roofline->write_back_after_window;
    ev.current_write_back_after_window = current.roofline->write_back_after_window;
  }
  std::string clock_text;
  if (options.by == CompareBy::kTime) {
    ev.clock_scale = clock_scale(base, current, ev);
    if (ev.clock_scale) {
      for (double& v : b) v *= *ev.clock_scale;
      clock_text = fmt::format(" (new samples scaled to the base SM clock, {:.3f} -> {:.3f} GHz)",
                               *ev.current_sm_clock_hz / 1e9, *ev.base_sm_clock_hz / 1e9);
    } else if (!ev.clock_scale_skipped.empty()) {
      clock_text = fmt::format(" (SM clocks {:.3f} vs {:.3f} GHz not normalized: {})",
                               *ev.base_sm_clock_hz / 1e9, *ev.current_sm_clock_hz / 1e9,
                               ev.clock_scale_skipped);
    }
  }
  ev.base_median = median(a);
  ev.current_median = median(b);
  ev.base_samples = a.size();
  ev.current_samples = b.size();
  ev.relative_change = (ev.current_median - ev.base_median) / ev.base_median;
  const MannWhitneyResult test = mann_whitney_u(a, b);
  ev.p_value = test.p_value;
  ev.exact_p = test.exact;
  out.time = ev;

  const bool by_time = options.by == CompareBy::kTime;
  check.worse = by_time ? ev.relative_change > 0 : ev.relative_change < 0;
  check.what = by_time ? fmt::format("median {} -> {} ({}){}", format_duration_s(ev.base_median),
                                     format_duration_s(ev.current_median),
                                     percent(ev.relative_change), clock_text)
                       : fmt::format("fraction of roof {:.3f} -> {:.3f} ({})", ev.base_median,
                                     ev.current_median, percent(ev.relative_change));
  if (std::fabs(ev.relative_change) <= options.time_threshold) {
    check.settled = {Verdict::kSame, fmt::format("{}, within {}", check.what,
                                                 percent(options.time_threshold).substr(1))};
    return check;
  }
  // The measured noise: a change inside the two medians' 95% intervals together cannot be told
  // from noise, whatever the rank test says (more samples, e.g. --max-noise, would settle it).
  const std::optional<double> base_noise = median_noise(finite_only(base.timing->samples_s));
  const std::optional<double> new_noise = median_noise(finite_only(current.timing->samples_s));
  if (base_noise && new_noise && std::fabs(ev.relative_change) <= *base_noise + *new_noise) {
    check.settled = {Verdict::kInconclusive,
                     fmt::format("{}, within the measured noise ±{:.2f}% (base ±{:.2f}%, new "
                                 "±{:.2f}%: 95% intervals of the medians); sample to a lower "
                                 "noise (--max-noise) to tell",
                                 check.what, (*base_noise + *new_noise) * 100, *base_noise * 100,
                                 *new_noise * 100)};
    return check;
  }
  // The resolution floor is about time, whatever is compared.
  const double time_delta_s = by_time ? std::fabs(ev.current_median - ev.base_median)
                                      : std::fabs(current.timing->median_s - base.timing->median_s);
  if (time_delta_s < kTimeResolutionFloorS) {
    check.settled = {Verdict::kSame,
                     fmt::format("{}, but the medians differ by {} (< {} CUDA-event resolution "
                                 "floor)",
                                 check.what, format_duration_s(time_delta_s),
                                 format_duration_s(kTimeResolutionFloorS))};
    return check;
  }
  check.needs_test = true;
  return check;
}

// ---------------------------------------------------------------------------------------------
// One matched point: gates first, verdict once the p-values of all points are adjusted.

struct PendingPoint {
  PointComparison out;
  bool settled = false;  // a status verdict (failed, not measured) needs no gate
  GateOutcome counters;
  TimeCheck time;
  // Set when the kernel version changed: "version changed: a -> b; counters not gated", with the
  // counter changes beyond their thresholds, for information; prefixed to the reason.
  std::string version_note;
};

// Why a point of the new report fails the gate whatever the base says: it failed (validation or
// a CUDA error), or it sits above its roof (a unit, formula or counter error that would otherwise
// be graded "faster" and become the next baseline). std::nullopt when neither.
std::optional<std::string> new_point_failure(const PointResult& current) {
  if (current.status == PointStatus::kFailed) return "failed in the new run: " + current.reason;
  if (current.roofline) {
    if (const auto error = above_roof_error(*current.roofline)) {
      return "in the new run: " + *error;
    }
  }
  return std::nullopt;
}

PendingPoint gate_point(const PointResult& base, const PointResult& current,
                        const CompareOptions& options) {
  PendingPoint pending;
  PointComparison& out = pending.out;
  out.key = point_key(base);
  out.throttle_note = throttle_note(base, current);
  if (current.version != base.version) {
    out.new_version = current.version;
    pending.version_note =
        fmt::format("version changed: {} -> {}; counters not gated", base.version, current.version);
  }
  if (const auto why = new_point_failure(current)) {
    pending.settled = true;
    out.verdict = Verdict::kFailed;
    out.reason = *why;
    return pending;
  }
  const bool base_ok = base.status == PointStatus::kOk;
  const bool current_ok = current.status == PointStatus::kOk;
  if (!base_ok || !current_ok) {
    pending.settled = true;
    if (base_ok) {
      out.verdict = Verdict::kInconclusive;
      out.reason = fmt::format("{} in the new run: {}", to_string(current.status), current.reason);
    } else if (current_ok) {
      out.verdict = Verdict::kInconclusive;
      out.reason =
          fmt::format("no baseline: {} in the base run: {}", to_string(base.status), base.reason);
    } else {
      out.verdict = Verdict::kInconclusive;
      out.reason = fmt::format("not measured in either run (base {}, new {})",
                               to_string(base.status), to_string(current.status));
    }
    return pending;
  }
  pending.counters = counter_gate(base, current, options, out);
  if (out.version_changed()) {
    // Counters of two different kernels legitimately differ: every change beyond its threshold
    // is shown, in either direction, and none decides the verdict.
    std::string beyond;
    for (const CounterChange& c : out.counters) {
      if (c.beyond_threshold) beyond += (beyond.empty() ? "" : ", ") + describe_change(c);
    }
    if (out.counter_note.empty()) out.counter_note = pending.version_note;
    if (!beyond.empty()) pending.version_note += " (" + beyond + ")";
    pending.counters = {};
  }
  pending.time = time_gate(base, current, options, out);
  return pending;
}

// Sets the verdict and reason of a gated point from its two gates (a settled one keeps its own).
void decide_gates(PendingPoint& pending) {
  PointComparison& out = pending.out;
  if (pending.settled) return;
  GateOutcome time = pending.time.settled;
  if (pending.time.needs_test) {
    const TimeEvidence& ev = *out.time;
    const std::string p_text =
        fmt::format("Mann-Whitney p = {:.2g}, Holm-adjusted over {} points {:.2g}", *ev.p_value,
                    ev.family_size, *ev.p_value_adjusted);
    if (*ev.p_value_adjusted < kMannWhitneyAlpha) {
      time = {pending.time.worse ? Verdict::kSlower : Verdict::kFaster,
              fmt::format("{}, {}", pending.time.what, p_text)};
    } else {
      time = {Verdict::kInconclusive, fmt::format("{}, but {} >= {} (not separable from noise)",
                                                  pending.time.what, p_text, kMannWhitneyAlpha)};
    }
  }
  const GateOutcome& counters = pending.counters;
  auto both = [](const GateOutcome& first, const GateOutcome& second) {
    return second.reason.empty() ? first.reason : first.reason + "; " + second.reason;
  };
  if (counters.verdict == Verdict::kSlower) {
    out.verdict = Verdict::kSlower;
    out.reason = both(counters, time);
  } else if (time.verdict == Verdict::kSlower) {
    out.verdict = Verdict::kSlower;
    out.reason = both(time, counters);
  } else if (counters.verdict == Verdict::kFaster) {
    out.verdict = Verdict::kFaster;
    out.reason = both(counters, time);
  } else {
    out.verdict = time.verdict;
    out.reason = time.reason;
  }
}

PointComparison decide_point(PendingPoint pending) {
  PointComparison& out = pending.out;
  decide_gates(pending);
  if (!pending.version_note.empty()) out.reason = pending.version_note + "; " + out.reason;
  if (!out.traffic_note.empty()) out.reason += "; " + out.traffic_note;
  return out;
}

// The points whose Mann-Whitney p-values form the Holm family, with their sample counts.
std::vector<FamilyMember> time_gate_family(const std::vector<PendingPoint>& pending) {
  std::vector<FamilyMember> family;
  for (const auto& p : pending) {
    if (!p.out.time || !p.out.time->p_value) continue;
    family.push_back({p.out.key.label(), p.out.time->base_samples, p.out.time->current_samples});
  }
  return family;
}

// The Mann-Whitney p-values of every point that was tested form one family (Holm).
void adjust_p_values(std::vector<PendingPoint>& pending) {
  std::vector<double> raw;
  for (const auto& p : pending) {
    if (p.out.time && p.out.time->p_value) raw.push_back(*p.out.time->p_value);
  }
  const std::vector<double> adjusted = holm_adjust(raw);
  size_t next = 0;
  for (auto& p : pending) {
    if (!p.out.time || !p.out.time->p_value) continue;
    p.out.time->p_value_adjusted = adjusted[next++];
    p.out.time->family_size = raw.size();
  }
}

// ---------------------------------------------------------------------------------------------
// Report-level checks.

void check_threshold(double value, const char* flag) {
  if (!(value > 0 && value < 1)) {
    throw bad_input(fmt::format("invalid {} {}: must be a fraction in (0, 1)", flag, value));
  }
}

CanaryComparison compare_canaries(const Report& base, const Report& current, double threshold,
                                  std::vector<std::string>& warnings) {
  CanaryComparison out;
  if (base.canary) out.base_bytes_per_s = base.canary->copy_bytes_per_s;
  if (current.canary) out.current_bytes_per_s = current.canary->copy_bytes_per_s;
  for (const auto* r : {&base, &current}) {
    const std::optional<double>& value =
        r == &base ? out.base_bytes_per_s : out.current_bytes_per_s;
    if (value && *value > 0) continue;
    const std::string why = !r->canary ? "report written before canaries existed"
                            : !value   ? r->canary->null_reason
                                       : "bandwidth not positive";
    warnings.push_back(
        fmt::format("no copy canary in the {} report ({}): cannot tell whether the machine changed",
                    r == &base ? "base" : "new", why));
    return out;
  }
  out.relative_change = (*out.current_bytes_per_s - *out.base_bytes_per_s) / *out.base_bytes_per_s;
  out.machine_changed = std::fabs(*out.relative_change) > threshold;
  if (out.machine_changed) {
    warnings.push_back(fmt::format(
        "the machine changed: copy canary {:.3f} -> {:.3f} TB/s ({}), beyond the {} time "
        "threshold; time verdicts may reflect the machine rather than the code",
        *out.base_bytes_per_s / 1e12, *out.current_bytes_per_s / 1e12,
        percent(*out.relative_change), percent(threshold).substr(1)));
  }
  return out;
}

void add_setting_warnings(const Report& base, const Report& current,
                          std::vector<std::string>& warnings) {
  if (!same_gpu(base.device, current.device)) {
    warnings.push_back(
        fmt::format("different GPUs compared (--allow-different-gpu): base {}, new {}",
                    describe_gpu(base.device), describe_gpu(current.device)));
  }
  if (base.device.driver_version != current.device.driver_version ||
      base.device.runtime_version != current.device.runtime_version) {
    warnings.push_back(fmt::format("CUDA driver/runtime differ: base {}/{}, new {}/{}",
                                   base.device.driver_version, base.device.runtime_version,
                                   current.device.driver_version, current.device.runtime_version));
  }
  if (base.config.warm_l2 != current.config.warm_l2) {
    warnings.push_back(fmt::format(
        "L2 handling differs (base {}, new {}): times of small kernels are not comparable",
        base.config.warm_l2 ? "warm" : "flushed", current.config.warm_l2 ? "warm" : "flushed"));
  }
  for (const auto* r : {&base, &current}) {
    if (!r->device.counters_available) {
      warnings.push_back(fmt::format("counter gate off: no counters in the {} report ({})",
                                     r == &base ? "base" : "new", r->device.counters_reason));
    }
  }
}

// Points that disappeared are not judged; without --strict they still must not go unnoticed.
void add_removed_warning(CompareResult& result) {
  const size_t removed = result.count(Verdict::kRemoved);
  if (removed == 0 || result.options.strict) return;
  const auto first = std::find_if(result.points.begin(), result.points.end(),
                                  [](const auto& p) { return p.verdict == Verdict::kRemoved; });
  result.warnings.push_back(fmt::format(
      "{} point{} of the base report {} missing from the new one (first: {}) and not judged; "
      "--strict fails on them",
      removed, removed == 1 ? "" : "s", removed == 1 ? "is" : "are", first->key.label()));
}

ReportIdentity identity(const Report& r) {
  return {r.tool_version, r.git_revision, r.timestamp_utc, r.device.name};
}

}  // namespace

std::string format_duration_s(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  const double magnitude = std::fabs(seconds);
  if (magnitude < 1e-3) return fmt::format("{:.2f} µs", seconds * 1e6);
  if (magnitude < 1) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

std::string to_string(CompareBy by) { return by == CompareBy::kTime ? "time" : "roof"; }

CompareBy parse_compare_by(const std::string& text) {
  if (text == "time") return CompareBy::kTime;
  if (text == "roof") return CompareBy::kRoof;
  throw bad_input(fmt::format("invalid --by '{}': allowed time, roof", text));
}

std::string to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSame:
      return "same";
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kAdded:
      return "added";
    case Verdict::kRemoved:
      return "removed";
    case Verdict::kFailed:
      return "failed";
  }
  return "unknown";
}

bool is_regression(Verdict verdict) {
  return verdict == Verdict::kSlower || verdict == Verdict::kFailed;
}

size_t CompareResult::count(Verdict verdict) const {
  return static_cast<size_t>(std::count_if(points.begin(), points.end(),
                                           [&](const auto& p) { return p.verdict == verdict; }));
}

size_t CompareResult::version_changes() const {
  return static_cast<size_t>(std::count_if(points.begin(), points.end(),
                                           [](const auto& p) { return p.version_changed(); }));
}

size_t CompareResult::regressions() const {
  return count(Verdict::kSlower) + count(Verdict::kFailed);
}

int CompareResult::exit_code() const { return gate_exit_code(*this, options.strict); }

void check_something_matches(const Report& base, const Report& current,
                             const std::string& current_name) {
  if (base.points.empty() || current.points.empty()) return;
  for (const PointResult& b : base.points) {
    const PointKey key = point_key(b);
    for (const PointResult& c : current.points) {
      if (point_key(c).same_point(key)) return;
    }
  }
  throw bad_input(fmt::format(
      "no point of {} matches one of the base report (operator and every shape axis): {}; "
      "compare reports of the same sweep settings, or make a new baseline",
      current_name, describe_point_set_difference(base, current)));
}

CompareResult compare_reports(const Report& base, const Report& current,
                              const CompareOptions& options) {
  check_threshold(options.time_threshold, "--time-threshold");
  check_threshold(options.counter_threshold, "--counter-threshold");
  check_threshold(options.traffic_threshold, "--traffic-threshold");
  check_threshold(options.l2_threshold, "--l2-threshold");
  if (base.schema_version != current.schema_version) {
    throw bad_input(fmt::format(
        "reports have different schema versions: base {}, new {}; re-run the older sweep with "
        "this rooflinectl",
        base.schema_version, current.schema_version));
  }
  if (!options.allow_different_gpu && !same_gpu(base.device, current.device)) {
    throw bad_input(fmt::format(
        "reports come from different GPUs: base {}, new {}; pass --allow-different-gpu to "
        "compare anyway",
        describe_gpu(base.device), describe_gpu(current.device)));
  }
  check_unique_points(base, "the base report");
  check_unique_points(current, "the new report");
  check_report_consistency(base, "the base report");
  check_report_consistency(current, "the new report");

  CompareResult result;
  result.options = options;
  result.base = identity(base);
  result.current = identity(current);
  result.canary = compare_canaries(base, current, options.time_threshold, result.warnings);
  add_setting_warnings(base, current, result.warnings);

  // Matched points are gated first and decided together, after the Holm adjustment; removed
  // points keep their place in base order.
  check_something_matches(base, current, "the new report");
  std::vector<bool> matched(current.points.size(), false);
  std::vector<PendingPoint> pending;
  for (const PointResult& b : base.points) {
    const PointKey key = point_key(b);
    size_t j = 0;
    while (j < current.points.size() && !point_key(current.points[j]).same_point(key)) ++j;
    if (j == current.points.size()) {
      PendingPoint removed;
      removed.settled = true;
      removed.out.key = key;
      removed.out.verdict = Verdict::kRemoved;
      removed.out.reason = "only in the base report";
      pending.push_back(std::move(removed));
      continue;
    }
    matched[j] = true;
    pending.push_back(gate_point(b, current.points[j], options));
  }
  // Before any verdict: a family the test cannot flag would pass every regression by time.
  check_time_gate_power(time_gate_family(pending));
  adjust_p_values(pending);
  for (auto& p : pending) result.points.push_back(decide_point(std::move(p)));
  for (size_t j = 0; j < current.points.size(); ++j) {
    if (matched[j]) continue;
    PointComparison added;
    added.key = point_key(current.points[j]);
    const auto failure = new_point_failure(current.points[j]);
    added.verdict = failure ? Verdict::kFailed : Verdict::kAdded;
    added.reason = failure ? "only in the new report, " + *failure : "only in the new report";
    result.points.push_back(std::move(added));
  }
  add_removed_warning(result);
  return result;
}

double parse_threshold(const std::string& text, const std::string& flag, bool zero_allowed) {
  const char* allowed = zero_allowed
                            ? "a percentage like 1% or a fraction like 0.01, from 0 to below 1"
                            : "a percentage like 5% or a fraction like 0.05, above 0 and below 1";
  const bool is_percent = !text.empty() && text.back() == '%';
  const std::string number = is_percent ? text.substr(0, text.size() - 1) : text;
  // from_chars, unlike strtod, takes no hex ("0x0.1"), no leading '+' and no whitespace.
  double value = NAN;
  const char* last = number.data() + number.size();
  const auto [ptr, ec] = std::from_chars(number.data(), last, value);
  if (number.empty() || ec != std::errc() || ptr != last || !std::isfinite(value)) {
    throw bad_input(fmt::format("{}: '{}' is not a number (allowed: {})", flag, text, allowed));
  }
  const double fraction = is_percent ? value / 100.0 : value;
  if (!((zero_allowed ? fraction >= 0 : fraction > 0) && fraction < 1)) {
    // A bare "5" most likely meant 5%, but 5 as a fraction is 500%: refused, not guessed.
    const std::string hint = !is_percent && value >= 1 && value < 100
                                 ? fmt::format("; for {} percent write {}%", text, text)
                                 : "";
    throw bad_input(
        fmt::format("{}: '{}' is out of range (allowed: {}{})", flag, text, allowed, hint));
  }
  return fraction;
}

}  // namespace rooflinectl
