// Summary statistics of timing samples. Pure host code (no CUDA), unit-tested on the CPU.
#pragma once

#include <algorithm>
#include <cstddef>
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

}  // namespace rooflinectl
