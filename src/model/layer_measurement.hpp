// What `rooflinectl layer` without --analytic measured of a transformer layer on a GPU: each
// operator's timed sweep point and its place on the measured roofline, the layer time they add up
// to and the model-level estimates drawn from it. Records only; model/layer_measured.hpp builds
// them from a sweep Report. Pure host code, no CUDA.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {

/// One operator of one layer point as measured (a sweep point: validated, timed, placed).
struct LayerOperatorMeasurement {
  std::string sweep_op;  ///< the sweep operator that ran it: "gemm", "rmsnorm", ...
  Shape shape;           ///< the sweep point's shape
  /// 1-based index of the sweep point in the measurement plan (shared by the operators and
  /// points that run the same problem); nullopt when the kernel refused the shape.
  std::optional<size_t> sweep_point;
  /// The sweep point's status ("ok", "skipped", "failed", "interrupted"), or "refused" when the
  /// operator's kernel cannot run the shape and no point was planned.
  std::string status;
  std::string version;  ///< kernel version that ran; empty when none ran
  bool validated = false;
  /// Median of the timed samples, seconds; nullopt (never 0) when not measured: null_reason.
  std::optional<double> time_s;
  std::string null_reason;
  /// Half-width of the median's 95% confidence interval over the median; nullopt when unknown.
  std::optional<double> median_noise;
  /// The measured roofline placement (the sweep's roof, counted or analytic FLOPs and bytes):
  /// bound (DRAM-ridge verdict), fraction of the lowest roof, the level that binds and the basis
  /// of its FLOPs and bytes ("counters" | "analytic"); nullopt with placement_null_reason.
  std::optional<Bound> bound;
  std::optional<double> fraction_of_roof;
  std::optional<RoofLevel> binding_level;
  std::string placement_basis;
  std::string placement_null_reason;
  /// time_s / the measured layer time, 0..1; nullopt when either is unknown.
  std::optional<double> share_of_layer;
};

/// The measured layer at one (batch, length); every estimate nullopt (never 0) while an operator
/// is unmeasured, with null_reason naming the operators and why.
struct MeasuredLayerPoint {
  std::vector<LayerOperatorMeasurement> ops;  ///< layer_operators order
  std::optional<double> layer_time_s;         ///< Σ measured operator times of one layer
  std::optional<double> model_time_s;         ///< layers × layer_time_s
  std::optional<double> ttft_s;               ///< prefill: model_time_s
  std::optional<double> decode_tokens_per_s;  ///< decode: B / model_time_s
  /// As LayerPrediction's, from measured times: a memory-bound operator's time split by its
  /// analytic weight, KV-cache and activation bytes; compute-bound operators' time on its own.
  std::optional<double> weight_time_share;
  std::optional<double> kv_cache_time_share;
  std::optional<double> activation_time_share;
  std::optional<double> compute_bound_time_share;
  std::string null_reason;  ///< why layer_time_s is null; empty when every operator was measured
};

/// The measured part of a layer view: where it ran and one MeasuredLayerPoint per layer point.
struct LayerMeasurement {
  std::string device_name;
  std::string tool_version;
  std::string git_revision;  ///< empty when unknown
  std::string timestamp_utc;
  std::string roof_source;  ///< the sweep's roof source: "datasheet" | "counters" | "measured"
  bool counters_available = false;
  std::string counters_null_reason;        ///< why placements are analytic; empty with counters
  size_t sweep_points = 0;                 ///< distinct sweep points planned and run
  std::vector<MeasuredLayerPoint> points;  ///< parallel to LayerReport::points
  /// Which points the conclusion is drawn from: every point, or those whose operators were all
  /// measured (named here when some were not).
  std::string conclusion_scope;
};

}  // namespace rooflinectl
