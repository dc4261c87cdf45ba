// Helpers shared by the operator families: random fill, copy to host as double, tolerances.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "core/shape.hpp"
#include "core/validation.hpp"

namespace rooflinectl {

/// Fills `count` 16-bit elements at `data` (bf16 or fp16 per `dtype`) with values uniform in
/// [lo, hi), from a counter-based hash of (seed, index) (SplitMix64), on the GPU. Synchronous.
void fill_uniform(void* data, int64_t count, Dtype dtype, uint64_t seed, float lo, float hi);

/// Copies `count` 16-bit elements from the device and widens them to double. Synchronous.
std::vector<double> download_as_double(const void* data, int64_t count, Dtype dtype);

/// Copies row `row` (`width` 16-bit elements) of the row-major matrix at `data` from the device
/// and widens it to double. Synchronous.
std::vector<double> download_row_as_double(const uint16_t* data, int64_t row, int64_t width,
                                           Dtype dtype);

/// The rows of a [rows, width] output a CPU float64 reference checks: all of them while rows ≤
/// 4096 and the checked elements stay within 2^22 (a few hundred ms of reference work);
/// otherwise that many evenly spaced rows, the first and the last always among them (at least
/// min(rows, 2) rows, however wide). Ascending and deterministic, so a failure reproduces.
/// Empty when rows < 1 or width < 1.
std::vector<int64_t> checked_rows(int64_t rows, int64_t width);

/// Copies `count` fp32 elements from the device and widens them to double. Synchronous.
std::vector<double> download_fp32_as_double(const float* data, int64_t count);

/// Rounds a double to the nearest value representable in `dtype` (round-to-nearest-even), as the
/// kernels' final store does; used by CPU references that round intermediates like the kernel.
double round_to_dtype(double value, Dtype dtype);

/// Default tolerance for an operator output in `dtype` whose magnitude is O(1): abs = rel =
/// 2^-7 for bf16 (8 mantissa bits) and 2^-9 for fp16 (11 bits); families may widen it and say why.
Tolerance default_tolerance(Dtype dtype);

}  // namespace rooflinectl
