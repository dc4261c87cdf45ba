// The counter fields of KernelCounters and CounterPeaks, each defined once: its member, JSON key
// (also the CSV column name), unit, the CUPTI metric it is read from and the factor to SI units.
// The JSON writer and reader, the metric mapping (cupti/metrics.cpp) and the schema test
// (tests/unit/test_counter_fields.cpp, against docs/report-schema.json) loop over these tables and
// the CSV writer names its counter columns from them; a new counter is a member of KernelCounters
// (or CounterPeaks) plus a row here, and its entry in the schema.
#pragma once

#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// A measured counter field of KernelCounters.
using CounterMember = std::optional<double> KernelCounters::*;

/// Nanoseconds to seconds (gpu__time_duration is in ns).
inline constexpr double kSecondsPerNs = 1e-9;
/// Percent of peak to a fraction (1.0 = 100%).
inline constexpr double kFractionPerPercent = 0.01;
/// Bytes per L2 sector (lts__t_sectors_* count 32-byte sectors).
inline constexpr double kBytesPerSector = 32.0;

/// How a field adds up over an operator's kernels (KernelCounters `total`), and which group of
/// counter_metric_names() (cupti/metrics.hpp) its metric is listed in.
enum class CounterKind {
  kCount,        ///< extensive (bytes, time, FLOPs, instructions): the total is the sum
  kClock,        ///< cycles per second: the total is the duration-weighted mean
  kUtilization,  ///< share of a peak: the total is the duration-weighted mean
};

/// Whether a reader requires a field's JSON key.
enum class KeyPresence {
  kRequired,  ///< present in every report (null when not measured)
  /// Added to schema 1 after the first reports were written (the committed first-run H200 sweep
  /// lacks some): an absent key reads as null.
  kMayBeAbsent,
};

/// One measured field: where it lives, what it is called, and where it comes from.
struct CounterField {
  CounterMember member;
  const char* json_key;  ///< key in the report's kernel_counters objects; CSV column name
  /// Unit of the stored value: "bytes", "s", "Hz", "FLOP", "instructions" (thread-level SASS
  /// instructions) or "fraction" (1.0 = 100%); the key ends in the matching suffix.
  const char* unit;
  const char* metric;      ///< the CUPTI metric it is read from
  double per_metric_unit;  ///< stored value = metric value × this
  CounterKind kind;
  KeyPresence presence;
  const char* description;  ///< one line, for readers of this table
};

/// FLOPs per unit of sm__ops_path_tensor_src_fp8.sum (the fp8 tensor-pipe op counter of GH100):
/// 1.0, the counter counts FLOPs as its bf16 sibling does. Measured on an H100 SXM (2026-12-06,
/// docs/perf-notes.md "gemm_fp8_v1_wgmma with promotion"): gemm_fp8_v1_wgmma at M=4096 N=14336
/// K=4096 read 481 036 337 152 = 2·M·N·K exactly, in our counted sweep and in ncu
/// (--cache-control all --clock-control none) alike.
inline constexpr double kTensorFp8FlopPerMetricUnit = 1.0;

