// Console table: the human-readable view of a report (stdout of `rooflinectl sweep`).
#pragma once

#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// One row per point, columns aligned: operator, L (seq_len), time (median, in µs, ms or s),
/// TFLOP/s and TB/s (achieved, decimal units 1e12), FLOP/B (arithmetic intensity), bound,
/// % of roof, validation (pass / FAIL), status. A value that is not there (null optional,
/// non-finite number) prints as "-". Skipped and failed rows append their reason to the status,
/// shortened to one line of at most 60 characters. Footnotes mark points placed from the analytic
/// model instead of counters ("*" after FLOP/B) and points above their roof ("!" after the
/// percentage; the status then reads "ok; ERROR: above roof!"). When the report carries a peaks
/// block, a last line names the roof source every point used ("roof: measured (<cache file>)").
/// Ends with a newline; does not throw for any Report value.
std::string format_console_table(const Report& report);

/// For a merged report (`merge`, `sweep --devices`): one line per shard naming its GPU (name,
/// index, UUID), its point count and the file it came from; for the report of one `sweep --shard
/// i/n`, a line saying it holds that shard's points only; "" for a report of a whole sweep.
std::string format_sources_note(const Report& report);

}  // namespace rooflinectl
