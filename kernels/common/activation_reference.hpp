// CPU float64 references of the activation functions, for the validation of the element-wise
// kernels (kernels/gelu.cu, kernels/gated_activation.cu) and the GPU tests. Written from the
// papers' formulas with the standard library's erf, tanh and exp; they share nothing with the
// kernels' fp32 approximations (kernels/common/activation_math.hpp). Host code.
#pragma once

#include <cmath>

#include "core/shape.hpp"

namespace rooflinectl {

/// GELU of `x` (Hendrycks & Gimpel 2016, "Gaussian Error Linear Units", §2): erf form
/// 0.5·x·(1 + erf(x/√2)), tanh form 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
inline double gelu_reference(double x, GeluForm form) {
  if (form == GeluForm::kErf) return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  const double pi = std::acos(-1.0);
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
}

/// SiLU of `x` (Elfwing et al. 2018, "Sigmoid-Weighted Linear Units", eq. 3): x / (1 + e^(−x)).
inline double silu_reference(double x) { return x / (1.0 + std::exp(-x)); }

}  // namespace rooflinectl
