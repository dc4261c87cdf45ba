// Finding a profiled launch's counter ranges in a collection by name and place.
#include <gtest/gtest.h>

#include "profile/range_match.hpp"

namespace rooflinectl {
namespace {

const std::string kScale = "_ZN12_GLOBAL__N_112scale_kernelEPKfPffm";
const std::string kSweep = "read_sweep_kernel";
const std::vector<std::string> kFlush = {"WaitNs", kSweep};

TEST(RangeMatch, NamesAKernelByItsSymbolOrPartOfItsDemangledName) {
  EXPECT_TRUE(range_names_kernel(kScale, kScale));
  EXPECT_TRUE(range_names_kernel("scale_kernel", kScale));
  EXPECT_TRUE(range_names_kernel("(anonymous namespace)::scale_kernel(float const*, float*, float, "
                                 "unsigned long)",
                                 kScale));
  EXPECT_TRUE(range_names_kernel("triton_poi_fused_0", "triton_poi_fused_0"));
  EXPECT_FALSE(range_names_kernel("gemm_kernel", kScale));
  EXPECT_FALSE(range_names_kernel("", kScale));
  EXPECT_FALSE(range_names_kernel("scale_kernel", ""));
}

TEST(RangeMatch, FindsEachLaunchBetweenAFlushAndTheWriteBackSweep) {
  // Two launches of a collection: flush, kernel, sweep each.
  const std::vector<std::string> names = {"WaitNs", kSweep, "scale_kernel", kSweep,
                                          "WaitNs", kSweep, "gemm",         kSweep};
  ASSERT_EQ(find_launch_range(names, 0, kFlush, kSweep, kScale), std::optional<size_t>(2));
  EXPECT_EQ(find_launch_range(names, 4, kFlush, kSweep, "gemm"), std::optional<size_t>(6));
  EXPECT_EQ(find_launch_range(names, 4, kFlush, kSweep, kScale), std::nullopt) << "used already";
}

TEST(RangeMatch, SkipsKernelsTheInjectionDoesNotHook) {
  // The program's own persisting-L2 reset ran a driver kernel between two launches.
  const std::vector<std::string> names = {"WaitNs", kSweep, "gemm",         kSweep, "WaitNs",
                                          "WaitNs", kSweep, "scale_kernel", kSweep};
  EXPECT_EQ(find_launch_range(names, 4, kFlush, kSweep, kScale), std::optional<size_t>(7));
}

TEST(RangeMatch, APlaceWithoutTheFlushBeforeOrTheSweepAfterIsNotALaunch) {
  // A kernel that ran between the flush and the launch: the launch was not isolated.
  const std::vector<std::string> intruder = {"WaitNs", kSweep, "other", "scale_kernel", kSweep};
  EXPECT_EQ(find_launch_range(intruder, 0, kFlush, kSweep, kScale), std::nullopt);
  // No write-back sweep after the kernel.
  const std::vector<std::string> no_sweep = {"WaitNs", kSweep, "scale_kernel", "other"};
  EXPECT_EQ(find_launch_range(no_sweep, 0, kFlush, kSweep, kScale), std::nullopt);
  // The program launches the tool's own sweep kernel (rooflinectl's sweep under profile): its
  // range is the one after the flush, not the flush's sweep.
  const std::vector<std::string> own = {"WaitNs", kSweep, kSweep, kSweep};
  EXPECT_EQ(find_launch_range(own, 0, kFlush, kSweep, kSweep), std::optional<size_t>(2));
}

}  // namespace
}  // namespace rooflinectl
