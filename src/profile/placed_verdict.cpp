#include "profile/placed_verdict.hpp"

#include <fmt/format.h>

namespace rooflinectl {

std::string verdict_percent(double fraction) {
  if (fraction > 0.0 && fraction < 0.005) return "<1%";
  return fmt::format("{:.0f}%", 100.0 * fraction);
}

std::string placed_verdict(const RooflinePoint& point, const FlopPipe& pipe) {
  const std::optional<double> in_window = in_window_dram_fraction(point);
  const std::string write_back =
      point.write_back_after_window && in_window
          ? fmt::format(
                "; above the DRAM slope by write-back after the kernel, in window {} of the DRAM "
                "roof",
                verdict_percent(*in_window))
          : "";
  return fmt::format("{}-bound, {} of its roof ({} FLOPs{})", to_string(point.bound),
                     verdict_percent(point.fraction_of_roof), pipe.label, write_back);
}

}  // namespace rooflinectl
