// Which roof `sweep` places its points under (--roof datasheet|counters|measured) and the roof of
// one point under that choice. Pure host code, unit-tested on the CPU.
#pragma once

#include <optional>
#include <string>

#include "core/pipe.hpp"
#include "core/shape.hpp"
#include "result/peak_set.hpp"
#include "result/report.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {

/// The roof source a sweep uses and, when it is not what was asked for, why.
struct RoofPlan {
  RoofSource source = RoofSource::kDatasheet;
  std::string note;  ///< empty when `source` is what was asked for (or the plain default)
};

/// Resolves --roof against what this run has:
/// - nothing requested: measured when `measured_available` (cached by `rooflinectl peaks`), else
///   datasheet when `datasheet_available` (the GPU is in the table), else counters, with a note;
/// - datasheet requested for a GPU not in the table: counters, with a note (an unknown GPU
///   falls back to counter-derived peaks);
/// - measured requested but not available: an environment Error (exit 3) telling the user to run
///   `rooflinectl peaks` first; `measured_why_not` (e.g. "no cache entry for GPU-...") is included;
/// - counters requested while `counters_enabled` is false (--no-counters): a bad-input Error.
/// A fallback to counters while counters are disabled still returns counters: every point's
/// roofline is then null with the reason, and the note says so.
RoofPlan resolve_roof_source(const std::optional<RoofSource>& requested, bool measured_available,
                             const std::string& measured_why_not, bool datasheet_available,
                             bool counters_enabled);

/// The compute ceiling an operator's pipe and dtype use: fp32 → kFp32; tensor → kTensorFp8 for
/// FP8 inputs (`fp8_inputs`: a --gemm-dtype fp8_e4m3 point, whose dtype is its output's), else
/// kTensorBf16 for bf16 inputs, kTensorFp16 for fp16.
CeilingKind compute_ceiling_kind(Pipe pipe, Dtype dtype, bool fp8_inputs = false);

/// The roof of a point with `pipe` and `dtype` from `set` (datasheet or measured): compute ceiling
/// per compute_ceiling_kind, DRAM ceiling; `source` starts with the source's name ("measured: ")
/// and names both ceilings' origins; source_kind = set.source. Returns std::nullopt and sets
/// `null_reason` when the set or either ceiling is null. `fp8_inputs` as compute_ceiling_kind.
std::optional<Roof> roof_from_peak_set(const PeakSet& set, Pipe pipe, Dtype dtype,
                                       std::string& null_reason, bool fp8_inputs = false);

/// The L2 ceiling of a point whose roof comes from `source`, the first of: `source`'s own L2
/// value (measured: block.measured.l2; counters: the point's counters; datasheet: none, datasheets
/// give no L2 bandwidth); the point's counters (CounterPeaks::l2_bytes_per_cycle ×
/// KernelCounters::l2_clock_hz of `counters.total`); the measured peaks (block.measured, when
/// `rooflinectl peaks` cached them). Sets roof.l2_bytes_per_s, roof.l2_source_kind and
/// roof.l2_source, which starts with the source's name ("measured: L2 8.97 TB/s [...]",
/// "counters: L2 5120 B/cycle x L2 1.755 GHz") and, for a fallback, says why `source` had none;
/// when no source has one, l2_bytes_per_s and l2_source_kind stay null and l2_source lists each
/// source's reason. Never invents a value.
void fill_l2_roof(Roof& roof, RoofSource source, const PeaksBlock& block,
                  const CounterResult& counters, int cc_major, int cc_minor);

/// The roof of one point under `source`: datasheet → block.datasheet, measured → block.measured
/// (both via roof_from_peak_set), counters → roof_from_counters on the point's own counters
/// (its kernels' clocks); its L2 ceiling by fill_l2_roof. Returns std::nullopt with
/// `null_reason` when that source has no roof for this point. A point with `fp8_inputs` (FP8
/// GEMM) takes the tensor fp8 ceiling: of datasheet or measured peaks, or under counters the fp8
/// pipe's per-cycle peak its own counters read (CounterPeaks::tensor_fp8_per_cycle).
std::optional<Roof> select_point_roof(RoofSource source, Pipe pipe, Dtype dtype,
                                      const PeaksBlock& block, const CounterResult& counters,
                                      int cc_major, int cc_minor, std::string& null_reason,
                                      bool fp8_inputs = false);

}  // namespace rooflinectl
