#include "model/prediction.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/operator_names.hpp"
#include "core/sweep_axes.hpp"
#include "model/operator_model.hpp"

namespace rooflinectl {

std::optional<Roof> datasheet_roof(const GpuSpec& gpu, Pipe pipe, Dtype dtype, std::string& reason,
                                   bool fp8_inputs) {
  Roof roof;
  roof.pipe = pipe;
  roof.peak_bytes_per_s = gpu.hbm_bytes_per_s.value;
  std::string compute_source;
  if (pipe == Pipe::kTensor) {
    const std::string key = fp8_inputs ? "fp8" : to_string(dtype);
    const auto it = gpu.dense_tensor_flop_per_s.find(key);
    if (it == gpu.dense_tensor_flop_per_s.end()) {
      reason = fmt::format("{} has no sourced dense {} tensor rate in its spec", gpu.id, key);
      return std::nullopt;
    }
    roof.peak_flop_per_s = it->second.value;
    compute_source = it->second.source;
  } else {
    if (!is_known(gpu.fp32_flop_per_s)) {
      reason = fmt::format("{} has no sourced FP32 rate in its spec", gpu.id);
      return std::nullopt;
    }
    roof.peak_flop_per_s = gpu.fp32_flop_per_s.value;
    compute_source = gpu.fp32_flop_per_s.source;
  }
  roof.source = fmt::format("datasheet ({}): compute {}; DRAM {}", gpu.id, compute_source,
                            gpu.hbm_bytes_per_s.source);
  return roof;
}

Prediction predict(const std::string& op, Pipe pipe, const Shape& shape, const LayerWidths& widths,
                   const GpuSpec& gpu) {
  Prediction p;
  p.op = op;
  p.shape = shape;
  p.pipe = pipe;
  p.analytic = analytic_model(op, shape, widths);
  p.min_intensity_flop_per_byte = p.analytic.flop / p.analytic.min_dram_bytes;
  p.implemented_intensity_flop_per_byte = p.analytic.flop / p.analytic.implemented_dram_bytes;
  p.roof = datasheet_roof(gpu, pipe, shape.dtype, p.roof_null_reason,
                          op == kGemmOp && shape.gemm_dtype == GemmDtype::kFp8E4m3);
  if (!p.roof) return p;
  const Roof& roof = *p.roof;
  const double ridge = ridge_point_flop_per_byte(roof);
  p.ridge_flop_per_byte = ridge;
  p.attainable_flop_per_s = attainable_flop_per_s(roof, p.implemented_intensity_flop_per_byte);
  p.min_attainable_flop_per_s = attainable_flop_per_s(roof, p.min_intensity_flop_per_byte);
  p.bound = p.implemented_intensity_flop_per_byte < ridge ? Bound::kMemory : Bound::kCompute;
  p.min_bound = p.min_intensity_flop_per_byte < ridge ? Bound::kMemory : Bound::kCompute;
  const double compute_s = p.analytic.flop / roof.peak_flop_per_s;
  p.time_lower_bound_s = std::max(compute_s, p.analytic.min_dram_bytes / roof.peak_bytes_per_s);
  p.implemented_time_s =
      std::max(compute_s, p.analytic.implemented_dram_bytes / roof.peak_bytes_per_s);
  return p;
}

ModelReport build_model_report(const SweepConfig& config,
                               const std::vector<std::pair<std::string, Pipe>>& ops,
                               const GpuSpec& gpu, const ModelPreset* preset) {
  ModelReport r;
  r.gpu = gpu;
  r.base = config.base;
  r.widths = preset ? preset->widths : kernel_layer_widths(config.base);
  // With a preset, an explicit --hidden or --ffn-dim beats the preset's width, as every other
  // explicit flag does (README, "model presets").
  if (preset && config.base.hidden != 0) r.widths.d_model = config.base.hidden;
  if (preset && config.base.ffn_dim != 0) r.widths.ffn_dim = config.base.ffn_dim;
  if (preset) {
    r.preset = preset->id;
    std::vector<std::string> names;
    for (const auto& op : ops) names.push_back(op.first);
    // The notes describe the shape predicted: a flag that replaced a preset axis or width
    // (--heads, --head-dim, --hidden, --ffn-dim) replaces it in them too.
    ModelPreset effective = *preset;
    effective.heads = config.base.heads;
    effective.head_dim = config.base.head_dim;
    effective.widths = r.widths;
    r.notes = preset_layer_notes(effective, names);
    if (const auto note = context_window_note(*preset, config.seq_lens)) r.notes.push_back(*note);
  }
  r.seq_lens = config.seq_lens;
  r.sram_bytes = shared_memory_per_sm_bytes(gpu.cc_major, gpu.cc_minor);
  bool flash = false;
  for (const auto& [op, pipe] : ops) {
    flash = flash || op == kFlashAttentionOp;
    for (const int64_t seq_len : config.seq_lens) {
      Shape shape = config.base;
      if (!operator_uses_axis(op, SweepAxis::kQLen)) shape.q_len = 0;
      if (!settle_query_len(shape, seq_len)) continue;
      r.points.push_back(predict(op, pipe, shape, r.widths, gpu));
    }
  }
  for (const int64_t seq_len : config.seq_lens) {
    Shape shape = config.base;
    if (!settle_query_len(shape, seq_len)) continue;
    r.memory.push_back(attention_memory(shape));
    if (flash && r.sram_bytes)
      r.flash_io.emplace_back(seq_len, flash_io_bound(shape, *r.sram_bytes));
  }
  r.max_naive_seq_len = max_naive_attention_seq_len(config.base, gpu.memory_bytes.value);
  return r;
}

std::vector<std::string> preset_layer_notes(const ModelPreset& preset,
                                            const std::vector<std::string>& ops) {
  const auto runs = [&ops](const char* op) {
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  };
  const LayerWidths& w = preset.widths;
  std::vector<std::string> notes;
  if (runs("gemm")) {
    notes.push_back(fmt::format(
        "gemm is the FFN up projection of {} (M = B*L, K = d_model = {}, N = ffn_dim = {}); the "
        "down projection (K = ffn_dim, N = d_model, the same FLOPs) and the attention projections "
        "are not predicted",
        preset.id, w.d_model, w.ffn_dim));
  }
  if (is_gated(w.ffn_kind) && runs("gemm")) {
    notes.push_back(fmt::format(
        "{} also runs the gate projection, a second GEMM of the up projection's FLOPs and bytes "
        "(the FFN's first half is twice the gemm row)",
        to_string(w.ffn_kind)));
  }
  if (is_gated(w.ffn_kind) && runs("gelu")) {
    const std::string act = w.ffn_kind == FfnKind::kSwiglu ? "SiLU" : "GELU";
    notes.push_back(fmt::format(
        "{0}'s element-wise step {1}(gate)*up reads 2*N and writes N elements (3*N*e bytes, N = "
        "B*L*ffn_dim), as the {0} operator (--ops {0}) predicts it; the gelu row is a GELU over "
        "the same N (2*N*e bytes){2}",
        to_string(w.ffn_kind), act,
        w.ffn_kind == FfnKind::kSwiglu ? ", with GELU's FLOPs, not SiLU's" : ""));
  }
  if (w.norm == NormKind::kRmsNorm && runs("layernorm")) {
    notes.push_back(
        "the norm of this model is RMSNorm, which the rmsnorm operator (--ops rmsnorm) "
        "predicts: the layernorm row reads and writes the same B*L*d_model elements, and its 8 "
        "FLOP per element count the centring and beta RMSNorm does not have");
  }
  const bool attention =
      runs("naive_attention") || runs("flash_attention") || runs("decode_attention");
  if (attention && preset.heads * preset.head_dim != w.d_model) {
    notes.push_back(fmt::format(
        "the attention width heads*head_dim = {}*{} = {} differs from d_model = {} (the Q and "
        "output projections map between them)",
        preset.heads, preset.head_dim, preset.heads * preset.head_dim, w.d_model));
  }
  return notes;
}

}  // namespace rooflinectl
