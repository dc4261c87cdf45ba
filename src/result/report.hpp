// Plain records that cross from measurement to reporting (the nvbench / google-benchmark split:
// writers only read these). All values in SI units: seconds, bytes, Hz, FLOP, fractions (1.0 =
// 100%). A value that was not measured is std::nullopt and the record carries the reason; the
// JSON writer turns it into null, never 0, NaN or Inf.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/pipe.hpp"
#include "core/shape.hpp"
#include "core/sweep_config.hpp"
#include "core/validation.hpp"
#include "result/clock_reading.hpp"
#include "result/peak_set.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {

/// Version of the JSON report layout; bump on any incompatible change (pinned by a unit test).
/// Version 2: DRAM bytes from a one-pass session, the deferred write-back, the L2
/// write bytes, the counter sessions and the roofline's byte basis; version-1 reports still read.
inline constexpr int kReportSchemaVersion = 2;
/// The oldest schema version the readers accept.
inline constexpr int kOldestReadableSchemaVersion = 1;

/// kInterrupted: the sweep was stopped by SIGINT/SIGTERM before this point ran.
enum class PointStatus { kOk, kSkipped, kFailed, kInterrupted };
std::string to_string(PointStatus status);
/// Parses "ok" | "skipped" | "failed" | "interrupted"; throws a bad-input Error otherwise.
PointStatus parse_point_status(const std::string& text);

/// Timed pass: CUDA events around each launch, after `warmup_runs` untimed launches.
struct TimingResult {
  std::vector<double> samples_s;  ///< one per repetition, in run order
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  int warmup_runs = 0;
  bool l2_flushed = true;  ///< L2 flushed (read-only sweep of 4 × L2) before every sample
  /// The L2 policy of the timed samples in words: flushed before each sample and how (the
  /// flusher's mechanism), or left warm (--warm-l2). Empty in reports written before it existed.
  std::string cache_policy;
  /// SM clock measured right after the samples (clock64 vs %globaltimer probe kernel), Hz.
  std::optional<double> sm_clock_hz;
  /// Half-width of the 95% confidence interval of the median over the median (median_noise in
  /// core/statistics.hpp; 0.01 = ±1%); nullopt below 6 samples. Recomputed from samples_s
  /// when a report is read.
  std::optional<double> noise;
  /// How the samples were taken and why sampling stopped, e.g. "fixed: 10 samples" or "adaptive
  /// (min 10 samples, min 0 s, max 1 s): noise 0.41% <= 1.00% after 23 samples"; empty in
  /// reports written before it was recorded.
  std::string sampling;
  /// NVML clocks read right after each timed sample (device/nvml_clocks.hpp), one per samples_s
  /// entry in the same order; nullopt when not recorded (sample_clocks_null_reason says why).
  std::optional<std::vector<ClockReading>> sample_clocks;
  /// Why sample_clocks is nullopt: NVML unavailable, a reading failed, or
  /// kSampleClocksAbsentReason for a report written before; empty when sample_clocks is set.
  std::string sample_clocks_null_reason;
  /// Samples taken while power- or thermal-throttled (count_throttled over sample_clocks);
  /// nullopt when the clocks were not recorded.
  std::optional<size_t> throttled_samples() const {
    if (!sample_clocks) return std::nullopt;
    return count_throttled(*sample_clocks);
  }
};

/// Counter values of one kernel launch (one CUPTI range), or of the sum over an operator's
/// launches. Each measured field has its row in kCounterFields (result/counter_fields.hpp): JSON
/// key, unit, CUPTI metric, meaning and how the sum forms it. FLOP fields are already FLOPs;
/// *_inst fields are thread-level SASS instruction counts.
struct KernelCounters {
  std::string name;  ///< kernel name from the operator (range label), "total" for the sum
  std::optional<double> dram_read_bytes;
  std::optional<double> dram_write_bytes;
  std::optional<double> l2_bytes;
  std::optional<double> l2_write_bytes;
  std::optional<double> duration_s;
  std::optional<double> sm_clock_hz;
  std::optional<double> dram_clock_hz;
  std::optional<double> l2_clock_hz;
  std::optional<double> tensor_bf16_flop;
  std::optional<double> tensor_fp16_flop;
  std::optional<double> tensor_tf32_flop;
  /// FP8 (E4M3/E5M2) tensor-pipe FLOPs: collected only by sweeps with FP8 GEMM points and by
  /// `profile --mode full` (absent from older reports: null).
  std::optional<double> tensor_fp8_flop;
  std::optional<double> ffma_inst;
  std::optional<double> fadd_inst;
  std::optional<double> fmul_inst;
  std::optional<double> hfma_inst;
  std::optional<double> hadd_inst;
  std::optional<double> hmul_inst;
  std::optional<double> dfma_inst;
  std::optional<double> dadd_inst;
  std::optional<double> dmul_inst;
  std::optional<double> sm_throughput_fraction;
  std::optional<double> dram_throughput_fraction;

