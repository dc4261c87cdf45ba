// `rooflinectl compare` of two measured `layer` reports: each operator of each (batch, length) of
// the layer and the layer's total, base against new, and the exit code CI gates on. Pure host code
// (no CUDA, no I/O); render/layer_compare_writer.hpp prints it.
//
// A layer report keeps each operator's median and the half-width of its 95% confidence interval
// (median_noise), not the raw samples a sweep comparison tests with Mann-Whitney U. So the time
// gate here is interval-based: a change is slower or faster when it exceeds the threshold AND the
// two medians' 95% intervals do not overlap (|new - base| > half-width(base) + half-width(new)),
// which is stricter than a 5% test for two intervals of similar width; a change beyond the
// threshold whose intervals overlap, or whose noise is unknown, is inconclusive, never a
// regression. The layer row gates the sum of the operator medians with the sum of their
// half-widths (a conservative interval of the sum). No counter gate and no clock normalization:
// the layer report keeps neither the counters' sums per operator nor the SM clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "result/layer_times.hpp"

namespace rooflinectl {

/// Thresholds and switches of a layer comparison (a subset of CompareOptions').
struct LayerCompareOptions {
  double time_threshold = 0.05;      ///< relative change of a median that may count, in (0, 1)
  bool strict = false;               ///< inconclusive and removed entries also fail (exit 1)
  bool allow_different_gpu = false;  ///< compare layers measured on different GPUs
};

/// One operator of one layer point, or the layer's total (role "layer").
struct LayerTimeComparison {
  std::string role;  ///< "input_norm", ..., or "layer" for the sum of the operators
  Verdict verdict = Verdict::kSame;
  std::string reason;  ///< one line: why this verdict, with the numbers
  std::optional<double> base_time_s;
  std::optional<double> current_time_s;
  /// (current - base) / base; nullopt unless both times are known.
  std::optional<double> relative_change;
  /// Half-widths of the two medians' 95% intervals, seconds; nullopt when unknown.
  std::optional<double> base_half_width_s;
  std::optional<double> current_half_width_s;
  std::string base_version;  ///< kernel version in the base; empty for the layer row
  /// The new report's kernel version when it differs from base_version; empty otherwise.
  std::string new_version;
};

/// One (batch, length): its layer row and its operators; a point in one report only has no rows.
struct LayerPointComparison {
  int64_t batch = 1;
  int64_t length = 0;
  /// kAdded or kRemoved for a point in one report only; otherwise the verdict of its rows (layer
  /// and operators) that needs attention first: failed, slower, inconclusive, faster, same.
  Verdict verdict = Verdict::kSame;
  std::optional<LayerTimeComparison> layer;  ///< set for a point in both reports
  std::vector<LayerTimeComparison> ops;      ///< layer order; empty for an unmatched point
};

/// The whole comparison; points in base order, then the added ones in new-report order.
struct LayerCompareResult {
  LayerCompareOptions options;
  ReportIdentity base;
  ReportIdentity current;
  std::string model_name;
  std::string phase;     ///< "prefill" | "decode"
  std::string kv_dtype;  ///< "auto" | "fp8_e4m3"
  std::vector<std::string> warnings;
  std::vector<LayerPointComparison> points;

  /// Rows (layer rows and operator rows) and unmatched points with this verdict.
  size_t count(Verdict verdict) const;
  size_t regressions() const;  ///< kSlower + kFailed rows
  /// 1 (ExitCode::kPartial) when a row regressed, or with options.strict when a row is
  /// inconclusive or a point was removed; otherwise 0.
  int exit_code() const;
};

/// Compares `current` against `base`: points matched by (batch, length), operators by role.
/// Per operator: kFailed when the new run failed (validation or CUDA error); kInconclusive when
/// the new run did not measure it (skipped, refused, interrupted) while the base did, or the two
/// ran different shapes; kAdded when only the new run measured it; kSame when neither did; else
/// the interval time gate (file comment), changes under kTimeResolutionFloorS always the same.
/// A kernel version change is named in the reason and gated like any other change.
/// Throws a bad-input Error (exit 2) when the model, phase or KV-cache dtype differ; when the GPU
/// names differ and options.allow_different_gpu is false; when the operator roles differ; when
/// no (batch, length) matched (naming both sets); when a report lists a (batch, length) twice;
/// when the threshold is not in (0, 1).
LayerCompareResult compare_layer_reports(const LayerTimes& base, const LayerTimes& current,
                                         const LayerCompareOptions& options);

}  // namespace rooflinectl
