// `rooflinectl model --gpu NAME`: the analytic model on a GPU from the spec table, no GPU needed
// (runs in CI): predicted FLOPs, bytes, intensity, attainable performance, time lower bound and
// bound per point, the attention memory table, and the flash-attention IO bound.
#pragma once

#include <CLI/CLI.hpp>
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
};

/// Binds the flags of `model` to `options`.
CLI::App* setup_model(CLI::App& app, ModelOptions& options);

/// Runs `model`; returns 0. Throws a bad-input Error (exit 2) for an unknown --gpu or --model
/// (listing the known ids), a bad shape, operator or format, or an --output in a missing directory
/// or not ending in .json (the file is JSON whatever --format says, as `sweep --output`). Without
/// --model a shape a kernel refuses (e.g. --head-dim 96) is bad input, as in `sweep`; with
/// --model the prediction is made at the preset's widths and a kernel's refusal is one of the
/// report's notes.
int run_model_command(const ModelOptions& options);

}  // namespace rooflinectl
