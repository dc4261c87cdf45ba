// The gated step of a SwiGLU or GeGLU FFN (kernels/gated_activation.cu): launcher and the width
// it needs, shared by the operator runs (swiglu, geglu) and the GPU tests that call it at widths
// the sweep's shapes never produce (d_ff not a multiple of 8, e.g. 1, 3, 10).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/shape.hpp"

namespace rooflinectl {

/// The activation applied to the gate half: SiLU (swiglu) or GELU in one of its forms (geglu).
enum class GateActivation { kSilu, kGeluErf, kGeluTanh };

/// The activation operator `op` applies: swiglu → kSilu, geglu → the GELU of `form`. Throws a
/// bad-input Error for any other operator name.
GateActivation gate_activation_of(const std::string& op, GeluForm form);

/// d_ff of `shape`: ffn_dim, else 4·d_model (Shape::ffn_width, kernel_layer_widths).
int64_t gated_ffn_width(const Shape& shape);

/// Enqueues y[r, c] = act(x[r, c]) · x[r, d_ff + c] for every row r < rows and column c < d_ff on
/// `stream`: x is the up-projection output [rows, 2·d_ff] with the gate in its first d_ff
/// columns and up in the last d_ff (vLLM's silu_and_mul / gelu_and_mul layout, "x: (num_tokens,
/// 2 * d)", out = act(x[..., :d]) * x[..., d:]), y is [rows, d_ff]; both row-major, `dtype` (bf16
/// or fp16), device memory with 16-byte aligned starts; fp32 math, one rounding at the store. Rows
/// whose d_ff is a multiple of 8 move as 16-byte vectors; other widths element by element (2-byte
/// accesses, the same results). Throws bad-input for rows < 1 or d_ff < 1 and an environment
/// Error if the launch fails. Does not synchronize.
void launch_gated_activation(const void* x, void* y, int64_t rows, int64_t d_ff, GateActivation act,
                             Dtype dtype, cudaStream_t stream);

}  // namespace rooflinectl
