// CSV report: one row per point, for pandas, spreadsheets and plotting scripts.
#pragma once

#include <string>
#include <vector>

#include "result/report.hpp"

namespace rooflinectl {

/// The header of format_csv_report, in column order. Units are in the names, as in the JSON keys:
/// _s seconds, _bytes bytes, _flop FLOPs, _per_s per second, _flop_per_byte FLOP per DRAM byte,
/// _fraction 1.0 = 100%; names without a unit are text, integers or booleans. `device` (the
/// report's GPU name) repeats on every row; `roof_source`, `above_roof` and `bytes_basis` are the
/// point's roofline.roof.source_kind, roofline.above_roof and roofline.bytes_basis.
const std::vector<std::string>& csv_columns();

/// RFC 4180 CSV: the header line, then one row per point in report order. Numbers are written in
/// the shortest form that reads back to the same double; a missing value (null, not measured, not
/// finite) is an empty field, which pandas reads as NaN. Fields holding a comma, a quote or a line
/// break are quoted with quotes doubled. Lines end with "\n". Pure; does not throw.
std::string format_csv_report(const Report& report);

}  // namespace rooflinectl
