// The ceilings of one GPU as plain records: one ceiling per kind (DRAM and L2 bandwidth, fp32 and
// tensor FLOP/s) from one source, the microbenchmark records of `rooflinectl peaks`, the cache
// entry, and the report's peaks block. The functions that fill them live in peaks/peak_sources.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/roof_source.hpp"

namespace rooflinectl {

/// What a ceiling bounds. kDram and kL2 are bandwidths in bytes/s; the others are FLOP/s.
/// kTensorFp8: dense FP8 (E4M3/E5M2 inputs, fp32 accumulation) tensor FLOP/s, the roof of
/// --gemm-dtype fp8_e4m3 points.
enum class CeilingKind { kDram, kL2, kFp32, kTensorBf16, kTensorFp16, kTensorFp8 };

/// Every kind, in the order tables print them.
inline constexpr CeilingKind kAllCeilingKinds[] = {
    CeilingKind::kDram,       CeilingKind::kL2,         CeilingKind::kFp32,
    CeilingKind::kTensorBf16, CeilingKind::kTensorFp16, CeilingKind::kTensorFp8};

/// JSON key of a kind, with its unit: "dram_bytes_per_s", "l2_bytes_per_s", "fp32_flop_per_s",
/// "tensor_bf16_flop_per_s", "tensor_fp16_flop_per_s", "tensor_fp8_flop_per_s".
std::string ceiling_key(CeilingKind kind);
/// Short name for people: "DRAM", "L2", "fp32", "tensor bf16", "tensor fp16", "tensor fp8".
std::string ceiling_label(CeilingKind kind);
/// True for the bandwidth kinds (bytes/s), false for the compute kinds (FLOP/s).
bool is_bandwidth(CeilingKind kind);

/// One ceiling from one source. A value that is not known is std::nullopt and `source` says why.
struct Ceiling {
  std::optional<double> value;  ///< bytes/s or FLOP/s, see CeilingKind
  std::string source;           ///< where the value comes from; when null, why it is null
};

/// The ceilings of one GPU from one source.
struct PeakSet {
  RoofSource source = RoofSource::kDatasheet;
  /// Set when the whole source is unavailable (unknown GPU, counters refused, nothing cached).
  std::optional<std::string> null_reason;
  std::string description;  ///< one line: which table entry, which benchmark run, which clocks
  Ceiling dram;
  Ceiling l2;
  Ceiling fp32;
  Ceiling tensor_bf16;
  Ceiling tensor_fp16;
  Ceiling tensor_fp8;  ///< absent from reports and caches written before FP8 GEMM: null there

  const Ceiling& get(CeilingKind kind) const;
  Ceiling& get(CeilingKind kind);
};

/// A PeakSet whose every ceiling is null for `reason`.
PeakSet unavailable_peak_set(RoofSource source, const std::string& reason);

/// Ridge point I* = compute / DRAM in FLOP/byte of the compute kind `compute` (kFp32,
/// kTensorBf16, kTensorFp16) under `set`; std::nullopt when either ceiling is null or not > 0.
std::optional<double> ridge_flop_per_byte(const PeakSet& set, CeilingKind compute);

/// One microbenchmark of `rooflinectl peaks` and what it reached. Times are CUDA-event medians.
struct PeakBenchmarkRecord {
  std::string name;  ///< e.g. "dram_copy", "tensor_bf16_mma_sync" (see peak_benchmarks.hpp)
  CeilingKind kind = CeilingKind::kDram;
  std::string label;           ///< for people, e.g. "DRAM copy (read + write)"
  std::string accounting;      ///< how work_per_launch is counted, e.g. "2 x 1 GiB (read + write)"
  std::string launch;          ///< grid, block and work per thread
  double work_per_launch = 0;  ///< bytes or FLOP one launch does (kind's unit × s)
  int repetitions = 0;         ///< timed samples
  std::optional<double> median_time_s;
  std::optional<double> min_time_s;
  std::optional<double> max_time_s;
  std::optional<double> sm_clock_hz;  ///< measured right after the timed samples
  std::optional<double> rate;         ///< work_per_launch / median_time_s; null when not run
  std::string null_reason;            ///< why `rate` is null (not supported here, failed, ...)
  /// The same work as the counters saw it in one profiled launch (DRAM bytes, L2 bytes, 2×FFMA,
  /// tensor ops); null when counters were not collected. counted / work_per_launch near 1 checks
  /// the accounting.
  std::optional<double> counted_work;
  std::string counted_metric;  ///< the counter expression behind counted_work
};

/// What identifies a cache entry: the same GPU, driver and clock limit give the same ceilings.
struct PeaksKey {
  std::string gpu_uuid;  ///< "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (cudaDeviceProp::uuid)
  std::string driver;    ///< kernel-module version ("580.159.04") or "cuda-<N>" fallback
  double sm_clock_max_hz = 0;  ///< cudaDevAttrClockRate × 1e3
};

/// Everything `rooflinectl peaks` measured on one GPU: what the cache stores.
struct PeaksRecord {
  PeaksKey key;
  std::string device_name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  std::string tool_version;
  std::string timestamp_utc;  ///< when the benchmarks ran, ISO 8601
  std::vector<PeakBenchmarkRecord> benchmarks;
  PeakSet measured;
  PeakSet datasheet;
  PeakSet counters;
};

/// The report's top-level "peaks" block: all three sources and the one every point used.
struct PeaksBlock {
  std::optional<RoofSource> requested;  ///< --roof; nullopt = the default rule
  RoofSource used = RoofSource::kDatasheet;
  std::string note;            ///< why `used` differs from `requested`, or where it came from
  std::string measured_cache;  ///< the cache file the measured set came from; empty when none
  PeakSet datasheet;
  PeakSet counters;
  PeakSet measured;
};

}  // namespace rooflinectl
