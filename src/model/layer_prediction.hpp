// One transformer layer of a model preset placed on a GPU's datasheet roofline, operator by
// operator, and what it implies for the whole model: the layer's time lower bound, TTFT or decode
// tokens/s, where the time and bytes go, and peak memory. `rooflinectl layer --analytic`; no GPU
// needed. Pure host code, no CUDA.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model_preset.hpp"
#include "device/gpu_spec.hpp"
#include "model/layer_operators.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {

/// One operator placed on the datasheet roof of its pipe (roofline: Williams et al. 2009).
struct LayerOperatorPrediction {
  LayerOperator op;
  double intensity_flop_per_byte = 0;  ///< arithmetic intensity I = flop / min DRAM bytes
  double ridge_flop_per_byte = 0;      ///< ridge point I* = P_peak / BW of the operator's pipe
  Bound bound = Bound::kMemory;        ///< memory when I < I*, else compute
  /// No implementation can be faster: max(flop / P_peak, min DRAM bytes / BW), seconds.
  double time_lower_bound_s = 0;
  double share_of_layer = 0;  ///< time_lower_bound_s / the layer's, 0..1
};

/// Peak device memory of the model at one point, bytes.
struct LayerPeakMemory {
  double weight_bytes = 0;    ///< every layer's parameters, bf16: layers × layer_weight_bytes
  double kv_cache_bytes = 0;  ///< layers × 2·B·H_kv·positions·head_dim·e (prefill: L positions)
  /// The largest activation working set of one operator (its activation_bytes: inputs and outputs
  /// that are neither weights nor KV cache), alive while that operator runs.
  double activation_bytes = 0;
  std::string largest_activation_op;  ///< the operator it belongs to
  double total_bytes = 0;             ///< the three above
  bool fits = false;                  ///< total_bytes ≤ the GPU's memory_bytes
};

/// The layer at one point: its operators, sums and model-level estimates.
struct LayerPrediction {
  LayerPoint point;
  std::vector<LayerOperatorPrediction> ops;
  double layer_time_s = 0;  ///< Σ operator time lower bounds of one layer
  double model_time_s = 0;  ///< layers × layer_time_s: one forward pass through every layer
  /// Prefill: time to first token, model_time_s (the B prompts of L tokens prefilled together).
  std::optional<double> ttft_s;
  /// Decode: tokens per second over the batch, B / model_time_s (one token per sequence a step).
  std::optional<double> decode_tokens_per_s;
  double flop = 0;              ///< one layer's FLOPs
  double weight_bytes = 0;      ///< one layer's weight bytes read
  double kv_cache_bytes = 0;    ///< one layer's KV-cache bytes read
  double activation_bytes = 0;  ///< one layer's activation bytes read and written
  /// Share of the layer's time spent reading weights, reading the KV cache and moving
  /// activations in the memory-bound operators (their bytes / BW over layer_time_s), and the share
  /// in compute-bound operators; the four add up to 1.
  double weight_time_share = 0;
  double kv_cache_time_share = 0;
  double activation_time_share = 0;
  double compute_bound_time_share = 0;
  LayerPeakMemory peak_memory;
};

/// The roofs a layer view uses: the dense bf16 tensor roof (GEMMs, attention) and the FP32 roof
/// (norms, activations) of `gpu`'s datasheet, both with its HBM bandwidth. Throws a bad-input
/// Error naming the GPU and the missing figure when its spec has no such rate.
struct LayerRoofs {
  Roof tensor;
  Roof fp32;
};
LayerRoofs layer_roofs(const GpuSpec& gpu);

/// `preset`'s layer at `point` on `roofs`, with peak memory checked against
/// `gpu_memory_bytes`. Throws as layer_operators.
LayerPrediction predict_layer(const ModelPreset& preset, const LayerPoint& point,
                              const LayerRoofs& roofs, double gpu_memory_bytes);

/// What the model-level estimates leave out, one sentence each (the same for every point of a
/// phase): embedding, LM head, sampling, communication, kernel-launch gaps, residual adds,
/// rotary embedding, the KV-cache write, and for prefill the decode steps after the first token;
/// then the basis's own limit: analytic, that every operator is assumed to reach its datasheet
/// roof; `measured`, that each operator was timed alone with a cold L2 (no overlap, no reuse of
/// the previous operator's output in L2); last, what `preset`'s model does that the layer model
/// leaves out (ModelPreset::not_modelled, e.g. Gemma 2's sliding-window layers), and which of
/// `lengths` lie beyond the model's context window (context_window_note).
std::vector<std::string> layer_estimate_omissions(const ModelPreset& preset, LayerPhase phase,
                                                  const std::vector<int64_t>& lengths,
                                                  bool measured = false);

}  // namespace rooflinectl
