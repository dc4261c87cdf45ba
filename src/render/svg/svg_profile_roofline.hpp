// The roofline chart of a profile report (`rooflinectl profile`): the program's kernels under
// the device's roofs, as a self-contained SVG document.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profile/profile_report.hpp"

namespace rooflinectl {

/// The roofs a profile chart draws, from the report's peaks block (the source it used): bf16
/// tensor FLOP/s, DRAM bytes/s and, when that source has one, L2 bytes/s. A ceiling the source
/// lacks is the median of the placed kernels' own roofs instead (a counter-derived roof differs
/// per launch, with the clock measured in it); `source` says which.
struct ProfileChartRoofs {
  std::optional<double> tensor_flop_per_s;
  /// The fp32 (SIMT) roof: only when a kernel is placed on it (profile --mode full), from the
  /// same source, else the median of those kernels' own fp32 roofs.
  std::optional<double> fp32_flop_per_s;
  std::optional<double> dram_bytes_per_s;
  std::optional<double> l2_bytes_per_s;
  /// In words, e.g. "datasheet (the report's peaks)"; "none" when there is no roof at all.
  std::string source;
  /// Why there is no L2 roof (the source's own reason); empty when there is one.
  std::string l2_null_reason;
};

/// The roofs of `report` (see ProfileChartRoofs). Pure.
ProfileChartRoofs profile_chart_roofs(const ProfileReport& report);

/// True when `kernel` has a placement to draw: a roofline with finite intensity and achieved
/// FLOP/s > 0 (FLOPs and DRAM bytes were counted).
bool has_placement(const KernelSummary& kernel);

/// A kernel name short enough to label a marker: a leading "void ", "(anonymous namespace)::" and
/// everything from the first '<' or '(' dropped, then the last "::" component; at most `max_chars`
/// code points, cut with "…". "void at::native::vectorized_elementwise_kernel<8, ...>(...)" →
/// "vectorized_elementwise_kernel".
std::string short_kernel_name(const std::string& name, size_t max_chars = 32);

/// One line per kernel of `report` without a placement, in report order (longest total time
/// first): "#<rank>  <share>  <TB/s> TB/s  <name>: <verdict>", with the in-window DRAM
/// bandwidth (in_window_dram_bytes_per_s, "-" when not counted); rank counts every kernel, as the
/// table's rows. Pure.
std::vector<std::string> unplaced_kernel_lines(const ProfileReport& report);

/// Log-log roofline chart (SVG 1.1 text) of `report`'s kernel aggregates: x = FLOP per DRAM byte,
/// y = TFLOP/s; the DRAM slope (class "roof-hbm"), the L2 slope when the roofs have one (class
/// "roof-l2", dashed), the bf16 tensor roof (class "roof", data-pipe "tensor") and its ridge
/// (class "ridge"); one circle per placed kernel (class "kernel", data-rank, data-share,
/// data-name) whose area is proportional to its share of GPU time (radius at least 2.5 px),
/// largest drawn first, a red ring (class "above-roof") when above its roof, labelled with
/// "#rank short name" where a free place is left, else "#rank"; a title naming the GPU and the
/// program, a subtitle naming the bytes and FLOP bases and the roofs' source; below the chart the
/// placed kernels (class "placed-kernel") and the unplaced ones (class "unplaced-kernel",
/// unplaced_kernel_lines) as text, at most 30 lines each. Deterministic; does not throw.
std::string profile_roofline_svg(const ProfileReport& report);

}  // namespace rooflinectl
