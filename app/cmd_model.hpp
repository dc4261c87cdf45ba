// `rooflinectl model --gpu NAME`: the analytic model on a GPU from the spec table, no GPU needed
// (runs in CI): predicted FLOPs, bytes, intensity, attainable performance, time lower bound and
// bound per point, the attention memory table, and the flash-attention IO bound.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/shape_options.hpp"

namespace rooflinectl {

/// Flags of `model`.
struct ModelOptions {
  std::string gpu;               ///< spec id (configs/gpus/<id>.json), required
  std::string config_file;       ///< sweep config for ops, seq and shape (default: built-in)
  ShapeOptions shape;            ///< --ops, --seq and the shape flags, as `sweep`
  std::string format = "table";  ///< stdout format: table | json
  std::string output;            ///< JSON written here (atomically; ends in .json); empty: none
  bool output_given = false;     ///< --output was on the command line (an empty name is refused)
  // KV-cache capacity (sequences that fit a budget, contiguous vs paged); asked for by
  // --max-model-len with --kv-lengths.
  std::optional<int64_t> max_model_len;  ///< positions a contiguous allocator reserves per sequence
  std::optional<std::string> kv_lengths;  ///< --seq spec of the positions sequences actually hold
  std::optional<double> kv_budget_gib;    ///< the budget itself, GiB
  /// Share of the GPU's memory the engine may use; the budget is that minus the weights (0.9).
  std::optional<double> gpu_memory_utilization;
  std::optional<int64_t> layers;  ///< layers holding a KV cache (default: the preset's)
};

/// Binds the flags of `model` to `options`.
CLI::App* setup_model(CLI::App& app, ModelOptions& options);

/// Runs `model`; returns 0. Throws a bad-input Error (exit 2) for an unknown --gpu or --model
/// (listing the known ids), a bad shape, operator or format, or an --output in a missing directory
/// or not ending in .json (the file is JSON whatever --format says, as `sweep --output`). Without
/// --model a shape a kernel refuses (e.g. --head-dim 96) is bad input, as in `sweep`; with
/// --model the prediction is made at the preset's widths and a kernel's refusal is one of the
/// report's notes. With --max-model-len and --kv-lengths it adds the KV-cache capacity
/// (kv_capacity in model/memory_model.hpp) at the shape's H_kv, head_dim and KV dtype, the page
/// size of --kv-layout paged (else 16) and --layers or the preset's; the budget is --kv-budget-gib
/// or --gpu-memory-utilization (0.9) × the GPU's memory − the preset's weights. Bad input (exit
/// 2): one of those flags without the other two it needs, a length above --max-model-len, both
/// budget flags, no budget or no layer count without --model, weights that leave no budget.
int run_model_command(const ModelOptions& options);

}  // namespace rooflinectl
