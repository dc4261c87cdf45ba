#include "core/model_preset.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <set>

#include "core/ascii_case.hpp"
#include "core/error.hpp"
#include "core/json_input.hpp"
#include "core/model_preset_embedded.hpp"
#include "core/operator_names.hpp"

namespace rooflinectl {
namespace {

/// Records the source of the object at `key` (non-empty) and returns its reader.
JsonObjectReader read_sourced(const JsonObjectReader& parent, const std::string& key,
                              ModelPreset& preset) {
  JsonObjectReader r = parent.get_object(key);
  r.reject_unknown_keys({"value", "source"});
  preset.sources[key] = r.get_string("source");
  if (preset.sources[key].find_first_not_of(" \t") == std::string::npos) {
    r.fail_key("source", "must name where the value comes from (config.json, paper, model card)");
  }
  return r;
}

/// Reads the object {"value": <integer>, "source": <text>} at `key`, checks the integer against
/// 1 .. `maximum` and records the source.
int64_t read_count(const JsonObjectReader& parent, const std::string& key, int64_t maximum,
                   ModelPreset& preset) {
  const JsonObjectReader r = read_sourced(parent, key, preset);
  const int64_t value = r.get_int64("value");
  if (value < 1 || value > maximum) {
    r.fail_key("value", fmt::format("{} is out of range (allowed 1 .. {})", value, maximum));
  }
  return value;
}

/// As read_count for a named value ("swiglu"), converted with `parse`.
template <typename Parse>
auto read_named(const JsonObjectReader& parent, const std::string& key, Parse parse,
                ModelPreset& preset) {
  return read_sourced(parent, key, preset).get_parsed("value", parse);
}

}  // namespace

ModelPreset parse_model_preset(const std::string& json_text, const std::string& origin) {
  const nlohmann::json document = parse_json_text(json_text, origin);
  const JsonObjectReader r(document, origin, "");
  r.reject_unknown_keys({"id", "name", "d_model", "heads", "kv_heads", "head_dim", "ffn_dim",
                         "ffn_kind", "gelu_form", "norm", "layers", "vocab_size", "max_context",
                         "tied_embeddings", "not_modelled"});
  ModelPreset p;
  p.id = r.get_string("id");
  if (p.id.empty() ||
      p.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") != std::string::npos) {
    r.fail_key("id",
               fmt::format("'{}' must be non-empty lower-case letters, digits, '-' and '.'", p.id));
  }
  p.name = r.get_string("name");
  if (p.name.empty()) r.fail_key("name", "must not be empty");
  p.widths.d_model = read_count(r, "d_model", kMaxPresetWidth, p);
  p.heads = read_count(r, "heads", kMaxPresetWidth, p);
  p.kv_heads = read_count(r, "kv_heads", kMaxPresetWidth, p);
  if (p.heads % p.kv_heads != 0) {
    r.fail_key("kv_heads", fmt::format("{} does not divide heads {} (GQA groups are whole)",
                                       p.kv_heads, p.heads));
  }
  p.head_dim = read_count(r, "head_dim", kMaxPresetWidth, p);
  p.widths.ffn_dim = read_count(r, "ffn_dim", kMaxPresetWidth, p);
  p.widths.ffn_kind = read_named(r, "ffn_kind", parse_ffn_kind, p);
  p.widths.norm = read_named(r, "norm", parse_norm_kind, p);
  const bool gelu_ffn = p.widths.ffn_kind != FfnKind::kSwiglu;
  if (gelu_ffn && !r.has("gelu_form")) {
    r.fail_key("gelu_form", fmt::format("missing (required for ffn_kind {}: erf or tanh)",
                                        to_string(p.widths.ffn_kind)));
  }
  if (!gelu_ffn && r.has("gelu_form")) {
    r.fail_key("gelu_form", "not allowed for ffn_kind swiglu (its activation is SiLU, not GELU)");
  }
  if (gelu_ffn) p.gelu_form = read_named(r, "gelu_form", parse_gelu_form, p);
  p.layers = read_count(r, "layers", kMaxPresetWidth, p);
  p.vocab_size = read_count(r, "vocab_size", kMaxPresetVocab, p);
  p.max_context = read_count(r, "max_context", kMaxPresetWidth, p);
  p.tied_embeddings = read_sourced(r, "tied_embeddings", p).get_bool("value");
  if (r.has("not_modelled")) {
    const JsonObjectReader not_modelled = read_sourced(r, "not_modelled", p);
    p.not_modelled = not_modelled.get_string_array("value");
    for (const std::string& sentence : p.not_modelled) {
      if (sentence.find_first_not_of(" \t") == std::string::npos) {
        not_modelled.fail_key("value", "holds an empty sentence");
      }
    }
  }
  return p;
}

const std::vector<ModelPreset>& builtin_model_presets() {
  static const std::vector<ModelPreset> presets = [] {
    std::vector<ModelPreset> out;
    std::set<std::string> ids;
    for (const auto& file : embedded_model_preset_files()) {
      ModelPreset preset = parse_model_preset(file.json_text, file.path);
      // The file name is how people find a preset: `--model X` reads configs/models/X.json.
      const std::string stem = std::filesystem::path(file.path).stem().string();
      if (preset.id != stem) {
        throw bad_input(fmt::format("{}: key 'id': '{}' is not the file's name '{}'", file.path,
                                    preset.id, stem));
      }
      if (!ids.insert(preset.id).second) {
        throw bad_input(fmt::format("{}: duplicate model preset id '{}'", file.path, preset.id));
      }
      out.push_back(std::move(preset));
    }
    return out;
  }();
  return presets;
}

const ModelPreset& find_model_preset(const std::string& id) {
  std::vector<std::string> ids;
  for (const auto& preset : builtin_model_presets()) {
    if (equal_ignoring_case(preset.id, id)) return preset;
    ids.push_back(preset.id);
  }
  throw bad_input(
      fmt::format("unknown model preset '{}' (--model): known {}", id, fmt::join(ids, ", ")));
}

std::vector<std::string> preset_operator_names(const ModelPreset& preset) {
  std::vector<std::string> names;
  for (const std::string& op : default_sweep_operator_names()) {
    if (op == kGeluOp && preset.widths.ffn_kind == FfnKind::kSwiglu) {
      names.emplace_back(kSwigluOp);
    } else if (op == kGeluOp && preset.widths.ffn_kind == FfnKind::kGeglu) {
      names.emplace_back(kGegluOp);
    } else if (op == kLayernormOp && preset.widths.norm == NormKind::kRmsNorm) {
      names.emplace_back(kRmsnormOp);
    } else {
      names.push_back(op);
    }
  }
  return names;
}

std::optional<std::string> context_window_note(const ModelPreset& preset,
                                               const std::vector<int64_t>& lengths) {
  std::vector<int64_t> beyond;
  for (const int64_t length : lengths) {
    if (length > preset.max_context) beyond.push_back(length);
  }
  if (beyond.empty()) return std::nullopt;
  return fmt::format(
      "{} serves at most {} positions (max_context): L = {} {} beyond the model's context window",
      preset.name, preset.max_context, fmt::join(beyond, ", "),
      beyond.size() == 1 ? "is a kernel shape" : "are kernel shapes");
}

void apply_preset_shape(const ModelPreset& preset, Shape& shape) {
  shape.heads = preset.heads;
  shape.kv_heads = preset.kv_heads;
  shape.head_dim = preset.head_dim;
  if (preset.gelu_form) shape.gelu_form = *preset.gelu_form;
}

}  // namespace rooflinectl
