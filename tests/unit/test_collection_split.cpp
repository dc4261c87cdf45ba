#include <gtest/gtest.h>

#include "cupti/collection_split.hpp"

namespace rooflinectl {
namespace {

// A range tagged by its position in the collection, so that the split can be read back.
std::vector<CounterRange> numbered_ranges(size_t count) {
  std::vector<CounterRange> ranges;
  for (size_t i = 0; i < count; ++i) ranges.push_back({{"position", static_cast<double>(i)}});
  return ranges;
}

std::vector<double> positions(const std::vector<CounterRange>& ranges) {
  std::vector<double> out;
  for (const auto& r : ranges) out.push_back(r.at("position"));
  return out;
}

TEST(CollectionSplit, CountsEveryFlushButTheFirst) {
  // Byte session on the H200: a flush is 2 ranges (persisting reset, read sweep), the
  // write-back sweep 1; naive attention 3 kernels, gelu 1.
  EXPECT_EQ(collection_range_count({{3, 1, 1}, 2, 1}), (3 + 1) + (2 + 1 + 1) + (2 + 1 + 1));
  EXPECT_EQ(collection_range_count({{1}, 2, 1}), 2u);
  EXPECT_EQ(collection_range_count({{}, 2, 1}), 0u);
  // A follow-up session has no write-back sweep.
  EXPECT_EQ(collection_range_count({{3, 1}, 2, 0}), 3u + 2 + 1);
}

TEST(CollectionSplit, DropsFlushesAndKeepsKernelsThenSweep) {
  const CollectionLayout layout{{3, 1}, 2, 1};
  const auto split = split_collection(numbered_ranges(8), layout);
  ASSERT_TRUE(split);
  ASSERT_EQ(split->size(), 2u);
  // Point 0: kernels 0..2, sweep 3. Point 1: flush 4..5 dropped, kernel 6, sweep 7.
  EXPECT_EQ(positions((*split)[0]), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(positions((*split)[1]), (std::vector<double>{6, 7}));
}

TEST(CollectionSplit, FollowUpSessionWithoutSweep) {
  const auto split = split_collection(numbered_ranges(6), {{1, 1, 2}, 1, 0});
  ASSERT_TRUE(split);
  EXPECT_EQ(positions((*split)[0]), (std::vector<double>{0}));
  EXPECT_EQ(positions((*split)[1]), (std::vector<double>{2}));
  EXPECT_EQ(positions((*split)[2]), (std::vector<double>{4, 5}));
}

TEST(CollectionSplit, RefusesACountTheLayoutDoesNotPredict) {
  const CollectionLayout layout{{3, 1}, 2, 1};
  // One kernel more or fewer than the names say, anywhere, must not be guessed around.
  EXPECT_FALSE(split_collection(numbered_ranges(7), layout));
  EXPECT_FALSE(split_collection(numbered_ranges(9), layout));
  EXPECT_FALSE(split_collection({}, layout));
}

TEST(CollectionSplit, OnePointIsItsOwnSession) {
  const auto split = split_collection(numbered_ranges(2), {{1}, 2, 1});
  ASSERT_TRUE(split);
  ASSERT_EQ(split->size(), 1u);
  EXPECT_EQ(positions((*split)[0]), (std::vector<double>{0, 1}));
}

}  // namespace
}  // namespace rooflinectl
