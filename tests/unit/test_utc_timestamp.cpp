// utc_timestamp_now: the ISO 8601 UTC form reports record, and the current time (not a fixed one).
#include <gtest/gtest.h>

#include <ctime>
#include <regex>
#include <string>

#include "core/utc_timestamp.hpp"

namespace rooflinectl {
namespace {

TEST(UtcTimestamp, IsIso8601UtcToTheSecondAndNow) {
  const std::time_t before = std::time(nullptr);
  const std::string text = utc_timestamp_now();
  const std::time_t after = std::time(nullptr);
  ASSERT_TRUE(std::regex_match(text, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)")))
      << text;
  std::tm tm{};
  ASSERT_NE(strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm), nullptr);
  const std::time_t parsed = timegm(&tm);
  EXPECT_GE(parsed, before);
  EXPECT_LE(parsed, after);
}

}  // namespace
}  // namespace rooflinectl
