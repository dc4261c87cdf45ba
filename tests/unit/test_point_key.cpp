// How points are told apart (PointKey::same_point) and the check that a report names each point
// once (check_unique_points): which pair a repeat names, and what does or does not make two
// points different.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "result/point_key.hpp"

namespace rooflinectl {
namespace {

PointResult point(const std::string& op, int64_t seq_len) {
  PointResult p;
  p.op = op;
  p.version = op + "_v1";
  p.shape.seq_len = seq_len;
  return p;
}

Report report_of(std::vector<PointResult> points) {
  Report report;
  report.points = std::move(points);
  return report;
}

// The message of check_unique_points' error, or "" when it accepts the report.
std::string repeat_error(const Report& report) {
  try {
    check_unique_points(report, "r.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    return e.what();
  }
  return "";
}

// A label names the GELU form only where the operator reads it (gelu, geglu): an attention or
// GEMM point's Bencher name does not change with a GELU form it never used.
TEST(PointKeyLabel, NamesTheGeluFormOnlyForTheOperatorsThatUseIt) {
  EXPECT_EQ(point_key(point("gelu", 512)).shape_label(), "gelu L=512 B=1 H=16/16 d=128 bf16 erf");
  EXPECT_EQ(point_key(point("geglu", 512)).shape_label(), "geglu L=512 B=1 H=16/16 d=128 bf16 erf");
  EXPECT_EQ(point_key(point("flash_attention", 512)).shape_label(),
            "flash_attention L=512 B=1 H=16/16 d=128 bf16");
  EXPECT_EQ(point_key(point("gemm", 512)).label(), "gemm gemm_v1 L=512 B=1 H=16/16 d=128 bf16");
}

TEST(CheckUniquePoints, AcceptsDistinctPoints) {
  EXPECT_EQ(repeat_error(report_of({})), "");
  EXPECT_EQ(repeat_error(report_of({point("gemm", 512)})), "");
  EXPECT_EQ(repeat_error(report_of({point("gemm", 512), point("gemm", 1024), point("gelu", 512)})),
            "");
}

// The repeated point that comes first, with its next occurrence: for A B B A that is A (points[0]
// and points[3]), not B although B's pair closes earlier.
TEST(CheckUniquePoints, NamesTheFirstRepeatedPointAndItsNextOccurrence) {
  const PointResult a = point("gemm", 512);
  const PointResult b = point("gelu", 512);
  EXPECT_EQ(repeat_error(report_of({a, b, b, a})),
            "r.json: point 'gemm L=512 B=1 H=16/16 d=128 bf16' appears twice (points[0] and "
            "points[3])");
  EXPECT_EQ(repeat_error(report_of({b, a, point("gemm", 1024), a, a, b})),
            "r.json: point 'gelu L=512 B=1 H=16/16 d=128 bf16 erf' appears twice (points[0] and "
            "points[5])");
  EXPECT_EQ(repeat_error(report_of({point("gemm", 1024), a, a, a})),
            "r.json: point 'gemm L=512 B=1 H=16/16 d=128 bf16' appears twice (points[1] and "
            "points[2])");
}

// A kernel version does not tell points apart; every shape axis does.
TEST(CheckUniquePoints, VersionIsNotPartOfThePointButEveryAxisIs) {
  PointResult other_version = point("gemm", 512);
  other_version.version = "gemm_v2";
  EXPECT_NE(repeat_error(report_of({point("gemm", 512), other_version})), "");

  PointResult paged = point("decode_attention", 512);
  paged.shape.kv_layout = KvLayout::kPaged;
  paged.shape.page_size = 16;
  PointResult other_page = paged;
  other_page.shape.page_size = 32;
  PointResult causal = point("gemm", 512);
  causal.shape.causal = true;
  PointResult fp16 = point("gemm", 512);
  fp16.shape.dtype = Dtype::kFp16;
  EXPECT_EQ(repeat_error(report_of({point("gemm", 512), causal, fp16, paged, other_page,
                                    point("decode_attention", 512)})),
            "");
  const PointKey causal_a{"gemm", "a", causal.shape};
  EXPECT_TRUE(causal_a.same_point({"gemm", "b", causal.shape}));
  EXPECT_FALSE(causal_a.same_point({"gemm", "a", fp16.shape}));
  EXPECT_FALSE(causal_a.same_point({"gelu", "a", causal.shape}));
}

}  // namespace
}  // namespace rooflinectl
