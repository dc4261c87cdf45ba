// Kernel versions: the lookup of a requested key (find_kernel_version), the `--kernel` parsing
// (parse_kernel_requests), and the operators' declarations as the registry holds them
// (check_kernel_requests, the names points report).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/kernel_version.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

const std::vector<KernelVersion> kFlash = {
    {"v2", "flash_attention_v2_mma_sync", "compute capability 8.0+", ""},
    {"v3", "flash_attention_v3_wgmma_tma", "compute capability 9.0", "v2"}};

/// The bad-input message of `action`; fails the test when it does not throw one.
template <class Action>
std::string bad_input_message(Action action) {
  try {
    action();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(KernelVersion, EmptyKeyGivesTheDefault) {
  EXPECT_EQ(find_kernel_version("flash_attention", kFlash, "v3", kDefaultVersionKey).name,
            "flash_attention_v3_wgmma_tma");
}

TEST(KernelVersion, EachDeclaredKey) {
  EXPECT_EQ(find_kernel_version("flash_attention", kFlash, "v3", "v2").name,
            "flash_attention_v2_mma_sync");
  EXPECT_EQ(find_kernel_version("flash_attention", kFlash, "v2", "v3").name,
            "flash_attention_v3_wgmma_tma");
}

TEST(KernelVersion, AnyOtherKeyIsBadInputNamingItAndTheDeclaredKeys) {
  for (const std::string key :
       {"v1", "v4", "3", " v2", "v2 ", "V2", "flash_attention_v2_mma_sync"}) {
    SCOPED_TRACE(key);
    EXPECT_EQ(bad_input_message([&] { find_kernel_version("flash_attention", kFlash, "v3", key); }),
              "invalid --kernel 'flash_attention=" + key + "': unknown version '" + key +
                  "' of flash_attention (allowed: v2, v3)");
  }
}

TEST(KernelRequests, OneRequestPerValue) {
  EXPECT_EQ(parse_kernel_requests({"flash_attention=v2", "gemm=v1"}),
            (KernelRequests{{"flash_attention", "v2"}, {"gemm", "v1"}}));
}

TEST(KernelRequests, CommaSeparatedLists) {
  EXPECT_EQ(parse_kernel_requests({"gemm=v1,flash_attention=v2", "gelu=v2"}),
            (KernelRequests{{"flash_attention", "v2"}, {"gemm", "v1"}, {"gelu", "v2"}}));
}

TEST(KernelRequests, NoValuesAskForNothing) { EXPECT_TRUE(parse_kernel_requests({}).empty()); }

TEST(KernelRequests, NamesAreNotCheckedHere) {
  // Operators and versions are checked against the declarations with the plan.
  EXPECT_EQ(parse_kernel_requests({"nope=v9"}), (KernelRequests{{"nope", "v9"}}));
}

TEST(KernelRequests, MalformedItemIsBadInputNamingTheValueAndTheItem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"gemm", "invalid --kernel 'gemm': 'gemm' is not OP=VERSION (e.g. flash_attention=v2)"},
      {"", "invalid --kernel '': '' is not OP=VERSION (e.g. flash_attention=v2)"},
      {"gemm=v1,", "invalid --kernel 'gemm=v1,': '' is not OP=VERSION (e.g. flash_attention=v2)"},
      {"gemm=v1=v2",
       "invalid --kernel 'gemm=v1=v2': 'gemm=v1=v2' is not OP=VERSION (e.g. flash_attention=v2)"},
      {"=v1", "invalid --kernel '=v1': '=v1' has an empty operator (e.g. flash_attention=v2)"},
      {"gemm=", "invalid --kernel 'gemm=': 'gemm=' has an empty version (e.g. flash_attention=v2)"},
  };
  for (const auto& [value, message] : cases) {
    SCOPED_TRACE(value);
    EXPECT_EQ(bad_input_message([&] { parse_kernel_requests({value}); }), message);
  }
}