  std::optional<double> dram_bytes() const;  ///< read + write
  std::optional<double> fp32_flop() const;   ///< 2·FFMA + FADD + FMUL
  std::optional<double> fp16_flop()
      const;  ///< 2·HFMA + HADD + HMUL (instruction counts, as executed)
  /// 2·DFMA + DADD + DMUL; counted only by `profile --mode full`, so not a derived JSON key
  /// (reports written before it lack the instruction counts).
  std::optional<double> fp64_flop() const;
  /// bf16 + fp16 + tf32 + fp8 tensor-pipe ops, over the pipes that were counted (a sweep counts
  /// its dtype's pipe, and the fp8 pipe when it has FP8 GEMM points: tensor_ops_metric in
  /// cupti/metrics.hpp); nullopt when none was.
  std::optional<double> tensor_flop() const;
  /// tensor + fp32 + fp16, + fp64 when it was counted; nullopt when tensor, fp32 or fp16 is.
  std::optional<double> total_flop() const;
  /// Every FLOP figure that was counted, summed: tensor_flop(), fp32_flop(), fp16_flop(),
  /// fp64_flop(), each where known; nullopt when none is. What `profile` places a launch with
  /// (single-pass mode counts bf16 tensor FLOPs only, full mode every pipe).
  std::optional<double> counted_flop() const;
};

/// Per-cycle peaks read from counters (`<metric>.peak_sustained`), the raw values. Each field has
/// its row in kCounterPeakFields (result/counter_fields.hpp): JSON key, unit, CUPTI metric.
struct CounterPeaks {
  std::optional<double> dram_bytes_per_cycle;
  std::optional<double> l2_bytes_per_cycle;
  std::optional<double> ffma_inst_per_cycle;
  std::optional<double> tensor_bf16_per_cycle;
  /// Read only by sweeps whose points feed fp8 MMAs (FP8 GEMM): null elsewhere and in reports
  /// written before it existed.
  std::optional<double> tensor_fp8_per_cycle;
};

/// One CUPTI metric set of a counter pass and how it was collected.
struct CounterSession {
  /// "bytes" (one pass: the cache-state-dependent metrics and the other hardware counters that
  /// fit), "counts" (a further one-pass set: the SASS instruction counters), "replay" (metrics
  /// that need several passes: kernel replay with memory save/restore)
  std::string role;
  std::string replay;  ///< ProfilerSession::replay_description
  int passes = 0;
  std::vector<std::string> metrics;
  /// Wall time of the collection this point's ranges came from: range-profiler set-up, the
  /// unprofiled flush, the profiled launches and decoding the counters, plus the point's own
  /// byte-session repeats, seconds; nullopt in reports written before it was recorded. Shared
  /// by points_in_collection points: not divided among them.
  std::optional<double> wall_time_s;
  /// Points whose ranges one range-profiler collection (one CUPTI start/stop) held, this one
  /// included (1: profiled alone); nullopt in reports written before sweeps shared collections.
  std::optional<int> points_in_collection;
};

/// Counter pass of one point.
struct CounterResult {
  std::optional<std::string> null_reason;  ///< set when counters were not collected
  int passes = 0;                          ///< most replay passes of any session
  std::string cache_policy;                ///< how L2 was left before the profiled launch
  /// The sessions the values came from (empty in reports of schema version 1, which used one
  /// kernel-replay session for everything, DRAM bytes included).
  std::vector<CounterSession> sessions;
  /// DRAM bytes written back after the launch: the DRAM writes of a read-only sweep (4 × L2)
  /// profiled as its own range right after the operator's kernels, in the one-pass session. L2
  /// held no dirty line before the launch, so these are exactly the lines the operator left
  /// dirty. nullopt with writeback_null_reason when not measured.
  std::optional<double> dram_writeback_bytes;
  std::string writeback_null_reason;  ///< empty when dram_writeback_bytes is set
  std::string writeback_method;       ///< how it was measured, in one phrase

