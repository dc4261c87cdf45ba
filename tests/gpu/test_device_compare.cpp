// compare_on_device (kernels/common/device_compare.hpp) against the host compare_arrays on the
// same values: passing data, planted failures (an element over tolerance, NaN and Inf on either
// side) in bf16 and fp16, and the empty comparison. Every field must be equal, the detail text
// included.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/validation.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/device_compare.hpp"
#include "kernels/common/tensor_utils.hpp"

namespace rooflinectl {
namespace {

uint16_t to_raw(float value, Dtype dtype) {
  if (dtype == Dtype::kBf16) return __nv_bfloat16_raw(__float2bfloat16(value)).x;
  return __half_raw(__float2half(value)).x;
}

void expect_same(const Validation& device, const Validation& host) {
  EXPECT_EQ(device.passed, host.passed);
  EXPECT_EQ(device.checked_elements, host.checked_elements);
  EXPECT_EQ(device.failed_elements, host.failed_elements);
  EXPECT_EQ(device.non_finite_elements, host.non_finite_elements);
  EXPECT_EQ(device.max_abs_error, host.max_abs_error);
  EXPECT_EQ(device.worst_ratio, host.worst_ratio);
  EXPECT_EQ(device.detail, host.detail);
  EXPECT_EQ(device.reference, host.reference);
}

/// Runs both comparisons on `out_values` (rounded to `dtype`) against `ref_values` (fp32).
void compare_both(const std::vector<float>& out_values, const std::vector<float>& ref_values,
                  Dtype dtype) {
  const auto count = static_cast<int64_t>(out_values.size());
  std::vector<uint16_t> raw(out_values.size());
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = to_raw(out_values[i], dtype);
  DeviceBuffer<uint16_t> out(count);
  DeviceBuffer<float> ref(count);
  ASSERT_EQ(cudaMemcpy(out.get(), raw.data(), raw.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(ref.get(), ref_values.data(), ref_values.size() * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  const Tolerance tol = default_tolerance(dtype);
  const std::vector<double> host_out = download_as_double(out.get(), count, dtype);
  const std::vector<double> host_ref(ref_values.begin(), ref_values.end());
  expect_same(compare_on_device(out.get(), dtype, ref.get(), count, tol, "cublas"),
              compare_arrays(host_out.data(), host_ref.data(), count, tol, "cublas"));
}

std::vector<float> ramp(int64_t count) {
  std::vector<float> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) values[i] = std::sin(0.001f * static_cast<float>(i)) * 3.0f;
  return values;
}

TEST(DeviceCompare, PassingDataGivesTheHostResult) {
  for (const Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
    const std::vector<float> ref = ramp(1 << 20);
    compare_both(ref, ref, dtype);  // only the rounding to the dtype differs
  }
}

TEST(DeviceCompare, PlantedFailuresGiveTheHostCountsMaximaAndFirstIndex) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (const Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
    const std::vector<float> ref = ramp((1 << 20) + 37);
    std::vector<float> out = ref;
    out[700001] += 0.5f;  // over tolerance, but not the first failure
    out[300000] = nan;
    std::vector<float> ref_bad = ref;
    ref_bad[123457] = inf;  // the first failure: non-finite reference
    out[999999] -= 0.25f;
    compare_both(out, ref_bad, dtype);
    std::vector<float> only_over = ref;
    only_over[5] += 1.0f;  // first failure over tolerance: the other detail format
    only_over[(1 << 20) + 36] += 2.0f;
    compare_both(only_over, ref, dtype);
  }
}

TEST(DeviceCompare, EmptyComparisonFailsWithTheHostDetail) {
  DeviceBuffer<uint16_t> out(1);
  DeviceBuffer<float> ref(1);
  const Tolerance tol = default_tolerance(Dtype::kBf16);
  expect_same(compare_on_device(out.get(), Dtype::kBf16, ref.get(), 0, tol, ""),
              compare_arrays(nullptr, nullptr, 0, tol, ""));
}

}  // namespace
}  // namespace rooflinectl
