// A test helper shared by the unit tests: one point's counters as CUPTI read them on the H200.
#pragma once

#include "result/report.hpp"

namespace rooflinectl {

/// The per-cycle peaks (`<metric>.peak_sustained`) CUPTI reported on the H200 (DRAM 1504 B, FFMA
/// 16896 instructions and bf16 tensor 1.081344e6 ops a cycle, the tensor figure at the 2:4-sparse
/// rate on sm_90, docs/counter-method.md) with an SM clock of 1.98 GHz and a DRAM clock of
/// 3.199 GHz: DRAM 4.811 TB/s, fp32 66.9 TFLOP/s. No L2 peak or clock, no fp16 or fp8 peak.
inline CounterResult h200_point_counters() {
  CounterResult c;
  c.peaks.dram_bytes_per_cycle = 1504.0;
  c.peaks.ffma_inst_per_cycle = 16896.0;
  c.peaks.tensor_bf16_per_cycle = 1.081344e6;
  c.total.sm_clock_hz = 1.98e9;
  c.total.dram_clock_hz = 3.199e9;
  return c;
}

}  // namespace rooflinectl
