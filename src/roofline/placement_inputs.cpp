#include "roofline/placement_inputs.hpp"

namespace rooflinectl {

PlacementInputs placement_inputs(const PointResult& point) {
  PlacementInputs in;
  if (!point.counters.null_reason) {
    in.basis = "counters";
    const auto flop = point.counters.total.total_flop();
    const auto isolated = point.counters.dram_bytes_isolated();
    const auto bytes = isolated ? isolated : point.counters.total.dram_bytes();
    in.bytes_basis = isolated ? kBytesIsolated : kBytesInWindow;
    if (!flop || !bytes || *flop <= 0 || *bytes <= 0) {
      in.null_reason = "counted FLOPs or DRAM bytes missing or zero";
      return in;
    }
    in.flop = flop;
    in.dram_bytes = bytes;
    return in;
  }
  in.basis = "analytic";
  in.bytes_basis = kBytesAnalytic;
  if (!(point.analytic.flop > 0) || !(point.analytic.implemented_dram_bytes > 0)) {
    in.null_reason = "no counters (" + *point.counters.null_reason +
                     ") and no analytic FLOPs and DRAM bytes for this point";
    return in;
  }
  in.flop = point.analytic.flop;
  in.dram_bytes = point.analytic.implemented_dram_bytes;
  return in;
}

}  // namespace rooflinectl
