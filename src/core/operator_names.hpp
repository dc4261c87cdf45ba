// The operator names rooflinectl knows, each defined once: all nine in their fixed order, and the
// six the sweep runs when no --ops or config names any. Header-only so that host code without the
// kernels (report reading, configs, charts) and the kernels' own registrations (kernels/*.cu)
// share them.
#pragma once

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace rooflinectl {

inline constexpr const char* kNaiveAttentionOp = "naive_attention";
inline constexpr const char* kFlashAttentionOp = "flash_attention";
inline constexpr const char* kGemmOp = "gemm";
inline constexpr const char* kGeluOp = "gelu";
inline constexpr const char* kLayernormOp = "layernorm";
inline constexpr const char* kDecodeAttentionOp = "decode_attention";
inline constexpr const char* kRmsnormOp = "rmsnorm";
inline constexpr const char* kSwigluOp = "swiglu";
inline constexpr const char* kGegluOp = "geglu";

/// Every operator name: kernels/registry.cpp registers them in this order, and the charts give
/// each its colour and marker by its index here. The three of real model presets' layers
/// (rmsnorm, swiglu, geglu) come last, so the six older operators keep their index.
inline constexpr std::array<const char*, 9> kOperatorNames = {
    kNaiveAttentionOp,  kFlashAttentionOp, kGemmOp,   kGeluOp, kLayernormOp,
    kDecodeAttentionOp, kRmsnormOp,        kSwigluOp, kGegluOp};

/// The operators a sweep (and `model`) runs when neither --ops nor a config's "ops" names any, in
/// run order: the first six of kOperatorNames, as configs/default.json lists them. rmsnorm,
/// swiglu and geglu run when named, so the default sweep keeps its 42 points (6 operators × 7
/// lengths) that CI baselines and the docs count.
inline constexpr std::array<const char*, 6> kDefaultSweepOperatorNames = {
    kNaiveAttentionOp, kFlashAttentionOp, kGemmOp, kGeluOp, kLayernormOp, kDecodeAttentionOp};

/// kOperatorNames as strings.
inline const std::vector<std::string>& operator_names() {
  static const std::vector<std::string> names(kOperatorNames.begin(), kOperatorNames.end());
  return names;
}

/// kDefaultSweepOperatorNames as strings.
inline const std::vector<std::string>& default_sweep_operator_names() {
  static const std::vector<std::string> names(kDefaultSweepOperatorNames.begin(),
                                              kDefaultSweepOperatorNames.end());
  return names;
}

/// Whether `text` is one of kOperatorNames.
inline bool is_operator_name(std::string_view text) {
  for (const char* name : kOperatorNames) {
    if (text == name) return true;
  }
  return false;
}

/// Returns `text` when it is one of operator_names(); throws a bad-input Error naming the token and
/// the allowed names otherwise (case-sensitive: "GEMM" is refused).
inline std::string parse_operator_name(std::string_view text) {
  std::string allowed;
  for (const auto& name : operator_names()) {
    if (text == name) return name;
    allowed += (allowed.empty() ? "" : ", ") + name;
  }
  throw bad_input(fmt::format("invalid operator '{}': allowed {}", text, allowed));
}

}  // namespace rooflinectl
