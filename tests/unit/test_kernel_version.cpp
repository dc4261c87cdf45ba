// parse_kernel_version: how RFL_GEMM_VERSION / RFL_FLASH_VERSION text selects a kernel version.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/kernel_version.hpp"

namespace rooflinectl {
namespace {

const std::vector<KernelVersionChoice> kFlash = {{2, "flash_attention_v2_mma_sync"},
                                                 {3, "flash_attention_v3_wgmma_tma"}};

TEST(KernelVersion, UnsetOrEmptyGivesTheDefault) {
  EXPECT_EQ(parse_kernel_version("RFL_FLASH_VERSION", nullptr, kFlash, 3), 3);
  EXPECT_EQ(parse_kernel_version("RFL_FLASH_VERSION", "", kFlash, 3), 3);
}

TEST(KernelVersion, EachChoiceByItsNumber) {
  EXPECT_EQ(parse_kernel_version("RFL_FLASH_VERSION", "2", kFlash, 3), 2);
  EXPECT_EQ(parse_kernel_version("RFL_FLASH_VERSION", "3", kFlash, 2), 3);
}

TEST(KernelVersion, AnythingElseIsBadInputNamingTheChoices) {
  for (const char* text : {"1", "4", " 2", "2x", "03", "v3", "three"}) {
    SCOPED_TRACE(text);
    try {
      parse_kernel_version("RFL_FLASH_VERSION", text, kFlash, 3);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
      EXPECT_EQ(
          std::string(e.what()),
          "RFL_FLASH_VERSION=" + std::string(text) +
              ": must be 2 (flash_attention_v2_mma_sync) or 3 (flash_attention_v3_wgmma_tma)");
    }
  }
}

TEST(KernelVersion, ThreeChoicesAreListedWithCommas) {
  try {
    parse_kernel_version("V", "9", {{1, "a"}, {2, "b"}, {3, "c"}}, 1);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "V=9: must be 1 (a), 2 (b) or 3 (c)");
  }
}

}  // namespace
}  // namespace rooflinectl
