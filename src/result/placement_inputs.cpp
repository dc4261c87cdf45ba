#include "result/placement_inputs.hpp"

#include "core/operator_names.hpp"

namespace rooflinectl {

const char* analytic_bytes_basis(const std::string& op) {
  return op == kNaiveAttentionOp ? kBytesAnalytic : kBytesAnalyticMin;
}

std::optional<PlacementFigures> expected_placement_inputs(const PointResult& point,
                                                          const std::string& basis,
                                                          const std::string& bytes_basis,
                                                          std::string& why_not) {
  PlacementFigures figures;
  if (basis == "counters") {
    std::optional<double> bytes;
    if (bytes_basis == kBytesIsolated) {
      bytes = point.counters.dram_bytes_isolated();
      figures.dram_bytes_in_window = point.counters.total.dram_bytes();
      figures.source = "counters (all FLOPs; DRAM read + in-window write + write-back)";
    } else if (bytes_basis == kBytesInWindow || bytes_basis.empty()) {
      bytes = point.counters.total.dram_bytes();
      figures.source = "counters.total (all FLOPs; DRAM read + in-window write)";
    } else {
      why_not = "bytes_basis '" + bytes_basis + "' does not go with basis counters";
      return std::nullopt;
    }
    const std::optional<double> flop = point.counters.total.total_flop();
    if (!flop || !bytes || !(*flop > 0) || !(*bytes > 0)) {
      why_not = "counted FLOPs or DRAM bytes missing or zero";
      return std::nullopt;
    }
    figures.flop = *flop;
    figures.dram_bytes = *bytes;
    return figures;
  }
  if (basis == "analytic") {
    const bool minimum = bytes_basis == kBytesAnalyticMin;
    if (!bytes_basis.empty() && bytes_basis != kBytesAnalytic && !minimum) {
      why_not = "bytes_basis '" + bytes_basis + "' does not go with basis analytic";
      return std::nullopt;
    }
    const double bytes =
        minimum ? point.analytic.min_dram_bytes : point.analytic.implemented_dram_bytes;
    if (!(point.analytic.flop > 0) || !(bytes > 0)) {
      why_not = std::string("analytic FLOPs or ") + (minimum ? "minimum" : "implemented") +
                " DRAM bytes missing or zero";
      return std::nullopt;
    }
    figures.flop = point.analytic.flop;
    figures.dram_bytes = bytes;
    figures.source =
        minimum ? "analytic (flop; min_dram_bytes)" : "analytic (flop; implemented_dram_bytes)";
    return figures;
  }
  why_not = "unknown roofline basis '" + basis + "' (allowed: counters, analytic)";
  return std::nullopt;
}

L2Bytes placement_l2_bytes(const PointResult& point, const std::string& basis) {
  if (basis != "counters") {
    return L2Bytes{std::nullopt, "analytic placement: L2 bytes are only counted, never modelled"};
  }
  const std::optional<double>& bytes = point.counters.total.l2_bytes;
  if (!bytes) return L2Bytes{std::nullopt, "L2 bytes (lts__t_bytes.sum) not measured"};
  if (!(*bytes > 0)) return L2Bytes{std::nullopt, "counted L2 bytes (lts__t_bytes.sum) are zero"};
  return L2Bytes{bytes, ""};
}

PlacementInputs placement_inputs(const PointResult& point) {
  PlacementInputs in;
  const bool counted = !point.counters.null_reason;
  in.basis = counted ? "counters" : "analytic";
  in.bytes_basis = !counted                               ? analytic_bytes_basis(point.op)
                   : point.counters.dram_bytes_isolated() ? kBytesIsolated
                                                          : kBytesInWindow;
  in.l2 = placement_l2_bytes(point, in.basis);
  std::string why_not;
  const auto figures = expected_placement_inputs(point, in.basis, in.bytes_basis, why_not);
  if (!figures) {
    in.null_reason =
        counted ? why_not : "no counters (" + *point.counters.null_reason + ") and " + why_not;
    return in;
  }
  in.flop = figures->flop;
  in.dram_bytes = figures->dram_bytes;
  in.dram_bytes_in_window = figures->dram_bytes_in_window;
  return in;
}

}  // namespace rooflinectl
