// What a sweep runs: operators × the shape axes' values × sequence lengths, and how it measures.
// Loaded from a JSON config (configs/default.json) and overridden by CLI flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json_input.hpp"
#include "core/kernel_version.hpp"
#include "core/shape.hpp"
#include "core/shard.hpp"
#include "core/sweep_axes.hpp"

namespace rooflinectl {

/// Most timed samples (and warm-ups) per point: a million already takes hours per point at 1 ms
/// and keeps every raw sample in the report; more is a typo, not a measurement plan.
inline constexpr int kMaxRepetitions = 1'000'000;
/// Most seconds of adaptive sampling per point (--min-time, --max-time): an hour per point is a
/// soak test, more is a typo.
inline constexpr double kMaxSamplingSeconds = 3600.0;

struct SweepConfig {
  std::vector<std::string> ops;   ///< operator names, in run order
  std::vector<int64_t> seq_lens;  ///< L values
  std::string seq_spec;           ///< the --seq text the lengths came from
  /// Every axis but seq_len; an axis with a list in `axes` holds the list's first value here.
  Shape base;
  /// The axes swept as lists (empty lists: the base shape's value). The plan is their product
  /// (core/sweep_plan.hpp).
  SweepAxes axes;
  /// `--filter` expression (core/point_filter.hpp) the plan's points must satisfy; "" keeps all.
  std::string filter;
  int repetitions = 10;  ///< timed samples per point (≥ 1) when max_noise is unset
  /// Adaptive sampling (measure/timing.hpp TimingOptions, nvbench's --max-noise): sample each
  /// point until the median's 95% interval half-width over the median is at most this fraction
  /// (0 < max_noise < 1), with at least min_samples samples and min_time_s of sample time, or
  /// until max_time_s of wall time; unset: `repetitions` fixed samples.
  std::optional<double> max_noise;
  int min_samples = 10;     ///< adaptive: fewest samples per point (≥ 6)
  double min_time_s = 0.0;  ///< adaptive: least summed sample time per point, s (≥ 0)
  double max_time_s = 1.0;  ///< adaptive: most sampling wall time per point, s (> 0)
  int warmup_runs = 3;      ///< untimed launches before the samples
  bool counters = true;     ///< run the CUPTI counter pass
  /// Refuse to run timing-only: counters that cannot be read are an environment Error (exit 3)
  /// raised before the first point. A run policy, not part of the report.
  bool require_counters = false;
  bool warm_l2 = false;  ///< skip the L2 flush before each timed sample
  /// Count sm__throughput in the replay pass (8 more CUPTI passes per point on GH100). Reports
  /// written before the option existed read as true: they counted it.
  bool sm_throughput = false;
  int device = 0;  ///< CUDA device index
  /// `--lock-clocks`: "" leaves the GPU's clocks alone, "base" locks its SM clocks to the default
  /// applications clock through NVML for the sweep (device/nvml_clocks.hpp). CLI only.
  std::string lock_clocks;
  /// Kernel version key per operator (`--kernel OP=VERSION`, the config's "kernels" object); an
  /// operator not named runs its default. A sweep's report records the key of every operator it
  /// ran, defaults included (the point's `version` says which version ran).
  KernelRequests kernels;
  /// `--model NAME`: the preset (configs/models/, core/model_preset.hpp) whose widths seeded
  /// `base` and `axes`; "" without --model. A record of where the shapes came from (they are all
  /// in base and axes), written as the report's config.model; CLI only, not a config-file key.
  std::string model_preset;
  /// `--shard i/n`: run only this shard's points (core/sweep_plan.hpp, core/shard.hpp); nullopt:
  /// every point. CLI only, not a config-file key; a report records it as config.shard.
  std::optional<ShardSpec> shard;
};

/// Reads a sweep config from JSON text. Recognized keys (all optional): "ops" (array of names),
/// "seq" (a --seq spec string), "batch", "heads", "kv_heads", "head_dim", "dtype", "causal",
/// "gelu_form", "kv_dtype" ("auto" | "fp8_e4m3"), "gemm_dtype" ("auto" | "fp8_e4m3"), "q_len"
/// (attention's query length; 0: L_q =
/// L) (each a value or a non-empty array of distinct values, swept as a product),
/// "filter" (a --filter expression), "kv_layout" ("contiguous" | "paged"), "page_size" (KV
/// positions per page; 16 when "kv_layout" is "paged" without it), "gemm_n" and "gemm_k" (the
/// gemm operator's N and K; 0 or absent: ffn_dim and d_model), "hidden" and "ffn_dim" (the layer
/// widths d_model and d_ff, Shape::hidden and Shape::ffn_dim; 0 or absent: heads·head_dim and
/// 4·d_model), "repetitions", "max_noise" (a
/// fraction), "min_samples", "min_time_s", "max_time_s", "warmup_runs", "counters", "warm_l2",
/// "sm_throughput", "device", "kernels" (an object of operator name to version key, e.g. {"gemm":
/// "v1"}; the names are checked against the operators' declarations later, with the plan). Unknown
/// keys and wrong types are bad-input Errors naming `origin` (the file) and the key.
SweepConfig parse_sweep_config(const std::string& json_text, const std::string& origin);

/// Reads the shape-axis keys "batch", "heads", "kv_heads", "head_dim", "dtype", "causal",
/// "gelu_form", "kv_dtype", "gemm_dtype" and "q_len" of a config file or a report's config into
/// `config` (base shape and lists): each a value, or a non-empty array of distinct values. A
/// missing key is an error when `required` (a report), except "kv_dtype" (absent: auto, as in
/// reports before FP8 decode), "gemm_dtype" (absent: auto, as in reports before FP8 GEMM) and
/// "q_len" (absent: 0, L_q = L, as in reports before --q-len), else keeps the config's
/// value; "heads" without "kv_heads" means MHA (kv_heads = heads), as --heads without --kv-heads
/// does, and an array of heads needs "kv_heads". Wrong types, values below 1 (below 0 for q_len)
/// and repeated elements are bad-input Errors naming the key.
void read_shape_axes(const JsonObjectReader& reader, SweepConfig& config, bool required);

/// Reads and parses the file at `path`; a missing or unreadable file is a bad-input Error.
SweepConfig load_sweep_config(const std::string& path);

/// The built-in defaults (identical to configs/default.json, which a unit test checks).
SweepConfig default_sweep_config();

/// Checks the whole config: known-positive axes, repetitions ≥ 1, the adaptive-sampling bounds
/// (0 < max_noise < 1, min_samples ≥ 6, 0 ≤ min_time_s ≤ max_time_s, max_time_s > 0), non-empty
/// ops and seq_lens,
/// the filter's grammar, every combination of the axes' values (kv-heads dividing heads, sizes;
/// the error of a combination of a sweep with lists names it and the --filter term that drops it),
/// a plan that the filter leaves points in, the KV layout (validate_kv_layout; a paged layout with
/// decode_attention as the only operator), the KV dtype (a --kv-dtype without auto among its values
/// with decode_attention as the only operator), the GEMM input dtype (a --gemm-dtype without auto
/// among its values with gemm as the only operator), the GEMM dims (validate_gemm_dims; explicit
/// ones need gemm among the operators), the layer widths (validate_layer_widths; explicit ones need
/// an operator that reads them, operator_uses_layer_widths), the query lengths (each 0 or at most
/// the longest L; one other than 0 needs naive_attention or flash_attention among the operators)
/// and validate_run_settings. Operator names are checked by the kernels registry.
/// Throws bad-input.
void validate_sweep_config(const SweepConfig& config);

/// Checks how the points are measured, whatever they are: repetitions 1..kMaxRepetitions, the
/// adaptive-sampling bounds (0 < max_noise < 1, 6 ≤ min_samples, 0 ≤ min_time_s ≤ max_time_s,
/// max_time_s > 0), warmup runs, a device index ≥ 0. `layer`, whose points come from its own plan,
/// calls it before the GPU is opened. Throws bad-input naming the flag.
void validate_run_settings(const SweepConfig& config);

}  // namespace rooflinectl