/// Every measured field of KernelCounters, in the order the JSON writer writes them. Metric
/// names checked against the GH100 metric list and, for the values, on the H200.
inline constexpr CounterField kCounterFields[] = {
    {&KernelCounters::dram_read_bytes, "dram_read_bytes", "bytes", "dram__bytes_read.sum", 1.0,
     CounterKind::kCount, KeyPresence::kRequired,
     "DRAM bytes read inside the kernel's own window, from the one-pass session after the "
     "write-back-safe flush: what Nsight Compute reports with --cache-control all"},
    {&KernelCounters::dram_write_bytes, "dram_write_bytes", "bytes", "dram__bytes_write.sum", 1.0,
     CounterKind::kCount, KeyPresence::kRequired,
     "DRAM bytes written inside the kernel's own window, same session; writes still dirty in L2 "
     "when the kernel ends are not in it"},
    {&KernelCounters::l2_bytes, "l2_bytes", "bytes", "lts__t_bytes.sum", 1.0, CounterKind::kCount,
     KeyPresence::kRequired, "bytes through the L2 slices, reads and writes"},
    {&KernelCounters::l2_write_bytes, "l2_write_bytes", "bytes",
     "lts__t_sectors_srcunit_tex_op_write.sum", kBytesPerSector, CounterKind::kCount,
     KeyPresence::kMayBeAbsent,
     "bytes the SMs stored into L2 (sectors × 32 B): the logical store volume, independent of "
     "when L2 writes it back"},
    {&KernelCounters::duration_s, "duration_s", "s", "gpu__time_duration.sum", kSecondsPerNs,
     CounterKind::kCount, KeyPresence::kRequired,
     "kernel duration in the counter pass (under replay: informative only; time comes from the "
     "timed pass)"},
    {&KernelCounters::sm_clock_hz, "sm_clock_hz", "Hz", "sm__cycles_elapsed.avg.per_second", 1.0,
     CounterKind::kClock, KeyPresence::kRequired, "SM clock the kernel ran at"},
    {&KernelCounters::dram_clock_hz, "dram_clock_hz", "Hz", "dram__cycles_elapsed.avg.per_second",
     1.0, CounterKind::kClock, KeyPresence::kRequired, "DRAM clock the kernel ran at"},
    {&KernelCounters::l2_clock_hz, "l2_clock_hz", "Hz", "lts__cycles_elapsed.avg.per_second", 1.0,
     CounterKind::kClock, KeyPresence::kMayBeAbsent, "L2 clock the kernel ran at"},
    {&KernelCounters::tensor_bf16_flop, "tensor_bf16_flop", "FLOP",
     "sm__ops_path_tensor_src_bf16_dst_fp32.sum", 1.0, CounterKind::kCount, KeyPresence::kRequired,
     "bf16 tensor-pipe FLOPs (already FLOPs: 2·M·N·K for a GEMM, exact on the H200)"},
    // GH100 has no ..._src_fp16_dst_fp32 / _dst_fp16 (those are GA100 names); the _src_fp16
    // aggregate covers every fp16 destination type.
    {&KernelCounters::tensor_fp16_flop, "tensor_fp16_flop", "FLOP",
     "sm__ops_path_tensor_src_fp16.sum", 1.0, CounterKind::kCount, KeyPresence::kRequired,
     "fp16 tensor-pipe FLOPs, every destination type"},
    // tf32: counted by `profile --mode full` only (the sweep's kernels issue none): absent before.
    {&KernelCounters::tensor_tf32_flop, "tensor_tf32_flop", "FLOP",
     "sm__ops_path_tensor_src_tf32_dst_fp32.sum", 1.0, CounterKind::kCount,
     KeyPresence::kMayBeAbsent, "tf32 tensor-pipe FLOPs (profile --mode full)"},
    // fp8: newer than schema 1's first reports (kMayBeAbsent), collected by sweeps with FP8 GEMM
    // points (follow_up_metric_names) and by `profile --mode full`: null elsewhere.
    {&KernelCounters::tensor_fp8_flop, "tensor_fp8_flop", "FLOP", "sm__ops_path_tensor_src_fp8.sum",
     kTensorFp8FlopPerMetricUnit, CounterKind::kCount, KeyPresence::kMayBeAbsent,
     "fp8 (E4M3/E5M2) tensor-pipe FLOPs, every destination type (the metric times "
     "kTensorFp8FlopPerMetricUnit); counted in sweeps with FP8 GEMM points and profile --mode "
     "full"},
    {&KernelCounters::ffma_inst, "ffma_inst", "instructions",
     "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", 1.0, CounterKind::kCount,
     KeyPresence::kRequired, "fp32 fused multiply-adds, predicated-on threads"},
    {&KernelCounters::fadd_inst, "fadd_inst", "instructions",
     "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", 1.0, CounterKind::kCount,
     KeyPresence::kRequired, "fp32 adds, predicated-on threads"},
    {&KernelCounters::fmul_inst, "fmul_inst", "instructions",
     "sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 1.0, CounterKind::kCount,
     KeyPresence::kRequired, "fp32 multiplies, predicated-on threads"},
    {&KernelCounters::hfma_inst, "hfma_inst", "instructions",
     "sm__sass_thread_inst_executed_op_hfma_pred_on.sum", 1.0, CounterKind::kCount,
     KeyPresence::kRequired, "fp16 fused multiply-adds, predicated-on threads"},
    {&KernelCounters::hadd_inst, "hadd_inst", "instructions",
     "sm__sass_thread_inst_executed_op_hadd_pred_on.sum", 1.0, CounterKind::kCount,
     KeyPresence::kRequired, "fp16 adds, predicated-on threads"},
    {&KernelCounters::hmul_inst, "hmul_inst", "instructions",
     "sm__sass_thread_inst_executed_op_hmul_pred_on.sum", 1.0, CounterKind::kCount,
     KeyPresence::kRequired, "fp16 multiplies, predicated-on threads"},
    {&KernelCounters::dfma_inst, "dfma_inst", "instructions",
     "sm__sass_thread_inst_executed_op_dfma_pred_on.sum", 1.0, CounterKind::kCount,
     KeyPresence::kMayBeAbsent,
     "fp64 fused multiply-adds, predicated-on threads (profile --mode full)"},
    {&KernelCounters::dadd_inst, "dadd_inst", "instructions",
     "sm__sass_thread_inst_executed_op_dadd_pred_on.sum", 1.0, CounterKind::kCount,
     KeyPresence::kMayBeAbsent, "fp64 adds, predicated-on threads (profile --mode full)"},
    {&KernelCounters::dmul_inst, "dmul_inst", "instructions",
     "sm__sass_thread_inst_executed_op_dmul_pred_on.sum", 1.0, CounterKind::kCount,
     KeyPresence::kMayBeAbsent, "fp64 multiplies, predicated-on threads (profile --mode full)"},
    // The Nsight Compute "Speed Of Light" figures, over the kernel's elapsed cycles. sm__throughput
    // alone needs 8 replay passes on GH100, so it lengthens the counter pass, not the timed one.
    {&KernelCounters::sm_throughput_fraction, "sm_throughput_fraction", "fraction",
     "sm__throughput.avg.pct_of_peak_sustained_elapsed", kFractionPerPercent,
     CounterKind::kUtilization, KeyPresence::kMayBeAbsent,
     "the busiest SM sub-unit's share of its peak over the kernel's elapsed cycles"},
    {&KernelCounters::dram_throughput_fraction, "dram_throughput_fraction", "fraction",
     "dram__throughput.avg.pct_of_peak_sustained_elapsed", kFractionPerPercent,
     CounterKind::kUtilization, KeyPresence::kMayBeAbsent,
     "DRAM throughput as a share of its peak over the kernel's elapsed cycles"},
};

