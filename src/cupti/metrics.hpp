// The counters rooflinectl collects per kernel, and their conversion into report records.
// Names checked against the GH100 metric list CUPTI's host API enumerates for chip "GH100" and,
// for the values, on the H200 (docs/counter-method.md). Pure host code: no CUDA include.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/mma_inputs.hpp"
#include "result/counter_fields.hpp"
#include "result/report.hpp"

namespace rooflinectl {

// The per-kernel metrics and the per-cycle peaks are those of kCounterFields and
// kCounterPeakFields (result/counter_fields.hpp), named here for the code that asks for one.
inline constexpr const char* kMetricDramReadBytes =
    counter_field(&KernelCounters::dram_read_bytes).metric;
inline constexpr const char* kMetricDramWriteBytes =
    counter_field(&KernelCounters::dram_write_bytes).metric;
inline constexpr const char* kMetricL2Bytes = counter_field(&KernelCounters::l2_bytes).metric;
/// L2 sectors the SMs wrote (kBytesPerSector each).
inline constexpr const char* kMetricL2WriteSectors =
    counter_field(&KernelCounters::l2_write_bytes).metric;
/// Kernel duration in ns.
inline constexpr const char* kMetricDurationNs = counter_field(&KernelCounters::duration_s).metric;
inline constexpr const char* kMetricSmClockHz = counter_field(&KernelCounters::sm_clock_hz).metric;
inline constexpr const char* kMetricDramClockHz =
    counter_field(&KernelCounters::dram_clock_hz).metric;
inline constexpr const char* kMetricL2ClockHz = counter_field(&KernelCounters::l2_clock_hz).metric;
inline constexpr const char* kMetricTensorBf16Ops =
    counter_field(&KernelCounters::tensor_bf16_flop).metric;
inline constexpr const char* kMetricTensorFp16Ops =
    counter_field(&KernelCounters::tensor_fp16_flop).metric;
inline constexpr const char* kMetricTensorTf32Ops =
    counter_field(&KernelCounters::tensor_tf32_flop).metric;
/// FP8 tensor-pipe ops (counted for sweeps with FP8 GEMM points, follow_up_metric_names, and by
/// `profile --mode full`).
inline constexpr const char* kMetricTensorFp8Ops =
    counter_field(&KernelCounters::tensor_fp8_flop).metric;
inline constexpr const char* kMetricFfmaInst = counter_field(&KernelCounters::ffma_inst).metric;
inline constexpr const char* kMetricFaddInst = counter_field(&KernelCounters::fadd_inst).metric;
inline constexpr const char* kMetricFmulInst = counter_field(&KernelCounters::fmul_inst).metric;
inline constexpr const char* kMetricHfmaInst = counter_field(&KernelCounters::hfma_inst).metric;
inline constexpr const char* kMetricHaddInst = counter_field(&KernelCounters::hadd_inst).metric;
inline constexpr const char* kMetricHmulInst = counter_field(&KernelCounters::hmul_inst).metric;
inline constexpr const char* kMetricDfmaInst = counter_field(&KernelCounters::dfma_inst).metric;
inline constexpr const char* kMetricDaddInst = counter_field(&KernelCounters::dadd_inst).metric;
inline constexpr const char* kMetricDmulInst = counter_field(&KernelCounters::dmul_inst).metric;
/// In % of peak.
inline constexpr const char* kMetricSmThroughputPct =
    counter_field(&KernelCounters::sm_throughput_fraction).metric;
/// In % of peak.
inline constexpr const char* kMetricDramThroughputPct =
    counter_field(&KernelCounters::dram_throughput_fraction).metric;
inline constexpr const char* kMetricDramBytesPeakPerCycle =
    counter_field(&CounterPeaks::dram_bytes_per_cycle).metric;
inline constexpr const char* kMetricL2BytesPeakPerCycle =
    counter_field(&CounterPeaks::l2_bytes_per_cycle).metric;
inline constexpr const char* kMetricFfmaPeakPerCycle =
    counter_field(&CounterPeaks::ffma_inst_per_cycle).metric;
/// The sparse rate on the H200: not the dense roof unchecked.
inline constexpr const char* kMetricTensorBf16PeakPerCycle =
    counter_field(&CounterPeaks::tensor_bf16_per_cycle).metric;
/// The sparse rate on compute capability 9.0, as bf16's.
inline constexpr const char* kMetricTensorFp8PeakPerCycle =
    counter_field(&CounterPeaks::tensor_fp8_per_cycle).metric;

/// Tensor-pipe warp instructions of every dtype (a hardware counter on GH100, no SASS
/// patching): `profile` collects it to tell a kernel that used the tensor pipe with a dtype whose
/// FLOPs its one pass does not count (fp16, tf32, fp8, int8). Not a report field.
inline constexpr const char* kMetricTensorPipeInst = "sm__inst_executed_pipe_tensor.sum";

/// Every metric above, in a fixed order: what a point's counter pass collects (the fp8 tensor
/// metric and fp8 per-cycle peak only at FP8 GEMM points' sweeps, follow_up_metric_names).
const std::vector<std::string>& counter_metric_names();

/// The tensor-pipe op metric of the MMA `dtype` inputs use: kMetricTensorBf16Ops for bf16,
/// kMetricTensorFp16Ops for fp16. A sweep counts its own dtype's pipe only: the fp16 metric
/// alone needs 2 replay passes on GH100 (the bf16 one 1), and a kernel of one dtype issues no
/// MMA of the other.
const char* tensor_ops_metric(Dtype dtype);

/// The candidates of the byte session, in priority order: the byte session takes the required
/// byte metrics and then each candidate that keeps the set at one pass (DRAM bytes are never
/// taken from a multi-pass session, docs/counter-method.md). Hardware counters only (no SASS
/// instruction counter: those patch the kernel, whose extra stores would show in the bytes):
/// DRAM and L2 bytes, duration, clocks, DRAM throughput, the DRAM, L2 and bf16 tensor per-cycle
/// peaks, and `dtype`'s tensor-pipe ops.
std::vector<std::string> byte_metric_candidates(Dtype dtype);

/// Of byte_metric_candidates(), the ones without which the byte session is pointless.
const std::vector<std::string>& required_byte_metrics();

/// counter_metric_names() minus `byte_set`, minus the DRAM byte metrics, minus every tensor-pipe
/// op metric but `dtype`'s (tensor_ops_metric) and those of the MMA input types in `extra` (the
/// points' other types besides `dtype`'s, each one more metric and, for fp16 on GH100, a
/// kernel-replay set of its own, so only engines whose points need one ask for it), minus the fp8
/// per-cycle peak unless `extra` has fp8 (a chip without fp8 tensor cores need not know it; the
/// roof of an FP8 GEMM point under `--roof counters` reads it), minus the fp64
/// instruction counters (no sweep operator does fp64 work; `profile --mode full` collects them)
/// and, unless `sm_throughput`, minus kMetricSmThroughputPct: what the sessions after the byte
/// session collect, in counter_metric_names() order. sm__throughput (the SM speed-of-light of
/// Nsight Compute, the maximum over the SM's sub-unit throughputs) alone needs 8 replay passes on
/// GH100.
std::vector<std::string> follow_up_metric_names(const std::vector<std::string>& byte_set,
                                                Dtype dtype, bool sm_throughput,
                                                MmaInputs extra = {});

/// The FLOP set of `profile --mode full` (run 2, kernel replay; never a source of bytes): the
/// tensor-pipe ops of bf16, fp16, tf32 and fp8, the fp32, fp16 and fp64 SASS instruction
/// counters (KernelCounters::fp32_flop, fp16_flop, fp64_flop combine them), sm__throughput and
/// the FFMA per-cycle peak (the fp32 roof from counters), in that order. The injection drops
/// the names a chip does not have (fp8 before Hopper).
const std::vector<std::string>& flop_metric_names();

/// The metric sets after the byte session.
struct FollowUpSets {
  /// Sets of one pass each (not replayed: no memory save/restore), in the order formed.
  std::vector<std::vector<std::string>> one_pass;
  /// Every metric that alone needs more than one pass, as one kernel-replay set; empty when
  /// there is none.
  std::vector<std::string> multi_pass;
};

/// Packs `metrics` into as few one-pass sets as first fit finds (each metric joins the first set
/// that stays at one pass with it, else opens a new set), and puts each metric that alone needs
/// more than one pass into `multi_pass`. `count_passes` returns the replay passes of a list
/// (ProfilerSession::count_passes); a metric it counts at fewer than one pass is a bad-input
/// Error. Metrics keep their order inside every set. Pure apart from `count_passes`.
FollowUpSets plan_follow_up_sets(
    const std::vector<std::string>& metrics,
    const std::function<int(const std::vector<std::string>&)>& count_passes);

/// Ranges of one counter pass: the one-pass byte session (the operator's kernels, then the
/// read-only write-back sweep as the last range) and each later session (the kernels alone), in
/// the engine's session order.
struct CounterPassRanges {
  std::vector<std::map<std::string, double>> bytes;
  std::vector<std::vector<std::map<std::string, double>>> follow_up;
  int byte_attempts = 1;  ///< byte sessions run to get `bytes` (byte_session_has_foreign_writes)
  /// Wall time of each session's collection for this point (byte session first; its repeats
  /// included), s: CounterSession::wall_time_s.
  std::vector<double> session_wall_times_s;
  /// Points that shared each of those collections (CounterSession::points_in_collection).
  std::vector<int> session_points;
};

/// Slack of byte_session_has_foreign_writes: 2% of the stores plus 1 MB (the 0.1–0.7 MB of
/// stray writes every write-back sweep on the H200 carries, docs/counter-method.md).
inline constexpr double kForeignWriteRelativeSlack = 0.02;
inline constexpr double kForeignWriteSlackBytes = 1e6;

/// Whether one byte session's ranges (the kernels, then the write-back sweep) hold DRAM writes
/// that no kernel made: DRAM writes in the kernels' windows plus the sweep's (the write-back)
/// above the bytes the SMs stored into L2 in the kernels' windows (kMetricL2WriteSectors × 32)
/// by more than the slack. A kernel cannot write back more than it stored, so the excess came
/// from something else on the GPU (seen on the H200: 38 MB of writes for flash attention's 2 MB
/// output, the point after the sweep freed naive attention's 64 GiB). False when a range lacks
/// either metric (nothing to check against) or there is no kernel range.
bool byte_session_has_foreign_writes(const std::vector<std::map<std::string, double>>& bytes);

/// Converts ProfilerSession::profile output (one metric→value map per kernel range, in launch
/// order) into the report's CounterResult:
/// - kernels[i] is labelled kernel_names[i]; when the range count differs from
///   kernel_names.size() (e.g. cuBLAS launched an extra split-K kernel) the labels are
///   "kernel_<i>" and `note` says so;
/// - a metric that is absent or not finite (CUPTI reports NaN for units it cannot read, e.g. on a
///   shared MIG instance) becomes std::nullopt;
/// - gpu__time_duration is converted from ns to seconds;
/// - `total` sums every count over the ranges (std::nullopt when any range lacks it); its clocks
///   are the duration-weighted means of the ranges' clocks;
/// - peaks come from the first range (they are properties of the chip, not of the kernel);
/// - no ranges at all sets `null_reason`.
/// Pure function.
CounterResult counters_from_ranges(const std::vector<std::map<std::string, double>>& ranges,
                                   const std::vector<std::string>& kernel_names, int passes,
                                   const std::string& cache_policy);

/// Merges a counter pass into one CounterResult:
/// - the byte session's last range is the write-back sweep: its DRAM write bytes become
///   `dram_writeback_bytes` (`writeback_method` = `sweep_method`); when the sessions do not all
///   agree on the kernel count (the byte session one range more, for the sweep) the
///   write-back stays unknown, writeback_null_reason and `note` say so, and the common prefix is
///   merged;
/// - range i of the kernels is the union of range i of every session (the metric lists are
///   disjoint), then converted as counters_from_ranges does;
/// - `sessions` describe the metric sets, byte session first; each gets its wall time from
///   `ranges.session_wall_times_s` when that has one entry per session; `passes` is the largest
///   pass count.
/// Pure function.
CounterResult counters_from_passes(const CounterPassRanges& ranges,
                                   const std::vector<std::string>& kernel_names,
                                   std::vector<CounterSession> sessions,
                                   const std::string& cache_policy,
                                   const std::string& sweep_method);

}  // namespace rooflinectl
