#include "sweep/sweep_roofs.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

#include "device/gpu_spec.hpp"
#include "peaks/peak_sources.hpp"
#include "peaks/peaks_cache.hpp"
#include "peaks/peaks_key.hpp"
#include "peaks/roof_selection.hpp"

namespace rooflinectl {

PeaksBlock prepare_sweep_roofs(const DeviceRecord& device,
                               const std::optional<RoofSource>& requested, bool counters_enabled,
                               std::ostream& progress) {
  PeaksBlock block;
  block.requested = requested;
  const GpuSpec* spec =
      match_gpu_spec(device.name, device.cc_major, device.cc_minor, device.sm_count);
  block.datasheet =
      datasheet_peak_set(spec, device.name, device.cc_major, device.cc_minor, device.sm_count);

  std::string why_not;
  std::optional<PeaksRecord> cached;
  if (const auto dir = default_peaks_cache_dir()) {
    const PeaksKey key = query_peaks_key(device.index);
    cached = load_peaks_cache(*dir, key, why_not);
    if (cached) block.measured_cache = fmt::format("{}/{}", *dir, peaks_cache_file_name(key));
  } else {
    why_not = "no cache directory: neither XDG_CACHE_HOME nor HOME is set";
  }
  block.measured = cached ? cached->measured
                          : unavailable_peak_set(RoofSource::kMeasured,
                                                 why_not + "; run `rooflinectl peaks` to measure");
  block.counters = unavailable_peak_set(RoofSource::kCounters, "no point has been measured yet");

  const RoofPlan plan = resolve_roof_source(requested, cached.has_value(), why_not, spec != nullptr,
                                            counters_enabled);
  block.used = plan.source;
  block.note = plan.note;
  if (!plan.note.empty()) fmt::print(progress, "notice: {}\n", plan.note);
  fmt::print(progress, "roofs: {}{}\n", to_string(block.used),
             block.used == RoofSource::kMeasured ? " (" + block.measured_cache + ")" : "");
  return block;
}

void finish_sweep_roofs(PeaksBlock& block, const std::vector<PointResult>& points,
                        const DeviceRecord& device) {
  for (const auto& p : points) {
    const CounterResult& c = p.counters;
    if (c.null_reason || !c.peaks.dram_bytes_per_cycle) continue;
    CounterPeakInputs in;
    in.dram_bytes_per_cycle = c.peaks.dram_bytes_per_cycle;
    in.l2_bytes_per_cycle = c.peaks.l2_bytes_per_cycle;
    in.ffma_inst_per_cycle = c.peaks.ffma_inst_per_cycle;
    in.tensor_bf16_per_cycle = c.peaks.tensor_bf16_per_cycle;
    // Read only at FP8 GEMM points' sweeps; any point that has it gives it (a per-cycle constant).
    for (const auto& other : points) {
      if (other.counters.null_reason || !other.counters.peaks.tensor_fp8_per_cycle) continue;
      in.tensor_fp8_per_cycle = other.counters.peaks.tensor_fp8_per_cycle;
      break;
    }
    in.sm_clock_hz = c.total.sm_clock_hz;
    in.dram_clock_hz = c.total.dram_clock_hz;
    in.l2_clock_hz = c.total.l2_clock_hz;
    block.counters = counter_peak_set(
        in, device.cc_major, device.cc_minor,
        fmt::format("CUPTI peak_sustained per cycle x the clocks measured during {} L={} (each "
                    "point's counters roof uses its own kernels' clocks); the sweep does not "
                    "collect the fp16 tensor peak, and the fp8 one only with FP8 GEMM points "
                    "(see `rooflinectl peaks`)",
                    p.op, p.shape.seq_len));
    return;
  }
  for (const auto& p : points) {
    if (p.counters.null_reason) {
      block.counters = unavailable_peak_set(RoofSource::kCounters, *p.counters.null_reason);
      return;
    }
  }
}

}  // namespace rooflinectl