  /// DRAM traffic of the isolated launch: in-window reads + in-window writes + the deferred
  /// write-back; nullopt when any part is missing.
  std::optional<double> dram_bytes_isolated() const;
  /// In-window writes + deferred write-back; nullopt when either is missing.
  std::optional<double> dram_write_bytes_isolated() const;
  /// What a reader must know about the ranges, e.g. that their count differed from the operator's
  /// kernel list so they are labelled kernel_<i>; empty when there is nothing to say.
  std::string note;
  std::vector<KernelCounters> kernels;  ///< one per launch, in order
  KernelCounters total;                 ///< sum over kernels (clocks: duration-weighted mean)
  CounterPeaks peaks;
};

/// Analytic FLOPs and DRAM bytes of a point (src/model), with the formulas used.
struct AnalyticResult {
  double flop = 0;
  double min_dram_bytes = 0;          ///< each input read once, each output written once
  double implemented_dram_bytes = 0;  ///< what this implementation must move (naive: + S and P)
  std::string flop_formula;
  std::string bytes_formula;
};

/// One measured quantity set against one analytic reference (src/model/reconcile.hpp).
struct ReconcileCheck {
  std::string quantity;   ///< counted quantity: "tensor_flop", "flop", "dram_bytes", "l2_bytes"
  std::string reference;  ///< what it is compared with, e.g. "analytic.flop", "min_dram_bytes"
  double measured = 0;
  double reference_value = 0;
  double ratio = 0;                ///< measured / reference_value
  std::optional<double> band_low;  ///< documented band on the ratio; nullopt: no bound that side
  std::optional<double> band_high;
  bool flagged = false;     ///< ratio outside the band
  std::string explanation;  ///< why the ratio is what it is; always set when flagged
};

/// Analytic vs measured FLOPs and bytes of one point, with the out-of-band ones flagged.
struct Reconciliation {
  std::vector<ReconcileCheck> checks;
  std::string null_reason;  ///< why `checks` is empty (no counters); empty otherwise
};

/// One operator × shape × dtype.
struct PointResult {
  std::string op;
  std::string version;  ///< kernel version that ran
  Shape shape;
  PointStatus status = PointStatus::kOk;
  std::string reason;  ///< why skipped/failed; empty when ok
  uint64_t seed = 0;   ///< random-data seed
  int64_t device_bytes_needed = 0;
  std::optional<Validation> validation;
  std::optional<TimingResult> timing;
  CounterResult counters;
  AnalyticResult analytic;
  std::optional<RooflinePoint> roofline;
  std::string roofline_null_reason;
  std::optional<double> tokens_per_s;  ///< B·L / median time (prefill); B / time (decode)
  /// Analytic vs counted (absent in reports written before it existed).
  std::optional<Reconciliation> reconciliation;
  /// Device memory the point held, bytes, measured with cudaMemGetInfo: free bytes just before the
  /// operator allocated its buffers minus free bytes right after the timed pass (the buffers are
  /// all alive then). Device-wide, so it includes cuBLAS handle state and kernel modules loaded
  /// lazily at first launch, and another process allocating at the same time would skew it;
  /// validation temporaries, freed before timing, are not in it. nullopt with the reason below
  /// when not measured (reports written before this field existed read as nullopt too).
  std::optional<double> peak_device_memory_bytes;
  std::string peak_device_memory_null_reason;  ///< empty when measured
  /// In a report written by `merge`: the index into Report::sources of the shard report this
  /// point came from (its GPU, roofs, canary); nullopt in a report a sweep wrote.
  std::optional<size_t> source;
};

