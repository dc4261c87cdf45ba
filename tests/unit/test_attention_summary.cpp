// Flash-vs-naive summary: pairing, speedup and memory arithmetic, crossover rule, the sentence.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "render/attention_summary.hpp"

namespace rooflinectl {
namespace {

PointResult timed(const std::string& op, int64_t seq_len, double time_s,
                  std::optional<double> peak_memory_bytes) {
  PointResult p;
  p.op = op;
  p.shape.seq_len = seq_len;
  TimingResult t;
  t.samples_s = {time_s};
  t.median_s = t.min_s = t.max_s = time_s;
  p.timing = t;
  p.peak_device_memory_bytes = peak_memory_bytes;
  return p;
}

// Naive takes speedup × flash's time at each L; memory naive 100 MB, flash 25 MB.
Report synthetic(const std::vector<int64_t>& lengths, const std::vector<double>& speedups) {
  Report r;
  for (size_t i = 0; i < lengths.size(); ++i) {
    const double flash_s = 1e-3 * static_cast<double>(i + 1);
    r.points.push_back(timed(kNaiveAttentionOp, lengths[i], flash_s * speedups[i], 100e6));
    r.points.push_back(timed(kFlashAttentionOp, lengths[i], flash_s, 25e6));
  }
  return r;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(AttentionSummary, SpeedupAndMemoryReductionPerL) {
  const AttentionSummary s =
      summarize_attention(synthetic({512, 1024, 2048, 4096}, {1.0, 1.05, 1.2, 1.5}));
  ASSERT_EQ(s.comparisons.size(), 4u);
  EXPECT_EQ(s.comparisons[2].seq_len, 2048);
  EXPECT_DOUBLE_EQ(s.comparisons[2].speedup, 1.2);
  EXPECT_DOUBLE_EQ(s.comparisons[2].naive_time_s, 3e-3 * 1.2);
  EXPECT_DOUBLE_EQ(s.comparisons[2].flash_time_s, 3e-3);
  ASSERT_TRUE(s.comparisons[3].memory_reduction_fraction);
  EXPECT_DOUBLE_EQ(*s.comparisons[3].memory_reduction_fraction, 0.75);
}

TEST(AttentionSummary, CrossoverIsWhereFlashStaysSignificantlyFaster) {
  const AttentionSummary s =
      summarize_attention(synthetic({512, 1024, 2048, 4096}, {1.0, 1.05, 1.2, 1.5}));
  ASSERT_TRUE(s.crossover_seq_len);
  EXPECT_EQ(*s.crossover_seq_len, 2048);
  EXPECT_FALSE(s.crossover_at_shortest);
  EXPECT_EQ(s.quoted_seq_len, 4096);
  EXPECT_EQ(s.conclusion,
            "FlashAttention's gain is significant beyond L = 2048; at L = 4096 throughput is +50% "
            "and peak memory \u221275%.");
}

TEST(AttentionSummary, ADipBelowThresholdMovesTheCrossoverPastIt) {
  // 1.2× at 512 does not count: flash falls back to 1.05× at 1024.
  const AttentionSummary s = summarize_attention(synthetic({512, 1024, 2048}, {1.2, 1.05, 1.3}));
  ASSERT_TRUE(s.crossover_seq_len);
  EXPECT_EQ(*s.crossover_seq_len, 2048);
  EXPECT_EQ(s.quoted_seq_len, 2048);  // no 4096 in the sweep: the longest L is quoted
  EXPECT_TRUE(contains(s.conclusion, "at L = 2048 throughput is +30%")) << s.conclusion;
}

TEST(AttentionSummary, ExactlyTheThresholdCounts) {
  const AttentionSummary s =
      summarize_attention(synthetic({1024, 2048}, {1.0, kSignificantSpeedup}));
  ASSERT_TRUE(s.crossover_seq_len);
  EXPECT_EQ(*s.crossover_seq_len, 2048);
}

TEST(AttentionSummary, SignificantEverywhereSaysTheCrossoverIsAtOrBelowTheShortestL) {
  const AttentionSummary s = summarize_attention(synthetic({512, 4096}, {1.7, 2.3}));
  ASSERT_TRUE(s.crossover_seq_len);
  EXPECT_EQ(*s.crossover_seq_len, 512);
  EXPECT_TRUE(s.crossover_at_shortest);
  EXPECT_TRUE(contains(s.conclusion,
                       "significant at every L compared, from L = 512 (flash is \u2265 1.1\u00d7 "
                       "naive there"))
      << s.conclusion;
  EXPECT_FALSE(contains(s.conclusion, "beyond")) << s.conclusion;
  EXPECT_TRUE(contains(s.conclusion, "at or below it); at L = 4096 throughput is +130%"))
      << s.conclusion;
}

TEST(AttentionSummary, NoSustainedGainMeansNoCrossover) {
  const AttentionSummary s = summarize_attention(synthetic({512, 4096, 8192}, {1.3, 1.2, 1.02}));
  EXPECT_FALSE(s.crossover_seq_len);
  EXPECT_TRUE(contains(s.conclusion, "The data do not support a crossover")) << s.conclusion;
  EXPECT_TRUE(contains(s.conclusion, "1.02\u00d7 at L = 8192; best 1.30\u00d7 at L = 512"))
      << s.conclusion;
  EXPECT_TRUE(contains(s.conclusion, "at L = 4096 throughput is +20%")) << s.conclusion;
}

TEST(AttentionSummary, FlashSlowerGivesANegativeChange) {
  const AttentionSummary s = summarize_attention(synthetic({4096}, {0.8}));
  EXPECT_TRUE(contains(s.conclusion, "throughput is \u221220%")) << s.conclusion;
}

TEST(AttentionSummary, UnmeasuredMemoryIsSaidNotGuessed) {
  Report r = synthetic({4096}, {2.0});
  r.points[0].peak_device_memory_bytes.reset();
  const AttentionSummary s = summarize_attention(r);
  EXPECT_FALSE(s.comparisons[0].memory_reduction_fraction);
  EXPECT_TRUE(contains(s.conclusion, "+100%; peak memory was not measured for both at this L."))
      << s.conclusion;
}

TEST(AttentionSummary, PointsNotOkAreExcludedWithTheirReason) {
  Report r = synthetic({1024, 4096}, {1.5, 2.0});
  r.points[2].status = PointStatus::kSkipped;  // naive at 4096
  r.points[2].reason = "does not fit";
  r.points[2].timing.reset();
  const AttentionSummary s = summarize_attention(r);
  ASSERT_EQ(s.comparisons.size(), 1u);
  EXPECT_EQ(s.comparisons[0].seq_len, 1024);
  ASSERT_EQ(s.excluded.size(), 1u);
  EXPECT_EQ(s.excluded[0], "L = 4096: naive_attention skipped: does not fit");
  EXPECT_EQ(s.quoted_seq_len, 1024);
}

TEST(AttentionSummary, DifferentShapesAreNotCompared) {
  Report r = synthetic({1024}, {1.5});
  r.points[0].shape.heads = 32;
  const AttentionSummary s = summarize_attention(r);
  EXPECT_TRUE(s.comparisons.empty());
  ASSERT_EQ(s.excluded.size(), 1u);
  EXPECT_TRUE(contains(s.conclusion, "No conclusion")) << s.conclusion;
}

TEST(AttentionSummary, ReportWithoutAttentionHasNothingToSay) {
  Report r;
  r.points.push_back(timed("gemm", 1024, 1e-3, std::nullopt));
  const AttentionSummary s = summarize_attention(r);
  EXPECT_FALSE(s.both_attention_ops);
  EXPECT_EQ(format_attention_summary_text(s), "");
}

TEST(AttentionSummary, FlashAloneAsksNothing) {
  Report r = synthetic({512, 1024}, {1.5, 2.0});
  r.points.erase(std::remove_if(r.points.begin(), r.points.end(),
                                [](const PointResult& p) { return p.op == kNaiveAttentionOp; }),
                 r.points.end());
  ASSERT_FALSE(r.points.empty());
  const AttentionSummary s = summarize_attention(r);
  EXPECT_FALSE(s.both_attention_ops);
  EXPECT_EQ(format_attention_summary_text(s), "");
}

TEST(AttentionSummary, TextListsEachLAndEndsWithTheConclusion) {
  const AttentionSummary s = summarize_attention(synthetic({1024, 4096}, {1.5, 2.0}));
  const std::string text = format_attention_summary_text(s);
  EXPECT_TRUE(contains(text, "L =   4096: naive   4.00 ms, flash   2.00 ms, 2.00\u00d7")) << text;
  EXPECT_TRUE(contains(text, "reduction 75.0%")) << text;
  EXPECT_TRUE(contains(text, s.conclusion + "\n")) << text;
}

}  // namespace
}  // namespace rooflinectl
