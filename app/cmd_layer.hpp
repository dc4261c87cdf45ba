// `rooflinectl layer --model NAME --phase prefill|decode`: one transformer layer of a model
// preset, operator by operator, with TTFT or decode tokens/s and peak memory. By default every
// operator runs on the GPU as a sweep point (validated, timed, counted, placed); `--analytic --gpu
// ID` models it from the GPU's datasheet instead (no GPU needed).
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
  /// Spec id (configs/gpus/<id>.json): required with --analytic; measured, the datasheet of the
  /// analytic columns and peak memory (default: the spec matching the GPU measured).
  std::optional<std::string> gpu;
  // Measured only (refused with --analytic): as `sweep`'s flags of the same names.
  std::optional<int> repetitions;        ///< timed samples per point, fixed sampling
  std::optional<std::string> max_noise;  ///< adaptive sampling target, e.g. "1%"
  bool no_counters = false;              ///< timing only, analytic placement
  bool require_counters = false;         ///< exit 3 when counters cannot be read
  std::optional<std::string> roof;       ///< datasheet | counters | measured
  std::optional<int> device;             ///< CUDA device index
  std::string format = "table";          ///< stdout format: table | json
  std::string output;                    ///< JSON written here (atomically; ends in .json)
  bool output_given = false;             ///< --output was on the command line
  std::optional<std::string> chart;      ///< --chart: the time-split SVG written here (.svg)
};

/// Binds the flags of `layer` to `options`.
CLI::App* setup_layer(CLI::App& app, LayerOptions& options);

/// Runs `layer`; returns 0, or for a measured view 1 when an operator of some point was not
/// measured (refused by its kernel, skipped, failed) and 130 when interrupted (the report is
/// still written). Throws a bad-input Error (exit 2) naming the bad value and what is allowed
/// for: --analytic without --gpu, a measurement flag with --analytic, an unknown --gpu or --model
/// (listing the known ids), an unknown --phase, --context with prefill or --seq with decode, a
/// malformed --seq, --context, --batch (the forms of parse_seq_spec) or --max-noise, --roof
/// counters with --no-counters, an unknown --format, an --output not ending in .json or in a
/// missing directory, a measured GPU outside the datasheet table without --gpu; an environment
/// Error (exit 3) when measuring without a GPU, or with --require-counters and counters that
/// cannot be read.
int run_layer_command(const LayerOptions& options);

}  // namespace rooflinectl
