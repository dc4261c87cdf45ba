#include "compare/significance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

void check_sample(const std::vector<double>& sample, const char* name) {
  if (sample.empty()) throw bad_input(fmt::format("Mann-Whitney U test: sample {} is empty", name));
  for (const double v : sample) {
    if (!std::isfinite(v)) {
      throw bad_input(fmt::format("Mann-Whitney U test: sample {} holds a non-finite value", name));
    }
  }
}

// Number of arrangements of m x's and n y's (all distinct) for each U = 0..m·n, U counting the
// pairs with x above y. The largest of the m+n values is either an x, above all n y's (adds n to
// U), or a y (adds nothing): c(m,n,u) = c(m-1,n,u-n) + c(m,n-1,u), c(0,n,0) = c(m,0,0) = 1.
// Counts reach C(100,50) ≈ 1e29 for 50 + 50 samples; doubles hold that with ~16 digits, plenty
// for a p-value.
std::vector<double> u_counts(size_t m, size_t n) {
  // row[j] holds c(i, j, ·) for the current i; built up from i = 0.
  std::vector<std::vector<double>> row(n + 1, std::vector<double>{1.0});
  for (size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1);
    next[0] = {1.0};
    for (size_t j = 1; j <= n; ++j) {
      std::vector<double> counts(i * j + 1, 0.0);
      const std::vector<double>& x_largest = row[j];       // c(i-1, j, ·), shifted by j
      const std::vector<double>& y_largest = next[j - 1];  // c(i, j-1, ·)
      for (size_t u = 0; u < x_largest.size(); ++u) counts[u + j] += x_largest[u];
      for (size_t u = 0; u < y_largest.size(); ++u) counts[u] += y_largest[u];
      next[j] = std::move(counts);
    }
    row = std::move(next);
  }
  return row[n];
}

}  // namespace

double mann_whitney_min_p_value(size_t n_x, size_t n_y) {
  // C(n_x+n_y, n_x) through lgamma: exact enough here and no overflow for any size.
  const double log_choose = std::lgamma(static_cast<double>(n_x + n_y) + 1) -
                            std::lgamma(static_cast<double>(n_x) + 1) -
                            std::lgamma(static_cast<double>(n_y) + 1);
  return std::min(1.0, 2.0 * std::exp(-log_choose));
}

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  check_sample(x, "x");
  check_sample(y, "y");
  const size_t m = x.size();
  const size_t n = y.size();
  const size_t total = m + n;

  // Mid-ranks of the pooled sample; tie groups are remembered for the variance correction.
  std::vector<std::pair<double, bool>> pooled;  // value, is_x
  pooled.reserve(total);
  for (const double v : x) pooled.emplace_back(v, true);
  for (const double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0;
  double tie_term = 0;  // Σ (t³ - t) over tie groups
  for (size_t begin = 0; begin < total;) {
    size_t end = begin;
    while (end < total && pooled[end].first == pooled[begin].first) ++end;
    const double t = static_cast<double>(end - begin);
    const double mid_rank = 0.5 * static_cast<double>(begin + 1 + end);  // ranks begin+1..end
    for (size_t k = begin; k < end; ++k) {
      if (pooled[k].second) rank_sum_x += mid_rank;
    }
    tie_term += t * t * t - t;
    begin = end;
  }

  const double md = static_cast<double>(m);
  const double nd = static_cast<double>(n);
  MannWhitneyResult result;
  result.u_first = rank_sum_x - md * (md + 1) / 2;
  const double u_low = std::min(result.u_first, md * nd - result.u_first);

  if (tie_term == 0 && m <= kMannWhitneyExactMaxSize && n <= kMannWhitneyExactMaxSize) {
    const std::vector<double> counts = u_counts(m, n);
    const double all = std::accumulate(counts.begin(), counts.end(), 0.0);
    // Without ties U is an integer; rounding guards against 2.9999 from the rank sums.
    const auto limit = static_cast<size_t>(std::llround(u_low));
    double tail = 0;
    for (size_t u = 0; u <= limit && u < counts.size(); ++u) tail += counts[u];
    result.p_value = std::min(1.0, 2.0 * tail / all);
    result.exact = true;
    return result;
  }

  const double nn = static_cast<double>(total);
  const double variance = md * nd / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (variance <= 0) {  // every value equal: nothing separates the samples
    result.p_value = 1;
    return result;
  }
  const double mean = md * nd / 2;
  const double z = std::max(0.0, std::fabs(result.u_first - mean) - 0.5) / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return result;
}

std::vector<double> holm_adjust(const std::vector<double>& p_values) {
  for (const double p : p_values) {
    if (!(p >= 0 && p <= 1)) {
      throw bad_input(fmt::format("Holm adjustment: p-value {} is not in [0, 1]", p));
    }
  }
  const size_t m = p_values.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m);
  double running_max = 0;
  for (size_t rank = 0; rank < m; ++rank) {
    const double scaled = static_cast<double>(m - rank) * p_values[order[rank]];
    running_max = std::max(running_max, std::min(1.0, scaled));
    adjusted[order[rank]] = running_max;
  }
  return adjusted;
}

}  // namespace rooflinectl
