#include "cli/config_file.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {

SweepConfig load_config_file(const std::string& path) {
  SweepConfig config = load_sweep_config(path);
  try {
    check_kernel_requests(config.kernels);
  } catch (const Error& e) {
    if (e.exit_code() != ExitCode::kBadInput) throw;
    throw bad_input(fmt::format("{}: key 'kernels': {}", path, e.what()));
  }
  return config;
}

}  // namespace rooflinectl