// KernelCounters is its name and the fields above: a member added without a row does not compile.
static_assert(sizeof(KernelCounters) ==
                  sizeof(std::string) + std::size(kCounterFields) * sizeof(std::optional<double>),
              "every measured member of KernelCounters needs its row in kCounterFields");

/// A value of KernelCounters computed from the measured fields.
using DerivedCounter = std::optional<double> (KernelCounters::*)() const;

/// One derived field: written to the JSON report so that a reader needs no formulas, never read
/// back (recomputed from the measured fields).
struct DerivedCounterField {
  DerivedCounter value;
  const char* json_key;
  const char* unit;     ///< as CounterField::unit
  const char* formula;  ///< over the measured fields' keys; null when any input is null
};

/// The derived fields of KernelCounters, in the order the JSON writer writes them (after
/// kCounterFields).
inline constexpr DerivedCounterField kDerivedCounterFields[] = {
    {&KernelCounters::dram_bytes, "dram_bytes", "bytes", "dram_read_bytes + dram_write_bytes"},
    {&KernelCounters::fp32_flop, "fp32_flop", "FLOP", "2·ffma_inst + fadd_inst + fmul_inst"},
    {&KernelCounters::fp16_flop, "fp16_flop", "FLOP", "2·hfma_inst + hadd_inst + hmul_inst"},
    {&KernelCounters::tensor_flop, "tensor_flop", "FLOP",
     "tensor_bf16_flop + tensor_fp16_flop + tensor_tf32_flop + tensor_fp8_flop, over the pipes "
     "counted"},
    {&KernelCounters::total_flop, "total_flop", "FLOP",
     "tensor_flop + fp32_flop + fp16_flop, + 2·dfma_inst + dadd_inst + dmul_inst when counted"},
};

