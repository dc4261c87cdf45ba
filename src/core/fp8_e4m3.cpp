#include "core/fp8_e4m3.hpp"

#include <cmath>
#include <limits>

namespace rooflinectl {

double e4m3_to_double(uint8_t bits) {
  const int exponent = (bits >> 3) & 0xf;
  const int mantissa = bits & 0x7;
  if (exponent == 0xf && mantissa == 0x7) return std::numeric_limits<double>::quiet_NaN();
  const double magnitude = exponent == 0 ? std::ldexp(mantissa / 8.0, -6)
                                         : std::ldexp(1.0 + mantissa / 8.0, exponent - 7);
  return (bits & 0x80) != 0 ? -magnitude : magnitude;
}

}  // namespace rooflinectl
