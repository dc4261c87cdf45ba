// Bencher Metric Format (BMF) export of a report, for dashboards that track results over time
// (bencher.dev/docs/reference/bencher-metric-format). Pure host code.
//
// BMF carries one run's measurements; Bencher keeps the history and applies its own thresholds.
// That is why the export is of a sweep report (`rooflinectl sweep --format bmf`) and not of a
// comparison: exporting compare's verdicts would judge the same change twice.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// One BMF benchmark per point with status ok, named by PointKey::shape_label() (operator,
/// shape, dtype; e.g. "gelu L=4096 B=1 H=16/16 d=128 bf16 erf"). The kernel version is left out
/// of the name so that a benchmark's history continues across kernel versions, as `compare`
/// matches points; BMF has no per-benchmark metadata to carry it (the run's git hash, passed to
/// `bencher run --hash`, identifies the code). Measures, each present only when measured:
///   "latency"           median time in nanoseconds (Bencher's built-in Latency measure is in
///                       ns), lower_value / upper_value = fastest / slowest sample;
///   "dram-bytes"        the DRAM bytes the roofline uses: read + in-window write + write-back
///                       (CounterResult::dram_bytes_isolated), the in-window sum when the
///                       write-back was not measured;
///   "flop", "l2-bytes"  counter sums over the operator's kernels (FLOPs, bytes);
///   "fraction-of-roof"  achieved / attainable (1.0 = on the roof).
/// Skipped and failed points are left out (BMF has no null). Never writes a non-finite number.
/// Does not throw.
nlohmann::ordered_json report_to_bmf(const Report& report);

}  // namespace rooflinectl
