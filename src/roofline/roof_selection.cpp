#include "roofline/roof_selection.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "roofline/roof_from_counters.hpp"

namespace rooflinectl {

RoofPlan resolve_roof_source(const std::optional<RoofSource>& requested, bool measured_available,
                             const std::string& measured_why_not, bool datasheet_available,
                             bool counters_enabled) {
  const std::string counters_off =
      counters_enabled ? "" : "; counters are disabled (--no-counters), so no point gets a roof";
  if (!requested) {
    if (measured_available) return RoofPlan{RoofSource::kMeasured, ""};
    if (datasheet_available) return RoofPlan{RoofSource::kDatasheet, ""};
    return RoofPlan{RoofSource::kCounters,
                    "no measured ceilings cached and the GPU is not in the datasheet table: using "
                    "counter-derived peaks" +
                        counters_off};
  }
  switch (*requested) {
    case RoofSource::kMeasured:
      if (!measured_available) {
        throw environment_error(fmt::format(
            "--roof measured: no measured ceilings for this GPU ({}); run `rooflinectl peaks` "
            "first",
            measured_why_not));
      }
      return RoofPlan{RoofSource::kMeasured, ""};
    case RoofSource::kDatasheet:
      if (!datasheet_available) {
        return RoofPlan{RoofSource::kCounters,
                        "--roof datasheet: the GPU is not in the datasheet table; using "
                        "counter-derived peaks instead" +
                            counters_off};
      }
      return RoofPlan{RoofSource::kDatasheet, ""};
    case RoofSource::kCounters:
      if (!counters_enabled) {
        throw bad_input(
            "invalid --roof counters with --no-counters: counter-derived roofs need the counter "
            "pass (drop --no-counters, or use --roof datasheet|measured)");
      }
      return RoofPlan{RoofSource::kCounters, ""};
  }
  return RoofPlan{};
}

CeilingKind compute_ceiling_kind(Pipe pipe, Dtype dtype) {
  if (pipe == Pipe::kFp32) return CeilingKind::kFp32;
  return dtype == Dtype::kFp16 ? CeilingKind::kTensorFp16 : CeilingKind::kTensorBf16;
}

std::optional<Roof> roof_from_peak_set(const PeakSet& set, Pipe pipe, Dtype dtype,
                                       std::string& null_reason) {
  const std::string name = to_string(set.source);
  if (set.null_reason) {
    null_reason = fmt::format("no {} peaks: {}", name, *set.null_reason);
    return std::nullopt;
  }
  const CeilingKind kind = compute_ceiling_kind(pipe, dtype);
  const Ceiling& compute = set.get(kind);
  if (!compute.value || !(*compute.value > 0)) {
    null_reason = fmt::format("no {} {} ceiling: {}", name, ceiling_label(kind), compute.source);
    return std::nullopt;
  }
  if (!set.dram.value || !(*set.dram.value > 0)) {
    null_reason = fmt::format("no {} DRAM ceiling: {}", name, set.dram.source);
    return std::nullopt;
  }
  Roof roof;
  roof.pipe = pipe;
  roof.peak_flop_per_s = *compute.value;
  roof.peak_bytes_per_s = *set.dram.value;
  roof.source_kind = set.source;
  roof.source =
      fmt::format("{}: {} {:.4g} TFLOP/s [{}]; DRAM {:.4g} TB/s [{}]", name, ceiling_label(kind),
                  *compute.value / 1e12, compute.source, *set.dram.value / 1e12, set.dram.source);
  return roof;
}

std::optional<Roof> select_point_roof(RoofSource source, Pipe pipe, Dtype dtype,
                                      const PeaksBlock& block, const CounterResult& counters,
                                      int cc_major, int cc_minor, std::string& null_reason) {
  switch (source) {
    case RoofSource::kDatasheet:
      return roof_from_peak_set(block.datasheet, pipe, dtype, null_reason);
    case RoofSource::kMeasured:
      return roof_from_peak_set(block.measured, pipe, dtype, null_reason);
    case RoofSource::kCounters:
      break;
  }
  return roof_from_counters(counters, pipe, cc_major, cc_minor, null_reason);
}

}  // namespace rooflinectl
