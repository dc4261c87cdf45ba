// The one-line verdict of a profiled kernel placed on the roofline, written by profile's assembly
// and re-derived by the report reader from the placement it recomputes. Pure host code.
#pragma once

#include <string>

#include "profile/full_mode.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {

/// A fraction of a roof (1.0 = 100%) as a whole percent, "83%", for the verdicts; a fraction above
/// zero that would round to 0% is "<1%" (a sub-microsecond kernel moving a few KiB), so that "0%"
/// means nothing was moved.
std::string verdict_percent(double fraction);

/// "<bound>-bound, <verdict_percent of the roof> of its roof (<label> FLOPs)", e.g.
/// "memory-bound, 83% of its roof (fp32 SIMT FLOPs)": `point`'s bound and fraction_of_roof,
/// `pipe`'s label (dominant_flop_pipe of the counters the point was placed with); a point above
/// the DRAM slope by its deferred write-back (RooflinePoint::write_back_after_window) adds
/// "; above the DRAM slope by write-back after the kernel, in window <verdict_percent of
/// in_window_dram_fraction> of the DRAM roof" inside the parentheses.
std::string placed_verdict(const RooflinePoint& point, const FlopPipe& pipe);

}  // namespace rooflinectl
