// Model presets: every embedded file loads with the published numbers written here (so a typo in
// a file or here fails), malformed presets are refused naming the file and key, and unknown ids
// list the known ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/model_preset.hpp"
#include "core/model_preset_embedded.hpp"
#include "model/layer_prediction.hpp"

namespace rooflinectl {
namespace {

/// The published values, copied by hand from each model's config.json (the sources the files
/// name); GPT-2's FFN width is 4·n_embd (n_inner null).
struct Published {
  const char* id;
  int64_t d_model, heads, kv_heads, head_dim, ffn_dim;
  FfnKind ffn_kind;
  NormKind norm;
  int64_t layers, vocab_size, max_context;
};

const std::vector<Published> kPublished = {
    {"gpt2", 768, 12, 12, 64, 3072, FfnKind::kGeluMlp, NormKind::kLayerNorm, 12, 50257, 1024},
    {"gpt2-xl", 1600, 25, 25, 64, 6400, FfnKind::kGeluMlp, NormKind::kLayerNorm, 48, 50257, 1024},
    {"llama-3.1-8b", 4096, 32, 8, 128, 14336, FfnKind::kSwiglu, NormKind::kRmsNorm, 32, 128256,
     131072},
    {"llama-3.1-70b", 8192, 64, 8, 128, 28672, FfnKind::kSwiglu, NormKind::kRmsNorm, 80, 128256,
     131072},
    {"mistral-7b-v0.3", 4096, 32, 8, 128, 14336, FfnKind::kSwiglu, NormKind::kRmsNorm, 32, 32768,
     32768},
    {"qwen2.5-7b", 3584, 28, 4, 128, 18944, FfnKind::kSwiglu, NormKind::kRmsNorm, 28, 152064,
     131072},
    {"gemma-2-9b", 3584, 16, 8, 256, 14336, FfnKind::kGeglu, NormKind::kRmsNorm, 42, 256000, 8192},
    {"phi-3-mini-4k", 3072, 32, 32, 96, 8192, FfnKind::kSwiglu, NormKind::kRmsNorm, 32, 32064,
     4096},
};

TEST(ModelPreset, EveryPresetHasThePublishedNumbers) {
  ASSERT_EQ(builtin_model_presets().size(), kPublished.size());
  for (const Published& want : kPublished) {
    SCOPED_TRACE(want.id);
    const ModelPreset& p = find_model_preset(want.id);
    EXPECT_EQ(p.widths.d_model, want.d_model);
    EXPECT_EQ(p.heads, want.heads);
    EXPECT_EQ(p.kv_heads, want.kv_heads);
    EXPECT_EQ(p.head_dim, want.head_dim);
    EXPECT_EQ(p.widths.ffn_dim, want.ffn_dim);
    EXPECT_EQ(p.widths.ffn_kind, want.ffn_kind);
    EXPECT_EQ(p.widths.norm, want.norm);
    EXPECT_EQ(p.layers, want.layers);
    EXPECT_EQ(p.vocab_size, want.vocab_size);
    EXPECT_EQ(p.max_context, want.max_context);
    // GPT-2 and Gemma 2 share the LM head with the embedding; the others keep their own.
    const std::string id = want.id;
    EXPECT_EQ(p.tied_embeddings, id == "gpt2" || id == "gpt2-xl" || id == "gemma-2-9b");
    // Every value names its source; the GELU presets use the tanh form (gelu_new,
    // gelu_pytorch_tanh), the SwiGLU ones none; not_modelled has its source too.
    EXPECT_EQ(p.sources.size(),
              (want.ffn_kind == FfnKind::kSwiglu ? 11u : 12u) + (p.not_modelled.empty() ? 0u : 1u));
    for (const auto& [key, source] : p.sources) EXPECT_FALSE(source.empty()) << key;
    if (want.ffn_kind == FfnKind::kSwiglu) {
      EXPECT_FALSE(p.gelu_form.has_value());
    } else {
      EXPECT_EQ(p.gelu_form, GeluForm::kTanh);
    }
  }
}

TEST(ModelPreset, AttentionWidthMayDifferFromTheHiddenSize) {
  const ModelPreset& gemma = find_model_preset("gemma-2-9b");
  EXPECT_EQ(gemma.heads * gemma.head_dim, 4096);
  EXPECT_EQ(gemma.widths.d_model, 3584);
  const ModelPreset& gpt2 = find_model_preset("gpt2");
  EXPECT_EQ(gpt2.heads * gpt2.head_dim, gpt2.widths.d_model);  // 12 × 64 = 768
}

TEST(ModelPreset, IdsAreTheFileNames) {
  for (const EmbeddedFile& file : embedded_model_preset_files()) {
    const ModelPreset p = parse_model_preset(file.json_text, file.path);
    EXPECT_EQ("configs/models/" + p.id + ".json", file.path);
  }
}

TEST(ModelPreset, IdIgnoresLetterCaseOnly) {
  // The Hugging Face spelling finds the preset; the canonical id is what reports record.
  EXPECT_EQ(find_model_preset("Llama-3.1-8B").id, "llama-3.1-8b");
  EXPECT_EQ(find_model_preset("GPT2").id, "gpt2");
  EXPECT_THROW(find_model_preset("llama-3.1-8b "), Error);
  EXPECT_THROW(find_model_preset("llama_3.1_8b"), Error);
}

TEST(ModelPreset, UnknownIdListsTheKnownOnes) {
  try {
    find_model_preset("llama-9");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown model preset 'llama-9' (--model)"), std::string::npos) << m;
    for (const Published& p : kPublished) EXPECT_NE(m.find(p.id), std::string::npos) << m;
  }
}

TEST(ModelPreset, ApplySetsTheAttentionAxesOnly) {
  Shape s;
  s.batch = 4;
  s.seq_len = 2048;
  s.causal = true;
  apply_preset_shape(find_model_preset("gemma-2-9b"), s);
  EXPECT_EQ(s.heads, 16);
  EXPECT_EQ(s.kv_heads, 8);
  EXPECT_EQ(s.head_dim, 256);
  EXPECT_EQ(s.gelu_form, GeluForm::kTanh);
  EXPECT_EQ(s.batch, 4);
  EXPECT_EQ(s.seq_len, 2048);
  EXPECT_TRUE(s.causal);
  Shape t;  // SwiGLU: the GELU form stays as it was
  apply_preset_shape(find_model_preset("llama-3.1-8b"), t);
  EXPECT_EQ(t.gelu_form, GeluForm::kErf);
}

// A minimal valid preset; the refusal tests break one thing at a time.
constexpr const char* kValid = R"({
  "id": "test-model", "name": "Test Model",
  "d_model": {"value": 1024, "source": "test config"},
  "heads": {"value": 16, "source": "test config"},
  "kv_heads": {"value": 4, "source": "test config"},
  "head_dim": {"value": 64, "source": "test config"},
  "ffn_dim": {"value": 4096, "source": "test config"},
  "ffn_kind": {"value": "gelu_mlp", "source": "test config"},
  "gelu_form": {"value": "erf", "source": "test config"},
  "norm": {"value": "layernorm", "source": "test config"},
  "layers": {"value": 24, "source": "test config"},
  "vocab_size": {"value": 50000, "source": "test config"},
  "max_context": {"value": 2048, "source": "test config"},
  "tied_embeddings": {"value": false, "source": "test config"}
})";

