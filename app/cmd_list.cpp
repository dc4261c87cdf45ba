#include "cmd_list.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model_preset.hpp"
#include "core/sweep_config.hpp"
#include "cupti/metrics.hpp"
#include "device/gpu_spec.hpp"
#include "io/atomic_file.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {
namespace {

/// One sweep axis as `list` shows it. The text and the JSON are both rendered from this table, so
/// the two outputs cannot disagree on an axis or its default.
struct AxisDefault {
  std::string flag;                      ///< "--seq"
  std::string config_key;                ///< the same axis's key in a --config file
  nlohmann::ordered_json default_value;  ///< typed, as a --config file spells it
  std::string default_text;              ///< as the text output spells it ("on" / "off")
  std::vector<std::string> allowed;      ///< the closed set of values, when there is one
  std::string note;                      ///< one phrase of meaning, when the name is not enough
};

std::vector<AxisDefault> axis_defaults() {
  const SweepConfig d = default_sweep_config();
  const auto integer = [](const std::string& flag, const std::string& key, int64_t value,
                          const std::string& note) {
    return AxisDefault{flag, key, value, std::to_string(value), {}, note};
  };
  return {
      {"--seq", "seq", d.seq_spec, d.seq_spec, {}, ""},
      integer("--batch", "batch", d.base.batch, ""),
      integer("--heads", "heads", d.base.heads, ""),
      integer("--kv-heads", "kv_heads", d.base.kv_heads, "GQA when below --heads"),
      integer("--head-dim", "head_dim", d.base.head_dim, ""),
      {"--dtype", "dtype", to_string(d.base.dtype), to_string(d.base.dtype), {"bf16", "fp16"}, ""},
      {"--gelu-form",
       "gelu_form",
       to_string(d.base.gelu_form),
       to_string(d.base.gelu_form),
       {"erf", "tanh"},
       "gelu and geglu"},
      {"--causal", "causal", d.base.causal, d.base.causal ? "on" : "off", {}, ""},
      {"--kv-layout",
       "kv_layout",
       to_string(d.base.kv_layout),
       to_string(d.base.kv_layout),
       {"contiguous", "paged"},
       "decode_attention only; paged takes --page-size 16|32|64|128 (default 16)"},
      {"--kv-dtype",
       "kv_dtype",
       to_string(d.base.kv_dtype),
       to_string(d.base.kv_dtype),
       {"auto", "fp8_e4m3"},
       "decode_attention only; auto is the --dtype, fp8_e4m3 one fp32 scale per KV head"},
      {"--gemm-dtype",
       "gemm_dtype",
       to_string(d.base.gemm_dtype),
       to_string(d.base.gemm_dtype),
       {"auto", "fp8_e4m3"},
       "gemm only; auto is the --dtype, fp8_e4m3 one fp32 scale per X and W (compute "
       "capability 9.0)"},
      integer("--q-len", "q_len", d.base.q_len,
              "naive and flash attention only; L_q queries over the --seq keys (chunked "
              "prefill); 0 or L: L_q = L"),
      integer("--gemm-n", "gemm_n", d.base.gemm_n,
              "gemm only; 0 = the FFN up projection's N (ffn-dim); else a multiple of 8"),
      integer("--gemm-k", "gemm_k", d.base.gemm_k,
              "gemm only; 0 = d_model (hidden); else a multiple of 8"),
      integer("--hidden", "hidden", d.base.hidden,
              "d_model of gemm, gelu, layernorm, rmsnorm, swiglu, geglu; 0 = heads * head_dim"),
      integer("--ffn-dim", "ffn_dim", d.base.ffn_dim,
              "d_ff of gelu, swiglu, geglu and gemm's default N; 0 = 4 * d_model"),
      integer("--repetitions", "repetitions", d.repetitions, ""),
  };
}

/// One preset's layer in a line: "d_model 4096, H 32, H_kv 8, d 128, ffn 14336 swiglu, rmsnorm, 32
/// layers, vocab 128256, context 131072".
std::string preset_summary(const ModelPreset& p) {
  const std::string gelu = p.gelu_form ? fmt::format(" ({} GELU)", to_string(*p.gelu_form)) : "";
  return fmt::format(
      "d_model {}, H {}, H_kv {}, d {}, ffn {} {}{}, {}, {} layers, vocab {}, context {}",
      p.widths.d_model, p.heads, p.kv_heads, p.head_dim, p.widths.ffn_dim,
      to_string(p.widths.ffn_kind), gelu, to_string(p.widths.norm), p.layers, p.vocab_size,
      p.max_context);
}

nlohmann::ordered_json preset_json(const ModelPreset& p) {
  nlohmann::ordered_json sources = nlohmann::ordered_json::object();
  for (const auto& [key, source] : p.sources) sources[key] = source;
  return {{"id", p.id},
          {"name", p.name},
          {"d_model", p.widths.d_model},
          {"heads", p.heads},
          {"kv_heads", p.kv_heads},
          {"head_dim", p.head_dim},
          {"ffn_dim", p.widths.ffn_dim},
          {"ffn_kind", to_string(p.widths.ffn_kind)},
          {"gelu_form", p.gelu_form ? nlohmann::ordered_json(to_string(*p.gelu_form))
                                    : nlohmann::ordered_json(nullptr)},
          {"norm", to_string(p.widths.norm)},
          {"layers", p.layers},
          {"vocab_size", p.vocab_size},
          {"max_context", p.max_context},
          {"sources", sources}};
}

/// What `version` needs and, when that is not met, the version that runs instead.
std::string version_needs_text(const KernelVersion& version) {
  return version.fallback.empty() ? version.needs
                                  : fmt::format("{}; else {}", version.needs, version.fallback);
}

/// The datasheet's dense peaks a roof is drawn from, e.g. ", bf16 989.5 / fp32 67.0 TFLOP/s"; ""
/// when the spec has neither.
std::string gpu_peaks_text(const GpuSpec& gpu) {
  std::vector<std::string> peaks;
  const auto bf16 = gpu.dense_tensor_flop_per_s.find("bf16");
  if (bf16 != gpu.dense_tensor_flop_per_s.end() && is_known(bf16->second)) {
    peaks.push_back(fmt::format("bf16 {:.1f}", bf16->second.value / 1e12));
  }
  if (is_known(gpu.fp32_flop_per_s)) {
    peaks.push_back(fmt::format("fp32 {:.1f}", gpu.fp32_flop_per_s.value / 1e12));
  }
  return peaks.empty() ? "" : fmt::format(", {} TFLOP/s dense", fmt::join(peaks, " / "));
}

std::string list_text() {
  std::string out = fmt::format(
      "operators (name, the roof a point of the default shape is placed under: tensor cores or the "
      "fp32 pipe, what it computes), each with its kernel versions (--kernel OP=VERSION); without "
      "--ops a sweep runs {}:\n",
      fmt::join(default_sweep_operator_names(), ", "));
  const Shape base = default_sweep_config().base;
  for (const auto& spec : operator_specs()) {
    const std::string rule = spec.pipe_rule.empty() ? "" : " [roof: " + spec.pipe_rule + "]";
    out += fmt::format("  {:<18} {:<7} {}{}\n", spec.name, to_string(spec.pipe(base)), spec.summary,
                       rule);
    for (const KernelVersion& version : spec.versions) {
      const std::string key =
          version.key == spec.default_version ? version.key + " (default)" : version.key;
      out += fmt::format("    {:<13} {:<40} {}\n", key, version.name, version_needs_text(version));
    }
  }
  out += "axes (defaults):\n";
  for (const AxisDefault& axis : axis_defaults()) {
    std::vector<std::string> remarks;
    if (!axis.allowed.empty()) remarks.push_back(fmt::format("{}", fmt::join(axis.allowed, " | ")));
    if (!axis.note.empty()) remarks.push_back(axis.note);
    const std::string suffix =
        remarks.empty() ? "" : fmt::format(" ({})", fmt::join(remarks, "; "));
    out += fmt::format("  {:<13} {}{}\n", axis.flag, axis.default_text, suffix);
  }
  out += "counters (CUPTI range profiler, one range per kernel):\n";
  for (const auto& name : counter_metric_names()) out += fmt::format("  {}\n", name);
  out += "model presets (--model NAME; each value's source in configs/models/NAME.json):\n";
  for (const ModelPreset& preset : builtin_model_presets()) {
    out += fmt::format("  {:<16} {}: {}\n", preset.id, preset.name, preset_summary(preset));
  }
  out +=
      "GPU specs (--gpu NAME of model and layer --analytic, and the datasheet roofs of a "
      "measured GPU; each value's source in configs/gpus/NAME.json):\n";
  for (const GpuSpec& gpu : builtin_gpu_specs()) {
    out += fmt::format(
        "  {:<16} {}: compute capability {}.{}, {} SMs, {:.1f} GB, {:.2f} TB/s DRAM{}\n", gpu.id,
        gpu.name, gpu.cc_major, gpu.cc_minor, gpu.sm_count, gpu.memory_bytes.value / 1e9,
        gpu.hbm_bytes_per_s.value / 1e12, gpu_peaks_text(gpu));
  }
  return out;
}

/// A datasheet value, or null where the spec has none.
nlohmann::ordered_json known_or_null(const SpecValue& v) {
  return is_known(v) ? nlohmann::ordered_json(v.value) : nlohmann::ordered_json(nullptr);
}

/// A datasheet byte count as an integer, or null where the spec has none.
nlohmann::ordered_json known_bytes_or_null(const SpecValue& v) {
  return is_known(v) ? nlohmann::ordered_json(static_cast<int64_t>(v.value))
                     : nlohmann::ordered_json(nullptr);
}

/// The dense tensor peaks by input dtype ("bf16", "fp16", "tf32", "fp8"), FLOP/s.
nlohmann::ordered_json dense_tensor_json(const GpuSpec& gpu) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [dtype, v] : gpu.dense_tensor_flop_per_s) out[dtype] = known_or_null(v);
  return out;
}

