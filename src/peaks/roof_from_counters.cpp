#include "peaks/roof_from_counters.hpp"

#include <fmt/format.h>

namespace rooflinectl {

bool tensor_counter_peak_is_sparse_rate(int cc_major, int cc_minor) {
  return cc_major == 9 && cc_minor == 0;
}

std::optional<Roof> roof_from_counters(const CounterResult& counters, Pipe pipe, bool fp8_inputs,
                                       int cc_major, int cc_minor, std::string& null_reason) {
  if (counters.null_reason) {
    null_reason = "no counters: " + *counters.null_reason;
    return std::nullopt;
  }
  const CounterPeaks& peaks = counters.peaks;
  const auto& sm_clock = counters.total.sm_clock_hz;
  const auto& dram_clock = counters.total.dram_clock_hz;
  if (!peaks.dram_bytes_per_cycle || !dram_clock) {
    null_reason = "DRAM peak or DRAM clock not measured";
    return std::nullopt;
  }
  if (!sm_clock) {
    null_reason = "SM clock not measured";
    return std::nullopt;
  }
  Roof roof;
  roof.pipe = pipe;
  roof.source_kind = RoofSource::kCounters;
  roof.peak_bytes_per_s = *peaks.dram_bytes_per_cycle * *dram_clock;
  const std::string bw_source = fmt::format("DRAM {:.0f} B/cycle x {:.4g} GHz",
                                            *peaks.dram_bytes_per_cycle, *dram_clock / 1e9);
  if (pipe == Pipe::kFp32) {
    if (!peaks.ffma_inst_per_cycle) {
      null_reason = "FFMA peak not measured";
      return std::nullopt;
    }
    roof.peak_flop_per_s = 2.0 * *peaks.ffma_inst_per_cycle * *sm_clock;
    roof.source =
        fmt::format("counters peak_sustained: fp32 2 x {:.0f} FFMA/cycle x SM {:.4g} GHz; {}",
                    *peaks.ffma_inst_per_cycle, *sm_clock / 1e9, bw_source);
    return roof;
  }
  const bool sparse_rate_counter = tensor_counter_peak_is_sparse_rate(cc_major, cc_minor);
  const char* type = fp8_inputs ? "fp8" : "bf16";
  const std::optional<double>& per_cycle =
      fp8_inputs ? peaks.tensor_fp8_per_cycle : peaks.tensor_bf16_per_cycle;
  if (!per_cycle) {
    null_reason = fmt::format("tensor {} peak not measured", type);
    return std::nullopt;
  }
  roof.peak_flop_per_s = (sparse_rate_counter ? *per_cycle / 2.0 : *per_cycle) * *sm_clock;
  roof.source = fmt::format(
      "counters peak_sustained: tensor {} {:.4g} FLOP/cycle{} x SM {:.4g} GHz; {}", type,
      *per_cycle,
      sparse_rate_counter ? " / 2 (counter reads the sparse rate on sm_90; dense = half)"
                          : " (dense vs sparse not verified on this architecture)",
      *sm_clock / 1e9, bw_source);
  return roof;
}

}  // namespace rooflinectl
