#include "render/value_format.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace rooflinectl {

std::string format_3sig(double v) {
  if (!std::isfinite(v)) return kNoValue;
  const double magnitude = std::fabs(v);
  if (magnitude != 0 && magnitude < 1e-3) return fmt::format("{:.2g}", v);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  return fmt::format("{:.{}f}", v, decimals);
}

std::string format_time_s(double seconds) {
  if (!std::isfinite(seconds)) return kNoValue;
  if (seconds > 0.0 && seconds < 1e-6) return format_3sig(seconds * 1e9) + " ns";
  if (seconds < 1e-3) return fmt::format("{:.1f} µs", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

std::string format_bytes(std::optional<double> bytes) {
  if (!bytes || !std::isfinite(*bytes)) return kNoValue;
  constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = *bytes;
  size_t unit = 0;
  while (std::fabs(v) >= 1024 && unit + 1 < kUnits.size()) {
    v /= 1024;
    ++unit;
  }
  return format_3sig(v) + " " + kUnits[unit];
}

std::string format_percent(std::optional<double> fraction) {
  if (!fraction || !std::isfinite(*fraction)) return kNoValue;
  return fmt::format("{:.1f}%", *fraction * 100.0);
}

std::string format_si(double v, const std::string& unit) {
  if (!std::isfinite(v)) return kNoValue;
  struct Prefix {
    double scale;
    const char* symbol;
  };
  constexpr std::array<Prefix, 8> kPrefixes = {{{1e21, "Z"},
                                                {1e18, "E"},
                                                {1e15, "P"},
                                                {1e12, "T"},
                                                {1e9, "G"},
                                                {1e6, "M"},
                                                {1e3, "k"},
                                                {1, ""}}};
  for (const auto& p : kPrefixes) {
    if (std::fabs(v) >= p.scale) return format_3sig(v / p.scale) + " " + p.symbol + unit;
  }
  return format_3sig(v) + " " + unit;
}

}  // namespace rooflinectl