/// Where each known figure of `gpu` comes from, keyed as list_json's fields are
/// ("dense_tensor_flop_per_s.bf16" for a tensor rate): the spec file's source strings.
nlohmann::ordered_json gpu_sources_json(const GpuSpec& gpu) {
  nlohmann::ordered_json out = {{"sm_count", gpu.sm_count_source}};
  const auto add = [&out](const std::string& key, const SpecValue& v) {
    if (is_known(v)) out[key] = v.source;
  };
  add("memory_bytes", gpu.memory_bytes);
  add("hbm_bytes_per_s", gpu.hbm_bytes_per_s);
  add("l2_bytes", gpu.l2_bytes);
  add("boost_clock_hz", gpu.boost_clock_hz);
  for (const auto& [dtype, v] : gpu.dense_tensor_flop_per_s) {
    add("dense_tensor_flop_per_s." + dtype, v);
  }
  add("fp32_flop_per_s", gpu.fp32_flop_per_s);
  return out;
}

std::string list_json() {
  nlohmann::ordered_json operators = nlohmann::ordered_json::array();
  const Shape base = default_sweep_config().base;
  for (const auto& spec : operator_specs()) {
    nlohmann::ordered_json versions = nlohmann::ordered_json::array();
    for (const KernelVersion& version : spec.versions) {
      versions.push_back(
          {{"key", version.key},
           {"name", version.name},
           {"needs", version.needs},
           {"fallback", version.fallback.empty() ? nlohmann::ordered_json(nullptr)
                                                 : nlohmann::ordered_json(version.fallback)}});
    }
    operators.push_back(
        {{"name", spec.name},
         {"pipe", to_string(spec.pipe(base))},
         {"pipe_rule", spec.pipe_rule.empty() ? nlohmann::ordered_json(nullptr)
                                              : nlohmann::ordered_json(spec.pipe_rule)},
         {"summary", spec.summary},
         {"default_version", spec.default_version},
         {"versions", versions}});
  }
  nlohmann::ordered_json axes = nlohmann::ordered_json::array();
  for (const AxisDefault& axis : axis_defaults()) {
    nlohmann::ordered_json entry = {
        {"flag", axis.flag}, {"config_key", axis.config_key}, {"default", axis.default_value}};
    if (!axis.allowed.empty()) entry["allowed"] = axis.allowed;
    if (!axis.note.empty()) entry["note"] = axis.note;
    axes.push_back(std::move(entry));
  }
  nlohmann::ordered_json presets = nlohmann::ordered_json::array();
  for (const ModelPreset& preset : builtin_model_presets()) presets.push_back(preset_json(preset));
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
  for (const GpuSpec& gpu : builtin_gpu_specs()) {
    gpus.push_back({{"id", gpu.id},
                    {"name", gpu.name},
                    {"compute_capability", fmt::format("{}.{}", gpu.cc_major, gpu.cc_minor)},
                    {"sm_count", gpu.sm_count},
                    {"memory_bytes", known_bytes_or_null(gpu.memory_bytes)},
                    {"hbm_bytes_per_s", gpu.hbm_bytes_per_s.value},
                    {"l2_bytes", known_bytes_or_null(gpu.l2_bytes)},
                    {"boost_clock_hz", known_or_null(gpu.boost_clock_hz)},
                    {"dense_tensor_flop_per_s", dense_tensor_json(gpu)},
                    {"fp32_flop_per_s", known_or_null(gpu.fp32_flop_per_s)},
                    {"sources", gpu_sources_json(gpu)}});
  }
  const nlohmann::ordered_json list = {
      {"operators", operators},
      {"axes", axes},
      {"counters",
       {{"collector", "CUPTI range profiler, one range per kernel"},
        {"metrics", counter_metric_names()}}},
      {"model_presets", presets},
      {"gpu_specs", gpus}};
  return list.dump(2) + "\n";
}

}  // namespace

CLI::App* setup_list(CLI::App& app, ListOptions& o) {
  CLI::App* sub =
      app.add_subcommand("list",
                         "List operators with their kernel versions, sweep axes with defaults, "
                         "counters, model presets and GPU specs");
  sub->add_flag("--json", o.json, "Print the same content as JSON (default: text)");
  return sub;
}

int run_list_command(const ListOptions& o) {
  write_stdout(o.json ? list_json() : list_text());
  return 0;
}

}  // namespace rooflinectl
