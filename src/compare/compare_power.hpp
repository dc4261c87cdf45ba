// Power of the time gate before any verdict: can the Mann-Whitney test, Holm-adjusted over every
// point of a comparison, reach kMannWhitneyAlpha at all with the samples the reports hold? If it
// cannot, no regression can be flagged by time, and `compare` would pass it as "inconclusive".
// Pure host code.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// Sample counts of one point of the time gate's family, with its label for messages.
struct FamilyMember {
  std::string label;        ///< PointKey::label() of the point
  size_t base_samples = 0;  ///< finite samples in the base report
  size_t new_samples = 0;   ///< finite samples in the new report
};

/// Smallest two-sided p-value the time gate's test can give for sample sizes n_base and n_new,
/// whichever form of the test the samples get (statistics.hpp): the larger of the exact test's
/// floor, 2 / C(n_base + n_new, n_base) (samples without ties), and the normal approximation's
/// at complete separation, erfc(z / sqrt(2)) with z = (n_base·n_new/2 - 0.5) / sqrt(n_base·n_new·
/// (N + 1)/12) (samples with ties, common at the CUDA-event resolution; ties within a sample only
/// shrink the variance, so this is the highest floor they can give). 1 when a size is 0.
double time_gate_floor_p_value(size_t n_base, size_t n_new);

/// Smallest Holm-adjusted p-value a point with these sample counts can get when `family_size`
/// points are tested together: family_size × time_gate_floor_p_value(n_base, n_new), capped at 1.
/// Holm (1979) multiplies the smallest of m p-values by m, so this is the floor of every adjusted
/// p in the family.
double min_adjusted_p_value(size_t family_size, size_t n_base, size_t n_new);

/// Smallest n_new >= 1 with min_adjusted_p_value(family_size, n_base, n_new) < alpha: the
/// repetitions a new sweep needs against a base holding n_base samples per point; std::nullopt
/// when no n_new up to a million is enough (the normal approximation's floor has a limit above
/// alpha for a small base: 0.014 for n_base = 2). Throws a bad-input Error when family_size or
/// n_base is 0 or alpha is not in (0, 1).
std::optional<size_t> new_samples_needed(size_t family_size, size_t n_base, double alpha);

/// Smallest n >= 1 with min_adjusted_p_value(family_size, n, n) < alpha: the repetitions both
/// sweeps need. Throws a bad-input Error when family_size is 0 or alpha is not in (0, 1).
size_t equal_samples_needed(size_t family_size, double alpha);

/// Throws a bad-input Error (exit 2) when some member cannot reach kMannWhitneyAlpha after the Holm
/// adjustment over the whole family, naming the point with the fewest samples, the floor it
/// reaches and the samples needed (for both sweeps, and for the new one alone against this base)
/// as `flag` N ("--repetitions", or "--min-samples" for an adaptive sweep). An empty family passes
/// (nothing is tested by time).
void check_time_gate_power(const std::vector<FamilyMember>& family,
                           const std::string& flag = "--repetitions");

/// Indices into `candidates` (ascending) of the largest family whose every member can reach
/// kMannWhitneyAlpha after the Holm adjustment over that family: with the members sorted by
/// time_gate_floor_p_value, the first k where k × the k-th floor is below alpha (k × floor grows
/// with k, so that k is the largest). A candidate left out cannot be tested by time with its
/// sample counts; it would only raise the floor of every other member. Empty when even one
/// candidate alone cannot reach alpha, or when there are none.
std::vector<size_t> powered_family(const std::vector<FamilyMember>& candidates);

/// The family a sweep of the points `planned` (version ignored), `repetitions` samples each, would
/// test against `base` before it runs: the base points that are ok, hold finite samples and match
/// a planned point (PointKey::same_point). `sweep --baseline` checks it with check_time_gate_power
/// so that a sweep that could not flag a regression costs no GPU time.
std::vector<FamilyMember> planned_time_gate_family(const Report& base,
                                                   const std::vector<PointKey>& planned,
                                                   size_t repetitions);

}  // namespace rooflinectl
