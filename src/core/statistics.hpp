// Summary statistics of timing samples. Pure host code (no CUDA), unit-tested on the CPU.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace rooflinectl {

/// Median of `samples` (any unit): the middle value for an odd count, the mean of the two middle
/// values for an even count. Throws a bad-input Error when `samples` is empty.
inline double median(std::vector<double> samples) {
  if (samples.empty()) throw bad_input("median of an empty sample set");
  const size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + mid, samples.end());
  const double upper = samples[mid];
  if (samples.size() % 2 == 1) return upper;
  // After nth_element every element before `mid` is <= upper; the largest of them is the other
  // middle value.
  const double lower = *std::max_element(samples.begin(), samples.begin() + mid);
  return 0.5 * (lower + upper);
}

/// Fewest samples for which a 95% confidence interval of the median exists: with n samples the
/// widest interval, (x_(1), x_(n)), covers the median with probability 1 − 2·2⁻ⁿ, 96.9% for n = 6
/// and 93.8% for n = 5.
inline constexpr size_t kMinSamplesForNoise = 6;

/// 1-based ranks (j, n + 1 − j) of the distribution-free 95% confidence interval of the median of
/// `n` samples, x_(j) ≤ median ≤ x_(n+1−j): the largest j with P(B ≤ j − 1) ≤ 2.5% for B ~
/// binomial(n, 1/2), the count of samples below the median (Conover, "Practical Nonparametric
/// Statistics", 3rd ed., §3.2, confidence interval for a quantile), computed exactly in log space.
/// n = 10 gives (2, 9), n = 100 gives (40, 61). Throws a bad-input Error for n <
/// kMinSamplesForNoise.
inline std::pair<size_t, size_t> median_interval_ranks(size_t n) {
  if (n < kMinSamplesForNoise) {
    throw bad_input("a confidence interval of the median needs at least 6 samples");
  }
  constexpr double kTail = 0.025;
  const double nd = static_cast<double>(n);
  const double log_total = std::lgamma(nd + 1.0) - nd * std::log(2.0);
  const auto pmf = [&](size_t i) {
    const double di = static_cast<double>(i);
    return std::exp(log_total - std::lgamma(di + 1.0) - std::lgamma(nd - di + 1.0));
  };
  double cdf = pmf(0);  // P(B <= 0) = 2^-n <= kTail for n >= 6, so j = 1 always qualifies
  size_t j = 1;
  for (size_t i = 1; i < n / 2; ++i) {
    cdf += pmf(i);
    if (cdf > kTail) break;
    j = i + 1;  // P(B <= j - 1) <= kTail
  }
  return {j, n + 1 - j};
}

/// Timing noise as adaptive sampling judges it: the half-width of the 95% confidence interval of
/// the median (median_interval_ranks) relative to the median, (x_(n+1−j) − x_(j)) / (2 ·
/// median); 0.01 = ±1%. std::nullopt for fewer than kMinSamplesForNoise samples or a median that
/// is not > 0.
inline std::optional<double> median_noise(std::vector<double> samples) {
  if (samples.size() < kMinSamplesForNoise) return std::nullopt;
  const double mid = median(samples);
  if (!(mid > 0)) return std::nullopt;
  std::sort(samples.begin(), samples.end());
  const auto [lower, upper] = median_interval_ranks(samples.size());
  return (samples[upper - 1] - samples[lower - 1]) / (2.0 * mid);
}

/// When adaptive sampling stops (measure/timing.hpp TimingOptions).
struct AdaptiveSampling {
  double max_noise = 0.01;  ///< target median_noise, fraction
  int min_samples = 10;     ///< fewest samples, a floor even past max_time_s
  double min_time_s = 0;    ///< least summed sample time, s
  double max_time_s = 1;    ///< most wall time, s (once min_samples are taken)
};

/// Why adaptive sampling stops after `samples` (seconds each) taken in `wall_s` of wall time, or
/// an empty string to take another: "noise 0.41% <= 1.00% after 23 samples" once there are
/// min_samples, min_time_s of summed samples and median_noise <= max_noise; else "max time 1 s
/// reached after 40 samples, noise 1.70% (target 1.00%)" once wall_s >= max_time_s and there are
/// min_samples. Pure.
inline std::string adaptive_sampling_stop(const std::vector<double>& samples,
                                          const AdaptiveSampling& rule, double wall_s) {
  double sampled_s = 0;
  for (const double s : samples) sampled_s += s;
  const bool enough = samples.size() >= static_cast<size_t>(rule.min_samples);
  const std::optional<double> noise = median_noise(samples);
  if (enough && sampled_s >= rule.min_time_s && noise && *noise <= rule.max_noise) {
    return fmt::format("noise {:.2f}% <= {:.2f}% after {} samples", *noise * 100,
                       rule.max_noise * 100, samples.size());
  }
  if (enough && wall_s >= rule.max_time_s) {
    return fmt::format("max time {:g} s reached after {} samples, noise {} (target {:.2f}%)",
                       rule.max_time_s, samples.size(),
                       noise ? fmt::format("{:.2f}%", *noise * 100) : std::string("unknown"),
                       rule.max_noise * 100);
  }
  return {};
}

}  // namespace rooflinectl
