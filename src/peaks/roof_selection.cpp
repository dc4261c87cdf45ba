#include "peaks/roof_selection.hpp"

#include <fmt/format.h>

#include <vector>

#include "core/error.hpp"
#include "peaks/peak_sources.hpp"
#include "peaks/roof_from_counters.hpp"

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

CeilingKind compute_ceiling_kind(Pipe pipe, Dtype dtype, bool fp8_inputs) {
  if (pipe == Pipe::kFp32) return CeilingKind::kFp32;
  if (fp8_inputs) return CeilingKind::kTensorFp8;
  return dtype == Dtype::kFp16 ? CeilingKind::kTensorFp16 : CeilingKind::kTensorBf16;
}

std::optional<Roof> roof_from_peak_set(const PeakSet& set, Pipe pipe, Dtype dtype,
                                       std::string& null_reason, bool fp8_inputs) {
  const std::string name = to_string(set.source);
  if (set.null_reason) {
    null_reason = fmt::format("no {} peaks: {}", name, *set.null_reason);
    return std::nullopt;
  }
  const CeilingKind kind = compute_ceiling_kind(pipe, dtype, fp8_inputs);
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

namespace {

/// One source's L2 ceiling for a point: the value with its source text, or why there is none.
struct L2Candidate {
  RoofSource source = RoofSource::kDatasheet;
  Ceiling ceiling;
};

L2Candidate l2_from_peak_set(const PeakSet& set) {
  const std::string name = to_string(set.source);
  if (set.null_reason) return {set.source, Ceiling{std::nullopt, *set.null_reason}};
  if (!set.l2.value || !(*set.l2.value > 0)) {
    return {set.source, Ceiling{std::nullopt, set.l2.source}};
  }
  return {set.source, Ceiling{set.l2.value, fmt::format("{}: L2 {:.4g} TB/s [{}]", name,
                                                        *set.l2.value / 1e12, set.l2.source)}};
}

// The per-cycle peak × the clock of the point's own kernels, with the text counter_peak_set
// gives the peaks block ("counters: L2 5120 B/cycle x L2 1.755 GHz").
L2Candidate l2_from_counters(const CounterResult& counters, int cc_major, int cc_minor) {
  if (counters.null_reason)
    return {RoofSource::kCounters, Ceiling{std::nullopt, *counters.null_reason}};
  CounterPeakInputs in;
  in.l2_bytes_per_cycle = counters.peaks.l2_bytes_per_cycle;
  in.l2_clock_hz = counters.total.l2_clock_hz;
  return {RoofSource::kCounters, counter_peak_set(in, cc_major, cc_minor, "").l2};
}

}  // namespace

void fill_l2_roof(Roof& roof, RoofSource source, const PeaksBlock& block,
                  const CounterResult& counters, int cc_major, int cc_minor) {
  std::vector<L2Candidate> candidates;
  if (source == RoofSource::kDatasheet) candidates.push_back(l2_from_peak_set(block.datasheet));
  if (source == RoofSource::kMeasured) candidates.push_back(l2_from_peak_set(block.measured));
  candidates.push_back(l2_from_counters(counters, cc_major, cc_minor));
  if (source != RoofSource::kMeasured) candidates.push_back(l2_from_peak_set(block.measured));
  std::string why_not;
  for (const L2Candidate& c : candidates) {
    if (c.ceiling.value) {
      roof.l2_bytes_per_s = c.ceiling.value;
      roof.l2_source_kind = c.source;
      roof.l2_source = c.ceiling.source;
      if (!why_not.empty()) roof.l2_source += " (none from " + why_not + ")";
      return;
    }
    why_not +=
        fmt::format("{}{}: {}", why_not.empty() ? "" : "; ", to_string(c.source), c.ceiling.source);
  }
  roof.l2_bytes_per_s.reset();
  roof.l2_source_kind.reset();
  roof.l2_source = why_not;
}

std::optional<Roof> select_point_roof(RoofSource source, Pipe pipe, Dtype dtype,
                                      const PeaksBlock& block, const CounterResult& counters,
                                      int cc_major, int cc_minor, std::string& null_reason,
                                      bool fp8_inputs) {
  std::optional<Roof> roof;
  switch (source) {
    case RoofSource::kDatasheet:
      roof = roof_from_peak_set(block.datasheet, pipe, dtype, null_reason, fp8_inputs);
      break;
    case RoofSource::kMeasured:
      roof = roof_from_peak_set(block.measured, pipe, dtype, null_reason, fp8_inputs);
      break;
    case RoofSource::kCounters:
      roof = roof_from_counters(counters, pipe, fp8_inputs, cc_major, cc_minor, null_reason);
      break;
  }
  if (roof) fill_l2_roof(*roof, source, block, counters, cc_major, cc_minor);
  return roof;
}

}  // namespace rooflinectl
