#include "model/layer_measured.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <utility>

#include "model/layer_conclusion.hpp"
#include "roofline/roof_source.hpp"

namespace rooflinectl {
namespace {

// The measurement of one layer operator from its source in the plan and the sweep's points.
LayerOperatorMeasurement measure_operator(const LayerOperatorSource& source,
                                          const std::vector<PointResult>& points) {
  LayerOperatorMeasurement m;
  m.sweep_op = source.op;
  m.shape = source.shape;
  if (!source.point) {
    m.status = "refused";
    m.null_reason = "not measured: the kernel cannot run this shape: " + source.unmeasured_reason;
    m.placement_null_reason = m.null_reason;
    return m;
  }
  const PointResult& p = points[*source.point];
  m.sweep_point = *source.point + 1;
  m.status = to_string(p.status);
  m.version = p.version;
  m.validated = p.validation && p.validation->passed;
  if (p.status != PointStatus::kOk || !p.timing) {
    m.null_reason = fmt::format("not measured: sweep point {}: {}", m.status,
                                p.reason.empty() ? "-" : p.reason);
    m.placement_null_reason = m.null_reason;
    return m;
  }
  m.time_s = p.timing->median_s;
  m.median_noise = p.timing->noise;
  if (p.roofline) {
    m.bound = p.roofline->bound;
    m.fraction_of_roof = p.roofline->fraction_of_roof;
    m.binding_level = p.roofline->binding_level;
    m.placement_basis = p.roofline->basis;
  } else {
    m.placement_null_reason = p.roofline_null_reason;
  }
  return m;
}

// The point's sums and estimates, or why there are none.
void sum_point(MeasuredLayerPoint& m, const LayerPrediction& analytic, int64_t layers) {
  std::vector<std::string> missing;
  double layer_s = 0;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops[i].time_s) {
      layer_s += *m.ops[i].time_s;
    } else {
      missing.push_back(fmt::format("{} ({})", analytic.ops[i].op.name, m.ops[i].null_reason));
    }
  }
  if (!missing.empty()) {
    m.null_reason = fmt::format("not every operator was measured: {}", fmt::join(missing, "; "));
    return;
  }
  double weight_s = 0, kv_s = 0, activation_s = 0, compute_s = 0;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    LayerOperatorMeasurement& o = m.ops[i];
    const LayerOperator& op = analytic.ops[i].op;
    o.share_of_layer = *o.time_s / layer_s;
    // Without a placement the datasheet bound decides which group the time belongs to.
    if (o.bound.value_or(analytic.ops[i].bound) == Bound::kCompute) {
      compute_s += *o.time_s;
      continue;
    }
    const double bytes = op.min_dram_bytes();
    weight_s += *o.time_s * op.weight_bytes / bytes;
    kv_s += *o.time_s * op.kv_cache_bytes / bytes;
    activation_s += *o.time_s * op.activation_bytes / bytes;
  }
  m.layer_time_s = layer_s;
  m.model_time_s = static_cast<double>(layers) * layer_s;
  if (analytic.point.phase == LayerPhase::kPrefill) {
    m.ttft_s = *m.model_time_s;
  } else {
    m.decode_tokens_per_s = static_cast<double>(analytic.point.batch) / *m.model_time_s;
  }
  m.weight_time_share = weight_s / layer_s;
  m.kv_cache_time_share = kv_s / layer_s;
  m.activation_time_share = activation_s / layer_s;
  m.compute_bound_time_share = compute_s / layer_s;
}

// `analytic` with its times, shares and bounds replaced by the measured ones of `m` (every
// operator measured), for layer_conclusion.
LayerPrediction measured_split(LayerPrediction analytic, const MeasuredLayerPoint& m) {
  for (size_t i = 0; i < m.ops.size(); ++i) {
    LayerOperatorPrediction& o = analytic.ops[i];
    o.time_lower_bound_s = *m.ops[i].time_s;
    o.share_of_layer = *m.ops[i].share_of_layer;
    o.bound = m.ops[i].bound.value_or(o.bound);
  }
  analytic.layer_time_s = *m.layer_time_s;
  analytic.model_time_s = *m.model_time_s;
  analytic.ttft_s = m.ttft_s;
  analytic.decode_tokens_per_s = m.decode_tokens_per_s;
  analytic.weight_time_share = *m.weight_time_share;
  analytic.kv_cache_time_share = *m.kv_cache_time_share;
  analytic.activation_time_share = *m.activation_time_share;
  analytic.compute_bound_time_share = *m.compute_bound_time_share;
  return analytic;
}

std::string point_name(const LayerPrediction& p) {
  return fmt::format("B = {}, {} = {}", p.point.batch,
                     p.point.phase == LayerPhase::kPrefill ? "L" : "context", p.point.seq_len);
}

}  // namespace

LayerReport assemble_measured_layer_report(LayerReport r, const LayerMeasurementPlan& plan,
                                           const Report& sweep) {
  if (sweep.points.size() != plan.points.size() || plan.sources.size() != r.points.size()) {
    throw std::logic_error(fmt::format(
        "measured layer: {} sweep points for {} planned, {} layer points for {} planned",
        sweep.points.size(), plan.points.size(), r.points.size(), plan.sources.size()));
  }
  LayerMeasurement& m = r.measurement.emplace();
  m.device_name = sweep.device.name;
  m.tool_version = sweep.tool_version;
  m.git_revision = sweep.git_revision;
  m.timestamp_utc = sweep.timestamp_utc;
  m.roof_source = sweep.peaks ? to_string(sweep.peaks->used) : std::string("counters");
  m.counters_available = sweep.device.counters_available;
  m.counters_null_reason = sweep.device.counters_reason;
  m.sweep_points = plan.points.size();

  std::vector<LayerPrediction> complete;
  std::vector<std::string> incomplete;
  for (size_t i = 0; i < r.points.size(); ++i) {
    MeasuredLayerPoint& point = m.points.emplace_back();
    for (const LayerOperatorSource& source : plan.sources[i]) {
      point.ops.push_back(measure_operator(source, sweep.points));
    }
    sum_point(point, r.points[i], r.preset.layers);
    if (point.layer_time_s) {
      complete.push_back(measured_split(r.points[i], point));
    } else {
      incomplete.push_back(point_name(r.points[i]));
    }
  }
  r.omissions = layer_estimate_omissions(r.preset, r.phase, r.lengths, true);
  if (complete.empty()) {
    m.conclusion_scope = "none: no point has every operator measured";
    r.conclusion = {
        "no conclusion from measurements: no point has every operator measured (each point's "
        "null_reason says which operators are missing and why)"};
    return r;
  }
  m.conclusion_scope = incomplete.empty()
                           ? std::string("every point")
                           : fmt::format("the points with every operator measured; left out: {}",
                                         fmt::join(incomplete, "; "));
  r.conclusion = layer_conclusion(complete);
  return r;
}

}  // namespace rooflinectl
