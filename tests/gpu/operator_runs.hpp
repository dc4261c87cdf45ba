// How the GPU tests drive an operator the way the sweep harness does (check_shape, create, fill,
// validate) and read its tensors back, shared so that each test file states only its cases.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/kernel_version.hpp"
#include "core/shape.hpp"
#include "core/validation.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {

/// The harness's path up to the timed launches: check_shape (throws a bad-input Error), create
/// the default version, fill_random(seed).
inline std::unique_ptr<OperatorRun> make_filled_run(const std::string& op, const Shape& shape,
                                                    uint64_t seed) {
  const OperatorSpec& spec = find_operator(op);
  spec.check_shape(shape);
  std::unique_ptr<OperatorRun> run = spec.create(shape, kDefaultVersionKey);
  run->fill_random(seed);
  return run;
}

/// make_filled_run, then validate(); expects the operator to declare its device bytes.
inline Validation run_validate(const std::string& op, const Shape& shape, uint64_t seed) {
  EXPECT_GT(find_operator(op).device_bytes(shape), 0);
  return make_filled_run(op, shape, seed)->validate();
}

/// One line for a failed expectation: reference, elements checked and failed, max |err|, worst
/// ratio to the tolerance, detail.
inline std::string validation_summary(const Validation& v) {
  return v.reference + ": checked " + std::to_string(v.checked_elements) + ", failed " +
         std::to_string(v.failed_elements) + ", max |err| " + std::to_string(v.max_abs_error) +
         ", worst ratio " + std::to_string(v.worst_ratio) + " " + v.detail;
}

/// Whether `f` throws an Error with the bad-input exit code.
inline bool throws_bad_input(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.exit_code() == ExitCode::kBadInput;
  }
  return false;
}

/// The tensor `run` calls `name` (OperatorRun::tensors); a test failure and an empty view if none.
inline DeviceTensorView tensor(OperatorRun& run, const std::string& name) {
  for (const DeviceTensorView& t : run.tensors()) {
    if (t.name == name) return t;
  }
  ADD_FAILURE() << "no tensor " << name;
  return {};
}

/// A copy of `t` on the host, its elements read as T (the caller names the element type).
template <class T>
std::vector<T> download(const DeviceTensorView& t) {
  std::vector<T> host(static_cast<size_t>(t.count));
  RFL_CUDA_CHECK(cudaMemcpy(host.data(), t.data, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace rooflinectl
