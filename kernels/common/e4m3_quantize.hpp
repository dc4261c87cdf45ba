// FP8 E4M3 quantization of 16-bit device tensors with one fp32 scale per group of rows: decode
// attention's FP8 KV cache (one scale per KV head) and the FP8 GEMM's X and W (one scale per
// tensor). Not timed: the operators quantize their random inputs once, before validation.
#pragma once

#include <cstdint>

namespace rooflinectl {

/// Quantizes the contiguous 16-bit tensor `x` (T = __nv_bfloat16 or __half), seen as `rows` rows
/// of `row_elems` elements where row r belongs to group r % `groups`, to E4M3 in `out` (same
/// layout, one byte per element): out = saturate(x / scale(group)), round to nearest even,
/// ±448 for anything larger (cuda_fp8.h's __nv_cvt_float_to_fp8 with __NV_SATFINITE), where
/// scale(group) = amax(group) / 448 (the group's largest |x| maps to E4M3's largest finite value;
/// 1 for an all-zero group) is stored in `scales` [groups] (fp32, device). So x ≈ scale · out.
/// Examples: decode's KV cache [B, H_kv, L, d] is rows = B·H_kv of L·d with groups = H_kv (vLLM's
/// per-KV-head k_scale and v_scale, documentation "Quantized KV Cache"); a GEMM operand is one row
/// of M·K elements, groups = 1 (per-tensor scaling, as torch._scaled_mm's scale_a and scale_b).
/// Synchronous on the default stream; throws a CUDA Error on a launch failure.
template <class T>
void quantize_e4m3_grouped(const T* x, int64_t rows, int64_t row_elems, int64_t groups,
                           uint8_t* out, float* scales);

/// Widens `count` E4M3 bytes of `in` (device) to T (__nv_bfloat16 or __half, device) without a
/// scale: every finite E4M3 value is exact in both (3 mantissa bits; exponents 2^-9..2^8), so a
/// 16-bit GEMM over the results with alpha = scale_x·scale_w computes the same exact products as
/// an FP8 GEMM. Asynchronous on the default stream; throws a CUDA Error on a launch failure.
template <class T>
void widen_e4m3(const uint8_t* in, int64_t count, T* out);

}  // namespace rooflinectl
