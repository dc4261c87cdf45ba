#include "cmd_layer.hpp"

#include <fmt/format.h>

#include <vector>

#include "cli/output_extension.hpp"
#include "core/error.hpp"
#include "core/model_preset.hpp"
#include "core/seq_range.hpp"
#include "device/gpu_spec.hpp"
#include "io/atomic_file.hpp"
#include "model/layer_report.hpp"
#include "render/layer_writer.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kDefaultSeq = "512..32768";
constexpr const char* kDefaultContext = "512..131072";

// parse_seq_spec for a flag other than --seq: its message names `flag` instead, and a repeated
// batch size as a batch ("batch 1 is listed more than once"), not a length.
std::vector<int64_t> parse_list(const std::string& flag, const std::string& spec) {
  try {
    return parse_seq_spec(spec);
  } catch (const Error& e) {
    std::string message = e.what();
    const auto replace_first = [&message](const std::string& from, const std::string& to) {
      const size_t at = message.find(from);
      if (at != std::string::npos) message.replace(at, from.size(), to);
    };
    replace_first("--seq", flag);
    if (flag == "--batch") replace_first("length ", "batch ");
    throw bad_input(message);
  }
}

}  // namespace

CLI::App* setup_layer(CLI::App& app, LayerOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "layer",
      "One transformer layer of a model preset, operator by operator at its real shapes: time "
      "split, bounds, TTFT or decode tokens/s, peak memory (--analytic: from the datasheet, no "
      "GPU needed)");
  sub->add_option("--model", o.model, "model preset id, e.g. llama-3.1-8b (list shows them)")
      ->required();
  sub->add_option("--phase", o.phase,
                  "prefill (whole prompts, M = B*L) | decode (one token per sequence, M = B)")
      ->required();
  sub->add_option("--seq", o.seq, "prefill prompt lengths L, as sweep --seq (default 512..32768)");
  sub->add_option("--context", o.context,
                  "decode KV-cache lengths, as sweep --seq (default 512..131072)");
  sub->add_option("--batch", o.batch, "batch sizes B, a list or range: 1,16,64 (default 1)");
  sub->add_option("--kv-dtype", o.kv_dtype,
                  "Element type of the stored KV cache: auto (bf16) | fp8_e4m3 (1 byte, one fp32 "
                  "scale per KV head for K and for V): decode reads it, peak memory holds it "
                  "(default auto)");
  sub->add_flag("--analytic", o.analytic,
                "model the layer from the --gpu datasheet instead of measuring it");
  sub->add_option("--gpu", o.gpu, "GPU spec id for --analytic, e.g. h200-sxm (default: none)");
  sub->add_option("--format", o.format, "stdout format: table | json (default table)");
  sub->add_option("--output,-o", o.output,
                  "Write the JSON here (atomically; name ending in .json) (default: no file)")
      ->each([&o](const std::string&) { o.output_given = true; });
  return sub;
}

int run_layer_command(const LayerOptions& o) {
  if (!o.analytic) {
    throw bad_input(
        "layer measures on a GPU, which is not built yet: add --analytic --gpu ID for the "
        "datasheet model (no GPU needed)");
  }
  if (!o.gpu) throw bad_input("layer --analytic needs --gpu ID (e.g. h200-sxm; model --help)");
  const LayerPhase phase = parse_layer_phase(o.phase);
  if (o.format != "table" && o.format != "json") {
    throw bad_input(fmt::format("invalid --format '{}': allowed table, json", o.format));
  }
  if (phase == LayerPhase::kPrefill && o.context) {
    throw bad_input(fmt::format(
        "invalid --context '{}' with --phase prefill: prefill takes --seq (prompt lengths); "
        "--context is the KV-cache length of --phase decode",
        *o.context));
  }
  if (phase == LayerPhase::kDecode && o.seq) {
    throw bad_input(fmt::format(
        "invalid --seq '{}' with --phase decode: decode takes --context (KV-cache lengths); "
        "--seq is the prompt length of --phase prefill",
        *o.seq));
  }
  if (o.output_given) {
    check_output_extension(o.output, ".json",
                           "the layer report is JSON (--format sets stdout only)");
    check_output_file_path(o.output);
  }
  const std::vector<int64_t> lengths =
      phase == LayerPhase::kPrefill ? parse_list("--seq", o.seq.value_or(kDefaultSeq))
                                    : parse_list("--context", o.context.value_or(kDefaultContext));
  const std::vector<int64_t> batches = parse_list("--batch", o.batch);
  const KvDtype kv_dtype = parse_kv_dtype(o.kv_dtype);
  const GpuSpec& gpu = find_gpu_spec(*o.gpu);
  const ModelPreset& preset = find_model_preset(o.model);

  const LayerReport report = build_layer_report(preset, gpu, phase, batches, lengths, kv_dtype);
  const std::string json = layer_report_to_json_text(report);
  if (o.output_given) {
    write_file_atomically(o.output, json);
    fmt::print(stderr, "layer report written to {}\n", o.output);
  }
  write_stdout(o.format == "json" ? json : format_layer_table(report));
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace rooflinectl
