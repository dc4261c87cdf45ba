#include "cupti/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

/// The value of `metric` in `range`; std::nullopt when absent or not finite.
std::optional<double> lookup(const std::map<std::string, double>& range, const char* metric) {
  const auto it = range.find(metric);
  if (it == range.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

std::optional<double> scaled(std::optional<double> value, double factor) {
  if (!value) return std::nullopt;
  return *value * factor;
}

KernelCounters kernel_from_range(const std::map<std::string, double>& range, std::string name) {
  KernelCounters k;
  k.name = std::move(name);
  for (const CounterField& f : kCounterFields) {
    k.*f.member = scaled(lookup(range, f.metric), f.per_metric_unit);
  }
  return k;
}

/// Sum of `field` over `kernels`; unknown as soon as one kernel lacks it (a partial sum would
/// silently undercount).
std::optional<double> sum_over(const std::vector<KernelCounters>& kernels, CounterMember field) {
  double sum = 0;
  for (const auto& k : kernels) {
    if (!(k.*field)) return std::nullopt;
    sum += *(k.*field);
  }
  return sum;
}

/// Mean of `field` weighted by each kernel's duration: the clock a reader should pair with the
/// operator's total time. Unknown when a value or duration is missing or the durations sum to 0.
std::optional<double> duration_weighted_mean(const std::vector<KernelCounters>& kernels,
                                             CounterMember field) {
  double weighted = 0;
  double total_s = 0;
  for (const auto& k : kernels) {
    if (!(k.*field) || !k.duration_s) return std::nullopt;
    weighted += *(k.*field) * *k.duration_s;
    total_s += *k.duration_s;
  }
  if (!(total_s > 0)) return std::nullopt;
  return weighted / total_s;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

const std::vector<std::string>& counter_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    const auto add_kind = [&out](CounterKind kind) {
      for (const CounterField& f : kCounterFields) {
        if (f.kind == kind) out.emplace_back(f.metric);
      }
    };
    add_kind(CounterKind::kCount);
    add_kind(CounterKind::kClock);
    for (const CounterPeakField& f : kCounterPeakFields) out.emplace_back(f.metric);
    add_kind(CounterKind::kUtilization);
    return out;
  }();
  return names;
}

const char* tensor_ops_metric(Dtype dtype) {
  return dtype == Dtype::kFp16 ? kMetricTensorFp16Ops : kMetricTensorBf16Ops;
}

std::vector<std::string> byte_metric_candidates(Dtype dtype) {
  return {kMetricDramReadBytes,
          kMetricDramWriteBytes,
          kMetricDurationNs,
          kMetricL2WriteSectors,
          kMetricL2Bytes,
          kMetricSmClockHz,
          kMetricDramClockHz,
          kMetricDramThroughputPct,
          kMetricDramBytesPeakPerCycle,
          kMetricL2ClockHz,
          kMetricL2BytesPeakPerCycle,
          tensor_ops_metric(dtype),
          kMetricTensorBf16PeakPerCycle};
}

const std::vector<std::string>& required_byte_metrics() {
  static const std::vector<std::string> names = {kMetricDramReadBytes, kMetricDramWriteBytes};
  return names;
}

std::vector<std::string> follow_up_metric_names(const std::vector<std::string>& byte_set,
                                                Dtype dtype, bool sm_throughput, MmaInputs extra) {
  const auto contains = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  const std::string own_tensor = tensor_ops_metric(dtype);
  const std::vector<std::string> tensor_ops = {kMetricTensorBf16Ops, kMetricTensorFp16Ops,
                                               kMetricTensorTf32Ops, kMetricTensorFp8Ops};
  const std::vector<std::string> fp64 = {kMetricDfmaInst, kMetricDaddInst, kMetricDmulInst};
  std::vector<std::string> out;
  for (const auto& name : counter_metric_names()) {
    if (contains(byte_set, name) || contains(required_byte_metrics(), name)) continue;
    if (!sm_throughput && name == kMetricSmThroughputPct) continue;
    if (contains(tensor_ops, name) && name != own_tensor &&
        !(extra.bf16 && name == kMetricTensorBf16Ops) &&
        !(extra.fp16 && name == kMetricTensorFp16Ops) &&
        !(extra.fp8 && name == kMetricTensorFp8Ops)) {
      continue;
    }
    if (contains(fp64, name)) continue;
    if (name == kMetricTensorFp8PeakPerCycle && !extra.fp8) continue;
    out.push_back(name);
  }
  return out;
}

const std::vector<std::string>& flop_metric_names() {
  static const std::vector<std::string> names = {
      kMetricTensorBf16Ops, kMetricTensorFp16Ops,   kMetricTensorTf32Ops,   kMetricTensorFp8Ops,
      kMetricFfmaInst,      kMetricFaddInst,        kMetricFmulInst,        kMetricHfmaInst,
      kMetricHaddInst,      kMetricHmulInst,        kMetricDfmaInst,        kMetricDaddInst,
      kMetricDmulInst,      kMetricSmThroughputPct, kMetricFfmaPeakPerCycle};
  return names;
}

FollowUpSets plan_follow_up_sets(
    const std::vector<std::string>& metrics,
    const std::function<int(const std::vector<std::string>&)>& count_passes) {
  FollowUpSets plan;
  for (const auto& metric : metrics) {
    const int alone = count_passes({metric});
    if (alone < 1) {
      throw bad_input(
          fmt::format("metric {} counted at {} passes: expected at least 1", metric, alone));
    }
    if (alone > 1) {
      plan.multi_pass.push_back(metric);
      continue;
    }
    bool placed = false;
    for (auto& set : plan.one_pass) {
      set.push_back(metric);
      if (count_passes(set) == 1) {
        placed = true;
        break;
      }
      set.pop_back();
    }
    if (!placed) plan.one_pass.push_back({metric});
  }
  return plan;
}

CounterResult counters_from_ranges(const std::vector<std::map<std::string, double>>& ranges,
                                   const std::vector<std::string>& kernel_names, int passes,
                                   const std::string& cache_policy) {
  CounterResult result;
  result.passes = passes;
  result.cache_policy = cache_policy;
  result.total.name = "total";
  if (ranges.empty()) {
    result.null_reason = "the profiled launch produced no kernel ranges";
    return result;
  }

  const bool labelled = ranges.size() == kernel_names.size();
  if (!labelled) {
    result.note = fmt::format(
        "{} kernel ranges were profiled but the operator lists {} kernel(s) ({}); ranges are "
        "labelled kernel_<i> in launch order",
        ranges.size(), kernel_names.size(), joined(kernel_names));
  }
  for (size_t i = 0; i < ranges.size(); ++i) {
    result.kernels.push_back(
        kernel_from_range(ranges[i], labelled ? kernel_names[i] : fmt::format("kernel_{}", i)));
  }

  for (const CounterField& f : kCounterFields) {
    result.total.*f.member = f.kind == CounterKind::kCount
                                 ? sum_over(result.kernels, f.member)
                                 : duration_weighted_mean(result.kernels, f.member);
  }
  for (const CounterPeakField& f : kCounterPeakFields) {
    result.peaks.*f.member = lookup(ranges.front(), f.metric);
  }
  return result;
}

bool byte_session_has_foreign_writes(const std::vector<std::map<std::string, double>>& bytes) {
  if (bytes.size() < 2) return false;
  double writes = 0;
  double stores = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto write = lookup(bytes[i], kMetricDramWriteBytes);
    if (!write) return false;
    writes += *write;
    if (i + 1 == bytes.size()) break;  // the sweep's stores are not the kernels'
    const auto sectors = lookup(bytes[i], kMetricL2WriteSectors);
    if (!sectors) return false;
    stores += *sectors * kBytesPerSector;
  }
  return writes > stores * (1.0 + kForeignWriteRelativeSlack) + kForeignWriteSlackBytes;
}

