// Outcome of checking a kernel's output against a reference. Plain data, no CUDA.
#pragma once

#include <cstdint>
#include <string>

namespace rooflinectl {

/// Element-wise tolerance: |out - ref| <= abs + rel·|ref|. NaN or Inf on either side fails.
struct Tolerance {
  double abs = 0.0;
  double rel = 0.0;
};

/// Result of one comparison. `max_abs_error` is over all checked elements (finite ones);
/// `worst_ratio` is max over elements of |out - ref| / (abs + rel·|ref|) (≤ 1 passes).
struct Validation {
  bool passed = false;
  std::string reference;  ///< which reference, e.g. "cpu-float64" or "gpu-fp32 reference_attention"
  Tolerance tolerance;
  int64_t checked_elements = 0;
  int64_t failed_elements = 0;
  int64_t non_finite_elements = 0;
  double max_abs_error = 0.0;
  double worst_ratio = 0.0;
  std::string detail;  ///< first failing index and values, empty when passed
};

/// Compares `count` elements of `out` against `ref` (both as double) with `tol`.
/// Elements that are NaN or Inf on either side count as failures. Pure host code.
Validation compare_arrays(const double* out, const double* ref, int64_t count, Tolerance tol,
                          const std::string& reference_name);

}  // namespace rooflinectl
