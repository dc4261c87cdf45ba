// Builds the roof for a point from counter-reported per-cycle peaks and the clocks measured
// during that point's kernels. Pure host code, no CUDA.
#pragma once

#include <optional>
#include <string>

#include "core/pipe.hpp"
#include "result/report.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {

/// True where the tensor-pipe counters' `peak_sustained` reads the 2:4-sparse rate, i.e. twice the
/// dense rate: compute capability 9.0 (bf16 measured on the H200, cupti-on-h200.md; fp16 and fp8
/// against the wgmma benchmarks on the H100, tests/gpu/test_peaks.cpp). Elsewhere not verified, so
/// the raw value is taken as dense.
bool tensor_counter_peak_is_sparse_rate(int cc_major, int cc_minor);

/// Roof of `pipe` for one point:
///   DRAM bytes/s  = dram__bytes.sum.peak_sustained (B/cycle) × dram__cycles_elapsed.avg.per_second
///   fp32 FLOP/s   = 2 × sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained ×
///                   SM clock
///   tensor FLOP/s = sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained × SM clock, or with
///                   `fp8_inputs` (FP8 GEMM) sm__ops_path_tensor_src_fp8.sum.peak_sustained × SM
///                   clock, halved on compute capability 9.0, where these counters' peaks are the
///                   2:4-sparse rate (measured on the H200: bf16 1.081e6/cycle = 2 × 132 SMs ×
///                   4096 dense FLOP/cycle, test_roof_from_counters; fp8 twice that, held against
///                   the wgmma fp8 benchmark by test_peaks); the fp16 dense rate equals bf16's on
///                   Hopper.
/// The SM clock is the counter pass's sm__cycles_elapsed.avg.per_second of `counters.total`.
/// Returns nullopt and sets `null_reason` when a needed value was not measured.
std::optional<Roof> roof_from_counters(const CounterResult& counters, Pipe pipe, bool fp8_inputs,
                                       int cc_major, int cc_minor, std::string& null_reason);

}  // namespace rooflinectl
