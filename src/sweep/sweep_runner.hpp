// The measurement loop of `rooflinectl sweep`: plan → per point (memory pre-check, allocate,
// fill, validate, time, count, place on the roofline) → Report.
#pragma once

#include <iosfwd>
#include <optional>
#include <vector>

#include "core/sweep_config.hpp"
#include "core/sweep_plan.hpp"
#include "result/report.hpp"
#include "roofline/roof_source.hpp"

namespace rooflinectl {

/// Checks everything about `config` that needs no GPU: operator names, the kernel versions asked
/// for (operators and keys the operators declare), and every point's shape against its operator
/// (head_dim support, GQA divisibility, ...). Throws a bad-input Error.
void check_sweep_plan(const SweepConfig& config);

/// Runs the sweep on `config.device`. Progress lines go to `progress` (stderr), one notice line
/// there if counters cannot be read. Points that do not fit in device memory are skipped and
/// points whose kernel fails validation or raises a CUDA error are failed; the sweep goes on.
/// Once SIGINT/SIGTERM is pending (src/core/interrupt.hpp) the points not yet run are marked
/// interrupted instead of measured. Throws an environment Error (exit 3) when there is no GPU,
/// or when config.require_counters is set and counters cannot be read (before the first point).
/// `roof` is --roof (nullopt: measured when cached, else datasheet; see prepare_sweep_roofs); the
/// report's "peaks" block carries all three sources and every point's roof names the one used.
/// The report's config names the version key asked of every operator in `config.ops` (the
/// --kernel request, else the operator's default); each point's `version` is the one that ran.
Report run_sweep(const SweepConfig& config, std::ostream& progress,
                 const std::optional<RoofSource>& roof = std::nullopt);

/// Runs the points of `plan` instead of config's product, each exactly as run_sweep runs a sweep
/// point (memory pre-check, validation, timing, counters, placement), in plan order: for callers
/// whose points are not a product of axes (`layer`: one point per operator of a transformer
/// layer, each gemm at its own N and K). Every point's index must be its 1-based position in
/// `plan` and its dtype the same as its neighbours' (dtype groups are counted by one engine each);
/// config supplies the device, the timing, noise and counter options and the --kernel requests,
/// and config.ops must name every operator of `plan` (the report's config.kernels records their
/// versions). The report's config is `config` as given, so its seq and axes do not describe the
/// points: such a report is the caller's material, not a sweep report to write. Checks the kernel
/// requests and every point's shape against its operator first (a bad-input Error naming the
/// point's label); throws as run_sweep otherwise.
Report run_planned_points(const SweepConfig& config, const std::vector<PlannedPoint>& plan,
                          std::ostream& progress,
                          const std::optional<RoofSource>& roof = std::nullopt);

}  // namespace rooflinectl
