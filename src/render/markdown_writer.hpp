// Markdown report for a pull-request comment or a results page (GitHub-flavoured tables).
#pragma once

#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// The whole report as Markdown: a heading naming the GPU; one line with device, tool, time and
/// the sweep's shape; the flash-vs-naive conclusion (summarize_attention) in bold with its table
/// when the report has attention points; then one table per operator (in first-appearance order)
/// headed by its verdict ("memory-bound at every L, 25–55% of the tensor roof"), one row per point:
/// L, time (prefill latency for naive and flash attention, time per step for decode), tokens/s,
/// TFLOP/s, TB/s, FLOP/B, bound, % of roof, SM % and DRAM % of peak (counters), peak device memory,
/// status with the reason when not ok; last, notes on roof sources and how peak memory was
/// measured. Missing values print as "-"; '|' in reasons is escaped. Deterministic (a golden-file
/// test pins it); ends with a newline; does not throw for any Report.
std::string format_markdown_report(const Report& report);

}  // namespace rooflinectl