std::string error_of(const std::string& text) {
  try {
    parse_model_preset(text, "models/test.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    return e.what();
  }
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ModelPreset, ParsesAValidFile) {
  const ModelPreset p = parse_model_preset(kValid, "models/test.json");
  EXPECT_EQ(p.id, "test-model");
  EXPECT_EQ(p.widths.ffn_dim, 4096);
  EXPECT_EQ(p.gelu_form, GeluForm::kErf);
  EXPECT_EQ(p.sources.at("kv_heads"), "test config");
  EXPECT_TRUE(p.not_modelled.empty());
}

// Gemma 2's sliding-window layers and post-norms are named in every layer report of its preset,
// and in no other preset's.
TEST(ModelPreset, WhatALayerModelLeavesOutIsPrintedWithItsReport) {
  const ModelPreset& gemma = find_model_preset("gemma-2-9b");
  ASSERT_EQ(gemma.not_modelled.size(), 2u);
  EXPECT_NE(gemma.not_modelled[0].find("4096 positions"), std::string::npos);
  EXPECT_NE(gemma.sources.at("not_modelled").find("sliding_window 4096"), std::string::npos);
  for (const LayerPhase phase : {LayerPhase::kPrefill, LayerPhase::kDecode}) {
    const std::vector<std::string> omissions = layer_estimate_omissions(gemma, phase, {512, 8192});
    ASSERT_GE(omissions.size(), 2u);
    EXPECT_EQ(omissions[omissions.size() - 2], "Gemma 2 9B: " + gemma.not_modelled[0]);
    EXPECT_EQ(omissions.back(), "Gemma 2 9B: " + gemma.not_modelled[1]);
  }
  const ModelPreset& llama = find_model_preset("llama-3.1-8b");
  EXPECT_TRUE(llama.not_modelled.empty());
  for (const std::string& line :
       layer_estimate_omissions(llama, LayerPhase::kPrefill, {512, 131072})) {
    EXPECT_EQ(line.find("Llama"), std::string::npos) << line;
  }
}

// Lengths past max_context are named, last among the omissions; none past it, no sentence.
TEST(ModelPreset, LengthsBeyondTheContextWindowAreNamed) {
  const ModelPreset& phi = find_model_preset("phi-3-mini-4k");
  EXPECT_EQ(context_window_note(phi, {2048, 4096}), std::nullopt);
  EXPECT_EQ(
      context_window_note(phi, {4096, 8192}),
      "Phi-3-mini-4k-instruct (3.8B) serves at most 4096 positions (max_context): L = 8192 is a "
      "kernel shape beyond the model's context window");
  const auto omissions =
      layer_estimate_omissions(phi, LayerPhase::kDecode, {512, 4096, 8192, 131072});
  EXPECT_EQ(omissions.back(),
            "Phi-3-mini-4k-instruct (3.8B) serves at most 4096 positions (max_context): L = 8192, "
            "131072 are kernel shapes beyond the model's context window");
  const ModelPreset& llama = find_model_preset("llama-3.1-8b");
  EXPECT_EQ(context_window_note(llama, {131072}), std::nullopt);
  EXPECT_NE(context_window_note(llama, {131073}), std::nullopt);
}

// Each malformed preset is one error line naming the file and the key.
TEST(ModelPreset, MalformedPresetsNameFileAndKey) {
  struct Case {
    std::string from, to, key, what;
  };
  const std::vector<Case> cases = {
      {R"("heads": {"value": 16,)", R"("heads": {"value": 0,)", "heads.value", "out of range"},
      {R"("ffn_dim": {"value": 4096,)", R"("ffn_dim": {"value": 4096.5,)", "ffn_dim.value",
       "integer"},
      {R"("d_model": {"value": 1024,)", R"("d_model": {"value": "1024",)", "d_model.value", ""},
      {R"("layers": {"value": 24, "source": "test config"})", R"("layers": 24)", "layers",
       "object"},
      {R"("head_dim": {"value": 64, "source": "test config"})",
       R"("head_dim": {"value": 64, "source": " "})", "head_dim.source", "where the value"},
      {R"("kv_heads": {"value": 4,)", R"("kv_heads": {"value": 5,)", "kv_heads",
       "does not divide heads 16"},
      {R"("gelu_mlp")", R"("relu_mlp")", "ffn_kind.value", "allowed gelu_mlp, swiglu, geglu"},
      {R"("layernorm")", R"("batchnorm")", "norm.value", "allowed layernorm, rmsnorm"},
      {R"("gelu_mlp")", R"("swiglu")", "gelu_form", "not allowed for ffn_kind swiglu"},
      {R"("gelu_form": {"value": "erf", "source": "test config"},)", "", "gelu_form",
       "required for ffn_kind gelu_mlp"},
      {R"("vocab_size": {"value": 50000, "source": "test config"})",
       R"("vocab": {"value": 50000, "source": "test config"})", "vocab", "unknown key"},
      {R"("layers": {"value": 24, "source": "test config"},)", "", "layers", "missing"},
      {R"("max_context": {"value": 2048,)", R"("max_context": {"value": 0,)", "max_context.value",
       "out of range"},
      {R"(
  "max_context": {"value": 2048, "source": "test config"},)",
       "", "max_context", "missing"},
      {R"("tied_embeddings": {"value": false,)", R"("tied_embeddings": {"value": 0,)",
       "tied_embeddings.value", "expected true or false"},
      {R"("test-model")", R"("Test Model")", "id", "lower-case"},
      {R"("vocab_size": {"value": 50000, "source": "test config"})",
       R"("vocab_size": {"value": 50000, "source": "test config"},
          "not_modelled": {"value": ["a", " "], "source": "paper"})",
       "not_modelled.value", "empty sentence"},
      {R"("vocab_size": {"value": 50000, "source": "test config"})",
       R"("vocab_size": {"value": 50000, "source": "test config"},
          "not_modelled": {"value": ["a"], "source": ""})",
       "not_modelled.source", "where the value"},
  };
  for (const Case& c : cases) {
    const std::string m = error_of(replaced(kValid, c.from, c.to));
    SCOPED_TRACE(c.to);
    EXPECT_NE(m.find("models/test.json"), std::string::npos) << m;
    EXPECT_NE(m.find("'" + c.key + "'"), std::string::npos) << m;
    EXPECT_NE(m.find(c.what), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace rooflinectl
