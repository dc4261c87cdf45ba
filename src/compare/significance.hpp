// Two-sample statistics for `rooflinectl compare`: is one set of timing samples separated from
// another, or could both come from the same distribution? Pure host code, unit-tested against
// hand-computed values.
#pragma once

#include <cstddef>
#include <vector>

namespace rooflinectl {

/// Family-wise significance level of the time gate in `compare`: the Mann-Whitney p-values of all
/// points of one comparison are Holm-adjusted (holm_adjust) and a point is separated from noise
/// when its adjusted p is below this. A sweep tests ~40 points at once; unadjusted, even 0.01
/// flags one noise-only point in about a third of comparisons whose noise exceeds the time
/// threshold. With the adjustment the chance of any false "slower" in a whole comparison stays
/// below 1%. The time threshold is a second, independent gate on top of this.
inline constexpr double kMannWhitneyAlpha = 0.01;

/// Largest sample size for which the exact null distribution of U is computed (when there are no
/// ties); beyond it, or with ties, the normal approximation is used. 50 keeps the table under
/// 2 MB and is far above the 10 repetitions a sweep takes by default.
inline constexpr size_t kMannWhitneyExactMaxSize = 50;

/// Result of a two-sided Mann-Whitney U test (Wilcoxon rank-sum test).
struct MannWhitneyResult {
  /// U of the first sample: the number of pairs (x_i, y_j) with x_i > y_j, ties counting 1/2.
  /// 0 means every x is below every y; n_x·n_y means every x is above every y.
  double u_first = 0;
  /// Two-sided p-value: the probability, if both samples came from one distribution, of a U at
  /// least this far from its mean n_x·n_y/2. In [0, 1].
  double p_value = 1;
  /// True when p_value comes from the exact permutation distribution (no ties, both sizes <=
  /// kMannWhitneyExactMaxSize); false for the normal approximation with tie correction.
  bool exact = false;
};

/// Two-sided Mann-Whitney U test of samples `x` and `y` (any unit, finite values).
/// Exact: p = min(1, 2·P(U <= min(U_x, U_y))) with P from the count of rank arrangements
/// (recurrence c(m,n,u) = c(m-1,n,u-n) + c(m,n-1,u), Mann & Whitney 1947, eq. 1).
/// Approximation: mean n_x·n_y/2, variance n_x·n_y/12·((N+1) - Σ(t³-t)/(N(N-1))) over tie groups
/// of size t, N = n_x + n_y, continuity correction 0.5; p = erfc(|z|/√2). All values equal: p = 1.
/// Throws a bad-input Error when either sample is empty or holds a non-finite value.
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

/// Smallest two-sided p-value the exact test can give for sizes n_x and n_y: 2 / C(n_x+n_y, n_x)
/// (capped at 1). With 3 samples each it is 0.1, so no result can be significant at
/// kMannWhitneyAlpha; `compare` refuses such a comparison before any verdict (compare_power.hpp).
double mann_whitney_min_p_value(size_t n_x, size_t n_y);

/// Holm-Bonferroni adjusted p-values (Holm 1979, "A simple sequentially rejective multiple test
/// procedure"), in the order given: with p sorted ascending as p(1) <= ... <= p(m),
/// adjusted(i) = max over j <= i of min(1, (m - j + 1)·p(j)). Rejecting where adjusted < alpha
/// keeps the family-wise error rate at alpha. Empty in, empty out. Throws a bad-input Error for a
/// value outside [0, 1].
std::vector<double> holm_adjust(const std::vector<double>& p_values);

}  // namespace rooflinectl
