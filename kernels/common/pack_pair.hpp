// The kernels' conversions between fp32 and 16-bit elements (__nv_bfloat16 or __half) in pairs
// (a bf16x2 or f16x2 in one 32-bit register, the operand layout of mma.sync/wgmma fragments and
// of 4-byte stores) and in 16-byte vectors of kElemsPerVec elements (the loads and stores of the
// memory-bound kernels), defined once. Paired conversions are one instruction each. Device code:
// include from .cu files only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace rooflinectl {

/// 16-bit elements in one 16-byte vector (uint4).
inline constexpr int kElemsPerVec = 8;

/// A pair of T: Type is its two-element vector (__nv_bfloat162, __half2); to_float2 widens one,
/// from_float2 rounds a float2 to one (round to nearest even).
template <class T>
struct Pair16;
template <>
struct Pair16<__nv_bfloat16> {
  using Type = __nv_bfloat162;
  static __device__ __forceinline__ float2 to_float2(Type v) { return __bfloat1622float2(v); }
  static __device__ __forceinline__ Type from_float2(float2 f) { return __float22bfloat162_rn(f); }
};
template <>
struct Pair16<__half> {
  using Type = __half2;
  static __device__ __forceinline__ float2 to_float2(Type v) { return __half22float2(v); }
  static __device__ __forceinline__ Type from_float2(float2 f) { return __float22half2_rn(f); }
};

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

/// The two T in `bits` (as pack_pair lays them out), widened: x from the low 16 bits.
template <class T>
__device__ __forceinline__ float2 unpack_pair(uint32_t bits) {
  typename Pair16<T>::Type pair;
  memcpy(&pair, &bits, sizeof(pair));
  return Pair16<T>::to_float2(pair);
}

/// How unpack8 widens bf16. kPlain: the conversion intrinsic, which the compiler may merge with an
/// identical one and move. kOpaque: a volatile shift and mask (a bf16 is the top half of an fp32)
/// that it may not, so that a kernel converting the same packed registers in several passes keeps
/// them packed in between instead of holding the floats (kernels/layernorm.cu: one row in 32
/// packed registers rather than 64 floats, which spilled at 1024 threads and 64 registers).
/// fp16 always uses the intrinsic.
enum class Widen { kPlain, kOpaque };

/// One pair of T widened as `kWiden` says (the element step of unpack8).
template <class T, Widen kWiden>
__device__ __forceinline__ float2 widen_pair(typename Pair16<T>::Type v) {
  if constexpr (kWiden == Widen::kOpaque && std::is_same_v<T, __nv_bfloat16>) {
    const unsigned bits = *reinterpret_cast<const unsigned*>(&v);
    float2 f;
    asm volatile("{ shl.b32 %0, %2, 16;\n and.b32 %1, %2, 0xffff0000; }"
                 : "=f"(f.x), "=f"(f.y)
                 : "r"(bits));
    return f;
  } else {
    return Pair16<T>::to_float2(v);
  }
}

/// Widens the kElemsPerVec elements of T in the 16-byte vector `v`, in memory order.
template <class T, Widen kWiden = Widen::kPlain>
__device__ __forceinline__ void unpack8(const uint4& v, float (&f)[kElemsPerVec]) {
  const auto* pairs = reinterpret_cast<const typename Pair16<T>::Type*>(&v);
#pragma unroll
  for (int i = 0; i < kElemsPerVec / 2; ++i) {
    const float2 p = widen_pair<T, kWiden>(pairs[i]);
    f[2 * i] = p.x;
    f[2 * i + 1] = p.y;
  }
}

/// Rounds kElemsPerVec floats to T and packs them, in order, into one 16-byte vector.
template <class T>
__device__ __forceinline__ uint4 pack8(const float (&f)[kElemsPerVec]) {
  uint4 v;
  auto* pairs = reinterpret_cast<typename Pair16<T>::Type*>(&v);
#pragma unroll
  for (int i = 0; i < kElemsPerVec / 2; ++i) {
    pairs[i] = Pair16<T>::from_float2(make_float2(f[2 * i], f[2 * i + 1]));
  }
  return v;
}

}  // namespace rooflinectl
