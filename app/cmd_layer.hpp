// `rooflinectl layer --model NAME --phase prefill|decode`: one transformer layer of a model
// preset, operator by operator, with TTFT or decode tokens/s and peak memory. `--analytic --gpu
// ID` models it from the GPU's datasheet (no GPU needed); measuring it on a GPU is not built yet.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace rooflinectl {

/// Flags of `layer`.
struct LayerOptions {
  std::string model;                   ///< preset id (configs/models/<id>.json), required
  std::string phase;                   ///< "prefill" | "decode", required
  std::optional<std::string> seq;      ///< prefill prompt lengths L (a --seq spec)
  std::optional<std::string> context;  ///< decode KV-cache lengths (a --seq spec)
  std::string batch = "1";             ///< batch sizes B (a --seq spec: "1,16,64", "1..64")
  std::string kv_dtype = "auto";       ///< stored KV cache: "auto" (bf16) | "fp8_e4m3"
  bool analytic = false;               ///< model from the datasheet instead of measuring
  std::optional<std::string> gpu;      ///< spec id (configs/gpus/<id>.json), with --analytic
  std::string format = "table";        ///< stdout format: table | json
  std::string output;                  ///< JSON written here (atomically; ends in .json)
  bool output_given = false;           ///< --output was on the command line
};

/// Binds the flags of `layer` to `options`.
CLI::App* setup_layer(CLI::App& app, LayerOptions& options);

/// Runs `layer`; returns 0. Throws a bad-input Error (exit 2) naming the bad value and what is
/// allowed for: no --analytic (measuring is not built yet), --analytic without --gpu, an unknown
/// --gpu or --model (listing the known ids), an unknown --phase, --context with prefill or --seq
/// with decode, a malformed --seq, --context or --batch (the forms of parse_seq_spec), an unknown
/// --format, an --output not ending in .json or in a missing directory.
int run_layer_command(const LayerOptions& options);

}  // namespace rooflinectl
