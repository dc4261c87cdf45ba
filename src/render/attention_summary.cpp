#include "render/attention_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

// The shape without its L and op: two points are comparable when these agree.
bool same_problem(const Shape& a, const Shape& b) {
  return a.batch == b.batch && a.heads == b.heads && a.kv_heads == b.kv_heads &&
         a.head_dim == b.head_dim && a.q_len == b.q_len && a.causal == b.causal &&
         a.dtype == b.dtype;
}

bool timed_ok(const PointResult& p) {
  return p.status == PointStatus::kOk && p.timing && std::isfinite(p.timing->median_s) &&
         p.timing->median_s > 0;
}

std::string why_not_compared(const PointResult* p, const char* op) {
  if (!p) return fmt::format("no {} point", op);
  if (p->status != PointStatus::kOk) {
    return fmt::format("{} {}{}", op, to_string(p->status),
                       p->reason.empty() ? "" : ": " + p->reason);
  }
  return fmt::format("{} has no valid time", op);
}

// "+131%" / "−12%": the sign is part of the message, and U+2212 is the typographic minus of "−Z%".
std::string signed_percent(double fraction) {
  const long rounded = std::lround(fraction * 100.0);
  if (rounded < 0) return fmt::format("\u2212{}%", -rounded);
  return fmt::format("+{}%", rounded);
}

std::string quoted_clause(const AttentionComparison& c) {
  std::string text =
      fmt::format("at L = {} throughput is {}", c.seq_len, signed_percent(c.speedup - 1.0));
  if (c.memory_reduction_fraction) {
    // A reduction is a negative change of peak memory.
    return text + fmt::format(" and peak memory {}", signed_percent(-*c.memory_reduction_fraction));
  }
  return text + "; peak memory was not measured for both at this L";
}

std::string build_conclusion(const AttentionSummary& s) {
  if (s.comparisons.empty()) {
    return fmt::format(
        "No conclusion: the report has no L where both {} and {} ran ok with the same shape.",
        kFlashAttentionOp, kNaiveAttentionOp);
  }
  const auto quoted = std::find_if(s.comparisons.begin(), s.comparisons.end(),
                                   [&](const auto& c) { return c.seq_len == *s.quoted_seq_len; });
  const std::string quoted_text = quoted_clause(*quoted);
  if (s.crossover_seq_len && s.crossover_at_shortest) {
    // "beyond L = 512" would say nothing about 512 itself, where flash already wins.
    return fmt::format(
        "FlashAttention's gain is significant at every L compared, from L = {} (flash is "
        "\u2265 {}\u00d7 naive there, so the crossover lies at or below it); {}.",
        *s.crossover_seq_len, kSignificantSpeedup, quoted_text);
  }
  if (s.crossover_seq_len) {
    return fmt::format("FlashAttention's gain is significant beyond L = {}; {}.",
                       *s.crossover_seq_len, quoted_text);
  }
  const auto best =
      std::max_element(s.comparisons.begin(), s.comparisons.end(),
                       [](const auto& a, const auto& b) { return a.speedup < b.speedup; });
  const AttentionComparison& longest = s.comparisons.back();
  return fmt::format(
      "The data do not support a crossover: flash attention is not \u2265 {}\u00d7 naive at the "
      "longest L compared ({:.2f}\u00d7 at L = {}; best {:.2f}\u00d7 at L = {}); {}.",
      kSignificantSpeedup, longest.speedup, longest.seq_len, best->speedup, best->seq_len,
      quoted_text);
}

}  // namespace

