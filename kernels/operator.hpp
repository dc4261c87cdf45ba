// The interface between the measurement harness (src/sweep, src/measure, src/cupti) and the
// operator kernels. Each kernels/<family>.cu file defines one OperatorSpec and registers it
// explicitly in kernels/registry.cpp. No CUDA types appear here except cudaStream_t.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel_version.hpp"
#include "core/mma_inputs.hpp"
#include "core/operator_names.hpp"
#include "core/pipe.hpp"
#include "core/shape.hpp"
#include "core/validation.hpp"

namespace rooflinectl {

/// One device tensor of a run: 16-bit elements of the point's dtype, contiguous, in the layout
/// Shape documents. Lets tests put hand-made data in (all-equal logits, one-key caches).
struct DeviceTensorView {
  std::string name;  ///< "q", "k", "v", "o"
  void* data = nullptr;
  int64_t count = 0;  ///< elements
};

/// The buffers and launches of one point. Construction allocates device memory (the caller has
/// already checked `OperatorSpec::device_bytes` against free memory); the destructor frees it.
/// Errors from CUDA/cuBLAS calls are thrown as rooflinectl::Error.
class OperatorRun {
 public:
  virtual ~OperatorRun() = default;
  /// Fills every input with fresh random data derived from `seed` (on the GPU).
  virtual void fill_random(uint64_t seed) = 0;
  /// Runs the operator once and compares its output with a reference that shares no code with
  /// the kernel under test: CPU float64 for small shapes, a GPU fp32 reference for large ones.
  virtual Validation validate() = 0;
  /// Enqueues the operator's kernels on `stream` (the work that is timed and profiled).
  virtual void launch(cudaStream_t stream) = 0;
  /// Names of the kernels `launch` enqueues, in launch order (counter ranges are labelled by them).
  virtual std::vector<std::string> kernel_names() const = 0;
  /// Kernel version that ran, e.g. "flash_attention_v2_mma_sync" (reported per point).
  virtual std::string version() const = 0;
  /// The run's inputs and output for tests (attention operators: q, k, v, o); empty by default.
  /// The harness never uses it.
  virtual std::vector<DeviceTensorView> tensors() { return {}; }
};

/// Static description of one operator family.
struct OperatorSpec {
  std::string name;     ///< CLI name: one of kOperatorNames (core/operator_names.hpp)
  std::string summary;  ///< one line for `rooflinectl list`
  /// Pipe whose roof applies to a point of `shape`: the one that executes the FLOPs of the kernel
  /// that runs at that shape (constant_pipe for most operators; decode attention's depends on
  /// the GQA group and the KV dtype).
  std::function<Pipe(const Shape&)> pipe;
  /// When `pipe` depends on the shape, which shapes take which pipe, in words for `list` (empty
  /// when one pipe applies at every shape).
  std::string pipe_rule;
  /// The MMA input types the kernel that runs at `shape` feeds the tensor pipe (none for the
  /// CUDA-core kernels): the counter pass collects each type's tensor-pipe metric, so that a
  /// kernel multiplying in another type than the sweep's dtype (an FP8 GEMM; decode attention
  /// over an FP8 KV cache, fp16 MMAs) has its tensor FLOPs counted.
  std::function<MmaInputs(const Shape&)> mma_inputs;
  /// Throws a bad-input Error (exit 2) when the shape is not supported, naming the value and
  /// the supported set. Called before any allocation.
  std::function<void(const Shape&)> check_shape;
  /// Device bytes the point allocates (inputs, outputs, workspaces), for the memory pre-check.
  std::function<int64_t(const Shape&)> device_bytes;
  /// The kernel versions, in order; `default_version` is the key of the one that runs when none
  /// is asked for.
  std::vector<KernelVersion> versions;
  std::string default_version;
  /// Allocates buffers for `shape` on the current device, for the version `version_key` names
  /// (empty: default_version). A version the device or the shape cannot run gives way to its
  /// fallback (OperatorRun::version() says which runs). Throws a bad-input Error for a key that
  /// is not declared.
  std::function<std::unique_ptr<OperatorRun>(const Shape&, const std::string& version_key)> create;
};

/// An OperatorSpec::pipe that is `pipe` at every shape.
inline std::function<Pipe(const Shape&)> constant_pipe(Pipe pipe) {
  return [pipe](const Shape&) { return pipe; };
}

/// An OperatorSpec::mma_inputs of kernels that multiply on tensor cores in the point's dtype.
inline MmaInputs dtype_mma_inputs(const Shape& shape) { return mma_inputs_of(shape.dtype); }

/// An OperatorSpec::mma_inputs of CUDA-core kernels: no tensor-core work at any shape.
inline MmaInputs no_mma_inputs(const Shape&) { return {}; }

/// All operators, in the fixed order of the design doc.
const std::vector<OperatorSpec>& operator_specs();
/// The spec named `name`; throws a bad-input Error listing the valid names otherwise.
const OperatorSpec& find_operator(const std::string& name);
/// The version of `spec` that `key` names (empty: spec.default_version); throws a bad-input
/// Error listing the declared keys otherwise.
const KernelVersion& find_version(const OperatorSpec& spec, const std::string& key);
/// Checks every request against the operators' declarations: a bad-input Error naming the
/// request and the allowed operators or versions for an unknown one.
void check_kernel_requests(const KernelRequests& requests);

}  // namespace rooflinectl
