#include "profile/placed_verdict.hpp"

#include <fmt/format.h>

namespace rooflinectl {

std::string placed_verdict(const RooflinePoint& point, const FlopPipe& pipe) {
  const std::optional<double> in_window = in_window_dram_fraction(point);
  const std::string write_back =
      point.write_back_after_window && in_window
          ? fmt::format(
                "; above the DRAM slope by write-back after the kernel, in window {:.0f}% of the "
                "DRAM roof",
                100.0 * *in_window)
          : "";
  return fmt::format("{}-bound, {:.0f}% of its roof ({} FLOPs{})", to_string(point.bound),
                     100.0 * point.fraction_of_roof, pipe.label, write_back);
}

}  // namespace rooflinectl