AttentionSummary summarize_attention(const Report& report) {
  AttentionSummary summary;
  // First point of each op per L; flash's shape is the reference the naive point must match.
  std::map<int64_t, const PointResult*> flash;
  std::map<int64_t, const PointResult*> naive;
  for (const auto& p : report.points) {
    if (p.op == kFlashAttentionOp) flash.emplace(p.shape.seq_len, &p);
    if (p.op == kNaiveAttentionOp) naive.emplace(p.shape.seq_len, &p);
  }
  summary.both_attention_ops = !flash.empty() && !naive.empty();

  std::map<int64_t, bool> lengths;
  for (const auto& [l, p] : flash) lengths[l] = true;
  for (const auto& [l, p] : naive) lengths[l] = true;
  for (const auto& [seq_len, unused] : lengths) {
    const auto f = flash.find(seq_len);
    const auto n = naive.find(seq_len);
    const PointResult* fp = f == flash.end() ? nullptr : f->second;
    const PointResult* np = n == naive.end() ? nullptr : n->second;
    if (!fp || !timed_ok(*fp)) {
      summary.excluded.push_back(
          fmt::format("L = {}: {}", seq_len, why_not_compared(fp, kFlashAttentionOp)));
      continue;
    }
    if (!np || !timed_ok(*np)) {
      summary.excluded.push_back(
          fmt::format("L = {}: {}", seq_len, why_not_compared(np, kNaiveAttentionOp)));
      continue;
    }
    if (!same_problem(fp->shape, np->shape)) {
      summary.excluded.push_back(
          fmt::format("L = {}: shapes differ (B, H, H_kv, d, L_q, causal or dtype)", seq_len));
      continue;
    }
    AttentionComparison c;
    c.seq_len = seq_len;
    c.naive_time_s = np->timing->median_s;
    c.flash_time_s = fp->timing->median_s;
    c.speedup = c.naive_time_s / c.flash_time_s;
    c.naive_peak_memory_bytes = np->peak_device_memory_bytes;
    c.flash_peak_memory_bytes = fp->peak_device_memory_bytes;
    if (c.naive_peak_memory_bytes && c.flash_peak_memory_bytes && *c.naive_peak_memory_bytes > 0) {
      c.memory_reduction_fraction = 1.0 - *c.flash_peak_memory_bytes / *c.naive_peak_memory_bytes;
    }
    summary.comparisons.push_back(c);
  }

  if (!summary.comparisons.empty()) {
    // Walk down from the longest L while flash stays significantly faster.
    for (auto it = summary.comparisons.rbegin(); it != summary.comparisons.rend(); ++it) {
      if (it->speedup < kSignificantSpeedup) break;
      summary.crossover_seq_len = it->seq_len;
    }
    summary.crossover_at_shortest =
        summary.crossover_seq_len &&
        *summary.crossover_seq_len == summary.comparisons.front().seq_len;
    const bool has_quoted = std::any_of(summary.comparisons.begin(), summary.comparisons.end(),
                                        [](const auto& c) { return c.seq_len == kQuotedSeqLen; });
    summary.quoted_seq_len = has_quoted ? kQuotedSeqLen : summary.comparisons.back().seq_len;
  }
  summary.conclusion = build_conclusion(summary);
  return summary;
}

std::string format_attention_summary_text(const AttentionSummary& summary) {
  if (!summary.both_attention_ops) return "";
  std::string out = "Flash vs naive attention (speedup = naive time / flash time):\n";
  for (const auto& c : summary.comparisons) {
    const std::string memory = c.memory_reduction_fraction
                                   ? fmt::format("peak memory naive {}, flash {}, reduction {}",
                                                 format_bytes(c.naive_peak_memory_bytes),
                                                 format_bytes(c.flash_peak_memory_bytes),
                                                 format_percent(c.memory_reduction_fraction))
                                   : std::string("peak memory not measured for both");
    out += fmt::format("  L = {:>6}: naive {:>9}, flash {:>9}, {:.2f}\u00d7; {}\n", c.seq_len,
                       format_time_s(c.naive_time_s), format_time_s(c.flash_time_s), c.speedup,
                       memory);
  }
  for (const auto& e : summary.excluded) out += "  not compared: " + e + "\n";
  out += summary.conclusion + "\n";
  return out;
}

}  // namespace rooflinectl
