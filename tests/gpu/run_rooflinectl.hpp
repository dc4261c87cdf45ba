// Runs the rooflinectl binary under test from a GPU test (targets registered with
// rfl_gpu_binary_test in tests/CMakeLists.txt, which defines RFL_BINARY as its path).
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#ifndef RFL_BINARY
#error "RFL_BINARY (path of the rooflinectl binary) must be defined by the build"
#endif

namespace rooflinectl {

/// Runs `RFL_BINARY args` through the shell (args may redirect output); returns its exit code,
/// or -1 when it did not exit normally (killed by a signal).
inline int run_rooflinectl(const std::string& args) {
  const std::string command = std::string(RFL_BINARY) + " " + args;
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace rooflinectl