TEST(KernelRequests, AnOperatorNamedTwiceIsBadInput) {
  EXPECT_EQ(bad_input_message([] { parse_kernel_requests({"gemm=v1,gemm=v2"}); }),
            "invalid --kernel 'gemm=v1,gemm=v2': gemm is given a version more than once (allowed: "
            "once)");
  // Across two --kernel flags too, even with the same version.
  EXPECT_EQ(bad_input_message([] {
              parse_kernel_requests({"gemm=v1", "gemm=v1"});
            }),
            "invalid --kernel 'gemm=v1': gemm is given a version more than once (allowed: once)");
}

TEST(KernelDeclarations, EveryOperatorDeclaresItsDefaultAndFallbacks) {
  for (const OperatorSpec& spec : operator_specs()) {
    SCOPED_TRACE(spec.name);
    ASSERT_FALSE(spec.versions.empty());
    std::set<std::string> keys;
    for (const KernelVersion& v : spec.versions) EXPECT_TRUE(keys.insert(v.key).second) << v.key;
    EXPECT_EQ(keys.count(spec.default_version), 1u) << spec.default_version;
    EXPECT_EQ(find_version(spec, kDefaultVersionKey).key, spec.default_version);
    for (const KernelVersion& v : spec.versions) {
      // The name a point reports starts with the operator and the key.
      EXPECT_EQ(v.name.rfind(spec.name + "_" + v.key + "_", 0), 0u) << v.name;
      EXPECT_FALSE(v.needs.empty()) << v.key;
      if (!v.fallback.empty()) EXPECT_EQ(keys.count(v.fallback), 1u) << v.fallback;
    }
  }
}

TEST(KernelDeclarations, GemmAndFlashAttentionDefaults) {
  EXPECT_EQ(find_version(find_operator("gemm"), kDefaultVersionKey).name, "gemm_v6_skinny_wgmma");
  EXPECT_EQ(find_version(find_operator("gemm"), "v6").fallback, "v4");
  EXPECT_EQ(find_version(find_operator("gemm"), "v3").name, "gemm_v3_wgmma_multicast");
  EXPECT_EQ(find_version(find_operator("gemm"), "v4").name, "gemm_v4_skinny_splitk");
  EXPECT_EQ(find_version(find_operator("gemm"), "v4").fallback, "v3");
  EXPECT_EQ(find_version(find_operator("gemm"), "v1").name, "gemm_v1_mma_sync");
  EXPECT_EQ(find_version(find_operator("flash_attention"), kDefaultVersionKey).name,
            "flash_attention_v3_wgmma_tma");
  EXPECT_EQ(find_version(find_operator("flash_attention"), "v2").name,
            "flash_attention_v2_mma_sync");
}

TEST(KernelDeclarations, CheckedRequests) {
  EXPECT_NO_THROW(check_kernel_requests({{"gemm", "v1"}, {"flash_attention", "v2"}}));
  EXPECT_NO_THROW(check_kernel_requests({}));
  EXPECT_EQ(bad_input_message([] {
              check_kernel_requests({{"gemm", "v9"}});
            }),
            "invalid --kernel 'gemm=v9': unknown version 'v9' of gemm (allowed: v1, v2, v3, v4, "
            "v6, v7, v8, fp8)");
  EXPECT_EQ(bad_input_message([] {
              check_kernel_requests({{"flash", "v2"}});
            }),
            "invalid --kernel 'flash=v2': unknown operator 'flash' (allowed: naive_attention, "
            "flash_attention, gemm, gelu, layernorm, decode_attention, rmsnorm, swiglu, geglu)");
  // The model presets' operators declare one version each.
  EXPECT_NO_THROW(check_kernel_requests({{"rmsnorm", "v1"}, {"swiglu", "v1"}, {"geglu", "v1"}}));
  EXPECT_EQ(bad_input_message([] {
              check_kernel_requests({{"geglu", "v2"}});
            }),
            "invalid --kernel 'geglu=v2': unknown version 'v2' of geglu (allowed: v1)");
}

}  // namespace
}  // namespace rooflinectl
