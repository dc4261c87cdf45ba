// The roofs of a sweep: which source the points use and the report's "peaks" block
// carrying all three sources.
#pragma once

#include <iosfwd>
#include <optional>
#include <vector>

#include "peaks/peak_sources.hpp"
#include "result/peak_set.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// Builds the "peaks" block before the points run: the datasheet set from the builtin table
/// (matched by name, compute capability and SM count), the measured set from this GPU's
/// `rooflinectl peaks` cache entry, and the source the points will use (resolve_roof_source with
/// `requested` = --roof, `counters_enabled` = !--no-counters). The counters set is filled by
/// finish_sweep_roofs. Prints one notice line to `progress` when the source falls back or the GPU
/// is not in the table. Throws an environment Error for --roof measured without a cache entry, a
/// bad-input Error for --roof counters with --no-counters.
PeaksBlock prepare_sweep_roofs(const DeviceRecord& device,
                               const std::optional<RoofSource>& requested, bool counters_enabled,
                               std::ostream& progress);

/// Fills `block.counters` from the first point that has counter peaks: per-cycle peaks × the
/// clocks measured during that point's kernels (counter_peak_set). Points measured without
/// counters leave it null with the reason of the first point.
void finish_sweep_roofs(PeaksBlock& block, const std::vector<PointResult>& points,
                        const DeviceRecord& device);

}  // namespace rooflinectl