/// A per-cycle peak of CounterPeaks.
using CounterPeakMember = std::optional<double> CounterPeaks::*;

/// One per-cycle peak read from counters (`<metric>.peak_sustained`, the raw value; multiply by
/// the matching clock), taken from the first kernel range: a property of the chip.
struct CounterPeakField {
  CounterPeakMember member;
  const char* json_key;  ///< key in the report's counters.peaks object
  /// "bytes/cycle", "instructions/cycle" or "FLOP/cycle"; the key ends in "_per_cycle".
  const char* unit;
  const char* metric;  ///< the CUPTI metric, read as is
  KeyPresence presence;
  const char* description;  ///< one line, for readers of this table
};

/// Every field of CounterPeaks, in the order the JSON writer writes them.
inline constexpr CounterPeakField kCounterPeakFields[] = {
    {&CounterPeaks::dram_bytes_per_cycle, "dram_bytes_per_cycle", "bytes/cycle",
     "dram__bytes.sum.peak_sustained", KeyPresence::kRequired, "DRAM bytes per DRAM cycle"},
    {&CounterPeaks::l2_bytes_per_cycle, "l2_bytes_per_cycle", "bytes/cycle",
     "lts__t_bytes.sum.peak_sustained", KeyPresence::kMayBeAbsent,
     "L2 bytes per L2 cycle, all slices (the L2 roof of Nsight Compute's hierarchical roofline)"},
    {&CounterPeaks::ffma_inst_per_cycle, "ffma_inst_per_cycle", "instructions/cycle",
     "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", KeyPresence::kRequired,
     "FFMA thread instructions per SM cycle, all SMs"},
    {&CounterPeaks::tensor_bf16_per_cycle, "tensor_bf16_per_cycle", "FLOP/cycle",
     "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained", KeyPresence::kRequired,
     "bf16 tensor-pipe ops per SM cycle, all SMs: the sparse rate on the H200 (2× the dense "
     "datasheet figure), not a dense roof unchecked"},
    // Newer than schema 2's first reports (kMayBeAbsent); collected with tensor_fp8_flop only.
    {&CounterPeaks::tensor_fp8_per_cycle, "tensor_fp8_per_cycle", "FLOP/cycle",
     "sm__ops_path_tensor_src_fp8.sum.peak_sustained", KeyPresence::kMayBeAbsent,
     "fp8 tensor-pipe ops per SM cycle, all SMs: the sparse rate on compute capability 9.0, as "
     "bf16's (tests/gpu/test_peaks.cpp)"},
};

static_assert(sizeof(CounterPeaks) == std::size(kCounterPeakFields) * sizeof(std::optional<double>),
              "every member of CounterPeaks needs its row in kCounterPeakFields");

/// The row of `member` in kCounterFields. Meant for constant expressions, where a member
/// without a row fails to compile; at run time it throws std::logic_error.
constexpr const CounterField& counter_field(CounterMember member) {
  for (const CounterField& field : kCounterFields) {
    if (field.member == member) return field;
  }
  throw std::logic_error("KernelCounters member without a row in kCounterFields");
}

/// The row of `member` in kCounterPeakFields; as counter_field above.
constexpr const CounterPeakField& counter_field(CounterPeakMember member) {
  for (const CounterPeakField& field : kCounterPeakFields) {
    if (field.member == member) return field;
  }
  throw std::logic_error("CounterPeaks member without a row in kCounterPeakFields");
}

}  // namespace rooflinectl
