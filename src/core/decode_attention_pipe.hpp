// Which pipe decode attention's FLOPs run on at a shape, for the sweep's placement
// (kernels/decode_attention.cu's OperatorSpec::pipe) and the layer model (src/model) alike.
#pragma once

#include "core/kernel_tiles.hpp"
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

}  // namespace rooflinectl
