#include "result/peak_set.hpp"

namespace rooflinectl {

std::string ceiling_key(CeilingKind kind) {
  switch (kind) {
    case CeilingKind::kDram:
      return "dram_bytes_per_s";
    case CeilingKind::kL2:
      return "l2_bytes_per_s";
    case CeilingKind::kFp32:
      return "fp32_flop_per_s";
    case CeilingKind::kTensorBf16:
      return "tensor_bf16_flop_per_s";
    case CeilingKind::kTensorFp16:
      return "tensor_fp16_flop_per_s";
    case CeilingKind::kTensorFp8:
      return "tensor_fp8_flop_per_s";
  }
  return "unknown";
}

std::string ceiling_label(CeilingKind kind) {
  switch (kind) {
    case CeilingKind::kDram:
      return "DRAM";
    case CeilingKind::kL2:
      return "L2";
    case CeilingKind::kFp32:
      return "fp32";
    case CeilingKind::kTensorBf16:
      return "tensor bf16";
    case CeilingKind::kTensorFp16:
      return "tensor fp16";
    case CeilingKind::kTensorFp8:
      return "tensor fp8";
  }
  return "unknown";
}

bool is_bandwidth(CeilingKind kind) {
  return kind == CeilingKind::kDram || kind == CeilingKind::kL2;
}

const Ceiling& PeakSet::get(CeilingKind kind) const {
  switch (kind) {
    case CeilingKind::kDram:
      return dram;
    case CeilingKind::kL2:
      return l2;
    case CeilingKind::kFp32:
      return fp32;
    case CeilingKind::kTensorBf16:
      return tensor_bf16;
    case CeilingKind::kTensorFp16:
      return tensor_fp16;
    case CeilingKind::kTensorFp8:
      return tensor_fp8;
  }
  return dram;  // unreachable: every enumerator is handled above
}

Ceiling& PeakSet::get(CeilingKind kind) {
  return const_cast<Ceiling&>(static_cast<const PeakSet&>(*this).get(kind));
}

PeakSet unavailable_peak_set(RoofSource source, const std::string& reason) {
  PeakSet set;
  set.source = source;
  set.null_reason = reason;
  for (const CeilingKind kind : kAllCeilingKinds) set.get(kind) = Ceiling{std::nullopt, reason};
  return set;
}

std::optional<double> ridge_flop_per_byte(const PeakSet& set, CeilingKind compute) {
  const Ceiling& flop = set.get(compute);
  if (is_bandwidth(compute) || !flop.value || !set.dram.value) return std::nullopt;
  if (!(*flop.value > 0) || !(*set.dram.value > 0)) return std::nullopt;
  return *flop.value / *set.dram.value;
}

}  // namespace rooflinectl
