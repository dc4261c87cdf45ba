#include "model/layer_report.hpp"

#include "core/error.hpp"
#include "model/layer_conclusion.hpp"

namespace rooflinectl {

LayerReport build_layer_report(const ModelPreset& preset, const GpuSpec& gpu, LayerPhase phase,
                               const std::vector<int64_t>& batches,
                               const std::vector<int64_t>& lengths, KvDtype kv_dtype) {
  if (batches.empty() || lengths.empty()) {
    throw bad_input("the layer view needs at least one batch and one length");
  }
  LayerReport r;
  r.gpu = gpu;
  r.preset = preset;
  r.phase = phase;
  r.roofs = layer_roofs(gpu);
  r.batches = batches;
  r.lengths = lengths;
  r.kv_dtype = kv_dtype;
  for (const int64_t batch : batches) {
    for (const int64_t length : lengths) {
      r.points.push_back(predict_layer(preset, LayerPoint{phase, batch, length, kv_dtype}, r.roofs,
                                       gpu.memory_bytes.value));
    }
  }
  r.omissions = layer_estimate_omissions(preset, phase, lengths);
  r.conclusion = layer_conclusion(r.points);
  return r;
}

}  // namespace rooflinectl
