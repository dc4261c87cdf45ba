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

std::string to_string(RoofLevel level) {
  switch (level) {
    case RoofLevel::kDram:
      return "dram";
    case RoofLevel::kL2:
      return "l2";
    case RoofLevel::kCompute:
      return "compute";
  }
  return "unknown";
}

RoofLevel parse_roof_level(const std::string& text) {
  if (text == "dram") return RoofLevel::kDram;
  if (text == "l2") return RoofLevel::kL2;
  if (text == "compute") return RoofLevel::kCompute;
  throw bad_input(fmt::format("invalid roof level '{}': allowed dram, l2, compute", text));
}

namespace {

bool positive_finite(double v) { return std::isfinite(v) && v > 0; }

// The L2 figures of `p` (flop, time_s and roof already set) when the bytes and the roof are
// known, else the reason; then the attainable over both levels and the level that binds.
void place_under_l2(RooflinePoint& p, const L2Bytes& l2) {
  const Roof& roof = p.roof;
  if (l2.bytes && !positive_finite(*l2.bytes)) {
    throw bad_input(
        fmt::format("cannot place point: L2 bytes {} (must be finite and > 0)", *l2.bytes));
  }
  if (roof.l2_bytes_per_s && !positive_finite(*roof.l2_bytes_per_s)) {
    throw bad_input(
        fmt::format("invalid roof: L2 {} B/s (must be finite and > 0)", *roof.l2_bytes_per_s));
  }
  p.binding_level =
      p.dram_attainable_flop_per_s < roof.peak_flop_per_s ? RoofLevel::kDram : RoofLevel::kCompute;
  if (l2.bytes) {
    p.l2_bytes = l2.bytes;
    p.l2_arithmetic_intensity_flop_per_byte = p.flop / *l2.bytes;
    p.achieved_l2_bytes_per_s = *l2.bytes / p.time_s;
  }
  if (roof.l2_bytes_per_s) p.l2_ridge_flop_per_byte = roof.peak_flop_per_s / *roof.l2_bytes_per_s;
  if (!l2.bytes || !roof.l2_bytes_per_s) {
    p.l2_null_reason = !l2.bytes                ? l2.null_reason
                       : roof.l2_source.empty() ? "no L2 roof given"
                                                : "no L2 roof: " + roof.l2_source;
    return;
  }
  p.l2_attainable_flop_per_s = std::min(
      roof.peak_flop_per_s, *p.l2_arithmetic_intensity_flop_per_byte * *roof.l2_bytes_per_s);
  if (*p.l2_attainable_flop_per_s < p.attainable_flop_per_s) {
    p.attainable_flop_per_s = *p.l2_attainable_flop_per_s;
    p.binding_level = RoofLevel::kL2;
  }
}

// With the in-window DRAM bytes known: whether the achieved FLOP/s stays under the compute roof,
// the DRAM slope at the in-window intensity (no ceiling when no byte moved in the window) and the
// L2 slope when known.
bool under_every_ceiling_in_window(const RooflinePoint& p) {
  if (!p.dram_bytes_in_window) return false;
  const double dram_in_window =
      p.in_window_arithmetic_intensity_flop_per_byte
          ? attainable_flop_per_s(p.roof, *p.in_window_arithmetic_intensity_flop_per_byte)
          : p.roof.peak_flop_per_s;
  const double l2 = p.l2_attainable_flop_per_s.value_or(p.roof.peak_flop_per_s);
  return p.achieved_flop_per_s <= std::min({p.roof.peak_flop_per_s, dram_in_window, l2});
}

}  // namespace

RooflinePoint place_on_roofline(const Roof& roof, double flop, double dram_bytes, double time_s,
                                const std::string& basis, const L2Bytes& l2,
                                std::optional<double> dram_bytes_in_window) {
  if (!positive_finite(flop) || !positive_finite(dram_bytes) || !positive_finite(time_s)) {
    throw bad_input(fmt::format(
        "cannot place point: flop {}, dram bytes {}, time {} s (all must be finite and > 0)", flop,
        dram_bytes, time_s));
  }
  if (dram_bytes_in_window &&
      !(std::isfinite(*dram_bytes_in_window) && *dram_bytes_in_window >= 0 &&
        *dram_bytes_in_window <= dram_bytes)) {
    throw bad_input(fmt::format(
        "cannot place point: in-window DRAM bytes {} (must be finite, >= 0 and at most the {} "
        "DRAM bytes they are part of)",
        *dram_bytes_in_window, dram_bytes));
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
  p.dram_attainable_flop_per_s = attainable_flop_per_s(roof, p.arithmetic_intensity_flop_per_byte);
  p.dram_bytes_in_window = dram_bytes_in_window;
  if (dram_bytes_in_window && *dram_bytes_in_window > 0) {
    p.in_window_arithmetic_intensity_flop_per_byte = flop / *dram_bytes_in_window;
  }
  p.attainable_flop_per_s = p.dram_attainable_flop_per_s;
  place_under_l2(p, l2);
  p.fraction_of_roof = p.achieved_flop_per_s / p.attainable_flop_per_s;
  p.write_back_after_window = p.fraction_of_roof > 1.0 && p.binding_level == RoofLevel::kDram &&
                              under_every_ceiling_in_window(p);
  p.above_roof = p.fraction_of_roof > 1.0 && !p.write_back_after_window;
  p.bound = p.arithmetic_intensity_flop_per_byte < p.ridge_flop_per_byte ? Bound::kMemory
                                                                         : Bound::kCompute;
  return p;
}

std::optional<double> in_window_dram_fraction(const RooflinePoint& point) {
  if (!point.dram_bytes_in_window) return std::nullopt;
  return *point.dram_bytes_in_window / point.time_s / point.roof.peak_bytes_per_s;
}

}  // namespace rooflinectl
