// The roofline chart of a sweep report, as a self-contained SVG document.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "result/report.hpp"

namespace rooflinectl {

/// The roofs a chart draws: one compute roof per pipe that has placed points (the tensor pipe's
/// twice where FP8 GEMM points sit under its fp8 roof) and one DRAM roof, each the median over the
/// placed points' own roofs (per-point roofs differ slightly because they use the clock measured
/// during each kernel). FLOP/s and bytes/s.
struct ChartRoofs {
  /// Of the tensor-pipe points with 16-bit MMA inputs (the sweep's dtype).
  std::optional<double> tensor_flop_per_s;
  /// Of the FP8 GEMM points (--gemm-dtype fp8_e4m3): the fp8 tensor roof.
  std::optional<double> tensor_fp8_flop_per_s;
  std::optional<double> fp32_flop_per_s;
  std::optional<double> dram_bytes_per_s;
  /// The distinct roof source kinds (roof.source_kind) in words, joined with "; ": "measured
  /// benchmarks", "datasheet (configs/gpus)", "counters peak_sustained ×
  /// clock measured per kernel". Empty when no point is placed.
  std::string kinds;
  /// L2 roof, bytes/s: the median over the placed points whose roof has one (roof.l2_bytes_per_s);
  /// std::nullopt when none has.
  std::optional<double> l2_bytes_per_s;
  /// The lowest and highest of those L2 roofs (equal when every point has the same one, as
  /// measured peaks give; counters give each point its own clock's).
  std::optional<double> l2_min_bytes_per_s;
  std::optional<double> l2_max_bytes_per_s;
  /// The distinct source kinds of those L2 roofs (roof.l2_source_kind), "measured", "counters",
  /// joined with ", "; empty when l2_bytes_per_s is null.
  std::string l2_kinds;
};

/// Medians of the placed points' roofs (see ChartRoofs). Pure.
ChartRoofs chart_roofs(const Report& report);

/// Points of `report` left out of the charts because they have no roofline placement, one line
/// each: "<op> L=<L>: <reason>". Pure.
std::vector<std::string> points_without_roofline(const Report& report);

/// Log-log roofline chart (SVG 1.1 text): x = arithmetic intensity (FLOP/byte of DRAM traffic),
/// y = performance (TFLOP/s), decade ticks labelled, faint minor grid; the HBM slope
/// (class "roof-hbm"), one flat roof per pipe (class "roof", data-pipe tensor|tensor-fp8|fp32) from
/// the ridge point (class "ridge") to the right edge, each labelled with its value; one marker per
/// placed point (class "point", data-op, data-seq-len), shape and colour by operator, lighter for
/// shorter L, joined in L order, the shortest and longest L of each operator labelled without
/// overlap; a legend; a title naming the GPU and the roofs' source; a note listing points left
/// out. Hierarchical, as Nsight Compute's roofline (its Profiling Guide, "Roofline Charts"): when
/// a point's roof has an L2 ceiling, the L2 slope (class "roof-l2", dashed, labelled with its
/// value and source kind), the flat roofs then starting at the lower ridge; each point with L2
/// bytes gets a second, hollow marker of its colour (class "point-l2") at its FLOP per L2 byte and
/// the same FLOP/s, joined to its DRAM marker by a thin line (class "l2-link"); the legend says
/// so. Deterministic; does not throw for any Report.
std::string roofline_svg(const Report& report);

}  // namespace rooflinectl
