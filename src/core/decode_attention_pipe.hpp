// Which pipe decode attention's FLOPs run on at a shape, for the sweep's placement
// (kernels/decode_attention.cu's OperatorSpec::pipe) and the layer model (src/model) alike, and
// which MMA input types the tensor-core kernel feeds it (OperatorSpec::mma_inputs).
#pragma once

#include "core/kernel_tiles.hpp"
#include "core/mma_inputs.hpp"
#include "core/pipe.hpp"
#include "core/shape.hpp"

namespace rooflinectl {

/// The tensor pipe where the tensor-core kernel runs (GQA, g >= 2, or an FP8 KV cache at any g:
/// decode_block_heads > 1), whose q·k and p·v products are mma.sync work; the fp32 pipe where the
/// CUDA-core kernel runs (g = 1 over a 16-bit cache). A point goes under that pipe's roof: under
/// the fp32 roof the tensor-core kernel's padded products over an FP8 cache (48·d FLOPs per key
/// per 8-head block, 2·d bytes) would sit at 24 FLOP/B, past an H200's fp32 ridge of 14.
inline Pipe decode_attention_pipe(const Shape& s) {
  return decode_block_heads(s.group_size(), s.head_dim, s.kv_dtype == KvDtype::kFp8E4m3) > 1
             ? Pipe::kTensor
             : Pipe::kFp32;
}

/// The MMA inputs at `s`: fp16 over an FP8 KV cache (v5 converts E4M3 to fp16 in registers and
/// multiplies in fp16 at either dtype), the dtype's own under GQA over a 16-bit cache (v3), none
/// where the CUDA-core kernel runs (decode_attention_pipe is kFp32).
inline MmaInputs decode_attention_mma_inputs(const Shape& s) {
  if (decode_attention_pipe(s) == Pipe::kFp32) return {};
  if (s.kv_dtype == KvDtype::kFp8E4m3) return mma_inputs_of(Dtype::kFp16);
  return mma_inputs_of(s.dtype);
}

}  // namespace rooflinectl
