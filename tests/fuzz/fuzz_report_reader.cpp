// libFuzzer harness for the report reader (compare and plot read reports users hand them): any
// text either loads, and then writes back to JSON that loads again to the same text, or is
// refused with a bad-input Error; never a crash or another exception (ASan + UBSan build).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  rooflinectl::Report report;
  try {
    report = rooflinectl::report_from_json_text(text, "fuzz.json");
  } catch (const rooflinectl::Error& e) {
    if (e.exit_code() != rooflinectl::ExitCode::kBadInput) std::abort();
    return 0;
  }
  // What was read must be writable (no NaN/Inf reaches the file) and read back identically.
  const std::string written = rooflinectl::report_to_json_text(report);
  try {
    const rooflinectl::Report again = rooflinectl::report_from_json_text(written, "rewritten");
    if (rooflinectl::report_to_json_text(again) != written) std::abort();
  } catch (const rooflinectl::Error&) {
    std::abort();
  }
  return 0;
}
