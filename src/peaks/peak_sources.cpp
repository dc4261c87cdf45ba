#include "peaks/peak_sources.hpp"

#include <fmt/format.h>

#include <cmath>

#include "device/gpu_spec.hpp"
#include "peaks/roof_from_counters.hpp"

namespace rooflinectl {
namespace {

constexpr double kGiga = 1e9;

/// The spec value as a ceiling; a missing (<= 0 or non-finite) value is null with a reason.
Ceiling spec_ceiling(const SpecValue& v, const std::string& what) {
  if (std::isfinite(v.value) && v.value > 0) return Ceiling{v.value, "datasheet: " + v.source};
  return Ceiling{std::nullopt, "no " + what + " figure in the datasheet table"};
}

/// per_cycle × clock, or null naming what is missing.
Ceiling per_cycle_ceiling(const std::optional<double>& per_cycle,
                          const std::optional<double>& clock_hz, double factor,
                          const std::string& per_cycle_text, const std::string& clock_name) {
  if (!per_cycle || !(*per_cycle > 0)) {
    return Ceiling{std::nullopt, "counter peak_sustained not collected"};
  }
  if (!clock_hz || !(*clock_hz > 0)) {
    return Ceiling{std::nullopt, clock_name + " clock not measured"};
  }
  return Ceiling{
      factor * *per_cycle * *clock_hz,
      fmt::format("counters: {} x {} {:.4g} GHz", per_cycle_text, clock_name, *clock_hz / kGiga)};
}

}  // namespace

PeakSet measured_peak_set(const std::vector<PeakBenchmarkRecord>& benchmarks,
                          const std::string& description) {
  if (benchmarks.empty()) {
    return unavailable_peak_set(RoofSource::kMeasured, "no benchmark ran");
  }
  PeakSet set;
  set.source = RoofSource::kMeasured;
  set.description = description;
  for (const CeilingKind kind : kAllCeilingKinds) {
    const PeakBenchmarkRecord* best = nullptr;
    int candidates = 0;
    for (const auto& b : benchmarks) {
      if (b.kind != kind || !b.rate || !std::isfinite(*b.rate) || !(*b.rate > 0)) continue;
      ++candidates;
      if (best == nullptr || *b.rate > *best->rate) best = &b;
    }
    if (best == nullptr) {
      set.get(kind) = Ceiling{std::nullopt, "no " + ceiling_label(kind) + " benchmark succeeded"};
      continue;
    }
    set.get(kind) = Ceiling{
        best->rate, fmt::format("measured: {} (best of {} {} benchmarks, median of {} runs)",
                                best->label, candidates, ceiling_label(kind), best->repetitions)};
  }
  return set;
}

PeakSet datasheet_peak_set(const GpuSpec* spec, const std::string& device_name, int cc_major,
                           int cc_minor, int sm_count) {
  if (spec == nullptr) {
    return unavailable_peak_set(
        RoofSource::kDatasheet,
        fmt::format("'{}' (cc {}.{}, {} SMs) is not in the builtin GPU table", device_name,
                    cc_major, cc_minor, sm_count));
  }
  PeakSet set;
  set.source = RoofSource::kDatasheet;
  set.description = fmt::format("datasheet: {} ({})", spec->name, spec->id);
  set.dram = spec_ceiling(spec->hbm_bytes_per_s, "HBM bandwidth");
  set.l2 = Ceiling{std::nullopt, "datasheets give no L2 bandwidth"};
  set.fp32 = spec_ceiling(spec->fp32_flop_per_s, "fp32 (non-tensor)");
  const auto tensor = [&](const char* dtype) {
    const auto it = spec->dense_tensor_flop_per_s.find(dtype);
    if (it == spec->dense_tensor_flop_per_s.end()) {
      return Ceiling{std::nullopt, fmt::format("no dense {} tensor figure in the table", dtype)};
    }
    return spec_ceiling(it->second, fmt::format("dense {} tensor", dtype));
  };
  set.tensor_bf16 = tensor("bf16");
  set.tensor_fp16 = tensor("fp16");
  set.tensor_fp8 = tensor("fp8");
  return set;
}

PeakSet counter_peak_set(const CounterPeakInputs& in, int cc_major, int cc_minor,
                         const std::string& description) {
  PeakSet set;
  set.source = RoofSource::kCounters;
  set.description = description;
  const auto bytes_text = [](const std::optional<double>& v) {
    return fmt::format("{:.0f} B/cycle", v.value_or(0));
  };
  set.dram = per_cycle_ceiling(in.dram_bytes_per_cycle, in.dram_clock_hz, 1.0,
                               "DRAM " + bytes_text(in.dram_bytes_per_cycle), "DRAM");
  set.l2 = per_cycle_ceiling(in.l2_bytes_per_cycle, in.l2_clock_hz, 1.0,
                             "L2 " + bytes_text(in.l2_bytes_per_cycle), "L2");
  set.fp32 = per_cycle_ceiling(
      in.ffma_inst_per_cycle, in.sm_clock_hz, 2.0,
      fmt::format("2 FLOP x {:.0f} FFMA/cycle", in.ffma_inst_per_cycle.value_or(0)), "SM");
  const bool sparse = tensor_counter_peak_is_sparse_rate(cc_major, cc_minor);
  const double dense_factor = sparse ? 0.5 : 1.0;
  const auto tensor_text = [&](const std::optional<double>& v) {
    const std::string rule = sparse ? " / 2 (counter reads the 2:4-sparse rate on sm_90)"
                                    : " (dense vs sparse not verified on this architecture)";
    return fmt::format("{:.4g} FLOP/cycle{}", v.value_or(0), rule);
  };
  set.tensor_bf16 = per_cycle_ceiling(in.tensor_bf16_per_cycle, in.sm_clock_hz, dense_factor,
                                      "tensor bf16 " + tensor_text(in.tensor_bf16_per_cycle), "SM");
  set.tensor_fp16 = per_cycle_ceiling(in.tensor_fp16_per_cycle, in.sm_clock_hz, dense_factor,
                                      "tensor fp16 " + tensor_text(in.tensor_fp16_per_cycle), "SM");
  set.tensor_fp8 = per_cycle_ceiling(in.tensor_fp8_per_cycle, in.sm_clock_hz, dense_factor,
                                     "tensor fp8 " + tensor_text(in.tensor_fp8_per_cycle), "SM");
  return set;
}

}  // namespace rooflinectl
