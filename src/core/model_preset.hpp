// Model presets (configs/models/<id>.json, embedded in the binary at build time): the layer shape
// of a published model, each value with its source, for `sweep --model NAME` and
// `model --model NAME`. Pure host code.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/layer_widths.hpp"
#include "core/shape.hpp"

namespace rooflinectl {

/// The shape of one transformer layer of a published model, and the model's depth and vocabulary.
/// Widths are element counts. heads × head_dim need not equal d_model (Gemma 2 9B: 16 × 256 =
/// 4096 against d_model 3584).
struct ModelPreset {
  std::string id;        ///< CLI name, the file's stem, e.g. "llama-3.1-8b"
  std::string name;      ///< the model's published name, e.g. "Meta Llama 3.1 8B"
  int64_t heads = 0;     ///< query heads H
  int64_t kv_heads = 0;  ///< KV heads H_kv (divides heads)
  int64_t head_dim = 0;  ///< d
  LayerWidths widths;    ///< d_model, ffn_dim, FFN kind, norm
  /// The GELU of a gelu_mlp or geglu FFN (GPT-2's gelu_new and Gemma 2's gelu_pytorch_tanh are the
  /// tanh form); nullopt for swiglu, whose activation is SiLU.
  std::optional<GeluForm> gelu_form;
  int64_t layers = 0;
  int64_t vocab_size = 0;
  /// The longest sequence the published model serves, in positions: its config.json's
  /// max_position_embeddings (GPT-2: n_positions). Layer and model reports at longer lengths say
  /// so (context_window_note).
  int64_t max_context = 0;
  /// Whether the LM head shares the input embedding's vocab_size × d_model weights (GPT-2, Gemma
  /// 2) instead of holding its own (Llama 3.1, Mistral, Qwen 2.5 7B, Phi-3): model_weight_bytes
  /// counts the matrix once or twice.
  bool tied_embeddings = false;
  /// What the published model does that the layer model leaves out (Gemma 2's sliding-window
  /// layers), one sentence each, printed with every layer report's omissions; empty for a preset
  /// whose layer the model covers. Its source is sources["not_modelled"].
  std::vector<std::string> not_modelled;
  /// Where each value comes from, by its key in the file ("d_model", "heads", ...): the model's
  /// published config.json, paper or model card, as the file names it.
  std::map<std::string, std::string> sources;
};

/// Parses and validates one preset file's JSON text. Keys: "id", "name" (strings) and "d_model",
/// "heads", "kv_heads", "head_dim", "ffn_dim", "layers", "vocab_size", "max_context" (integers),
/// "tied_embeddings" (true | false), "ffn_kind"
/// (gelu_mlp | swiglu | geglu), "norm" (layernorm | rmsnorm), "gelu_form" (erf | tanh; required
/// for gelu_mlp and geglu, refused for swiglu), optional "not_modelled" (a list of non-empty
/// sentences), each value an object {"value", "source"}. Checks:
/// unknown or missing keys refused; integers in 1 .. kMaxPresetWidth (vocab_size up to
/// kMaxPresetVocab); heads a multiple of kv_heads; every source non-empty; an id of lower-case
/// letters, digits, '-' and '.'. Throws a bad-input Error naming `origin` (the file) and the key.
ModelPreset parse_model_preset(const std::string& json_text, const std::string& origin);

/// Largest width, head count or layer count a preset may give (2^20): larger is a typo.
inline constexpr int64_t kMaxPresetWidth = int64_t{1} << 20;
/// Largest vocabulary a preset may give (2^24).
inline constexpr int64_t kMaxPresetVocab = int64_t{1} << 24;

/// The built-in presets (configs/models/*.json embedded at build time), validated on first use,
/// in file-list order (CMakeLists.txt). Throws a bad-input Error naming the file if an embedded
/// preset is invalid, its id is not its file's stem, or two share an id (build-time mistakes the
/// unit tests catch).
const std::vector<ModelPreset>& builtin_model_presets();

/// Preset by id, letter case ignored ("Llama-3.1-8B" finds llama-3.1-8b); a bad-input Error
/// "unknown model preset 'X' (--model): known a, b, ..." otherwise.
const ModelPreset& find_model_preset(const std::string& id);

/// The default operators (default_sweep_operator_names, in that order) with the preset's own FFN
/// step and norm in place of gelu and layernorm: swiglu or geglu for a gated FFN, rmsnorm for
/// RMSNorm (llama-3.1-8b: naive_attention, flash_attention, gemm, swiglu, rmsnorm,
/// decode_attention). What `model --model NAME` predicts when neither --ops nor --config names
/// operators.
std::vector<std::string> preset_operator_names(const ModelPreset& preset);

/// A sentence for reports whose lengths (prefill L or decode context) go past the preset's
/// max_context: "Phi-3-mini-4k-instruct serves at most 4096 positions (max_context): L = 8192,
/// 16384 are kernel shapes beyond the model's context window"; nullopt when every length fits.
std::optional<std::string> context_window_note(const ModelPreset& preset,
                                               const std::vector<int64_t>& lengths);

/// Sets the attention axes of `shape` from `preset`: heads, kv_heads, head_dim and, for a GELU
/// FFN, gelu_form. Batch, seq_len, dtype and causal stay.
void apply_preset_shape(const ModelPreset& preset, Shape& shape);

}  // namespace rooflinectl
