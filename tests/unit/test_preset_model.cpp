// The analytic model at model presets' shapes (`model --model NAME`): gemm, gelu and layernorm at
// the preset's d_model and ffn_dim, attention at its heads and head_dim, and the notes that say
// what the rows leave out. Expected values are derived by hand in each test.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/model_preset.hpp"
#include "core/sweep_config.hpp"
#include "device/gpu_spec.hpp"
#include "model/operator_model.hpp"
#include "model/prediction.hpp"
#include "render/model_writer.hpp"

namespace rooflinectl {
namespace {

Shape preset_shape(const std::string& id, int64_t batch, int64_t seq_len) {
  Shape s;
  s.batch = batch;
  s.seq_len = seq_len;
  apply_preset_shape(find_model_preset(id), s);
  return s;
}

bool has_note(const std::vector<std::string>& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

TEST(PresetModel, Llama31_8bFfnAt4096Tokens) {
  const ModelPreset& llama = find_model_preset("llama-3.1-8b");
  const Shape s = preset_shape("llama-3.1-8b", 2, 2048);  // B·L = 4096 tokens
  // Up projection: M = 4096, K = 4096, N = 14336: 2·M·N·K = 481.0 GFLOP.
  const AnalyticResult gemm = analytic_model("gemm", s, llama.widths);
  EXPECT_DOUBLE_EQ(gemm.flop, 2.0 * 4096 * 4096 * 14336);
  EXPECT_DOUBLE_EQ(gemm.min_dram_bytes, (4096.0 * 4096 + 4096.0 * 14336 + 4096.0 * 14336) * 2);
  EXPECT_NE(gemm.flop_formula.find("N = ffn_dim"), std::string::npos) << gemm.flop_formula;
  // GELU (erf, the default form: SwiGLU presets leave it) over N = 4096·14336 elements.
  const AnalyticResult gelu = analytic_model("gelu", s, llama.widths);
  EXPECT_DOUBLE_EQ(gelu.flop, 4.0 * 4096 * 14336);
  EXPECT_DOUBLE_EQ(gelu.min_dram_bytes, 2.0 * 4096 * 14336 * 2);
  // LayerNorm over 4096 tokens × d_model 4096, plus γ and β.
  const AnalyticResult norm = analytic_model("layernorm", s, llama.widths);
  EXPECT_DOUBLE_EQ(norm.flop, 8.0 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(norm.min_dram_bytes, 2.0 * 4096 * 4096 * 2 + 2.0 * 4096 * 2);
  // GQA decode at L = 2048: the KV cache of 8 KV heads, 2·B·H_kv·L·d·e = 16.8 MB.
  const AnalyticResult decode = analytic_model("decode_attention", s, llama.widths);
  EXPECT_DOUBLE_EQ(decode.min_dram_bytes, 2.0 * 2 * 8 * 2048 * 128 * 2 + 2.0 * 2 * 32 * 128 * 2);
  EXPECT_DOUBLE_EQ(decode.flop, 4.0 * 2 * 32 * 2048 * 128);
}

TEST(PresetModel, Gemma2AttentionUsesHeadDim256AndNormUsesDModel3584) {
  const ModelPreset& gemma = find_model_preset("gemma-2-9b");
  const Shape s = preset_shape("gemma-2-9b", 1, 1024);
  // Flash attention: 4·B·H·L²·d with H = 16, d = 256 (attention width 4096).
  EXPECT_DOUBLE_EQ(analytic_model("flash_attention", s, gemma.widths).flop,
                   4.0 * 16 * 1024 * 1024 * 256);
  // LayerNorm and the up projection at d_model = 3584, not H·d = 4096.
  EXPECT_DOUBLE_EQ(analytic_model("layernorm", s, gemma.widths).flop, 8.0 * 1024 * 3584);
  EXPECT_DOUBLE_EQ(analytic_model("gemm", s, gemma.widths).flop, 2.0 * 1024 * 14336 * 3584);
  // GeGLU's GELU is the tanh form: 8 FLOP per element.
  EXPECT_EQ(s.gelu_form, GeluForm::kTanh);
  EXPECT_DOUBLE_EQ(analytic_model("gelu", s, gemma.widths).flop, 8.0 * 1024 * 14336);
}

TEST(PresetModel, KernelWidthsKeepTheSweepModel) {
  Shape s;  // H = 16, d = 128: d_model 2048, FFN 8192
  s.seq_len = 512;
  const LayerWidths w = kernel_layer_widths(s);
  EXPECT_EQ(w.d_model, 2048);
  EXPECT_EQ(w.ffn_dim, 8192);
  for (const char* op : {"gemm", "gelu", "layernorm"}) {
    const AnalyticResult a = analytic_model(op, s);
    const AnalyticResult b = analytic_model(op, s, w);
    EXPECT_DOUBLE_EQ(a.flop, b.flop) << op;
    EXPECT_DOUBLE_EQ(a.min_dram_bytes, b.min_dram_bytes) << op;
    EXPECT_EQ(a.flop_formula, b.flop_formula) << op;
  }
  EXPECT_EQ(analytic_model("gemm", s).flop_formula, "2*M*N*K, M = B*L, K = d_model, N = 4*d_model");
  EXPECT_DOUBLE_EQ(analytic_model("gemm", s).flop, 2.0 * 512 * 8192 * 2048);
}

const std::vector<std::pair<std::string, Pipe>> kOps = {{"flash_attention", Pipe::kTensor},
                                                        {"gemm", Pipe::kTensor},
                                                        {"gelu", Pipe::kFp32},
                                                        {"layernorm", Pipe::kFp32}};

ModelReport preset_report(const std::string& id, std::vector<int64_t> seq_lens) {
  const ModelPreset& preset = find_model_preset(id);
  SweepConfig config = default_sweep_config();
  apply_preset_shape(preset, config.base);
  config.seq_lens = std::move(seq_lens);
  return build_model_report(config, kOps, find_gpu_spec("h200-sxm"), &preset);
}

TEST(PresetModel, ReportCarriesWidthsAndNotes) {
  const ModelReport r = preset_report("llama-3.1-8b", {4096});
  EXPECT_EQ(r.preset, "llama-3.1-8b");
  EXPECT_EQ(r.widths.d_model, 4096);
  EXPECT_EQ(r.widths.ffn_dim, 14336);
  const auto gemm = std::find_if(r.points.begin(), r.points.end(),
                                 [](const Prediction& p) { return p.op == "gemm"; });
  ASSERT_NE(gemm, r.points.end());
  EXPECT_DOUBLE_EQ(gemm->analytic.flop, 2.0 * 4096 * 4096 * 14336);
  // ≥ 481.0e9 / 989.5e12 s on the H200's dense bf16 roof (compute-bound at ~1.9e3 FLOP/B).
  EXPECT_NEAR(*gemm->time_lower_bound_s, 2.0 * 4096 * 4096 * 14336 / 989.5e12, 1e-12);
  EXPECT_TRUE(has_note(r.notes, "gate projection, a second GEMM")) << r.notes.front();
  EXPECT_TRUE(has_note(r.notes, "SiLU(gate)*up reads 2*N and writes N"));
  EXPECT_TRUE(has_note(r.notes, "as the swiglu operator (--ops swiglu) predicts it"));
  EXPECT_TRUE(has_note(r.notes, "RMSNorm, which the rmsnorm operator (--ops rmsnorm) predicts"));
  EXPECT_FALSE(has_note(r.notes, "attention width"));  // 32 × 128 = 4096 = d_model

  const nlohmann::ordered_json j = model_report_to_json(r);
  EXPECT_EQ(j["layer"]["preset"], "llama-3.1-8b");
  EXPECT_EQ(j["layer"]["ffn_dim"], 14336);
  EXPECT_EQ(j["layer"]["ffn_kind"], "swiglu");
  EXPECT_EQ(j["layer"]["notes"].size(), r.notes.size());
  const std::string text = format_model_table(r);
  EXPECT_NE(text.find("layer: d_model=4096 ffn_dim=14336 ffn=swiglu norm=rmsnorm (--model "
                      "llama-3.1-8b)"),
            std::string::npos)
      << text;
}

TEST(PresetModel, NotesFollowTheFfnKindAndWidths) {
  const std::vector<std::string> every = {"naive_attention", "flash_attention", "gemm", "gelu",
                                          "layernorm",       "decode_attention"};
  const std::vector<std::string> gpt2 = preset_layer_notes(find_model_preset("gpt2"), every);
  EXPECT_EQ(gpt2.size(), 1u);  // only the down projection: GELU MLP, LayerNorm, 12·64 = 768
  const std::vector<std::string> gemma = preset_layer_notes(find_model_preset("gemma-2-9b"), every);
  EXPECT_TRUE(has_note(gemma, "GELU(gate)*up"));
  EXPECT_TRUE(has_note(gemma, "as the geglu operator (--ops geglu) predicts it"));
  EXPECT_TRUE(has_note(gemma, "heads*head_dim = 16*256 = 4096 differs from d_model = 3584"));
}

// `model --model gemma-2-9b --head-dim 128`: the notes describe the shape predicted (16·128),
// not the preset's 16·256 that the flag replaced.
TEST(PresetModel, NotesFollowAFlagThatReplacedAPresetAxis) {
  const ModelPreset& gemma = find_model_preset("gemma-2-9b");
  SweepConfig config = default_sweep_config();
  apply_preset_shape(gemma, config.base);
  config.base.head_dim = 128;
  config.seq_lens = {512};
  const ModelReport r = build_model_report(config, {{"flash_attention", Pipe::kTensor}},
                                           find_gpu_spec("h200-sxm"), &gemma);
  EXPECT_TRUE(has_note(r.notes, "heads*head_dim = 16*128 = 2048 differs from d_model = 3584"));
  EXPECT_FALSE(has_note(r.notes, "16*256"));
}

TEST(PresetModel, NotesOnlyAboutTheOperatorsPredicted) {
  // `model --model llama-3.1-8b --ops decode_attention` predicts no FFN and no norm: none of
  // the gemm, swiglu or RMSNorm sentences apply (Llama's 32·128 = 4096 = d_model: no width one).
  const ModelPreset& llama = find_model_preset("llama-3.1-8b");
  EXPECT_TRUE(preset_layer_notes(llama, {"decode_attention"}).empty());
  const std::vector<std::string> gemm_only = preset_layer_notes(llama, {"gemm"});
  ASSERT_EQ(gemm_only.size(), 2u);  // the up projection and the gate projection
  EXPECT_TRUE(has_note(gemm_only, "FFN up projection of llama-3.1-8b"));
  EXPECT_TRUE(has_note(gemm_only, "gate projection"));
  const std::vector<std::string> norm_only = preset_layer_notes(llama, {"layernorm"});
  ASSERT_EQ(norm_only.size(), 1u);
  EXPECT_TRUE(has_note(norm_only, "RMSNorm"));
  const ModelPreset& gemma = find_model_preset("gemma-2-9b");
  EXPECT_EQ(preset_layer_notes(gemma, {"flash_attention"}).size(), 1u);  // the width only
  EXPECT_TRUE(preset_layer_notes(gemma, {"rmsnorm"}).empty());
}

TEST(PresetModel, PresetOperatorsArePredictedAtThePresetsWidths) {
  // Llama 3.1 8B at B = 1, L = 2048: rmsnorm over 2048·4096, swiglu over 2048·14336 outputs.
  const ModelPreset& llama = find_model_preset("llama-3.1-8b");
  SweepConfig config = default_sweep_config();
  apply_preset_shape(llama, config.base);
  config.seq_lens = {2048};
  const ModelReport r =
      build_model_report(config, {{"rmsnorm", Pipe::kFp32}, {"swiglu", Pipe::kFp32}},
                         find_gpu_spec("h200-sxm"), &llama);
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_DOUBLE_EQ(r.points[0].analytic.flop, 4.0 * 2048 * 4096);
  EXPECT_DOUBLE_EQ(r.points[0].analytic.min_dram_bytes, 2.0 * 2048 * 4096 * 2 + 4096 * 2);
  EXPECT_DOUBLE_EQ(r.points[1].analytic.flop, 4.0 * 2048 * 14336);
  EXPECT_DOUBLE_EQ(r.points[1].analytic.min_dram_bytes, 3.0 * 2048 * 14336 * 2);
  // Both far below the FP32 ridge (67 TFLOP/s over 4.8 TB/s): memory-bound.
  EXPECT_EQ(r.points[0].bound, Bound::kMemory);
  EXPECT_EQ(r.points[1].bound, Bound::kMemory);
}

TEST(PresetModel, NoPresetReportKeepsKernelWidths) {
  SweepConfig config = default_sweep_config();
  config.seq_lens = {512};
  const ModelReport r = build_model_report(config, kOps, find_gpu_spec("h200-sxm"));
  EXPECT_FALSE(r.preset.has_value());
  EXPECT_TRUE(r.notes.empty());
  EXPECT_EQ(r.widths.ffn_dim, 4 * 2048);
  EXPECT_TRUE(model_report_to_json(r)["layer"]["preset"].is_null());
}

}  // namespace
}  // namespace rooflinectl
