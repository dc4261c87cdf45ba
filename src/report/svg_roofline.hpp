// The roofline chart of a sweep report, as a self-contained SVG document.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/result.hpp"

namespace rooflinectl {

/// The roofs a chart draws: one compute roof per pipe that has placed points and one DRAM roof,
/// each the median over the placed points' own roofs (per-point roofs differ slightly because they
/// use the clock measured during each kernel). FLOP/s and bytes/s.
struct ChartRoofs {
  std::optional<double> tensor_flop_per_s;
  std::optional<double> fp32_flop_per_s;
  std::optional<double> dram_bytes_per_s;
  /// The distinct roof source kinds (roof.source_kind) in words, joined with "; ": "measured
  /// benchmarks", "datasheet (configs/gpus)", "counters peak_sustained ×
  /// clock measured per kernel". Empty when no point is placed.
  std::string kinds;
};

/// Medians of the placed points' roofs (see ChartRoofs). Pure.
ChartRoofs chart_roofs(const Report& report);

/// Points of `report` left out of the charts because they have no roofline placement, one line
/// each: "<op> L=<L>: <reason>". Pure.
std::vector<std::string> points_without_roofline(const Report& report);

/// Log-log roofline chart (SVG 1.1 text): x = arithmetic intensity (FLOP/byte of DRAM traffic),
/// y = performance (TFLOP/s), decade ticks labelled, faint minor grid; the HBM slope
/// (class "roof-hbm"), one flat roof per pipe (class "roof", data-pipe tensor|fp32) from the
/// ridge point (class "ridge") to the right edge, each labelled with its value; one marker per
/// placed point (class "point", data-op, data-seq-len), shape and colour by operator, lighter for
/// shorter L, joined in L order, the shortest and longest L of each operator labelled without
/// overlap; a legend; a title naming the GPU and the roofs' source; a note listing points left
/// out. Deterministic; does not throw for any Report.
std::string roofline_svg(const Report& report);

}  // namespace rooflinectl
