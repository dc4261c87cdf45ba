// Everything `rooflinectl layer --analytic` prints: a model preset's layer on a GPU's datasheet
// roofs at every (batch, length) of a phase, what the estimates leave out, and the conclusion.
// Pure host code, no CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model_preset.hpp"
#include "device/gpu_spec.hpp"
#include "model/layer_prediction.hpp"

namespace rooflinectl {

/// The layer view of one preset, phase and GPU.
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
  std::vector<std::string> omissions;   ///< layer_estimate_omissions(phase)
  std::vector<std::string> conclusion;  ///< layer_conclusion(points)
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
