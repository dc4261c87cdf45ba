// Adaptive sampling's noise measure (core/statistics.hpp): the distribution-free 95% interval
// of the median and its half-width over the median, checked against the binomial tables.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "core/statistics.hpp"

namespace rooflinectl {
namespace {

TEST(MedianIntervalRanks, MatchTheBinomialTables) {
  // (j, n + 1 - j) with P(B <= j - 1) <= 2.5% for B ~ binomial(n, 1/2): n = 10 has
  // P(B <= 1) = 11/1024 = 1.07% and P(B <= 2) = 5.47%, so j = 2.
  EXPECT_EQ(median_interval_ranks(6), (std::pair<size_t, size_t>{1, 6}));
  EXPECT_EQ(median_interval_ranks(8), (std::pair<size_t, size_t>{1, 8}));
  EXPECT_EQ(median_interval_ranks(9), (std::pair<size_t, size_t>{2, 8}));
  EXPECT_EQ(median_interval_ranks(10), (std::pair<size_t, size_t>{2, 9}));
  EXPECT_EQ(median_interval_ranks(20), (std::pair<size_t, size_t>{6, 15}));
  EXPECT_EQ(median_interval_ranks(100), (std::pair<size_t, size_t>{40, 61}));
  // Large n: close to the normal approximation n/2 ± 1.96·√n/2 (1000: 469 and 532).
  EXPECT_EQ(median_interval_ranks(1000), (std::pair<size_t, size_t>{469, 532}));
}

TEST(MedianIntervalRanks, FewerThanSixSamplesHaveNoInterval) {
  EXPECT_THROW(median_interval_ranks(5), Error);
  EXPECT_THROW(median_interval_ranks(0), Error);
}

TEST(MedianNoise, HalfWidthOverTheMedian) {
  // 1..10: median 5.5, interval (x_(2), x_(9)) = (2, 9): half-width 3.5, noise 3.5 / 5.5.
  std::vector<double> samples = {10, 3, 1, 7, 2, 9, 4, 8, 6, 5};
  ASSERT_TRUE(median_noise(samples));
  EXPECT_DOUBLE_EQ(*median_noise(samples), 3.5 / 5.5);
  // Identical samples have no noise; one outlier past the interval does not count.
  EXPECT_DOUBLE_EQ(*median_noise(std::vector<double>(10, 2e-5)), 0.0);
  std::vector<double> outlier(10, 1.0);
  outlier[3] = 100.0;
  EXPECT_DOUBLE_EQ(*median_noise(outlier), 0.0);
}

TEST(MedianNoise, UndefinedBelowSixSamplesOrWithoutAPositiveMedian) {
  EXPECT_FALSE(median_noise({1, 2, 3, 4, 5}));
  EXPECT_FALSE(median_noise(std::vector<double>(8, 0.0)));
}

TEST(AdaptiveSamplingStop, NoiseTargetNeedsMinSamplesAndMinTime) {
  const std::vector<double> tight(12, 1e-4);  // noise 0
  EXPECT_EQ(adaptive_sampling_stop(tight, {0.01, 10, 0, 1}, 0.01),
            "noise 0.00% <= 1.00% after 12 samples");
  EXPECT_EQ(adaptive_sampling_stop(tight, {0.01, 20, 0, 1}, 0.01), "");    // too few samples
  EXPECT_EQ(adaptive_sampling_stop(tight, {0.01, 10, 0.5, 1}, 0.01), "");  // 1.2 ms < 0.5 s
}

TEST(AdaptiveSamplingStop, MaxTimeStopsOnlyOnceMinSamplesAreTaken) {
  std::vector<double> noisy = {1, 2, 3, 4, 5, 6, 7, 8};                 // noise far above 1%
  EXPECT_EQ(adaptive_sampling_stop(noisy, {0.01, 10, 0, 1}, 5.0), "");  // 8 < min_samples
  noisy.push_back(9);
  noisy.push_back(10);
  const std::string reason = adaptive_sampling_stop(noisy, {0.01, 10, 0, 1}, 5.0);
  EXPECT_EQ(reason.rfind("max time 1 s reached after 10 samples, noise 63.64%", 0), 0u) << reason;
  EXPECT_EQ(adaptive_sampling_stop(noisy, {0.01, 10, 0, 1}, 0.5), "");  // time left
}

}  // namespace
}  // namespace rooflinectl
