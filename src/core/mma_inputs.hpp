// The input types of the tensor-core MMAs a kernel issues: each one is a tensor-pipe counter
// (sm__ops_path_tensor_src_<type>) the counter pass must collect for the kernel's tensor FLOPs.
#pragma once

#include "core/shape.hpp"

namespace rooflinectl {

/// Which MMA input types a kernel feeds the tensor pipe (all false: no tensor-core work).
struct MmaInputs {
  bool bf16 = false;
  bool fp16 = false;
  bool fp8 = false;

  bool any() const { return bf16 || fp16 || fp8; }
  MmaInputs& operator|=(const MmaInputs& other) {
    bf16 = bf16 || other.bf16;
    fp16 = fp16 || other.fp16;
    fp8 = fp8 || other.fp8;
    return *this;
  }
};

/// MMAs on 16-bit inputs of `dtype`.
inline MmaInputs mma_inputs_of(Dtype dtype) {
  MmaInputs in;
  (dtype == Dtype::kFp16 ? in.fp16 : in.bf16) = true;
  return in;
}

/// `inputs` without `dtype`'s own type: what a counter engine of `dtype` must count besides its
/// dtype's tensor pipe.
inline MmaInputs mma_inputs_besides(MmaInputs inputs, Dtype dtype) {
  (dtype == Dtype::kFp16 ? inputs.fp16 : inputs.bf16) = false;
  return inputs;
}

}  // namespace rooflinectl
