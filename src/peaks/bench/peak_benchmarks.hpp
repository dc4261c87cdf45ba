// The microbenchmarks of `rooflinectl peaks`: measured ceilings of the current GPU (the empirical
// roofline of ERT and mixbench). Measurement infrastructure, not operators: each kernel does
// known work (bytes or FLOP, counted next to the kernel) as fast as the chip allows, is timed with
// CUDA events (median of plan.repetitions launches), and, when a counter session is given, is
// profiled once more so that the counters check the accounting and give the per-cycle peaks.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "peaks/bench/peak_plan.hpp"
#include "peaks/peak_sources.hpp"
#include "result/peak_set.hpp"

namespace rooflinectl {

class ProfilerSession;

/// What run_peak_benchmarks measured.
struct PeakRunResult {
  /// In run order: dram_copy, dram_copy_memcpy (cudaMemcpyAsync device to device), dram_read,
  /// dram_write, l2_read, fp32_ffma, tensor_bf16_mma_sync, tensor_fp16_mma_sync,
  /// tensor_bf16_wgmma, tensor_fp16_wgmma, tensor_fp8_wgmma. A benchmark that cannot run
  /// here (wgmma off Hopper) or failed has a null rate and a null_reason.
  std::vector<PeakBenchmarkRecord> benchmarks;
  /// Per-cycle peaks and the highest clocks seen in the benchmarks' counter ranges; std::nullopt
  /// when no session was given or the counter pass failed (counters_null_reason says why).
  std::optional<CounterPeakInputs> counter_peaks;
  std::string counters_null_reason;
  int failed = 0;  ///< benchmarks that raised an error (not those unsupported on this GPU)
};

/// The metrics the counter pass of `peaks` collects: the work each benchmark does (DRAM read and
/// write bytes, L2 bytes, FFMA instructions, bf16, fp16 and fp8 tensor ops), the SM, DRAM and L2
/// clocks, and the per-cycle peaks of DRAM and L2 bytes, FFMA and the bf16, fp16 and fp8 tensor
/// paths.
const std::vector<std::string>& peak_counter_metric_names();

/// peak_counter_metric_names() without the metrics checked on GH100 only (the L2 clock and the
/// L2, fp16-tensor and fp8-tensor per-cycle peaks, read on the H100 and held against the
/// benchmarks by tests/gpu/test_peaks.cpp; a chip without fp8 tensor cores has no fp8 path): the
/// fallback when CUPTI refuses the full list. The ceilings they feed are then null with a reason.
const std::vector<std::string>& peak_counter_verified_metric_names();

/// Runs every benchmark on the current device (the caller has made it current), per `plan`.
/// `cc_major`/`cc_minor` gate the wgmma benchmarks (compute capability 9.0 only). `session`
/// (may be null) must have been opened with peak_counter_metric_names(). One progress line per
/// benchmark goes to `progress`. A failing benchmark does not stop the others: its error becomes
/// its null_reason. Throws an environment Error only when the buffers cannot be allocated.
PeakRunResult run_peak_benchmarks(const PeakBenchmarkPlan& plan, int cc_major, int cc_minor,
                                  ProfilerSession* session, std::ostream& progress);

}  // namespace rooflinectl
