#include "compare/profile_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "compare/compare_power.hpp"
#include "compare/profile_report_checks.hpp"
#include "compare/significance.hpp"
#include "core/error.hpp"
#include "core/statistics.hpp"
#include "roofline/above_roof_guard.hpp"

namespace rooflinectl {
namespace {

/// Outcome of one gate before the two are combined.
struct GateOutcome {
  Verdict verdict = Verdict::kSame;  // kSame, kFaster, kSlower or kInconclusive
  std::string reason;
};

std::string percent(double fraction) { return fmt::format("{:+.1f}%", 100.0 * fraction); }
std::string share_text(double fraction) { return fmt::format("{:.2g}%", 100.0 * fraction); }
std::string threshold_text(double fraction) { return fmt::format("{:g}%", 100.0 * fraction); }

std::string join(const std::vector<std::string>& parts) {
  std::string text;
  for (const auto& p : parts) text += (text.empty() ? "" : ", ") + p;
  return text;
}

// ---------------------------------------------------------------------------------------------
// Counter gate.

std::string describe_change(const CounterChange& c) {
  const std::string change = c.relative_change ? percent(*c.relative_change) : "from 0";
  return fmt::format("{} {} ({:.4g} -> {:.4g})", c.metric, change, c.base, c.current);
}

// Whether more DRAM bytes cannot move the kernel's roof: placed compute-bound (binding level
// compute) in both reports, as in the sweep comparison.
bool compute_bound_in_both(const KernelSummary& base, const KernelSummary& current) {
  return base.roofline && current.roofline && base.roofline->binding_level == RoofLevel::kCompute &&
         current.roofline->binding_level == RoofLevel::kCompute;
}

std::optional<std::string> missing_counters(const KernelSummary& k) {
  if (!k.counters) return std::string("no profiled launch");
  if (k.counters->null_reason) return *k.counters->null_reason;
  return std::nullopt;
}

GateOutcome counter_gate(const KernelSummary& base, const KernelSummary& current,
                         const CompareOptions& options, KernelComparison& out) {
  for (const auto* k : {&base, &current}) {
    if (const auto why = missing_counters(*k)) {
      out.counter_note =
          fmt::format("no counters in the {} report: {}", k == &base ? "base" : "new", *why);
      return {};
    }
  }
  const CounterResult& b = *base.counters;
  const CounterResult& c = *current.counters;
  std::vector<std::string> worse;
  std::vector<std::string> better;
  const auto gate = [&](const char* metric, std::optional<double> before,
                        std::optional<double> after, double threshold, bool traffic) {
    if (!before || !after || !std::isfinite(*before) || !std::isfinite(*after)) return;
    CounterChange change;
    change.metric = metric;
    change.base = *before;
    change.current = *after;
    if (*before != 0) {
      change.relative_change = (*after - *before) / *before;
      change.beyond_threshold = std::fabs(*change.relative_change) > threshold;
    } else {
      change.beyond_threshold = *after != 0;
    }
    const auto not_gated = [&](const std::string& why) {
      change.beyond_threshold = false;
      out.traffic_note += (out.traffic_note.empty() ? "" : "; ") + describe_change(change) + why;
    };
    if (change.beyond_threshold && traffic &&
        std::fabs(*after - *before) < kTrafficResolutionFloorBytes) {
      not_gated(
          fmt::format(": {:.2f} MB, below the {:.0f} MB floor of the byte measurement, not "
                      "gated",
                      std::fabs(*after - *before) / 1e6, kTrafficResolutionFloorBytes / 1e6));
    }
    if (change.beyond_threshold && traffic && compute_bound_in_both(base, current)) {
      not_gated(" at a compute-bound kernel (binding: compute in both reports): not gated");
    }
    if (change.beyond_threshold) {
      (*after > *before ? worse : better).push_back(describe_change(change));
    }
    out.counters.push_back(change);
  };
  // One basis for both sides: the isolated launch (write-back included) when both measured it.
  const std::optional<double> base_isolated = b.dram_bytes_isolated();
  const std::optional<double> new_isolated = c.dram_bytes_isolated();
  if (base_isolated && new_isolated) {
    gate("dram_bytes", base_isolated, new_isolated, options.traffic_threshold, true);
  } else {
    gate("dram_bytes_in_window", b.total.dram_bytes(), c.total.dram_bytes(),
         options.traffic_threshold, true);
  }
  gate("tensor_bf16_flop", b.total.tensor_bf16_flop, c.total.tensor_bf16_flop,
       options.counter_threshold, false);
  if (out.counters.empty()) {
    out.counter_note = "DRAM bytes and bf16 tensor FLOPs missing in one of the reports";
    return {};
  }
  // Any increase is a regression even when another counter fell (as in the sweep comparison).
  if (!worse.empty()) return {Verdict::kSlower, "counters up: " + join(worse)};
  if (!better.empty()) return {Verdict::kFaster, "counters down: " + join(better)};
  return {};
}

// ---------------------------------------------------------------------------------------------
// Time gate.

std::vector<double> finite_only(const std::vector<double>& values) {
  std::vector<double> out;
  for (const double v : values) {
    if (std::isfinite(v)) out.push_back(v);
  }
  return out;
}

/// A matched kernel between its gates and its verdict.
struct PendingKernel {
  KernelComparison out;
  std::optional<std::string> failure;  // the new report places it above its roof
  GateOutcome counters;
  std::vector<double> base_durations;  // finite durations_s
  std::vector<double> new_durations;
};

std::string median_text(const TimeEvidence& t) {
  return fmt::format("median {} -> {} ({})", format_duration_s(t.base_median),
                     format_duration_s(t.current_median), percent(t.relative_change));
}

PendingKernel gate_kernel(const KernelSummary& base, const KernelSummary& current,
                          const CompareOptions& options) {
  PendingKernel pending;
  KernelComparison& out = pending.out;
  out.key = base.key;
  out.name = base.name;
  out.nvtx_path = base.nvtx_path;
  out.base_share = base.share_of_gpu_time;
  out.base_launches = base.launches;
  out.new_launches = current.launches;
  if (current.roofline) {
    if (const auto error = above_roof_error(*current.roofline)) {
      pending.failure = "in the new report: " + *error;
    }
  }
  pending.counters = counter_gate(base, current, options, out);
  pending.base_durations = finite_only(base.durations_s);
  pending.new_durations = finite_only(current.durations_s);
  if (!pending.base_durations.empty() && !pending.new_durations.empty()) {
    TimeEvidence ev;
    ev.base_median = median(pending.base_durations);
    ev.current_median = median(pending.new_durations);
    ev.relative_change = (ev.current_median - ev.base_median) / ev.base_median;
    ev.base_samples = pending.base_durations.size();
    ev.current_samples = pending.new_durations.size();
    out.time = ev;
  }
  return pending;
}

bool is_candidate(const PendingKernel& p, double min_share) {
  return p.out.time && *p.out.base_share >= min_share;
}

// The launches a kernel needs to be tested by time in a family of `family_size` kernels.
std::string launches_needed(size_t family_size, size_t base_launches) {
  const size_t both = equal_samples_needed(family_size, kMannWhitneyAlpha);
  const std::optional<size_t> new_only =
      new_samples_needed(family_size, base_launches, kMannWhitneyAlpha);
  return fmt::format("needs {} launches in both reports, {}", both,
                     new_only
                         ? fmt::format("or {} new against the base's {}", *new_only, base_launches)
                         : fmt::format("as no number of new launches is enough against the "
                                       "base's {}",
                                       base_launches));
}

// Before any verdict: a comparison in which no kernel can be tested by time would pass every
// time regression as "inconclusive".
void check_some_kernel_testable(const std::vector<PendingKernel>& pending, double min_share,
                                const std::vector<FamilyMember>& candidates) {
  if (candidates.empty()) {
    const auto largest = std::max_element(
        pending.begin(), pending.end(),
        [](const auto& a, const auto& b) { return *a.out.base_share < *b.out.base_share; });
    const bool share_too_low = *largest->out.base_share < min_share;
    throw bad_input(fmt::format(
        "the time gate cannot test any kernel: {}; the largest matched kernel, '{}', takes {} of "
        "the base's GPU time{}",
        share_too_low
            ? fmt::format("no matched kernel takes --min-share {} of the base program's GPU time",
                          threshold_text(min_share))
            : fmt::format("no matched kernel above --min-share {} has launch durations in both "
                          "reports",
                          threshold_text(min_share)),
        largest->out.label(), share_text(*largest->out.base_share),
        share_too_low ? "; lower --min-share" : ""));
  }
  const auto best = std::min_element(
      candidates.begin(), candidates.end(), [](const FamilyMember& a, const FamilyMember& b) {
        return time_gate_floor_p_value(a.base_samples, a.new_samples) <
               time_gate_floor_p_value(b.base_samples, b.new_samples);
      });
  throw bad_input(fmt::format(
      "the time gate cannot test any kernel above --min-share {}: the best, '{}', has {} base and "
      "{} new {}, whose smallest Mann-Whitney p is {:.2g}, not below {}; a kernel {} to be gated "
      "by time (profile more iterations of the program)",
      threshold_text(min_share), best->label, best->base_samples, best->new_samples,
      best->new_samples == 1 ? "launch" : "launches",
      time_gate_floor_p_value(best->base_samples, best->new_samples), kMannWhitneyAlpha,
      launches_needed(1, best->base_samples)));
}

// Chooses the kernels tested by time, computes and Holm-adjusts their p-values; returns the
// family size.
size_t test_time_family(std::vector<PendingKernel>& pending, double min_share) {
  std::vector<FamilyMember> candidates;
  std::vector<size_t> candidate_index;
  for (size_t i = 0; i < pending.size(); ++i) {
    if (!is_candidate(pending[i], min_share)) continue;
    candidates.push_back({pending[i].out.label(), pending[i].out.time->base_samples,
                          pending[i].out.time->current_samples});
    candidate_index.push_back(i);
  }
  const std::vector<size_t> family = powered_family(candidates);
  if (family.empty()) check_some_kernel_testable(pending, min_share, candidates);
  std::vector<double> raw;
  for (const size_t f : family) {
    PendingKernel& p = pending[candidate_index[f]];
    const MannWhitneyResult test = mann_whitney_u(p.base_durations, p.new_durations);
    p.out.time->p_value = test.p_value;
    p.out.time->exact_p = test.exact;
    p.out.time_gated = true;
    raw.push_back(test.p_value);
  }
  const std::vector<double> adjusted = holm_adjust(raw);
  for (size_t j = 0; j < family.size(); ++j) {
    TimeEvidence& ev = *pending[candidate_index[family[j]]].out.time;
    ev.p_value_adjusted = adjusted[j];
    ev.family_size = family.size();
  }
  return family.size();
}

GateOutcome time_outcome(const PendingKernel& p, const ProfileCompareOptions& options,
                         size_t family_size) {
  const KernelComparison& out = p.out;
  if (*out.base_share < options.min_share) {
    return {Verdict::kSame,
            fmt::format("{} of the base's GPU time, below --min-share {}: time not gated{}",
                        share_text(*out.base_share), threshold_text(options.min_share),
                        out.time ? " (" + median_text(*out.time) + ")" : "")};
  }
  if (!out.time) {
    return {Verdict::kInconclusive,
            fmt::format("no launch durations in the {} report: time not gated",
                        p.base_durations.empty() ? "base" : "new")};
  }
  const TimeEvidence& ev = *out.time;
  const std::string what = median_text(ev);
  if (!out.time_gated) {
    const size_t joined = family_size + 1;
    const double floor_p = time_gate_floor_p_value(ev.base_samples, ev.current_samples);
    return {Verdict::kInconclusive,
            fmt::format("{}; time not gated: {} base and {} new {} reach at best p = {:.2g} after "
                        "the Holm adjustment over {} kernels, not below {}; {}",
                        what, ev.base_samples, ev.current_samples,
                        ev.current_samples == 1 ? "launch" : "launches",
                        std::min(1.0, static_cast<double>(joined) * floor_p), joined,
                        kMannWhitneyAlpha, launches_needed(joined, ev.base_samples))};
  }
  const double threshold = options.gate.time_threshold;
  if (std::fabs(ev.relative_change) <= threshold) {
    return {Verdict::kSame, fmt::format("{}, within {}", what, threshold_text(threshold))};
  }
  const double delta_s = std::fabs(ev.current_median - ev.base_median);
  if (delta_s < kTimeResolutionFloorS) {
    return {Verdict::kSame,
            fmt::format("{}, but the medians differ by {} (< {} CUDA-event resolution floor)", what,
                        format_duration_s(delta_s), format_duration_s(kTimeResolutionFloorS))};
  }
  const std::string p_text =
      fmt::format("Mann-Whitney p = {:.2g}, Holm-adjusted over {} kernel{} {:.2g}", *ev.p_value,
                  ev.family_size, ev.family_size == 1 ? "" : "s", *ev.p_value_adjusted);
  if (*ev.p_value_adjusted < kMannWhitneyAlpha) {
    return {ev.relative_change > 0 ? Verdict::kSlower : Verdict::kFaster,
            fmt::format("{}, {}", what, p_text)};
  }
  return {Verdict::kInconclusive, fmt::format("{}, but {} >= {} (not separable from noise)", what,
                                              p_text, kMannWhitneyAlpha)};
}

KernelComparison decide_kernel(PendingKernel pending, const ProfileCompareOptions& options,
                               size_t family_size) {
  KernelComparison& out = pending.out;
  const GateOutcome time = time_outcome(pending, options, family_size);
  const GateOutcome& counters = pending.counters;
  const auto both = [](const GateOutcome& first, const GateOutcome& second) {
    return second.reason.empty() ? first.reason : first.reason + "; " + second.reason;
  };
  if (pending.failure) {
    out.verdict = Verdict::kFailed;
    out.reason = *pending.failure;
  } else if (counters.verdict == Verdict::kSlower) {
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
  if (!out.traffic_note.empty()) out.reason += "; " + out.traffic_note;
  return out;
}

KernelComparison unmatched_kernel(const KernelSummary& k, bool in_base) {
  KernelComparison out;
  out.key = k.key;
  out.name = k.name;
  out.nvtx_path = k.nvtx_path;
  (in_base ? out.base_launches : out.new_launches) = k.launches;
  if (in_base) {
    out.base_share = k.share_of_gpu_time;
    out.verdict = Verdict::kRemoved;
    out.reason = "only in the base report";
    return out;
  }
  const std::optional<std::string> error =
      k.roofline ? above_roof_error(*k.roofline) : std::nullopt;
  out.verdict = error ? Verdict::kFailed : Verdict::kAdded;
  out.reason = error ? "only in the new report, " + *error : "only in the new report";
  return out;
}

ReportIdentity identity(const ProfileReport& r) {
  return {r.tool_version, r.git_revision, r.timestamp_utc,
          r.devices.empty() ? std::string() : r.devices.front().name};
}

// Kernels that disappeared are not judged; without --strict they still must not go unnoticed.
void add_removed_warning(ProfileCompareResult& result) {
  const size_t removed = result.count(Verdict::kRemoved);
  if (removed == 0 || result.options.gate.strict) return;
  const auto first = std::find_if(result.kernels.begin(), result.kernels.end(),
                                  [](const auto& k) { return k.verdict == Verdict::kRemoved; });
  result.warnings.push_back(fmt::format(
      "{} kernel{} of the base report {} missing from the new one (first: '{}') and not judged; "
      "--strict fails on them",
      removed, removed == 1 ? "" : "s", removed == 1 ? "is" : "are", first->label()));
}

}  // namespace

std::string kernel_label(const std::string& key, const std::string& name) {
  const bool keyed_by_name = key.compare(0, name.size(), name) == 0;
  const std::string head = keyed_by_name ? name : key;
  const std::string tail = keyed_by_name ? key.substr(name.size()) : "";
  if (head.size() <= kKernelLabelNameChars) return key;
  size_t cut = kKernelLabelNameChars - 3;
  // Never inside a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(head[cut]) & 0xC0) == 0x80) --cut;
  return head.substr(0, cut) + "..." + tail;
}

size_t ProfileCompareResult::count(Verdict verdict) const {
  return static_cast<size_t>(std::count_if(kernels.begin(), kernels.end(),
                                           [&](const auto& k) { return k.verdict == verdict; }));
}

size_t ProfileCompareResult::regressions() const {
  return count(Verdict::kSlower) + count(Verdict::kFailed);
}

int ProfileCompareResult::exit_code() const { return gate_exit_code(*this, options.gate.strict); }

ProfileCompareResult compare_profiles(const ProfileReport& base, const ProfileReport& current,
                                      const ProfileCompareOptions& options) {
  check_profile_compare_options(options);
  check_profiles_comparable(base, current, options.gate.allow_different_gpu);

  ProfileCompareResult result;
  result.options = options;
  result.base = identity(base);
  result.current = identity(current);
  result.warnings = profile_setting_warnings(base, current);

  std::map<std::string, size_t> new_index;
  for (size_t j = 0; j < current.kernels.size(); ++j) new_index[current.kernels[j].key] = j;
  std::vector<bool> matched(current.kernels.size(), false);
  std::vector<PendingKernel> pending;
  std::vector<size_t> pending_of_base;  // base order: index into pending, or npos if removed
  for (const KernelSummary& b : base.kernels) {
    const auto found = new_index.find(b.key);
    if (found == new_index.end()) {
      pending_of_base.push_back(std::string::npos);
      continue;
    }
    matched[found->second] = true;
    pending_of_base.push_back(pending.size());
    pending.push_back(gate_kernel(b, current.kernels[found->second], options.gate));
  }
  if (pending.empty()) throw bad_input(describe_no_kernel_matched(base, current));

  result.time_family_size = test_time_family(pending, options.min_share);
  for (size_t i = 0; i < base.kernels.size(); ++i) {
    result.kernels.push_back(pending_of_base[i] == std::string::npos
                                 ? unmatched_kernel(base.kernels[i], true)
                                 : decide_kernel(std::move(pending[pending_of_base[i]]), options,
                                                 result.time_family_size));
  }
  for (size_t j = 0; j < current.kernels.size(); ++j) {
    if (!matched[j]) result.kernels.push_back(unmatched_kernel(current.kernels[j], false));
  }
  add_removed_warning(result);
  return result;
}

}  // namespace rooflinectl
