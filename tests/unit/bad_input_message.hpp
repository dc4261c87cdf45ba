// A test helper shared by the unit tests: the message of the bad-input Error a call raises.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.hpp"

namespace rooflinectl {

/// Runs `f` and returns the message of the Error it throws, adding a test failure when it throws
/// none or one whose exit code is not ExitCode::kBadInput (exit 2).
inline std::string bad_input_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

}  // namespace rooflinectl
