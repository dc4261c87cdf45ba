// Choosing between kernel versions through an environment variable (RFL_GEMM_VERSION,
// RFL_FLASH_VERSION): the parsing and its error, as pure host code so that it is unit-tested.
#pragma once

#include <string>
#include <vector>

namespace rooflinectl {

/// One version a variable may name: the number written in the variable and the version string
/// OperatorRun::version() reports for it.
struct KernelVersionChoice {
  int number;
  std::string name;
};

/// The version number that `value` (the variable's text; nullptr when unset) asks for: unset or
/// empty gives `default_number`, the decimal number of one of `choices` gives that number.
/// Throws bad_input "VARIABLE=VALUE: must be 1 (name) or 2 (name)" for anything else (also
/// " 2", "2x", "02").
int parse_kernel_version(const std::string& variable, const char* value,
                         const std::vector<KernelVersionChoice>& choices, int default_number);

}  // namespace rooflinectl
