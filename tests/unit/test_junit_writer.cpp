// JUnit XML of a comparison: one case per point, regressions as failures, inconclusive and
// removed points skipped (failures with --strict), counts that match, text escaped.
#include <gtest/gtest.h>

#include <string>

#include "render/junit_writer.hpp"

namespace rooflinectl {
namespace {

size_t occurrences(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

PointComparison point(const std::string& op, Verdict verdict, const std::string& reason) {
  PointComparison p;
  p.key.op = op;
  p.key.version = op + "_v1";
  p.key.shape.seq_len = 512;
  p.verdict = verdict;
  p.reason = reason;
  return p;
}

CompareResult sample_result(bool strict) {
  CompareResult r;
  r.options.strict = strict;
  r.warnings = {"the machine changed: <canary> & co"};
  r.points = {point("gemm", Verdict::kSlower, "median 1 ms -> 1.2 ms (+20.0%)"),
              point("gelu", Verdict::kSame, "within 5%"),
              point("layernorm", Verdict::kInconclusive, "p = 0.2 >= 0.01"),
              point("decode_attention", Verdict::kRemoved, "only in the base report"),
              point("flash_attention", Verdict::kFailed, "validation failed: \"x\" < 'y'")};
  return r;
}

TEST(JunitWriter, RegressionsFailAndUndecidedPointsAreSkipped) {
  const std::string xml = format_compare_junit(sample_result(false));
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\"", 0), 0u);
  EXPECT_NE(xml.find(R"(tests="5" failures="2" skipped="2")"), std::string::npos) << xml;
  EXPECT_EQ(occurrences(xml, "<testcase "), 5u);
  EXPECT_EQ(occurrences(xml, "<failure "), 2u);
  EXPECT_EQ(occurrences(xml, "<skipped "), 2u);
  EXPECT_NE(xml.find(R"(classname="gemm" name="gemm L=512 B=1 H=16/16 d=128 bf16")"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("slower: median 1 ms -&gt; 1.2 ms"), std::string::npos) << xml;
  EXPECT_NE(xml.find("&quot;x&quot; &lt; &apos;y&apos;"), std::string::npos) << xml;
  EXPECT_NE(xml.find("&lt;canary&gt; &amp; co"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<canary>"), std::string::npos);
}

TEST(JunitWriter, StrictMakesUndecidedPointsFailures) {
  const std::string xml = format_compare_junit(sample_result(true));
  EXPECT_NE(xml.find(R"(tests="5" failures="4" skipped="0")"), std::string::npos) << xml;
  EXPECT_EQ(occurrences(xml, "<skipped "), 0u);
}

}  // namespace
}  // namespace rooflinectl
