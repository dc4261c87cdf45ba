// Outcome of checking a kernel's output against a reference. Plain data, no CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rooflinectl {

/// Element-wise tolerance: |out - ref| <= abs + rel·|ref|. NaN or Inf on either side fails.
struct Tolerance {
  double abs = 0.0;
  double rel = 0.0;
};

/// How far an output computed from quantized inputs lies from the reference on the same inputs
/// before quantization (decode attention over an FP8 KV cache against the float64 or fp32
/// reference on the 16-bit K and V it was quantized from): the quantization error, which the
/// validation, run on the dequantized inputs, does not see. Differences over the same elements
/// that validation checked (the finite ones).
struct QuantizationError {
  std::string reference;          ///< e.g. "cpu-float64 on the bf16 K, V before quantization"
  int64_t checked_elements = 0;   ///< elements where both sides are finite
  double max_abs_difference = 0;  ///< max |out − ref|
  double rms_difference = 0;      ///< sqrt(mean (out − ref)²)
  double max_abs_reference = 0;   ///< max |ref|: the scale the differences are read against
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
  /// Set only where the operator quantized its inputs (decode attention, --kv-dtype fp8_e4m3).
  std::optional<QuantizationError> quantization;
};

/// Compares `count` elements of `out` against `ref` (both as double) with `tol`.
/// Elements that are NaN or Inf on either side count as failures. Pure host code.
Validation compare_arrays(const double* out, const double* ref, int64_t count, Tolerance tol,
                          const std::string& reference_name);

/// The differences between `count` elements of `out` and `ref` (QuantizationError; elements NaN
/// or Inf on either side are skipped). Pure host code.
QuantizationError difference_stats(const double* out, const double* ref, int64_t count,
                                   const std::string& reference_name);

}  // namespace rooflinectl
