// FP8 E4M3 on the host: the value of each of its 256 bit patterns, for the references that read
// decode attention's FP8 KV cache. Plain code, no CUDA.
#pragma once

#include <cstdint>

namespace rooflinectl {

/// Largest finite E4M3 value (bits 0x7e or 0xfe): 1.75 × 2^8.
inline constexpr double kE4m3Max = 448.0;

/// The value of the E4M3 byte `bits`, exactly (OCP "8-bit Floating Point Specification (OFP8)"
/// 2023, E4M3: sign bit 7, exponent bits 6..3 with bias 7, mantissa bits 2..0; exponent 0 is
/// subnormal, 2^-6 × m/8; S.1111.111 is NaN and there are no infinities). Examples: 0x38 → 1.0,
/// 0x7e → 448, 0x08 → 2^-6, 0x01 → 2^-9, 0x80 → -0.0, 0x7f → NaN.
double e4m3_to_double(uint8_t bits);

}  // namespace rooflinectl
