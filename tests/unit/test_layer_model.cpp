// The analytic transformer-layer view (`rooflinectl layer --analytic`): each operator's shape,
// FLOPs and bytes at hand-derived values for Llama-3.1-8B, GPT-2 and Gemma 2, the model-level
// arithmetic (TTFT, decode tokens/s, peak memory) on the H200 SXM datasheet, the conclusion's
// numbers against the points, the JSON, and the error paths.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/model_preset.hpp"
#include "device/gpu_spec.hpp"
#include "model/layer_conclusion.hpp"
#include "model/layer_report.hpp"
#include "render/layer_writer.hpp"

namespace rooflinectl {
namespace {

const ModelPreset& llama() { return find_model_preset("llama-3.1-8b"); }

const LayerOperator& op_named(const std::vector<LayerOperator>& ops, const std::string& name) {
  for (const auto& op : ops) {
    if (op.name == name) return op;
  }
  throw std::runtime_error("no operator " + name);
}

const LayerOperatorPrediction& op_named(const LayerPrediction& p, const std::string& name) {
  for (const auto& o : p.ops) {
    if (o.op.name == name) return o;
  }
  throw std::runtime_error("no operator " + name);
}

// Llama-3.1-8B's parameters in one layer, bf16: QKV 4096 x 6144, O 4096 x 4096, gate, up and down
// 4096 x 14336 each, and the two RMSNorm gammas of 4096.
constexpr double kLlamaLayerWeightBytes =
    2.0 * (4096.0 * 6144 + 4096.0 * 4096 + 3.0 * 4096 * 14336) + 2.0 * 4096 * 2;

TEST(LayerOperators, LlamaPrefillShapes) {
  const auto ops = layer_operators(llama(), {LayerPhase::kPrefill, 2, 4096});
  std::vector<std::string> names;
  for (const auto& op : ops) names.push_back(op.name);
  EXPECT_EQ(names, (std::vector<std::string>{"input_norm", "qkv_proj", "attention", "o_proj",
                                             "post_attention_norm", "ffn_gate", "ffn_up",
                                             "ffn_gated_act", "ffn_down"}));
  const LayerOperator& qkv = op_named(ops, "qkv_proj");
  ASSERT_TRUE(qkv.gemm);
  EXPECT_EQ(qkv.gemm->m, 8192);  // B*L
  EXPECT_EQ(qkv.gemm->n, 6144);  // (32 + 2*8) * 128
  EXPECT_EQ(qkv.gemm->k, 4096);
  EXPECT_DOUBLE_EQ(qkv.flop, 2.0 * 8192 * 6144 * 4096);
  EXPECT_DOUBLE_EQ(qkv.weight_bytes, 4096.0 * 6144 * 2);
  EXPECT_DOUBLE_EQ(qkv.activation_bytes, (8192.0 * 4096 + 8192.0 * 6144) * 2);
  const LayerOperator& down = op_named(ops, "ffn_down");
  EXPECT_EQ(down.gemm->n, 4096);
  EXPECT_EQ(down.gemm->k, 14336);
  // Flash attention, causal, q_len = kv_len = 4096: 4*B*H*d*L(L+1)/2; K and V are the KV cache.
  const LayerOperator& attention = op_named(ops, "attention");
  EXPECT_EQ(attention.kind, "flash_attention");
  EXPECT_DOUBLE_EQ(attention.flop, 4.0 * 2 * 32 * 128 * (4096.0 * 4097 / 2));
  EXPECT_DOUBLE_EQ(attention.kv_cache_bytes, 2.0 * 2 * 8 * 4096 * 128 * 2);
  EXPECT_DOUBLE_EQ(attention.activation_bytes, 2.0 * 2 * 32 * 4096 * 128 * 2 + 4.0 * 2 * 32 * 4096);
  // RMSNorm over B*L*d_model: 4 FLOPs an element; x and y, plus gamma.
  const LayerOperator& norm = op_named(ops, "input_norm");
  EXPECT_EQ(norm.kind, "rmsnorm");
  EXPECT_DOUBLE_EQ(norm.flop, 4.0 * 8192 * 4096);
  EXPECT_DOUBLE_EQ(norm.min_dram_bytes(), 2.0 * 8192 * 4096 * 2 + 4096 * 2);
  EXPECT_DOUBLE_EQ(norm.weight_bytes, 4096 * 2);
  // The layer's rows are M, as its GEMMs name them, not the sweep's B*L.
  EXPECT_EQ(norm.flop_formula.find("4*N, N = M*d_model"), 0u) << norm.flop_formula;
  // SwiGLU step: reads gate and up, writes one: 3*N*e, 4 FLOPs an element.
  const LayerOperator& gated = op_named(ops, "ffn_gated_act");
  EXPECT_EQ(gated.kind, "swiglu");
  EXPECT_DOUBLE_EQ(gated.flop, 4.0 * 8192 * 14336);
  EXPECT_DOUBLE_EQ(gated.activation_bytes, 3.0 * 8192 * 14336 * 2);
  EXPECT_EQ(gated.flop_formula.find("4*N, N = M*ffn_dim (SiLU then the product"), 0u)
      << gated.flop_formula;
  EXPECT_DOUBLE_EQ(layer_weight_bytes(llama()), kLlamaLayerWeightBytes);
}

TEST(LayerOperators, LlamaDecodeReadsItsWeights) {
  const auto ops = layer_operators(llama(), {LayerPhase::kDecode, 1, 512});
  EXPECT_EQ(op_named(ops, "qkv_proj").gemm->m, 1);  // M = B
  const LayerOperator& attention = op_named(ops, "attention");
  EXPECT_EQ(attention.kind, "decode_attention");
  EXPECT_DOUBLE_EQ(attention.flop, 4.0 * 1 * 32 * 512 * 128);
  EXPECT_DOUBLE_EQ(attention.kv_cache_bytes, 2.0 * 8 * 512 * 128 * 2);  // GQA: H_kv = 8
  double weights = 0, total = 0;
  for (const auto& op : ops) {
    weights += op.weight_bytes;
    total += op.min_dram_bytes();
  }
  EXPECT_DOUBLE_EQ(weights, kLlamaLayerWeightBytes);
  // One decode step at B = 1 moves its bf16 weights and little else (KV cache 2 MiB of 438 MB).
  EXPECT_GT(weights / total, 0.99);
  EXPECT_LT(weights / total, 1.0);
}

TEST(LayerOperators, GeluMlpWithLayerNorm) {
  const auto ops = layer_operators(find_model_preset("gpt2"), {LayerPhase::kPrefill, 1, 1024});
  ASSERT_EQ(ops.size(), 8u);
  EXPECT_EQ(op_named(ops, "qkv_proj").gemm->n, 3 * 768);
  const LayerOperator& norm = op_named(ops, "post_attention_norm");
  EXPECT_EQ(norm.kind, "layernorm");
  EXPECT_DOUBLE_EQ(norm.flop, 8.0 * 1024 * 768);
  EXPECT_DOUBLE_EQ(norm.weight_bytes, 2.0 * 768 * 2);  // gamma and beta
  const LayerOperator& act = op_named(ops, "ffn_act");
  EXPECT_EQ(act.kind, "gelu");
  EXPECT_DOUBLE_EQ(act.flop, 8.0 * 1024 * 3072);  // gelu_new: the tanh form
  EXPECT_THROW(op_named(ops, "ffn_gate"), std::runtime_error);
}

// Attention goes under the roof of the pipe its kernel runs on: flash attention's tensor cores in
// prefill; in decode the tensor-core kernel under GQA or an FP8 KV cache, else the CUDA cores.
TEST(LayerOperators, AttentionPipeIsTheKernelsPipe) {
  const auto pipe = [](const char* model, LayerPhase phase, KvDtype kv) {
    return op_named(layer_operators(find_model_preset(model), {phase, 1, 1024, kv}), "attention")
        .pipe;
  };
  EXPECT_EQ(pipe("gpt2", LayerPhase::kPrefill, KvDtype::kAuto), Pipe::kTensor);
  EXPECT_EQ(pipe("gpt2", LayerPhase::kDecode, KvDtype::kAuto), Pipe::kFp32);  // g = 1
  EXPECT_EQ(pipe("gpt2", LayerPhase::kDecode, KvDtype::kFp8E4m3), Pipe::kTensor);
  EXPECT_EQ(pipe("llama-3.1-8b", LayerPhase::kDecode, KvDtype::kAuto), Pipe::kTensor);  // g = 4
}

TEST(LayerOperators, GegluTanhCountsGeluPlusProduct) {
  const ModelPreset& gemma = find_model_preset("gemma-2-9b");
  const auto ops = layer_operators(gemma, {LayerPhase::kDecode, 4, 1024});
  const LayerOperator& gated = op_named(ops, "ffn_gated_act");
  EXPECT_EQ(gated.kind, "geglu");
  EXPECT_DOUBLE_EQ(gated.flop, 9.0 * 4 * 14336);
  // Attention width H*d = 4096 differs from d_model = 3584.
  EXPECT_EQ(op_named(ops, "o_proj").gemm->k, 16 * 256);
  EXPECT_EQ(op_named(ops, "o_proj").gemm->n, 3584);
}

TEST(LayerOperators, RefusesEmptyPoints) {
  EXPECT_THROW(layer_operators(llama(), {LayerPhase::kDecode, 0, 512}), Error);
  EXPECT_THROW(layer_operators(llama(), {LayerPhase::kPrefill, 1, 0}), Error);
}

TEST(LayerPhase, ParsesAndRefuses) {
  EXPECT_EQ(parse_layer_phase("prefill"), LayerPhase::kPrefill);
  EXPECT_EQ(parse_layer_phase("decode"), LayerPhase::kDecode);
  try {
    parse_layer_phase("training");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_EQ(std::string(e.what()), "invalid --phase 'training': allowed prefill, decode");
  }
}

TEST(LayerPrediction, TimesTtftAndTokensPerSecondOnH200) {
  const GpuSpec& h200 = find_gpu_spec("h200-sxm");
  const LayerRoofs roofs = layer_roofs(h200);
  // Prefill, L = 4096: the gate GEMM is compute-bound, 2*4096*14336*4096 / 989.5 TFLOP/s.
  const LayerPrediction prefill =
      predict_layer(llama(), {LayerPhase::kPrefill, 1, 4096}, roofs, h200.memory_bytes.value);
  const auto& gate = op_named(prefill, "ffn_gate");
  EXPECT_EQ(gate.bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(gate.time_lower_bound_s, 2.0 * 4096 * 14336 * 4096 / 989.5e12);
  double sum = 0, shares = 0;
  for (const auto& o : prefill.ops) {
    sum += o.time_lower_bound_s;
    shares += o.share_of_layer;
  }
  EXPECT_DOUBLE_EQ(prefill.layer_time_s, sum);
  EXPECT_NEAR(shares, 1.0, 1e-12);
  ASSERT_TRUE(prefill.ttft_s);
  EXPECT_DOUBLE_EQ(*prefill.ttft_s, 32 * sum);
  EXPECT_FALSE(prefill.decode_tokens_per_s);

  // Decode, B = 16: every operator memory-bound, time = bytes / 4.8 TB/s; tokens/s = 16 / (32 x
  // layer time).
  const LayerPrediction decode =
      predict_layer(llama(), {LayerPhase::kDecode, 16, 8192}, roofs, h200.memory_bytes.value);
  double bytes = 0;
  for (const auto& o : decode.ops) {
    EXPECT_EQ(o.bound, Bound::kMemory) << o.op.name;
    bytes += o.op.min_dram_bytes();
  }
  EXPECT_DOUBLE_EQ(decode.layer_time_s, bytes / 4.8e12);
  ASSERT_TRUE(decode.decode_tokens_per_s);
  EXPECT_DOUBLE_EQ(*decode.decode_tokens_per_s, 16.0 / (32 * decode.layer_time_s));
  EXPECT_DOUBLE_EQ(decode.compute_bound_time_share, 0.0);
  EXPECT_NEAR(decode.weight_time_share + decode.kv_cache_time_share + decode.activation_time_share,
              1.0, 1e-12);
  EXPECT_DOUBLE_EQ(decode.weight_time_share, kLlamaLayerWeightBytes / bytes);
}

TEST(LayerPrediction, PeakMemory) {
  const GpuSpec& h200 = find_gpu_spec("h200-sxm");
  const LayerPrediction p = predict_layer(llama(), {LayerPhase::kDecode, 64, 32768},
                                          layer_roofs(h200), h200.memory_bytes.value);
  const LayerPeakMemory& m = p.peak_memory;
  EXPECT_DOUBLE_EQ(m.weight_bytes, 32 * kLlamaLayerWeightBytes);
  // 32 layers x 2 (K, V) x 64 sequences x 8 KV heads x 32768 positions x 128 x 2 bytes = 275 GB.
  EXPECT_DOUBLE_EQ(m.kv_cache_bytes, 32.0 * 2 * 64 * 8 * 32768 * 128 * 2);
  // The largest activation at M = 64: the SwiGLU step's gate, up and output, 3 x 64 x 14336 x 2.
  EXPECT_EQ(m.largest_activation_op, "ffn_gated_act");
  EXPECT_DOUBLE_EQ(m.activation_bytes, 3.0 * 64 * 14336 * 2);
  EXPECT_DOUBLE_EQ(m.total_bytes, m.weight_bytes + m.kv_cache_bytes + m.activation_bytes);
  EXPECT_FALSE(m.fits);  // 289 GB against 141 GiB
  const LayerPrediction small = predict_layer(llama(), {LayerPhase::kDecode, 1, 8192},
                                              layer_roofs(h200), h200.memory_bytes.value);
  EXPECT_TRUE(small.peak_memory.fits);
}

// A peak just over the GPU's memory prints like it at three digits (151 GB against the H200's
// 151 GB): the fits column says by how much it is over.
TEST(LayerWriter, FitsColumnSaysHowFarOver) {
  const GpuSpec& h200 = find_gpu_spec("h200-sxm");
  const LayerReport r =
      build_layer_report(llama(), h200, LayerPhase::kDecode, {1, 16}, {65536}, KvDtype::kAuto);
  const LayerPeakMemory& over = r.points[1].peak_memory;
  ASSERT_FALSE(over.fits);
  const double excess = over.total_bytes - h200.memory_bytes.value;
  ASSERT_GT(excess, 0.0);
  ASSERT_LT(excess, 1e-3 * h200.memory_bytes.value);
  const std::string table = format_layer_table(r);
  EXPECT_NE(table.find(fmt::format("no (+{:.2f} MB)", excess / 1e6)), std::string::npos) << table;
  EXPECT_TRUE(r.points[0].peak_memory.fits);
}

// An FP8 E4M3 KV cache: decode attention reads 1 byte per K/V element instead of 2 and peak memory
// holds half the cache; prefill attention still reads the prompt's bf16 K and V, and nothing
// else of the layer moves.
TEST(LayerPrediction, Fp8KvCacheHalvesDecodeKvBytesAndPeakKv) {
  const GpuSpec& h200 = find_gpu_spec("h200-sxm");
  const LayerRoofs roofs = layer_roofs(h200);
  const LayerPoint bf16{LayerPhase::kDecode, 16, 32768};
  LayerPoint fp8 = bf16;
  fp8.kv_dtype = KvDtype::kFp8E4m3;
  const LayerPrediction a = predict_layer(llama(), bf16, roofs, h200.memory_bytes.value);
  const LayerPrediction b = predict_layer(llama(), fp8, roofs, h200.memory_bytes.value);
  // One layer: 2 (K, V) x 16 sequences x 8 KV heads x 32768 positions x 128 x 1 byte = 1.07 GB.
  EXPECT_DOUBLE_EQ(b.kv_cache_bytes, 2.0 * 16 * 8 * 32768 * 128 * 1);
  EXPECT_DOUBLE_EQ(a.kv_cache_bytes, 2.0 * b.kv_cache_bytes);
  EXPECT_DOUBLE_EQ(b.peak_memory.kv_cache_bytes, 32.0 * 2 * 16 * 8 * 32768 * 128 * 1);
  EXPECT_DOUBLE_EQ(b.weight_bytes, a.weight_bytes);
  EXPECT_DOUBLE_EQ(b.flop, a.flop);
  // The attention step is memory-bound on the KV cache, so fewer bytes make a faster step.
  EXPECT_GT(*b.decode_tokens_per_s, *a.decode_tokens_per_s);
  ASSERT_EQ(b.ops[2].op.name, "attention");
  EXPECT_NE(b.ops[2].op.bytes_formula.find("fp8_e4m3"), std::string::npos)
      << b.ops[2].op.bytes_formula;

  LayerPoint prefill{LayerPhase::kPrefill, 1, 4096};
  const LayerPrediction p16 = predict_layer(llama(), prefill, roofs, h200.memory_bytes.value);
  prefill.kv_dtype = KvDtype::kFp8E4m3;
  const LayerPrediction p8 = predict_layer(llama(), prefill, roofs, h200.memory_bytes.value);
  EXPECT_DOUBLE_EQ(p8.kv_cache_bytes, p16.kv_cache_bytes);  // the prompt's bf16 K and V
  EXPECT_DOUBLE_EQ(p8.layer_time_s, p16.layer_time_s);
  EXPECT_DOUBLE_EQ(p8.peak_memory.kv_cache_bytes, p16.peak_memory.kv_cache_bytes / 2);
}

TEST(LayerReport, ProductIsBatchMajor) {
  const LayerReport r = build_layer_report(llama(), find_gpu_spec("h200-sxm"), LayerPhase::kDecode,
                                           {1, 16, 64}, {512, 4096});
  ASSERT_EQ(r.points.size(), 6u);
  EXPECT_EQ(r.points[1].point.batch, 1);
  EXPECT_EQ(r.points[1].point.seq_len, 4096);
  EXPECT_EQ(r.points[2].point.batch, 16);
  EXPECT_EQ(r.points[5].point.batch, 64);
  EXPECT_THROW(build_layer_report(llama(), find_gpu_spec("h200-sxm"), LayerPhase::kDecode, {}, {1}),
               Error);
}

// The first L of `r` (batch 1) at which attention takes more time than every other operator,
// from the operator times (0: none).
int64_t attention_largest_from(const LayerReport& r) {
  for (const auto& p : r.points) {
    double other = 0;
    for (const auto& o : p.ops) {
      if (o.op.name != "attention") other = std::max(other, o.time_lower_bound_s);
    }
    if (op_named(p, "attention").time_lower_bound_s > other) return p.point.seq_len;
  }
  return 0;
}

TEST(LayerConclusion, PrefillNamesTheTakeover) {
  const LayerReport r = build_layer_report(llama(), find_gpu_spec("h200-sxm"), LayerPhase::kPrefill,
                                           {1}, {512, 2048, 8192, 32768});
  const int64_t takeover = attention_largest_from(r);
  ASSERT_GT(takeover, 512);  // at L = 512 the FFN GEMMs dominate
  ASSERT_EQ(r.conclusion.size(), 2u);
  const int64_t before = takeover / 4;
  EXPECT_NE(r.conclusion[0].find("beyond L = " + std::to_string(before) +
                                 " attention takes over from each FFN GEMM"),
            std::string::npos)
      << r.conclusion[0];
  EXPECT_NE(r.conclusion[0].find("at L = " + std::to_string(takeover)), std::string::npos);
  // Causal attention at L = 32768 (36.8%) is still below the three FFN GEMMs (48.3%).
  EXPECT_NE(r.conclusion[0].find("the three FFN GEMMs together stay larger up to L = 32768"),
            std::string::npos)
      << r.conclusion[0];
  EXPECT_NE(r.conclusion[1].find("compute-bound operators take"), std::string::npos);
  EXPECT_NE(r.conclusion[1].find("at L = 512 and "), std::string::npos) << r.conclusion[1];
  // Attention already the largest at the smallest L: said so, not "beyond the smallest L".
  const LayerReport from_first = build_layer_report(llama(), find_gpu_spec("h200-sxm"),
                                                    LayerPhase::kPrefill, {1}, {131072, 262144});
  ASSERT_EQ(attention_largest_from(from_first), 131072);
  EXPECT_NE(from_first.conclusion[0].find(
                "attention is the largest operator from the smallest L on (at L = 131072: "),
            std::string::npos)
      << from_first.conclusion[0];
  EXPECT_EQ(from_first.conclusion[0].find("beyond"), std::string::npos) << from_first.conclusion[0];
  // One length: its share once, not "at L = 4096 and ... at L = 4096".
  const LayerReport one =
      build_layer_report(llama(), find_gpu_spec("h200-sxm"), LayerPhase::kPrefill, {1}, {4096});
  ASSERT_FALSE(one.conclusion.empty());
  EXPECT_NE(one.conclusion.back().find("of the layer time at L = 4096; memory-bound at L = 4096:"),
            std::string::npos)
      << one.conclusion.back();
  // Non-causal attention would cross: at L = 131072 the causal one does too.
  const LayerReport longer = build_layer_report(llama(), find_gpu_spec("h200-sxm"),
                                                LayerPhase::kPrefill, {1}, {32768, 131072});
  EXPECT_NE(longer.conclusion[0].find(
                "beyond L = 32768 it takes more time than the FFN GEMMs together (at L = 131072"),
            std::string::npos)
      << longer.conclusion[0];
}

TEST(LayerConclusion, DecodeWeightsAndKvCache) {
  const LayerReport r =
      build_layer_report(llama(), find_gpu_spec("h200-sxm"), LayerPhase::kDecode, {1, 16, 64},
                         {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072});
  const std::string text = fmt::format("{}", fmt::join(r.conclusion, "\n"));
  // KV cache per layer 2*B*8*C*128*2 = 4096*B*C bytes against 436,224,000 bytes of weights:
  // it outweighs them where B*C > 106,500: B = 64 from C = 2048, B = 16 from 8192, B = 1 from
  // 131072.
  EXPECT_NE(text.find("B = 64: the KV cache outweighs the weights from context 2048"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("B = 16: the KV cache outweighs the weights from context 8192"),
            std::string::npos);
  EXPECT_NE(text.find("B = 1: the KV cache outweighs the weights from context 131072"),
            std::string::npos);
  // At B = 64, context 32768: KV 8,589,934,592 bytes against 436,224,000 of weights and ~17.9 MB
  // of activations (M = 64 rows through every operator): 95.0% of the bytes.
  const LayerPrediction& big = r.points[2 * 9 + 6];
  ASSERT_EQ(big.point.seq_len, 32768);
  const double share =
      big.kv_cache_bytes / (big.weight_bytes + big.kv_cache_bytes + big.activation_bytes);
  EXPECT_NE(text.find(fmt::format("B = 64, context 32768: the KV cache is {:.1f}%", 100 * share)),
            std::string::npos)
      << text;
  EXPECT_NEAR(share, 0.950, 0.001);
  EXPECT_NE(text.find("decode, B = 1, context 512: 99."), std::string::npos) << text;
  EXPECT_NE(text.find("decode: every operator is memory-bound at every point"), std::string::npos);
}

TEST(LayerWriter, JsonAndTable) {
  const LayerReport r = build_layer_report(llama(), find_gpu_spec("h200-sxm"), LayerPhase::kDecode,
                                           {1, 64}, {512, 32768});
  const auto j = layer_report_to_json(r);
  EXPECT_EQ(j["layer_schema_version"], kLayerSchemaVersion);
  EXPECT_EQ(j["length_axis"], "context");
  ASSERT_EQ(j["points"].size(), 4u);
  const auto& p = j["points"][0];
  EXPECT_EQ(p["context"], 512);
  EXPECT_FALSE(p.contains("ttft_s"));
  EXPECT_EQ(p["operators"][1]["name"], "qkv_proj");
  EXPECT_EQ(p["operators"][1]["gemm_mnk"].dump(), "[1,6144,4096]");
  EXPECT_TRUE(p["operators"][2]["gemm_mnk"].is_null());
  EXPECT_DOUBLE_EQ(j["model"]["layer_weight_bytes"].get<double>(), kLlamaLayerWeightBytes);
  const std::string table = format_layer_table(r);
  EXPECT_NE(table.find("decode summary"), std::string::npos);
  EXPECT_NE(table.find("B = 64, context = 32768"), std::string::npos);
  EXPECT_NE(table.find("the estimates leave out:"), std::string::npos);
  EXPECT_NE(table.find("conclusion:"), std::string::npos);
  // Decode's norm at B = 1 does 16.4 kFLOP (4 per element of d_model 4096): shown with an SI
  // prefix, never as 0.000 in a fixed GFLOP column.
  EXPECT_NE(table.find("16.4 kFLOP"), std::string::npos) << table;
  EXPECT_EQ(table.find(" 0.000 "), std::string::npos) << table;
}

}  // namespace
}  // namespace rooflinectl
