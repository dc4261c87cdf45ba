// `rooflinectl --version` text (src/core/version_text.hpp): versions decoded and every line there.
#include <gtest/gtest.h>

#include "core/version_text.hpp"

namespace rooflinectl {
namespace {

TEST(VersionText, DecodesCudartVersion) {
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(cuda_version_text(12040), "12.4");
  EXPECT_EQ(cuda_version_text(13020), "13.2");
}

TEST(VersionText, NamesVersionRevisionCudaAndCupti) {
  EXPECT_EQ(version_text({"0.1.0", "7fdde5d1a2b3", 13000, 130001}),
            "rooflinectl 0.1.0\n"
            "git revision: 7fdde5d1a2b3\n"
            "built against: CUDA 13.0 runtime, CUPTI API 130001");
}

TEST(VersionText, UnknownRevisionSaysHowToSetIt) {
  const std::string text = version_text({"0.1.0", "", 13000, 130001});
  EXPECT_NE(text.find("git revision: unknown (built without git; set RFL_GIT_REVISION)\n"),
            std::string::npos);
}

}  // namespace
}  // namespace rooflinectl
