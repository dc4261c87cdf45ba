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
#include "roofline/roofline.hpp"

namespace rooflinectl {

/// Version of the JSON report layout; bump on any incompatible change (pinned by a unit test).
inline constexpr int kReportSchemaVersion = 1;

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
  bool l2_flushed = true;  ///< L2 flushed (write + read sweep ≥ 2× L2) before every sample
  /// SM clock measured right after the samples (clock64 vs %globaltimer probe kernel), Hz.
  std::optional<double> sm_clock_hz;
};

/// Counter values of one kernel launch (one CUPTI range), or of the sum over an operator's launches.
/// FLOP fields are already FLOPs; *_inst fields are thread-level SASS instruction counts.
struct KernelCounters {
  std::string name;  ///< kernel name from the operator (range label), "total" for the sum
  std::optional<double> dram_read_bytes;
  std::optional<double> dram_write_bytes;
  std::optional<double> l2_bytes;      ///< lts__t_bytes.sum
  std::optional<double> duration_s;    ///< gpu__time_duration.sum (under replay: informative only)
  std::optional<double> sm_clock_hz;   ///< sm__cycles_elapsed.avg.per_second
  std::optional<double> dram_clock_hz; ///< dram__cycles_elapsed.avg.per_second
  std::optional<double> tensor_bf16_flop;  ///< sm__ops_path_tensor_src_bf16_dst_fp32.sum
  std::optional<double> tensor_fp16_flop;  ///< sm__ops_path_tensor_src_fp16.sum (every dst type)
  std::optional<double> ffma_inst;
  std::optional<double> fadd_inst;
  std::optional<double> fmul_inst;
  std::optional<double> hfma_inst;
  std::optional<double> hadd_inst;
  std::optional<double> hmul_inst;

  std::optional<double> dram_bytes() const;   ///< read + write
  std::optional<double> fp32_flop() const;    ///< 2·FFMA + FADD + FMUL
  std::optional<double> fp16_flop() const;    ///< 2·HFMA + HADD + HMUL (instruction counts, as executed)
  std::optional<double> tensor_flop() const;  ///< bf16 + fp16 tensor-pipe ops
  std::optional<double> total_flop() const;   ///< tensor + fp32 + fp16
};

/// Per-cycle peaks read from counters (`<metric>.peak_sustained`), the raw values.
struct CounterPeaks {
  std::optional<double> dram_bytes_per_cycle;     ///< dram__bytes.sum.peak_sustained
  std::optional<double> ffma_inst_per_cycle;      ///< sm__sass_thread_inst_executed_op_ffma_pred_on
  std::optional<double> tensor_bf16_per_cycle;    ///< sm__ops_path_tensor_src_bf16_dst_fp32 (raw)
};

/// Counter pass of one point.
struct CounterResult {
  std::optional<std::string> null_reason;  ///< set when counters were not collected
  int passes = 0;                          ///< replay passes CUPTI needed
  std::string cache_policy;                ///< how L2 was left before the profiled launch
  /// What a reader must know about the ranges, e.g. that their count differed from the operator's
  /// kernel list so they are labelled kernel_<i>; empty when there is nothing to say.
  std::string note;
  std::vector<KernelCounters> kernels;     ///< one per launch, in order
  KernelCounters total;                    ///< sum over kernels (clocks: duration-weighted mean)
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

/// One operator × shape × dtype.
struct PointResult {
  std::string op;
  std::string version;  ///< kernel version that ran
  Shape shape;
  PointStatus status = PointStatus::kOk;
  std::string reason;   ///< why skipped/failed; empty when ok
  uint64_t seed = 0;    ///< random-data seed
  int64_t device_bytes_needed = 0;
  std::optional<Validation> validation;
  std::optional<TimingResult> timing;
  CounterResult counters;
  AnalyticResult analytic;
  std::optional<RooflinePoint> roofline;
  std::string roofline_null_reason;
  std::optional<double> tokens_per_s;  ///< B·L / median time (prefill); B / time (decode)
};

/// The GPU a report was measured on.
struct DeviceRecord {
  int index = 0;
  std::string name;
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
};

/// A whole sweep report.
struct Report {
  int schema_version = kReportSchemaVersion;
  std::string tool_version;
  std::string git_revision;
  std::string timestamp_utc;  ///< ISO 8601
  DeviceRecord device;
  SweepConfig config;
  std::vector<PointResult> points;
};

}  // namespace rooflinectl
