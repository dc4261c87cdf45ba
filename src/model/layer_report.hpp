// Everything `rooflinectl layer --analytic` prints: a model preset's layer on a GPU's datasheet
// roofs at every (batch, length) of a phase, what the estimates leave out, and the conclusion.
// Pure host code, no CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model_preset.hpp"
#include "device/gpu_spec.hpp"
#include "model/layer_measurement.hpp"
#include "model/layer_prediction.hpp"

namespace rooflinectl {

/// The layer view of one preset, phase and GPU: analytic (`layer --analytic`: the datasheet alone)
/// or measured (`layer`: every operator run on the GPU, `measurement` set; the analytic figures
/// stay beside the measured ones).
struct LayerReport {
  GpuSpec gpu;
  ModelPreset preset;
  LayerPhase phase = LayerPhase::kPrefill;
  LayerRoofs roofs;
  std::vector<int64_t> batches;       ///< as given
  std::vector<int64_t> lengths;       ///< prefill: L per prompt; decode: context positions
  KvDtype kv_dtype = KvDtype::kAuto;  ///< the stored KV cache's elements (LayerPoint::kv_dtype)
  /// One per (batch, length), batch-major: every length of the first batch, then the next.
  std::vector<LayerPrediction> points;
  std::vector<std::string> omissions;  ///< layer_estimate_omissions(preset, phase)
  /// layer_conclusion(points) for an analytic view; from the measured split for a measured one.
  std::vector<std::string> conclusion;
  /// What the GPU measured; nullopt for an analytic view.
  std::optional<LayerMeasurement> measurement;

  /// "measured" when `measurement` is set, else "analytic": the basis of the times, shares,
  /// TTFT, tokens/s and conclusion the report leads with.
  std::string basis() const { return measurement ? "measured" : "analytic"; }
};

/// Builds the layer view of `preset` on `gpu` at the product batches × lengths (batch-major), the
/// KV cache stored as `kv_dtype` (LayerPoint::kv_dtype).
/// Throws a bad-input Error when a list is empty, a value is < 1, or the GPU lacks a roof
/// (layer_roofs).
LayerReport build_layer_report(const ModelPreset& preset, const GpuSpec& gpu, LayerPhase phase,
                               const std::vector<int64_t>& batches,
                               const std::vector<int64_t>& lengths,
                               KvDtype kv_dtype = KvDtype::kAuto);

}  // namespace rooflinectl
