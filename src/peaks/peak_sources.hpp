// The three sources of a GPU's ceilings as functions that build a PeakSet (result/peak_set.hpp):
// the datasheet table, the counters' per-cycle peaks times the measured clocks, and the
// microbenchmarks of `rooflinectl peaks`. Pure host code, unit-tested on the CPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "result/peak_set.hpp"

namespace rooflinectl {

struct GpuSpec;  // device/gpu_spec.hpp

/// The measured PeakSet: for each kind, the highest rate among `benchmarks` of that kind (a
/// kernel that beats the copy benchmark, e.g. a read-mostly one, would otherwise sit above its
/// roof), its source naming the benchmark. Kinds without a successful benchmark are null. Empty
/// `benchmarks` gives a PeakSet with null_reason set.
PeakSet measured_peak_set(const std::vector<PeakBenchmarkRecord>& benchmarks,
                          const std::string& description);

/// The datasheet PeakSet of `spec` (null pointer: the GPU is not in the table; every ceiling is
/// null and null_reason names `device_name`, compute capability and SM count). The DRAM ceiling is
/// the spec's HBM bandwidth, fp32 its non-tensor fp32 rate, the tensor ceilings its dense "bf16"
/// and "fp16" rates; datasheets give no L2 bandwidth, so l2 is always null. Each source string is
/// the spec's own source. A value <= 0 is treated as absent.
PeakSet datasheet_peak_set(const GpuSpec* spec, const std::string& device_name, int cc_major,
                           int cc_minor, int sm_count);

/// Per-cycle peaks (`<metric>.peak_sustained`) and the clocks to multiply them by. Any may be
/// missing (not collected, or NaN from CUPTI).
struct CounterPeakInputs {
  std::optional<double> dram_bytes_per_cycle;   ///< dram__bytes.sum.peak_sustained
  std::optional<double> l2_bytes_per_cycle;     ///< lts__t_bytes.sum.peak_sustained
  std::optional<double> ffma_inst_per_cycle;    ///< ..._op_ffma_pred_on.sum.peak_sustained
  std::optional<double> tensor_bf16_per_cycle;  ///< sm__ops_path_tensor_src_bf16_dst_fp32 (raw)
  std::optional<double> tensor_fp16_per_cycle;  ///< sm__ops_path_tensor_src_fp16 (raw)
  std::optional<double> tensor_fp8_per_cycle;   ///< sm__ops_path_tensor_src_fp8 (raw)
  std::optional<double> sm_clock_hz;            ///< sm__cycles_elapsed.avg.per_second
  std::optional<double> dram_clock_hz;          ///< dram__cycles_elapsed.avg.per_second
  std::optional<double> l2_clock_hz;            ///< lts__cycles_elapsed.avg.per_second
};

/// The counter-derived PeakSet: DRAM = B/cycle × DRAM clock, L2 = B/cycle × L2 clock, fp32 =
/// 2 × FFMA/cycle × SM clock, tensor = ops/cycle × SM clock, halved where
/// tensor_counter_peak_is_sparse_rate (cc 9.0, for bf16, fp16 and fp8 alike:
/// tests/gpu/test_peaks.cpp holds each type's wgmma benchmark between 0.6 and 1.03 of its halved
/// ceiling). `description` says which kernels the clocks were read during.
PeakSet counter_peak_set(const CounterPeakInputs& inputs, int cc_major, int cc_minor,
                         const std::string& description);

}  // namespace rooflinectl