CounterResult counters_from_passes(const CounterPassRanges& ranges,
                                   const std::vector<std::string>& kernel_names,
                                   std::vector<CounterSession> sessions,
                                   const std::string& cache_policy,
                                   const std::string& sweep_method) {
  using Range = std::map<std::string, double>;
  // The kernels are the byte session's ranges but its last (the write-back sweep).
  size_t kernels = ranges.bytes.empty() ? 0 : ranges.bytes.size() - 1;
  bool paired = !ranges.bytes.empty();
  for (const auto& session : ranges.follow_up) {
    paired = paired && session.size() == kernels;
    kernels = std::min(kernels, session.size());
  }
  std::vector<Range> merged;
  for (size_t i = 0; i < kernels; ++i) {
    Range range = ranges.bytes[i];
    for (const auto& session : ranges.follow_up) range.insert(session[i].begin(), session[i].end());
    merged.push_back(std::move(range));
  }
  int passes = 0;
  for (const auto& session : sessions) passes = std::max(passes, session.passes);
  if (ranges.session_wall_times_s.size() == sessions.size()) {
    for (size_t i = 0; i < sessions.size(); ++i) {
      sessions[i].wall_time_s = ranges.session_wall_times_s[i];
    }
  }
  if (ranges.session_points.size() == sessions.size()) {
    for (size_t i = 0; i < sessions.size(); ++i) {
      sessions[i].points_in_collection = ranges.session_points[i];
    }
  }
  CounterResult result = counters_from_ranges(merged, kernel_names, passes, cache_policy);
  result.sessions = std::move(sessions);
  result.writeback_method = sweep_method;
  if (ranges.byte_attempts > 1) {
    const std::string repeated = fmt::format(
        "byte session run {} times: DRAM writes above the kernels' L2 store bytes (writes no "
        "kernel made){}",
        ranges.byte_attempts,
        byte_session_has_foreign_writes(ranges.bytes) ? ", still in the last run" : "");
    result.note += (result.note.empty() ? "" : "; ") + repeated;
  }
  if (!paired) {
    std::string counts;
    for (const auto& session : ranges.follow_up) counts += fmt::format(", {}", session.size());
    const std::string mismatch = fmt::format(
        "the sessions recorded different range counts (byte session {}, then{}; expected the "
        "kernels, plus one write-back sweep in the byte session): ranges merged by launch order, "
        "write-back not measured",
        ranges.bytes.size(), counts.empty() ? " none" : counts.substr(1));
    result.note += (result.note.empty() ? "" : "; ") + mismatch;
    result.writeback_null_reason = mismatch;
    return result;
  }
  result.dram_writeback_bytes = lookup(ranges.bytes.back(), kMetricDramWriteBytes);
  if (!result.dram_writeback_bytes) {
    result.writeback_null_reason = "the write-back sweep's DRAM write counter was not readable";
  }
  return result;
}

}  // namespace rooflinectl
