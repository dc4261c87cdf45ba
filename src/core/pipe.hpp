// The execution pipe whose roof applies to an operator.
#pragma once

#include <string>

namespace rooflinectl {

/// Tensor cores (bf16/fp16 inputs, fp32 accumulation) or the fp32 FMA pipe (CUDA cores).
enum class Pipe { kTensor, kFp32 };

inline std::string to_string(Pipe pipe) { return pipe == Pipe::kTensor ? "tensor" : "fp32"; }

}  // namespace rooflinectl
