#include "cupti/collection_split.hpp"

namespace rooflinectl {

size_t collection_range_count(const CollectionLayout& layout) {
  size_t count = 0;
  for (size_t point = 0; point < layout.kernel_ranges.size(); ++point) {
    if (point > 0) count += layout.flush_ranges;
    count += layout.kernel_ranges[point] + layout.sweep_ranges;
  }
  return count;
}

std::optional<std::vector<std::vector<CounterRange>>> split_collection(
    const std::vector<CounterRange>& ranges, const CollectionLayout& layout) {
  if (ranges.size() != collection_range_count(layout)) return std::nullopt;
  std::vector<std::vector<CounterRange>> points;
  points.reserve(layout.kernel_ranges.size());
  size_t next = 0;
  for (size_t point = 0; point < layout.kernel_ranges.size(); ++point) {
    if (point > 0) next += layout.flush_ranges;
    const size_t own = layout.kernel_ranges[point] + layout.sweep_ranges;
    points.emplace_back(ranges.begin() + static_cast<std::ptrdiff_t>(next),
                        ranges.begin() + static_cast<std::ptrdiff_t>(next + own));
    next += own;
  }
  return points;
}

}  // namespace rooflinectl
