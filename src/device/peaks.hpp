// Hardware ceilings of one GPU from three sources (issue 4): the datasheet table, counter-derived
// peaks (CUPTI peak_sustained × clock) and ceilings measured by `rooflinectl peaks`. Plain data
// and pure functions (no CUDA), unit-tested on the CPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/roof_source.hpp"

namespace rooflinectl {

struct GpuSpec;  // device/gpu_spec.hpp

/// What a ceiling bounds. kDram and kL2 are bandwidths in bytes/s; the others are FLOP/s.
enum class CeilingKind { kDram, kL2, kFp32, kTensorBf16, kTensorFp16 };

/// Every kind, in the order tables print them.
inline constexpr CeilingKind kAllCeilingKinds[] = {CeilingKind::kDram, CeilingKind::kL2,
                                                   CeilingKind::kFp32, CeilingKind::kTensorBf16,
                                                   CeilingKind::kTensorFp16};

/// JSON key of a kind, with its unit: "dram_bytes_per_s", "l2_bytes_per_s", "fp32_flop_per_s",
/// "tensor_bf16_flop_per_s", "tensor_fp16_flop_per_s".
std::string ceiling_key(CeilingKind kind);
/// Short name for people: "DRAM", "L2", "fp32", "tensor bf16", "tensor fp16".
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
  std::optional<double> sm_clock_hz;            ///< sm__cycles_elapsed.avg.per_second
  std::optional<double> dram_clock_hz;          ///< dram__cycles_elapsed.avg.per_second
  std::optional<double> l2_clock_hz;            ///< lts__cycles_elapsed.avg.per_second
};

/// The counter-derived PeakSet: DRAM = B/cycle × DRAM clock, L2 = B/cycle × L2 clock, fp32 =
/// 2 × FFMA/cycle × SM clock, tensor = ops/cycle × SM clock, halved where
/// tensor_counter_peak_is_sparse_rate (cc 9.0; for fp16 the bf16 finding is assumed, and the
/// source says so). `description` says which kernels the clocks were read during.
PeakSet counter_peak_set(const CounterPeakInputs& inputs, int cc_major, int cc_minor,
                         const std::string& description);

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
