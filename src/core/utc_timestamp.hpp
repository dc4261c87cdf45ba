// The current time as an ISO 8601 UTC timestamp, as reports record it.
#pragma once

#include <string>

namespace rooflinectl {

/// Now, in UTC, to the second: "2026-11-29T23:35:10Z" (ISO 8601, the form every report's
/// `timestamp_utc` and the peaks cache use).
std::string utc_timestamp_now();

}  // namespace rooflinectl
