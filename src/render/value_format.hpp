// Short human-readable renderings of report values (SI values in, text with units out), shared
// by the Markdown writer, the attention summary and the SVG charts. Pure; never throws.
#pragma once

#include <optional>
#include <string>

namespace rooflinectl {

/// Shown for a value that is not there (nullopt or non-finite).
inline constexpr const char* kNoValue = "-";

/// About three significant digits in fixed notation: 869, 86.9, 8.69, 0.869; below 1e-3 two
/// significant digits in exponent form. kNoValue when not finite.
std::string format_3sig(double v);

/// Seconds as "7.30 ns" or "656 ns" (below 1 µs, three significant digits), "35.8 µs", "1.45 ms" or
/// "2.310 s". kNoValue when not finite.
std::string format_time_s(double seconds);

/// Bytes in binary units: "512 KiB", "56.0 MiB", "1.25 GiB". kNoValue when nullopt/not finite.
std::string format_bytes(std::optional<double> bytes);

/// A fraction (1.0 = 100%) as "25.5%". kNoValue when nullopt or not finite.
std::string format_percent(std::optional<double> fraction);

/// Rates with a decimal SI prefix and the unit: (6.18e13, "FLOP/s") → "61.8 TFLOP/s",
/// (1.43e7, "tokens/s") → "14.3 Mtokens/s"; prefixes k to Z (1e21), beyond Z the Z figure grows.
/// kNoValue when not finite.
std::string format_si(double v, const std::string& unit);

}  // namespace rooflinectl
