// The fp32 activation functions of the element-wise kernels, defined once: GELU in its two forms
// (kernels/gelu.cu; the GELU of geglu in kernels/gated_activation.cu) and SiLU (swiglu). Each
// costs few issue slots per element, built on the MUFU ex2.approx.ftz and rcp.approx.ftz
// instructions (kernels/common/fast_math.hpp):
//   GELU erf:  Φ from Abramowitz & Stegun 7.1.26, 15 instructions;
//   GELU tanh: 0.5·(1 + tanh(u)) = 1/(1 + e^(−2u)), 7 instructions;
//   SiLU:      x·σ(x) = x / (1 + e^(−x)), 4 instructions.
// Accuracy is stated at each function. Device code: include from .cu files only.
#pragma once

#include "core/shape.hpp"
#include "kernels/common/fast_math.hpp"

namespace rooflinectl {
namespace activation_constants {

inline constexpr double kLog2e = 1.44269504088896340736;
inline constexpr double kInvSqrt2 = 0.70710678118654752440;
inline constexpr double kSqrt2OverPi = 0.79788456080286535588;
/// The cubic coefficient of the tanh form (Hendrycks & Gimpel 2016, §2).
inline constexpr double kGeluCubic = 0.044715;
// Abramowitz & Stegun, Handbook of Mathematical Functions (1964), 7.1.26 (after Hastings):
// erf(a) = 1 − t·(a1 + t·(a2 + t·(a3 + t·(a4 + t·a5))))·e^(−a²) + ε, t = 1/(1 + p·a), a ≥ 0,
// |ε| ≤ 1.5e-7. With a = |x|/√2: 1 − Φ(|x|) = Φ(−|x|) = 0.5·erfc(a), so 0.5 and 1/√2 fold into
// the constants of gelu() below.
inline constexpr double kAsP = 0.3275911;
inline constexpr double kAsA1 = 0.254829592;
inline constexpr double kAsA2 = -0.284496736;
inline constexpr double kAsA3 = 1.421413741;
inline constexpr double kAsA4 = -1.453152027;
inline constexpr double kAsA5 = 1.061405429;

}  // namespace activation_constants

/// GELU of `x` in the form kForm (Hendrycks & Gimpel 2016, "Gaussian Error Linear Units", §2):
/// erf 0.5·x·(1 + erf(x/√2)) = x·Φ(x), tanh 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
/// Accuracy of the fp32 math, before rounding to a 16-bit output (checked in float64 against
/// std::erf over x in [−10, 10]): erf form, A&S 7.1.26 has |error of erf| ≤ 1.5e-7, so Φ(x) is
/// within 7.5e-8 and gelu within 2.2e-7 absolute everywhere, relative ≤ 4.7e-4 for x ≥ −4 (the
/// tail x·Φ(x) → 0 keeps only the absolute bound, like 1 + erff(x/√2) in fp32, whose absolute error
/// is ~6e-8 there); tanh form, the sigmoid identity is exact and the two approximate MUFU results
/// add a relative error of ~3e-7. Both far inside the bf16/fp16 validation tolerances.
template <GeluForm kForm>
__device__ __forceinline__ float gelu(float x) {
  using namespace activation_constants;
  if constexpr (kForm == GeluForm::kErf) {
    // tail = Φ(−|x|) = 0.5·t·poly(t)·e^(−x²/2); gelu = x·(1 − tail) for x ≥ 0, x·tail below.
    const float t = rcp_approx(fmaf(static_cast<float>(kAsP * kInvSqrt2), fabsf(x), 1.0f));
    float poly = static_cast<float>(0.5 * kAsA5);
    poly = fmaf(poly, t, static_cast<float>(0.5 * kAsA4));
    poly = fmaf(poly, t, static_cast<float>(0.5 * kAsA3));
    poly = fmaf(poly, t, static_cast<float>(0.5 * kAsA2));
    poly = fmaf(poly, t, static_cast<float>(0.5 * kAsA1));
    const float gauss = ex2_approx(x * (x * static_cast<float>(-0.5 * kLog2e)));
    const float x_tail = x * (poly * t * gauss);
    return x >= 0.0f ? x - x_tail : x_tail;
  } else {
    // 0.5·(1 + tanh(u)) = 1/(1 + e^(−2u)), −2u·log2(e) = x·(c1 + c3·x²).
    constexpr double kC1 = -2.0 * kLog2e * kSqrt2OverPi;
    const float exponent =
        x * fmaf(static_cast<float>(kC1 * kGeluCubic), x * x, static_cast<float>(kC1));
    return x * rcp_approx(1.0f + ex2_approx(exponent));
  }
}

/// SiLU (swish with β = 1; Elfwing et al. 2018, "Sigmoid-Weighted Linear Units", eq. 3;
/// Ramachandran et al. 2017): x·σ(x) = x / (1 + e^(−x)), as x·rcp(1 + 2^(−x·log2 e)). The two
/// approximate MUFU results add a relative error of ~3e-7. Below x ≈ −87.3 the reciprocal of 1 +
/// e^(−x) is subnormal (below −88.7 e^(−x) overflows to +inf) and flushes to zero, so the result is
/// −0 where the exact value is below 1.1e-36 in magnitude.
__device__ __forceinline__ float silu(float x) {
  using activation_constants::kLog2e;
  return x * rcp_approx(1.0f + ex2_approx(x * static_cast<float>(-kLog2e)));
}

}  // namespace rooflinectl
