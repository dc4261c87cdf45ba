// The shape flags `sweep` and `model` share (app/cli/shape_options.cpp), parsed as the command
// line parses them: the --model preset replaces the config's attention axes, and a flag given
// explicitly beats the preset.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "cli/shape_options.hpp"
#include "core/error.hpp"
#include "core/sweep_config.hpp"

namespace rooflinectl {
namespace {

/// The config after parsing `args` (without the program name) onto the built-in defaults.
SweepConfig parsed(std::vector<std::string> args) {
  CLI::App app;
  ShapeOptions options;
  add_shape_options(app, options, AxisValues::kLists);
  std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
  app.parse(args);
  SweepConfig config = default_sweep_config();
  apply_shape_options(options, config);
  return config;
}

TEST(ShapeOptions, PresetSetsTheAttentionAxes) {
  const Shape s = parsed({"--model", "llama-3.1-8b"}).base;
  EXPECT_EQ(s.heads, 32);
  EXPECT_EQ(s.kv_heads, 8);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.batch, 1);  // not a preset axis
}

TEST(ShapeOptions, ExplicitFlagsBeatThePreset) {
  const Shape s = parsed({"--model", "llama-3.1-8b", "--kv-heads", "32", "--head-dim", "64"}).base;
  EXPECT_EQ(s.heads, 32);     // from the preset
  EXPECT_EQ(s.kv_heads, 32);  // the flag
  EXPECT_EQ(s.head_dim, 64);  // the flag
  // --heads alone means multi-head attention, preset or not.
  const Shape h = parsed({"--heads", "16", "--model", "llama-3.1-8b"}).base;
  EXPECT_EQ(h.heads, 16);
  EXPECT_EQ(h.kv_heads, 16);
  // The preset's GELU form (GPT-2: tanh) gives way to --gelu-form.
  EXPECT_EQ(parsed({"--model", "gpt2"}).base.gelu_form, GeluForm::kTanh);
  EXPECT_EQ(parsed({"--model", "gpt2", "--gelu-form", "erf"}).base.gelu_form, GeluForm::kErf);
}

TEST(ShapeOptions, PresetBeatsTheConfig) {
  CLI::App app;
  ShapeOptions options;
  add_shape_options(app, options, AxisValues::kLists);
  app.parse(std::vector<std::string>{"phi-3-mini-4k", "--model"});
  SweepConfig config = parse_sweep_config(R"({"heads": 8, "kv_heads": 2, "head_dim": 64})", "c");
  apply_shape_options(options, config);
  EXPECT_EQ(config.base.heads, 32);
  EXPECT_EQ(config.base.kv_heads, 32);
  EXPECT_EQ(config.base.head_dim, 96);
}

TEST(ShapeOptions, GemmDimsFlags) {
  const SweepConfig c = parsed({"--ops", "gemm", "--gemm-n", "6144", "--gemm-k", "4096"});
  EXPECT_EQ(c.base.gemm_n, 6144);
  EXPECT_EQ(c.base.gemm_k, 4096);
  const GemmDims d = c.base.gemm_dims();
  EXPECT_EQ(d.n, 6144);
  EXPECT_EQ(d.k, 4096);
  EXPECT_EQ(d.m, c.base.batch * c.base.seq_len);
  // Without the flags: the FFN up projection, as before (N = 4·d_model, K = d_model = 2048).
  const Shape plain = parsed({}).base;
  EXPECT_EQ(plain.gemm_n, 0);
  EXPECT_EQ(plain.gemm_k, 0);
  EXPECT_EQ(plain.gemm_dims().n, 8192);
  EXPECT_EQ(plain.gemm_dims().k, 2048);
  // The preset does not touch them.
  EXPECT_EQ(parsed({"--model", "llama-3.1-8b", "--gemm-k", "14336"}).base.gemm_k, 14336);
}

TEST(ShapeOptions, GemmDimsFlagTakesWholeNumbersOnly) {
  for (const char* flag : {"--gemm-n", "--gemm-k"}) {
    SCOPED_TRACE(flag);
    EXPECT_THROW(parsed({flag, "1.5"}), CLI::ValidationError);
    EXPECT_THROW(parsed({flag, "wide"}), CLI::ValidationError);
  }
  // A whole number that is not a multiple of 8 parses, and the config validation names it.
  SweepConfig c = parsed({"--ops", "gemm", "--gemm-n", "12"});
  try {
    validate_sweep_config(c);
    ADD_FAILURE() << "--gemm-n 12 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_EQ(std::string(e.what()).rfind("invalid gemm-n 12 (--gemm-n): allowed 0", 0), 0u)
        << e.what();
  }
}

// A leading zero is decimal, as in every list axis ("--batch 008" is 8): CLI11's own conversion
// would read "010" as octal 8 and "008" not at all.
TEST(ShapeOptions, IntegerFlagsReadLeadingZerosAsDecimal) {
  const SweepConfig c = parsed({"--ops", "gemm", "--gemm-n", "010", "--gemm-k", "0016",
                                "--kv-layout", "paged", "--page-size", "032"});
  EXPECT_EQ(c.base.gemm_n, 10);
  EXPECT_EQ(c.base.gemm_k, 16);
  EXPECT_EQ(c.base.page_size, 32);
  EXPECT_EQ(parsed({"--ops", "gemm", "--gemm-n", "008"}).base.gemm_n, 8);
}

// A sweep's --batch takes --seq's range forms as well as a list; a bad range names --batch and
// the forms (`model` refuses several values after parsing, as for a list: test_cli_errors.sh).
TEST(ShapeOptions, BatchTakesRanges) {
  EXPECT_EQ(parsed({"--batch", "1..64"}).axes.batch,
            (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(parsed({"--batch", "16..64:16"}).axes.batch, (std::vector<int64_t>{16, 32, 48, 64}));
  EXPECT_EQ(parsed({"--batch", "1,8,32"}).axes.batch, (std::vector<int64_t>{1, 8, 32}));
  EXPECT_EQ(parsed({"--batch", "8..8"}).base.batch, 8);  // one value: no axis
  try {
    parsed({"--batch", "1..6"});
    ADD_FAILURE() << "a power-of-two range with an end of 6 was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_EQ(std::string(e.what()).rfind("invalid --batch '1..6': ", 0), 0u) << e.what();
  }
}

// --hidden and --ffn-dim set the layer widths, decimal-strict like --gemm-n; the preset leaves
// them alone, and a value the config validation refuses names its flag.
TEST(ShapeOptions, LayerWidthFlags) {
  const SweepConfig c =
      parsed({"--ops", "rmsnorm,swiglu", "--hidden", "4096", "--ffn-dim", "14336"});
  EXPECT_EQ(c.base.hidden, 4096);
  EXPECT_EQ(c.base.ffn_dim, 14336);
  EXPECT_EQ(c.base.d_model(), 4096);
  EXPECT_EQ(c.base.ffn_width(), 14336);
  EXPECT_EQ(parsed({}).base.hidden, 0);
  EXPECT_EQ(parsed({"--model", "llama-3.1-8b"}).base.ffn_dim, 0);
  EXPECT_EQ(parsed({"--ops", "gelu", "--ffn-dim", "0100"}).base.ffn_dim, 100);
  for (const char* flag : {"--hidden", "--ffn-dim"}) {
    SCOPED_TRACE(flag);
    EXPECT_THROW(parsed({flag, "1.5"}), CLI::ValidationError);
    EXPECT_THROW(parsed({flag, "wide"}), CLI::ValidationError);
  }
  SweepConfig negative = parsed({"--ops", "rmsnorm", "--hidden=-8"});
  try {
    validate_sweep_config(negative);
    ADD_FAILURE() << "--hidden -8 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_EQ(std::string(e.what()).rfind("invalid hidden -8 (--hidden): allowed 0", 0), 0u)
        << e.what();
  }
}

TEST(ShapeOptions, UnknownPresetIsBadInput) {
  try {
    parsed({"--model", "gpt5"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("known gpt2, gpt2-xl"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rooflinectl