/// The GPU a report was measured on.
struct DeviceRecord {
  int index = 0;
  std::string name;
  /// "GPU-…" (device_info.hpp gpu_uuid_text): which GPU, not only which model, measured the
  /// points; empty in reports written before it was recorded (the JSON then has null).
  std::string uuid;
  /// cudaDeviceGetPCIBusId, e.g. "0000:19:00.0"; empty when unknown (JSON null).
  std::string pci_bus_id;
  // What NVML says of the board and its state (device/nvml_fingerprint.hpp): which GPU measured a
  // point is only known with these once sweeps spread over GPUs and hosts. Each nullopt when
  // NVML is unavailable or the query unsupported, with fingerprint_null_reason saying why; all
  // absent in reports written before they were recorded.
  std::optional<std::string> vbios_version;  ///< nvmlDeviceGetVbiosVersion
  std::optional<bool> ecc_enabled;           ///< nvmlDeviceGetEccMode, current mode
  std::optional<double> power_limit_w;       ///< nvmlDeviceGetEnforcedPowerLimit, watts
  std::optional<bool> mig_enabled;           ///< nvmlDeviceGetMigMode, current mode
  /// False for a device read from a report written before the UUID, PCI bus id and fingerprint
  /// were recorded: its JSON has none of those keys, and writing it back adds none.
  bool identity_recorded = true;
  /// Why a fingerprint field is null, one clause per field ("ECC: Not Supported (code 3)"); empty
  /// when every field was read.
  std::string fingerprint_null_reason;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;
  double sm_clock_max_hz = 0;
  double memory_clock_hz = 0;
  int memory_bus_width_bits = 0;
  int driver_version = 0;   ///< cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;  ///< cudaRuntimeGetVersion
  bool counters_available = false;
  std::string counters_reason;  ///< why counters are not available (empty when they are)
  /// What `sweep --lock-clocks` locked for the sweep; nullopt when the clocks were left alone.
  std::optional<ClockLockRecord> clock_lock;
};

/// Copy-bandwidth canary taken at the start of a sweep (src/measure/canary): a fingerprint of the
/// machine's state, so that `compare` can tell a slower machine from slower code.
struct CanaryResult {
  /// Device-to-device copy bandwidth, counting the read and the write: 2·copy_bytes / median time.
  /// nullopt when the measurement failed (null_reason says why).
  std::optional<double> copy_bytes_per_s;
  std::string null_reason;        ///< empty when copy_bytes_per_s is set
  int64_t copy_bytes = 0;         ///< bytes per copy
  std::vector<double> samples_s;  ///< one per copy, in run order
  std::string method;             ///< how it was measured, in one phrase
};

/// One shard report a `merge` joined: what the merged report needs to say where each of its
/// points was measured. The sweep-wide fields (tool, config but the shard) are the merged
/// report's own: merge refuses shards that differ in them.
struct MergeSource {
  std::string file;  ///< the path merge was given
  ShardSpec shard;
  std::string timestamp_utc;
  DeviceRecord device;
  std::optional<PeaksBlock> peaks;
  std::optional<CanaryResult> canary;
};

/// Why a report's tool.git_revision is null.
inline constexpr const char* kGitRevisionNullReason =
    "unknown: built outside a git checkout without RFL_GIT_REVISION=<hash> in the build "
    "environment";

/// A whole sweep report.
struct Report {
  int schema_version = kReportSchemaVersion;
  std::string tool_version;
  /// Short commit hash the tool was built from; empty when unknown (the JSON then has null and
  /// kGitRevisionNullReason, never "").
  std::string git_revision;
  std::string timestamp_utc;  ///< ISO 8601
  DeviceRecord device;
  SweepConfig config;
  /// The three roof sources and the one the points used; nullopt in reports written before
  /// roof sources existed (their roofs were all counter-derived).
  std::optional<PeaksBlock> peaks;
  std::vector<PointResult> points;
  /// nullopt in reports written before the canary existed (the JSON key is then absent).
  std::optional<CanaryResult> canary;
  /// The shard reports `merge` joined, in shard order; empty for a report a sweep wrote. In a
  /// merged report `device`, `peaks` and `canary` are those of sources[0] and each point's
  /// `source` names its own.
  std::vector<MergeSource> sources;
};

/// The operators of `report.points` in the order they first appear (the sweep's run order), each
/// once: the order every writer lists them in.
std::vector<std::string> operators_in_order(const Report& report);

}  // namespace rooflinectl
