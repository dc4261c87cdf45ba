// Several points in one range-profiler collection: which ranges are whose. A collection (one
// CUPTI start/stop) costs about 30 ms whatever it holds, and each range about 1 ms more on the
// H200 (docs/counter-method.md), so a sweep profiles several small points per collection: the
// first point's flush runs unprofiled before the start, every later point's flush is profiled
// (its ranges dropped here), then each point's kernels and, in the byte session, its write-back
// sweep. Auto ranges carry no names that tell launches apart (CUDA 13.0 on the H200 names them by
// a running index, docs/perf-notes.md), so the split goes by counts, and a collection whose range
// count is not the one its layout predicts is refused rather than guessed at.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rooflinectl {

/// One range: metric name → value, as ProfilerSession::profile returns them.
using CounterRange = std::map<std::string, double>;

/// How each point's launches show as auto ranges in a shared collection.
struct CollectionLayout {
  /// Kernel ranges of each point's launch, in collection order (OperatorRun::kernel_names).
  std::vector<size_t> kernel_ranges;
  size_t flush_ranges = 0;  ///< ranges of one L2 flush (profiled for every point but the first)
  size_t sweep_ranges = 0;  ///< ranges of one write-back sweep after each launch (0: none)
};

/// Ranges the collection of `layout` records: Σ kernel ranges, plus sweep_ranges per point, plus
/// flush_ranges per point after the first; 0 for no point.
size_t collection_range_count(const CollectionLayout& layout);

/// `ranges` (one collection, in launch order) cut into one vector per point of `layout`: its
/// kernel ranges, then its sweep ranges, each point's flush dropped; the shape one point's own
/// session returns (CounterEngine::bytes_pass, follow_up_pass). nullopt when ranges.size() is not
/// collection_range_count(layout) (a launch enqueued more or fewer kernels than its names say, or
/// the flush's range count changed): the caller then profiles the points one by one.
std::optional<std::vector<std::vector<CounterRange>>> split_collection(
    const std::vector<CounterRange>& ranges, const CollectionLayout& layout);

}  // namespace rooflinectl
