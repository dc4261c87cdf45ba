// The explicit layer widths of a point (Shape::hidden, Shape::ffn_dim; --hidden, --ffn-dim, config
// keys "hidden" and "ffn_dim"): validation naming the flag and value, kernel_layer_widths and the
// analytic models honouring them, the sweep plan carrying them only where an operator reads them
// and point keys telling them apart (the report JSON: test_report_json.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bad_input_message.hpp"
#include "core/layer_widths.hpp"
#include "core/operator_names.hpp"
#include "core/shape.hpp"
#include "core/sweep_config.hpp"
#include "core/sweep_plan.hpp"
#include "model/operator_model.hpp"
#include "result/point_key.hpp"

namespace rooflinectl {
namespace {

// Llama-3.1-8B's widths on the sweep's default attention shape (H = 16, d = 128: H·d = 2048).
Shape llama_widths(int64_t tokens) {
  Shape s;
  s.batch = 1;
  s.seq_len = tokens;
  s.hidden = 4096;
  s.ffn_dim = 14336;
  return s;
}

TEST(LayerWidths, DefaultsFollowTheAttentionShape) {
  Shape s;  // H = 16, d = 128
  EXPECT_EQ(s.d_model(), 2048);
  EXPECT_EQ(s.ffn_width(), 8192);
  const LayerWidths w = kernel_layer_widths(s);
  EXPECT_EQ(w.d_model, 2048);
  EXPECT_EQ(w.ffn_dim, 8192);
  EXPECT_EQ(layer_widths_label(s), "");
}

TEST(LayerWidths, KernelWidthsHonourTheFields) {
  Shape s = llama_widths(512);
  LayerWidths w = kernel_layer_widths(s);
  EXPECT_EQ(w.d_model, 4096);
  EXPECT_EQ(w.ffn_dim, 14336);
  EXPECT_EQ(layer_widths_label(s), "hidden=4096 ffn=14336");
  // hidden alone: the FFN follows it (4·hidden); ffn_dim alone: d_model stays H·d.
  s.ffn_dim = 0;
  EXPECT_EQ(kernel_layer_widths(s).ffn_dim, 16384);
  EXPECT_EQ(layer_widths_label(s), "hidden=4096");
  Shape f;
  f.ffn_dim = 5000;
  EXPECT_EQ(kernel_layer_widths(f).d_model, 2048);
  EXPECT_EQ(kernel_layer_widths(f).ffn_dim, 5000);
  EXPECT_EQ(layer_widths_label(f), "ffn=5000");
  // gemm's defaults follow them: N = ffn_dim, K = hidden.
  const GemmDims d = llama_widths(512).gemm_dims();
  EXPECT_EQ(d.n, 14336);
  EXPECT_EQ(d.k, 4096);
}

TEST(LayerWidths, AnalyticModelsAtFfnDim14336) {
  const Shape s = llama_widths(512);
  const double e = 2;
  // swiglu: 3·N·e with N = 512·14336 outputs; 4·N FLOPs.
  const AnalyticResult swiglu = analytic_model(kSwigluOp, s);
  EXPECT_DOUBLE_EQ(swiglu.min_dram_bytes, 3.0 * 512 * 14336 * e);
  EXPECT_DOUBLE_EQ(swiglu.flop, 4.0 * 512 * 14336);
  EXPECT_NE(swiglu.flop_formula.find("ffn_dim"), std::string::npos) << swiglu.flop_formula;
  // gelu: 2·N·e, N = 512·14336.
  EXPECT_DOUBLE_EQ(analytic_model(kGeluOp, s).min_dram_bytes, 2.0 * 512 * 14336 * e);
  // rmsnorm: 2·N·e + d_model·e, N = 512·4096; layernorm adds β.
  EXPECT_DOUBLE_EQ(analytic_model(kRmsnormOp, s).min_dram_bytes, 2.0 * 512 * 4096 * e + 4096 * e);
  EXPECT_DOUBLE_EQ(analytic_model(kLayernormOp, s).min_dram_bytes,
                   2.0 * 512 * 4096 * e + 2 * 4096 * e);
  // gemm at the defaults: M = 512, N = 14336, K = 4096.
  EXPECT_DOUBLE_EQ(analytic_model(kGemmOp, s).flop, 2.0 * 512 * 14336 * 4096);
  EXPECT_DOUBLE_EQ(min_dram_write_bytes(kSwigluOp, s), 512.0 * 14336 * e);
  EXPECT_DOUBLE_EQ(min_dram_write_bytes(kGeluOp, s), 512.0 * 14336 * e);
}

TEST(LayerWidths, ValidationNamesTheFlagAndValue) {
  Shape s;
  s.hidden = -8;
  EXPECT_EQ(bad_input_message([&] { validate_common_shape(s); }),
            "invalid hidden -8 (--hidden): allowed 0 (d_model = heads·head_dim) or a positive "
            "integer");
  s.hidden = 0;
  s.ffn_dim = -1;
  EXPECT_EQ(bad_input_message([&] { validate_layer_widths(s); }),
            "invalid ffn-dim -1 (--ffn-dim): allowed 0 (ffn_dim = 4·d_model) or a positive "
            "integer");
  // A width so large that the FFN activation exceeds 2^50 elements.
  Shape huge;
  huge.hidden = int64_t{1} << 40;
  EXPECT_NE(bad_input_message([&] { validate_common_shape(huge); }).find("FFN"), std::string::npos);
  // d_model · d_ff = 2^11 · 2^39 = 2^50 passes; B·L·d_ff = 2^12 · 2^39 does not.
  Shape wide;
  wide.ffn_dim = int64_t{1} << 39;
  wide.seq_len = 4096;
  EXPECT_NE(bad_input_message([&] {
              validate_common_shape(wide);
            }).find("batch × seq_len × ffn_dim (FFN activation)"),
            std::string::npos);
}

TEST(LayerWidths, ConfigKeysAndTheirOperators) {
  SweepConfig c = parse_sweep_config(
      R"({"ops": ["rmsnorm", "swiglu", "flash_attention"], "hidden": 4096, "ffn_dim": 14336})",
      "t.json");
  EXPECT_EQ(c.base.hidden, 4096);
  EXPECT_EQ(c.base.ffn_dim, 14336);
  validate_sweep_config(c);
  // The attention operator's points carry no widths; the others carry both.
  for (const PlannedPoint& p : plan_all_points(c)) {
    SCOPED_TRACE(p.op);
    const bool reads = p.op != kFlashAttentionOp;
    EXPECT_EQ(p.shape.hidden, reads ? 4096 : 0);
    EXPECT_EQ(p.shape.ffn_dim, reads ? 14336 : 0);
  }
  // Widths without an operator that reads them are refused, naming the flag.
  SweepConfig attention =
      parse_sweep_config(R"({"ops": ["flash_attention"], "hidden": 4096})", "t.json");
  EXPECT_EQ(bad_input_message([&] {
              validate_sweep_config(attention);
            }).rfind("invalid hidden 4096 (--hidden): it sets the width of gemm", 0),
            0u);
  SweepConfig negative = parse_sweep_config(R"({"ops": ["rmsnorm"], "ffn_dim": -3})", "t.json");
  EXPECT_EQ(bad_input_message([&] {
              validate_sweep_config(negative);
            }).rfind("invalid ffn-dim -3 (--ffn-dim)", 0),
            0u);
}

TEST(LayerWidths, PointKeysKeepWidthsApart) {
  const Shape plain;
  Shape wide = plain;
  wide.hidden = 4096;
  EXPECT_FALSE(PointKey({kRmsnormOp, "", plain}).same_point(PointKey{kRmsnormOp, "", wide}));
  EXPECT_EQ(shape_variant_label(wide), " hidden=4096");
  Shape ffn = plain;
  ffn.ffn_dim = 14336;
  EXPECT_FALSE(PointKey({kSwigluOp, "", plain}).same_point(PointKey{kSwigluOp, "", ffn}));
}

}  // namespace
}  // namespace rooflinectl
