// Console output of `rooflinectl peaks`: the three sources side by side. Pure host code.
#pragma once

#include <string>

#include "result/peak_set.hpp"

namespace rooflinectl {

/// The peaks of `record` for people:
/// - a header naming the GPU and the cache key;
/// - one row per benchmark: its label, the measured rate, the datasheet and counter-derived
///   ceilings of the same kind, measured/datasheet and measured/counters as percentages, and
///   counted/accounted work (the counters' view of the benchmark's work over its written
///   accounting: ~1.00 when the accounting is right);
/// - the ridge points I* = compute / DRAM (FLOP/B) per pipe and source;
/// - notes: why a benchmark or a source is null, and each source's description.
/// Bandwidths print in TB/s, compute rates in TFLOP/s (decimal), absent values as "-".
/// Ends with a newline; does not throw for any record.
std::string format_peaks_table(const PeaksRecord& record);

}  // namespace rooflinectl
