// parallel_for (src/core/parallel_for.hpp): every index exactly once, chunk limits, errors.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "core/parallel_for.hpp"

namespace rooflinectl {
namespace {

TEST(ParallelFor, EveryIndexExactlyOnceOnAnyThreadCount) {
  for (const int64_t threads : {1, 2, 3, 7, 64}) {
    for (const int64_t count : {1, 5, 64, 1000}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(count));
      parallel_for(
          count, 1,
          [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) ++hits[static_cast<size_t>(i)];
          },
          threads);
      for (int64_t i = 0; i < count; ++i) {
        EXPECT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "count " << count << " i " << i;
      }
    }
  }
}

TEST(ParallelFor, ChunksAreAtLeastTheMinimumAndAtMostOnePerThread) {
  std::atomic<int> calls{0};
  parallel_for(
      100, 40,
      [&](int64_t begin, int64_t end) {
        ++calls;
        EXPECT_GE(end - begin, 40);
      },
      16);
  EXPECT_EQ(calls.load(), 2);  // 100 / 40 → two chunks of 50
  calls = 0;
  parallel_for(
      100, 1, [&](int64_t, int64_t) { ++calls; }, 4);
  EXPECT_EQ(calls.load(), 4);
}

TEST(ParallelFor, NothingForAnEmptyRange) {
  bool called = false;
  parallel_for(0, 1, [&](int64_t, int64_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ParallelFor, RethrowsAChunksErrorAfterAllJoin) {
  std::atomic<int> done{0};
  EXPECT_THROW(parallel_for(
                   8, 1,
                   [&](int64_t begin, int64_t) {
                     ++done;
                     if (begin == 4) throw std::runtime_error("chunk 4");
                   },
                   8),
               std::runtime_error);
  EXPECT_EQ(done.load(), 8);
}

}  // namespace
}  // namespace rooflinectl
