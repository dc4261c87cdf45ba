// Project error type and the exit codes it maps to (documented in `rooflinectl --help`).
#pragma once

#include <stdexcept>
#include <string>

namespace rooflinectl {

/// Process exit codes. 0 success; 1 partial run (a point failed or was skipped) or a regression;
/// 2 bad input (usage, config, file); 3 environment (no GPU, counters refused when required).
enum class ExitCode : int { kOk = 0, kPartial = 1, kBadInput = 2, kEnvironment = 3 };

/// The one exception type library code throws. `what()` is a single line that names the bad value
/// and what is allowed; `exit_code()` tells `main` which documented code to return.
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode exit_code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

/// Bad user input (exit code 2).
inline Error bad_input(const std::string& message) { return Error(ExitCode::kBadInput, message); }
/// The environment cannot run the request (exit code 3).
inline Error environment_error(const std::string& message) {
  return Error(ExitCode::kEnvironment, message);
}

}  // namespace rooflinectl
