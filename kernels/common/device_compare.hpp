// compare_arrays (src/core/validation.hpp) run on the GPU, for outputs too large to copy to the
// host and widen to double in reasonable time (a GEMM output of 2.7e8 elements took ~6 s that
// way on the host). Same test, same arithmetic (float64), same result fields and detail text.
#pragma once

#include <cstdint>
#include <string>

#include "core/shape.hpp"
#include "core/validation.hpp"

namespace rooflinectl {

/// Compares `count` 16-bit elements of `out` (device, bf16 or fp16 per `out_dtype`) with `count`
/// fp32 elements of `ref` (device) exactly as compare_arrays does on the host: both widened to
/// double; NaN or Inf on either side fails and counts as non-finite; otherwise an element fails
/// when |out − ref| > tol.abs + tol.rel·|ref|; max_abs_error and worst_ratio over the finite
/// elements; detail names the lowest failing index with its two values. Synchronous on the
/// default stream; throws a CUDA Error on a launch or copy failure.
Validation compare_on_device(const void* out, Dtype out_dtype, const float* ref, int64_t count,
                             Tolerance tol, const std::string& reference_name);

}  // namespace rooflinectl
