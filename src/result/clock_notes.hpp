// What the report and compare outputs say about the per-sample clocks: one
// footer line for `report`, and the note `compare` gives a point with throttled samples. Pure host
// code; the readings come from TimingResult::sample_clocks.
#pragma once

#include <optional>
#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// "3 of 10 samples throttled (SW power cap)" for a timing whose recorded clocks include power-
/// or thermal-throttled samples (is_power_or_thermal_throttled); "" when none is, or when the
/// clocks were not recorded.
std::string throttled_samples_text(const TimingResult& timing);

/// The note of a matched point in `compare`: "new: 3 of 10 samples throttled (SW power cap)",
/// "base: ...", or both joined by "; ", for each side whose samples include throttled ones; ""
/// when neither does (or neither recorded clocks). Informative: it never changes the verdict.
std::string throttle_note(const PointResult& base, const PointResult& current);

/// One footer line of `report` (table and Markdown) when any point recorded per-sample clocks:
/// "clocks (NVML, after each timed sample): SM median 1980 MHz (1755..1980 MHz), memory median
/// 3201 MHz, over 420 samples of 42 points; 12 samples power- or thermal-throttled (SW power cap)"
/// plus ", SM clocks locked to 1980 MHz (base)" under --lock-clocks; nullopt when none did.
std::optional<std::string> sample_clocks_summary(const Report& report);

}  // namespace rooflinectl
