// Packing two fp32 values into one 32-bit register of 16-bit elements (a bf16x2 or f16x2 pair),
// the operand layout of mma.sync/wgmma fragments and of 4-byte stores. Device code: include from
// .cu files only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace rooflinectl {

/// Rounds `lo` and `hi` to T (__nv_bfloat16 or __half, round to nearest even) and packs them,
/// `lo` in the low 16 bits (the lower column of an MMA fragment, the lower address in memory).
template <class T>
__device__ __forceinline__ uint32_t pack_pair(float lo, float hi) {
  static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>,
                "pack_pair: T must be __nv_bfloat16 or __half");
  uint32_t bits;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
    memcpy(&bits, &pair, sizeof(bits));
  } else {
    const __half2 pair = __floats2half2_rn(lo, hi);
    memcpy(&bits, &pair, sizeof(bits));
  }
  return bits;
}

}  // namespace rooflinectl
