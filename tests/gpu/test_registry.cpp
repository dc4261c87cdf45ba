// The kernel registry against the operator list host code knows (core/operator_names.hpp): every
// name registered once, in the list's order, so that `list`, the default sweep order and the
// charts' colours agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/operator_names.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

TEST(Registry, RegistersTheOperatorNamesInTheirOrder) {
  std::vector<std::string> registered;
  for (const OperatorSpec& spec : operator_specs()) registered.push_back(spec.name);
  EXPECT_EQ(registered, operator_names());
}

}  // namespace
}  // namespace rooflinectl
