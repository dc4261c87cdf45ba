#include "model/layer_prediction.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "model/prediction.hpp"

namespace rooflinectl {

LayerRoofs layer_roofs(const GpuSpec& gpu) {
  const auto roof = [&gpu](Pipe pipe) {
    std::string reason;
    const std::optional<Roof> r = datasheet_roof(gpu, pipe, Dtype::kBf16, reason);
    if (!r) throw bad_input(fmt::format("--gpu {}: {}; the layer view needs it", gpu.id, reason));
    return *r;
  };
  return {roof(Pipe::kTensor), roof(Pipe::kFp32)};
}

LayerPrediction predict_layer(const ModelPreset& preset, const LayerPoint& point,
                              const LayerRoofs& roofs, double gpu_memory_bytes) {
  LayerPrediction r;
  r.point = point;
  double weight_s = 0, kv_s = 0, activation_s = 0, compute_bound_s = 0;
  for (const LayerOperator& op : layer_operators(preset, point)) {
    const Roof& roof = op.pipe == Pipe::kTensor ? roofs.tensor : roofs.fp32;
    LayerOperatorPrediction p;
    p.op = op;
    p.intensity_flop_per_byte = op.flop / op.min_dram_bytes();
    p.ridge_flop_per_byte = ridge_point_flop_per_byte(roof);
    p.bound = p.intensity_flop_per_byte < p.ridge_flop_per_byte ? Bound::kMemory : Bound::kCompute;
    p.time_lower_bound_s =
        std::max(op.flop / roof.peak_flop_per_s, op.min_dram_bytes() / roof.peak_bytes_per_s);
    if (p.bound == Bound::kMemory) {
      weight_s += op.weight_bytes / roof.peak_bytes_per_s;
      kv_s += op.kv_cache_bytes / roof.peak_bytes_per_s;
      activation_s += op.activation_bytes / roof.peak_bytes_per_s;
    } else {
      compute_bound_s += p.time_lower_bound_s;
    }
    r.layer_time_s += p.time_lower_bound_s;
    r.flop += op.flop;
    r.weight_bytes += op.weight_bytes;
    r.kv_cache_bytes += op.kv_cache_bytes;
    r.activation_bytes += op.activation_bytes;
    r.ops.push_back(std::move(p));
  }
  for (LayerOperatorPrediction& p : r.ops) p.share_of_layer = p.time_lower_bound_s / r.layer_time_s;
  r.weight_time_share = weight_s / r.layer_time_s;
  r.kv_cache_time_share = kv_s / r.layer_time_s;
  r.activation_time_share = activation_s / r.layer_time_s;
  r.compute_bound_time_share = compute_bound_s / r.layer_time_s;

  const double layers = static_cast<double>(preset.layers);
  r.model_time_s = layers * r.layer_time_s;
  if (point.phase == LayerPhase::kPrefill) {
    r.ttft_s = r.model_time_s;
  } else {
    r.decode_tokens_per_s = static_cast<double>(point.batch) / r.model_time_s;
  }

  LayerPeakMemory& m = r.peak_memory;
  m.weight_bytes = layers * r.weight_bytes;
  m.kv_cache_bytes =
      layers * layer_kv_cache_bytes(preset, point.batch, point.seq_len, point.kv_dtype);
  const auto largest = std::max_element(
      r.ops.begin(), r.ops.end(),
      [](const auto& a, const auto& b) { return a.op.activation_bytes < b.op.activation_bytes; });
  m.activation_bytes = largest->op.activation_bytes;
  m.largest_activation_op = largest->op.name;
  m.total_bytes = m.weight_bytes + m.kv_cache_bytes + m.activation_bytes;
  m.fits = m.total_bytes <= gpu_memory_bytes;
  return r;
}

std::vector<std::string> layer_estimate_omissions(const ModelPreset& preset, LayerPhase phase,
                                                  const std::vector<int64_t>& lengths,
                                                  bool measured) {
  std::vector<std::string> out = {
      "the embedding lookup, the final norm, the LM head GEMM (vocab_size x d_model) and sampling",
      "communication (one GPU, no tensor or pipeline parallelism) and kernel-launch gaps "
      "(every operator is assumed to start when the previous one ends)",
      "the two residual adds per layer, rotary embedding and the write of K and V into the KV "
      "cache (each memory-bound, each a few M*d_model-sized passes)",
      measured ? "each operator is timed alone, its median over samples each taken after an L2 "
                 "flush: in a real layer an operator may find the previous one's output in L2 "
                 "and kernels overlap their tails, so the sum can overstate the layer time"
               : "the time lower bound max(FLOP/P_peak, bytes/BW) assumes each operator reaches "
                 "its datasheet roof: real kernels reach some fraction of it"};
  if (phase == LayerPhase::kPrefill) {
    out.push_back(
        "TTFT is the prefill of the B prompts together, without queueing or the first "
        "token's decode step");
  } else {
    out.push_back(
        "tokens/s is one decode step at a fixed context; the context grows by one "
        "position per step");
  }
  for (const std::string& sentence : preset.not_modelled) {
    out.push_back(fmt::format("{}: {}", preset.name, sentence));
  }
  if (const auto note = context_window_note(preset, lengths)) out.push_back(*note);
  return out;
}

}  // namespace rooflinectl
