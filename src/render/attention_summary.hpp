// Flash-vs-naive attention summary of a sweep: the closing question ("from which L is
// FlashAttention worth it, and by how much?") answered from measured numbers only. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/operator_names.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// Flash must be at least this many times faster than naive for its gain to count as
/// significant (the threshold: ≥ 1.1×, i.e. ≥ 10% more throughput).
inline constexpr double kSignificantSpeedup = 1.1;
/// The sequence length the conclusion quotes when the sweep has it (the conclusion's sentence names
/// it).
inline constexpr int64_t kQuotedSeqLen = 4096;

/// Flash and naive attention at one L, both points ok and timed, same shape apart from the op.
struct AttentionComparison {
  int64_t seq_len = 0;
  double naive_time_s = 0;  ///< median of the timed pass (= prefill latency)
  double flash_time_s = 0;
  /// naive_time_s / flash_time_s: the throughput (tokens/s) ratio, since both do the same work.
  double speedup = 0;
  std::optional<double> naive_peak_memory_bytes;  ///< PointResult::peak_device_memory_bytes
  std::optional<double> flash_peak_memory_bytes;
  /// 1 − flash / naive peak memory (0.75 = flash uses 75% less); nullopt unless both measured.
  std::optional<double> memory_reduction_fraction;
};

/// The summary. `comparisons` is empty when the report lacks ok points of both operators at a
/// common L; `conclusion` then says so.
struct AttentionSummary {
  /// The report has points of both flash_attention and naive_attention (of any status): the
  /// question is asked. A sweep of one of them alone (`--ops flash_attention`) asks nothing.
  bool both_attention_ops = false;
  std::vector<AttentionComparison> comparisons;  ///< ascending L
  /// Smallest compared L from which flash is ≥ kSignificantSpeedup × naive at every larger compared
  /// L too; nullopt when the largest compared L falls short (no sustained crossover).
  std::optional<int64_t> crossover_seq_len;
  /// True when the crossover is the shortest compared L: the data only bound it from above.
  bool crossover_at_shortest = false;
  /// The L the conclusion quotes: kQuotedSeqLen when compared, else the largest compared L.
  std::optional<int64_t> quoted_seq_len;
  /// Ls where one of the two points was not ok (skipped, failed, untimed), with why.
  std::vector<std::string> excluded;
  /// One paragraph of the form: "FlashAttention's gain is significant beyond L = …; at
  /// L = 4096 throughput is +Y% and peak memory −Z%" ("significant at every L compared, from
  /// L = …" when the crossover is the shortest compared L), or why the data do not support it.
  std::string conclusion;
};

/// Pairs the flash_attention and naive_attention points of `report` by L (requiring the rest of
/// the shape to match; the first point of each op per L wins) and derives the summary. Pure; does
/// not throw for any Report.
AttentionSummary summarize_attention(const Report& report);

/// Plain-text rendering for the console: one line per compared L (L, naive and flash time,
/// speedup, peak memory of each, reduction), the excluded Ls, then the conclusion. Empty when
/// the report lacks points of either operator (both_attention_ops false).
std::string format_attention_summary_text(const AttentionSummary& summary);

}  // namespace rooflinectl
