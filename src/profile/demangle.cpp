#include "profile/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace rooflinectl {

std::string demangle_kernel_name(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : symbol;
}

}  // namespace rooflinectl
