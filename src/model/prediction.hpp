// What the analytic model predicts for one point on one GPU from its datasheet alone: intensity,
// attainable performance, a time lower bound and the bound, for `rooflinectl model` (no GPU
// needed). Pure host code, no CUDA.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/layer_widths.hpp"
#include "core/model_preset.hpp"
#include "core/pipe.hpp"
#include "core/sweep_config.hpp"
#include "device/gpu_spec.hpp"
#include "model/memory_model.hpp"
#include "model/operator_model.hpp"
#include "result/report.hpp"
#include "roofline/roofline.hpp"

namespace rooflinectl {

/// The datasheet roof of `pipe` for element type `dtype` on `gpu`: tensor → the dense tensor rate
/// of dtype ("bf16"/"fp16"), fp32 → the non-tensor FP32 rate; bandwidth hbm_bytes_per_s. nullopt,
/// with `reason` set, when the table has no such figure for this GPU.
std::optional<Roof> datasheet_roof(const GpuSpec& gpu, Pipe pipe, Dtype dtype, std::string& reason,
                                   bool fp8_inputs = false);

/// Prediction of one operator at one shape under a datasheet roof.
struct Prediction {
  std::string op;
  Shape shape;
  Pipe pipe = Pipe::kTensor;
  AnalyticResult analytic;
  double min_intensity_flop_per_byte = 0;          ///< flop / min_dram_bytes
  double implemented_intensity_flop_per_byte = 0;  ///< flop / implemented_dram_bytes
  std::optional<Roof> roof;                        ///< nullopt: see roof_null_reason
  std::string roof_null_reason;
  /// The fields below are set only with a roof. "implemented" uses implemented_dram_bytes (for
  /// flash_attention: no L2 reuse, so an upper bound on bytes); "min" uses min_dram_bytes.
  std::optional<double> ridge_flop_per_byte;
  std::optional<double> attainable_flop_per_s;      ///< min(P, I_implemented·BW)
  std::optional<double> min_attainable_flop_per_s;  ///< min(P, I_min·BW)
  std::optional<Bound> bound;                       ///< at I_implemented vs the ridge
  std::optional<Bound> min_bound;                   ///< at I_min vs the ridge
  /// No implementation of the operator can be faster: max(flop/P, min_dram_bytes/BW), seconds.
  std::optional<double> time_lower_bound_s;
  /// This implementation without L2 help: max(flop/P, implemented_dram_bytes/BW), seconds.
  std::optional<double> implemented_time_s;
};

/// Predicts `op` (analytic_model; bad-input Error for an unknown name) at `shape` and the layer
/// `widths` (gemm, gelu, layernorm, rmsnorm, swiglu, geglu) on `gpu`.
Prediction predict(const std::string& op, Pipe pipe, const Shape& shape, const LayerWidths& widths,
                   const GpuSpec& gpu);

/// Everything `rooflinectl model` prints: predictions (operator-major, then L), the attention
/// memory table and the flash IO bounds per L, and the largest L naive attention fits in.
struct ModelReport {
  GpuSpec gpu;
  Shape base;  ///< every axis but seq_len
  /// The widths gemm and the element-wise and norm operators are predicted at: the preset's, else
  /// the sweep kernels'
  /// (kernel_layer_widths of base).
  LayerWidths widths;
  std::optional<std::string> preset;  ///< the --model preset's id; nullopt: none
  /// What the predictions leave out or where they differ from the preset's layer (the gate
  /// projection, the gated element-wise step, RMSNorm, the kernels that cannot run the shape),
  /// one sentence each; empty without a preset.
  std::vector<std::string> notes;
  std::vector<int64_t> seq_lens;
  std::vector<Prediction> points;
  std::vector<AttentionMemory> memory;  ///< one per L
  /// Shared memory per SM of the GPU (the M of the IO bound); nullopt when its compute
  /// capability is not in shared_memory_per_sm_bytes, and then flash_io is empty.
  std::optional<double> sram_bytes;
  std::vector<std::pair<int64_t, FlashIoBound>>
      flash_io;                   ///< (L, bound) when flash_attention is in the ops
  int64_t max_naive_seq_len = 0;  ///< largest L with naive attention's footprint ≤ gpu memory
  /// Sequences whose KV caches fit a budget, contiguous vs paged (`model --max-model-len N
  /// --kv-lengths SPEC`); nullopt when not asked for.
  std::optional<KvCapacity> kv_capacity;
  /// Where kv_capacity's budget came from: with both set, kv_budget_utilization × the GPU's
  /// memory − kv_budget_weight_bytes (kv_budget_after_weights); with neither, --kv-budget-gib.
  std::optional<double> kv_budget_utilization;
  std::optional<double> kv_budget_weight_bytes;
};

/// Builds the model report of `config` (ops, seq_lens, base shape; validate_sweep_config first)
/// on `gpu`. `ops` pairs each operator of the config with the pipe whose roof applies. With a
/// `preset` (`model --model NAME`; null: none), gemm and the element-wise and norm operators are
/// predicted at its widths, except a width the base shape sets explicitly (hidden, ffn_dim), and
/// `notes` holds preset_layer_notes.
ModelReport build_model_report(const SweepConfig& config,
                               const std::vector<std::pair<std::string, Pipe>>& ops,
                               const GpuSpec& gpu, const ModelPreset* preset = nullptr);

/// What a prediction at `preset`'s widths leaves out of its layer, one sentence each, only for
/// the operators in `ops` (operator names) a sentence is about: with gemm, the down projection
/// and, for a gated FFN, the gate projection (a second GEMM of the up projection's FLOPs and
/// bytes); with gelu and a gated FFN, the element-wise step act(gate)·up, which reads 2·N and
/// writes N elements where the gelu operator reads N and writes N (the swiglu and geglu
/// operators model it); with layernorm and RMSNorm, that layernorm's FLOPs count the centring
/// and β it does not have (the rmsnorm operator models it); with an attention operator and
/// heads·head_dim ≠ d_model, that the attention width differs from the hidden size.
std::vector<std::string> preset_layer_notes(const ModelPreset& preset,
                                            const std::vector<std::string>& ops);

}  // namespace rooflinectl
