// The measured layer view: the sweep points a LayerMeasurementPlan ran (a sweep Report) folded
// back into the layer's operators, per-point layer time, TTFT or decode tokens/s, time shares and
// the conclusion drawn from the measured split. Pure host code, no CUDA.
#pragma once

#include "model/layer_plan.hpp"
#include "model/layer_report.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// Adds to `analytic` (build_layer_report of the same preset, phase, batches, lengths and KV
/// dtype: its FLOPs, bytes, datasheet lower bounds and peak memory stay as they are) what `sweep`
/// measured: `sweep.points[i]` is the run of `plan.points[i]`. For each operator of each point its
/// median time, validation, status and the placement's bound; per point the layer time (Σ of the
/// operators' medians), model time (× layers), TTFT = model time (prefill) or tokens/s = B / model
/// time (decode), and the time shares. An operator the kernel refused, or whose point was skipped,
/// failed or interrupted, is unmeasured: its time and every estimate of its layer point are null
/// with the reason. The report's conclusion is layer_conclusion over the measured split of the
/// points whose operators were all measured (LayerMeasurement::conclusion_scope names the scope),
/// or one sentence saying why there is none. Throws std::logic_error when `sweep` does not hold
/// one point per planned point.
LayerReport assemble_measured_layer_report(LayerReport analytic, const LayerMeasurementPlan& plan,
                                           const Report& sweep);

}  // namespace rooflinectl
