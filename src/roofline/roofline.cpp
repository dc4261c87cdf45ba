#include "roofline/roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace rooflinectl {

double ridge_point_flop_per_byte(const Roof& roof) {
  if (!(roof.peak_flop_per_s > 0) || !(roof.peak_bytes_per_s > 0)) {
    throw bad_input(fmt::format("invalid roof: peak {} FLOP/s, {} B/s (both must be > 0)",
                                roof.peak_flop_per_s, roof.peak_bytes_per_s));
  }
  return roof.peak_flop_per_s / roof.peak_bytes_per_s;
}

double attainable_flop_per_s(const Roof& roof, double intensity_flop_per_byte) {
  return std::min(roof.peak_flop_per_s, intensity_flop_per_byte * roof.peak_bytes_per_s);
}

std::string to_string(Bound bound) { return bound == Bound::kMemory ? "memory" : "compute"; }

Bound parse_bound(const std::string& text) {
  if (text == "memory") return Bound::kMemory;
  if (text == "compute") return Bound::kCompute;
  throw bad_input(fmt::format("invalid bound '{}': allowed memory, compute", text));
}

RooflinePoint place_on_roofline(const Roof& roof, double flop, double dram_bytes, double time_s,
                                const std::string& basis) {
  if (!(flop > 0) || !(dram_bytes > 0) || !(time_s > 0) || !std::isfinite(flop) ||
      !std::isfinite(dram_bytes) || !std::isfinite(time_s)) {
    throw bad_input(fmt::format(
        "cannot place point: flop {}, dram bytes {}, time {} s (all must be finite and > 0)", flop,
        dram_bytes, time_s));
  }
  RooflinePoint p;
  p.roof = roof;
  p.flop = flop;
  p.dram_bytes = dram_bytes;
  p.time_s = time_s;
  p.basis = basis;
  p.ridge_flop_per_byte = ridge_point_flop_per_byte(roof);
  p.arithmetic_intensity_flop_per_byte = flop / dram_bytes;
  p.achieved_flop_per_s = flop / time_s;
  p.achieved_bytes_per_s = dram_bytes / time_s;
  p.attainable_flop_per_s = attainable_flop_per_s(roof, p.arithmetic_intensity_flop_per_byte);
  p.fraction_of_roof = p.achieved_flop_per_s / p.attainable_flop_per_s;
  p.above_roof = p.fraction_of_roof > 1.0;
  p.bound = p.arithmetic_intensity_flop_per_byte < p.ridge_flop_per_byte ? Bound::kMemory
                                                                         : Bound::kCompute;
  return p;
}

}  // namespace rooflinectl
