#include "core/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rooflinectl {

Validation compare_arrays(const double* out, const double* ref, int64_t count, Tolerance tol,
                          const std::string& reference_name) {
  Validation v;
  v.reference = reference_name;
  v.tolerance = tol;
  v.checked_elements = count;
  for (int64_t i = 0; i < count; ++i) {
    const double o = out[i];
    const double r = ref[i];
    if (!std::isfinite(o) || !std::isfinite(r)) {
      ++v.non_finite_elements;
      ++v.failed_elements;
      if (v.detail.empty()) v.detail = fmt::format("index {}: out {} ref {} (non-finite)", i, o, r);
      continue;
    }
    const double err = std::fabs(o - r);
    const double allowed = tol.abs + tol.rel * std::fabs(r);
    v.max_abs_error = std::max(v.max_abs_error, err);
    const double ratio = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0.0);
    if (std::isfinite(ratio)) v.worst_ratio = std::max(v.worst_ratio, ratio);
    if (err > allowed) {
      ++v.failed_elements;
      if (v.detail.empty()) {
        v.detail = fmt::format("index {}: out {:.6g} ref {:.6g} |err| {:.3g} > {:.3g}", i, o, r,
                               err, allowed);
      }
    }
  }
  v.passed = count > 0 && v.failed_elements == 0;
  if (count == 0) v.detail = "no elements checked";
  return v;
}

QuantizationError difference_stats(const double* out, const double* ref, int64_t count,
                                   const std::string& reference_name) {
  QuantizationError q;
  q.reference = reference_name;
  double sum_squares = 0.0;
  for (int64_t i = 0; i < count; ++i) {
    if (!std::isfinite(out[i]) || !std::isfinite(ref[i])) continue;
    const double diff = std::fabs(out[i] - ref[i]);
    ++q.checked_elements;
    q.max_abs_difference = std::max(q.max_abs_difference, diff);
    q.max_abs_reference = std::max(q.max_abs_reference, std::fabs(ref[i]));
    sum_squares += diff * diff;
  }
  if (q.checked_elements > 0) {
    q.rms_difference = std::sqrt(sum_squares / static_cast<double>(q.checked_elements));
  }
  return q;
}

}  // namespace rooflinectl
