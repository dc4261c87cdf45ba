#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/seq_range.hpp"

namespace rooflinectl {
namespace {

using Lens = std::vector<int64_t>;

TEST(SeqRange, PowersOfTwoIncludeBothEnds) {
  EXPECT_EQ(parse_seq_spec("512..32768"), (Lens{512, 1024, 2048, 4096, 8192, 16384, 32768}));
  EXPECT_EQ(parse_seq_spec("1..4"), (Lens{1, 2, 4}));
  EXPECT_EQ(parse_seq_spec("4096..4096"), (Lens{4096}));
}

TEST(SeqRange, LinearStep) {
  EXPECT_EQ(parse_seq_spec("1000..4000:1000"), (Lens{1000, 2000, 3000, 4000}));
  EXPECT_EQ(parse_seq_spec("1000..3500:1000"), (Lens{1000, 2000, 3000}));
  EXPECT_EQ(parse_seq_spec("7..7:3"), (Lens{7}));
}

TEST(SeqRange, ListKeepsOrder) {
  EXPECT_EQ(parse_seq_spec("512,1000,4097"), (Lens{512, 1000, 4097}));
  EXPECT_EQ(parse_seq_spec("127"), (Lens{127}));
}

/// Expects a bad-input error whose message contains `token`.
void expect_bad(const std::string& spec, const std::string& token) {
  try {
    parse_seq_spec(spec);
    FAIL() << "no error for '" << spec << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput) << spec;
    EXPECT_NE(std::string(e.what()).find(token), std::string::npos)
        << "message '" << e.what() << "' does not name '" << token << "'";
  }
}

TEST(SeqRange, RejectsMalformedNamingTheToken) {
  expect_bad("", "empty");
  expect_bad("32768..512", "reversed");
  expect_bad("0..512", "'0'");
  expect_bad("512,0", "'0'");
  expect_bad("512,,1024", "''");
  expect_bad("abc", "'abc'");
  expect_bad("1.5", "'1.5'");
  expect_bad("512..", "''");
  expect_bad("..512", "''");
  expect_bad("1000..4000:0", "'0'");
  expect_bad("1000..4000:x", "'x'");
  expect_bad("500..1000", "powers of two");
  expect_bad("512..1024,2048", "mixes");
  expect_bad("-512", "'-512'");
  expect_bad("99999999999", "'99999999999'");
  expect_bad("512 ", "'512 '");
  expect_bad("512..32k", "'32k'");
  expect_bad("512...1024", "'.1024' is not a positive integer (forms: 512..32768 powers of two");
  expect_bad("512,", "'' is not a positive integer (forms:");
  expect_bad("99999999999999999999", "'99999999999999999999' is out of range (1 to 2147483647)");
  expect_bad("512,512", "length 512 is listed more than once");
  expect_bad("512,1000,4097,1000", "length 1000 is listed more than once");
}

// Exact integer arithmetic and a bounded count: a spec cannot make the parser build a huge
// vector before anything else looks at it (found by fuzz_seq_spec: 1..2147483647:1).
TEST(SeqRange, CountIsExactAndBounded) {
  EXPECT_EQ(parse_seq_spec("1..1073741824").size(), 31u);  // 2^0 .. 2^30
  EXPECT_EQ(parse_seq_spec("1..1024:1").size(), 1024u);
  EXPECT_EQ(parse_seq_spec("1..2147483647:2097152").size(), 1024u);
  expect_bad("1..1025:1", "1025 values, at most 1024");
  expect_bad("1..2147483647:1", "2147483647 values");
  std::string list = "1";
  for (int i = 2; i <= 1025; ++i) list += "," + std::to_string(i);
  expect_bad(list, "at most 1024");
}

/// The message of a refused spec of `names`' flag.
std::string refusal(const std::string& spec, const ListSpecNames& names) {
  try {
    parse_length_spec(spec, names);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    return e.what();
  }
  ADD_FAILURE() << "'" << spec << "' was accepted";
  return std::string();
}

TEST(SeqRange, OtherFlagsNameTheirFlagElementAndForms) {
  const ListSpecNames batch{"--batch", "batch", "forms: 1,16,64 a list"};
  EXPECT_EQ(parse_length_spec("1..64", batch), (Lens{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(refusal("1,16,1", batch), "invalid --batch '1,16,1': batch 1 is listed more than once");
  EXPECT_EQ(refusal("1.5", batch),
            "invalid --batch '1.5': '1.5' is not a positive integer (forms: 1,16,64 a list)");
  EXPECT_EQ(refusal("", batch), "invalid --batch '': empty (forms: 1,16,64 a list)");
  const std::string context = refusal("8..2", ListSpecNames{"--context"});
  EXPECT_EQ(context,
            "invalid --context '8..2': range is reversed (8 > 2; write the smaller end first: "
            "2..8)");
  EXPECT_NE(refusal("64..16:16", kBatchSpecNames).find("write the smaller end first: 16..64:16"),
            std::string::npos);
  EXPECT_NE(refusal("x", ListSpecNames{"--context"}).find(kSeqForms), std::string::npos);
}

// A batch is bounded as every integer axis is (2^50), not as a 32-bit length, and says so.
TEST(SeqRange, BatchRangeTakesTheAxisBound) {
  EXPECT_EQ(parse_length_spec("4294967296..4294967296", kBatchSpecNames), (Lens{int64_t{1} << 32}));
  EXPECT_EQ(
      refusal("1..2251799813685248", kBatchSpecNames),
      "invalid --batch '1..2251799813685248': '2251799813685248' is out of range (1 to 2^50)");
  EXPECT_EQ(refusal("0..4", kBatchSpecNames),
            "invalid --batch '0..4': '0' is out of range (1 to 2^50)");
  EXPECT_EQ(refusal("4294967296", ListSpecNames{"--context"}),
            "invalid --context '4294967296': '4294967296' is out of range (1 to 2147483647)");
}

}  // namespace
}  // namespace rooflinectl
