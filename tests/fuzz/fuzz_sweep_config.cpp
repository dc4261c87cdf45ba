// libFuzzer harness for the sweep-config loader: any text either gives a config that
// validate_sweep_config accepts or rejects with a bad-input Error, or is refused by
// parse_sweep_config with one; never a crash or another exception (ASan + UBSan build).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/sweep_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const rooflinectl::SweepConfig config = rooflinectl::parse_sweep_config(text, "fuzz.json");
    rooflinectl::validate_sweep_config(config);
  } catch (const rooflinectl::Error& e) {
    if (e.exit_code() != rooflinectl::ExitCode::kBadInput) std::abort();
  }
  return 0;
}
