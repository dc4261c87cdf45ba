// libFuzzer harness for the --seq parser: any input either parses into lengths that satisfy the
// documented contract or throws the project's bad-input Error; nothing else (no crash, no
// other exception, no overflow: built with ASan and UBSan).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.hpp"
#include "core/seq_range.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  try {
    const auto lengths = rooflinectl::parse_seq_spec(spec);
    if (lengths.empty()) std::abort();
    for (const int64_t length : lengths) {
      if (length < 1 || length > INT32_MAX) std::abort();
    }
  } catch (const rooflinectl::Error& e) {
    if (e.exit_code() != rooflinectl::ExitCode::kBadInput) std::abort();
  }
  return 0;
}
