// The measurement loop of `rooflinectl sweep`: plan → per point (memory pre-check, allocate,
// fill, validate, time, count, place on the roofline) → Report.
#pragma once

#include <iosfwd>
#include <optional>

#include "core/sweep_config.hpp"
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

}  // namespace rooflinectl
