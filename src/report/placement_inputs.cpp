#include "report/placement_inputs.hpp"

namespace rooflinectl {

std::optional<PlacementInputs> expected_placement_inputs(const PointResult& point,
                                                         const std::string& basis,
                                                         std::string& why_not) {
  PlacementInputs inputs;
  inputs.basis = basis;
  if (basis == "counters") {
    const std::optional<double> flop = point.counters.total.total_flop();
    const std::optional<double> bytes = point.counters.total.dram_bytes();
    if (!flop || !bytes || !(*flop > 0) || !(*bytes > 0)) {
      why_not = "counted FLOPs or DRAM bytes missing or zero";
      return std::nullopt;
    }
    inputs.flop = *flop;
    inputs.dram_bytes = *bytes;
    inputs.source = "counters.total (tensor + fp32 + fp16 FLOPs; DRAM read + write bytes)";
    return inputs;
  }
  if (basis == "analytic") {
    if (!(point.analytic.flop > 0) || !(point.analytic.implemented_dram_bytes > 0)) {
      why_not = "analytic FLOPs or implemented DRAM bytes missing or zero";
      return std::nullopt;
    }
    inputs.flop = point.analytic.flop;
    inputs.dram_bytes = point.analytic.implemented_dram_bytes;
    inputs.source = "analytic (flop; implemented_dram_bytes)";
    return inputs;
  }
  why_not = "unknown roofline basis '" + basis + "' (allowed: counters, analytic)";
  return std::nullopt;
}

}  // namespace rooflinectl
