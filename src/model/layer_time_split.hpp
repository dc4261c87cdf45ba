// What the layer's time-split chart draws (render/svg/svg_layer_split.hpp), taken from a
// LayerReport in memory or from a saved layer JSON (docs/layer-report-schema.json), so that a
// measured layer can be drawn again without the GPU. Plain data, no CUDA.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/layer_report.hpp"

namespace rooflinectl {

/// One bar: a (batch, length) of the layer view and its operators' seconds.
struct LayerSplitBar {
  int64_t batch = 1;
  int64_t length = 0;  ///< prefill L or decode context
  /// Per operator, in layer order; nullopt where not measured.
  std::vector<std::optional<double>> op_s;
  std::optional<double> layer_s;  ///< the layer's time; nullopt when unknown (no bar drawn)
  /// The whole model's peak memory at this point, bytes (weights of every layer, the KV cache of
  /// every layer, the largest activation: LayerPeakMemory::total_bytes), and whether it fits the
  /// GPU's memory (LayerPeakMemory::fits).
  double peak_memory_bytes = 0;
  bool fits = true;
};

/// The chart's input: the model, phase and basis of the times, and one bar per point.
struct LayerTimeSplit {
  std::string model_name;  ///< e.g. "Meta Llama 3.1 8B"
  int layers = 0;          ///< the model's transformer layers (TTFT and tokens/s scale by it)
  bool decode = false;     ///< the length is a KV-cache context (else a prompt length L)
  std::string basis;       ///< "measured median times" | "datasheet lower bounds"
  std::string device;      ///< the GPU measured, or the datasheet's GPU
  /// Memory of the datasheet GPU the peaks are held against (LayerReport::gpu), bytes.
  double gpu_memory_bytes = 0;
  std::vector<int64_t> batches;
  std::vector<int64_t> lengths;
  std::vector<std::string> roles;  ///< operator roles in layer order (input_norm … ffn_down)
  std::vector<LayerSplitBar> bars;
  /// What the estimates leave out (LayerReport::omissions, the JSON's "omissions").
  std::vector<std::string> omissions;
};

/// The split of `report`: measured median times when it is measured, else the datasheet lower
/// bounds.
LayerTimeSplit layer_time_split(const LayerReport& report);

/// The split of a saved layer report (layer_report_to_json_text's document); `origin` names it in
/// errors. Throws a bad-input Error naming the missing or mistyped key, or for a
/// "layer_schema_version" other than kLayerSchemaVersion.
LayerTimeSplit layer_time_split_from_json(const nlohmann::json& document,
                                          const std::string& origin);

}  // namespace rooflinectl
