// RMSNorm, LayerNorm, GELU, SwiGLU and GeGLU at explicit layer widths (Shape::hidden, ffn_dim;
// `--hidden`, `--ffn-dim`, and what `layer` runs): Llama-3.1-8B's hidden 4096 and ffn_dim 14336,
// and widths no heads·head_dim gives (hidden 4104 = 8·513, ffn_dim 1000 and the odd 4101), each
// validated against its CPU float64 reference, its buffers sized by the honoured widths; widths
// the norms refuse are bad input naming --hidden.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/layer_widths.hpp"
#include "core/shape.hpp"
#include "core/validation.hpp"
#include "kernels/operator.hpp"
#include "operator_runs.hpp"

namespace rooflinectl {
namespace {

constexpr uint64_t kSeed = 20261207;

// 100 tokens of the sweep's default attention shape (H·d = 2048) at explicit widths.
Shape widths_shape(int64_t hidden, int64_t ffn_dim, Dtype dtype) {
  Shape s;
  s.batch = 1;
  s.seq_len = 100;
  s.hidden = hidden;
  s.ffn_dim = ffn_dim;
  s.dtype = dtype;
  return s;
}

using WidthParam = std::tuple<std::string /*op*/, int64_t /*hidden*/, int64_t /*ffn_dim*/>;

std::string width_name(const testing::TestParamInfo<WidthParam>& info) {
  return std::get<0>(info.param) + "_hidden" + std::to_string(std::get<1>(info.param)) + "_ffn" +
         std::to_string(std::get<2>(info.param));
}

class ExplicitWidths : public testing::TestWithParam<WidthParam> {};

TEST_P(ExplicitWidths, MatchesFloat64AtTheHonouredWidth) {
  const auto [op, hidden, ffn_dim] = GetParam();
  for (const Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
    SCOPED_TRACE(to_string(dtype));
    const Shape shape = widths_shape(hidden, ffn_dim, dtype);
    const LayerWidths w = kernel_layer_widths(shape);
    const bool norm = op == "rmsnorm" || op == "layernorm";
    const int64_t width = norm ? w.d_model : w.ffn_dim;
    // Device bytes follow the explicit width, not H·d = 2048.
    const int64_t e = dtype_size_bytes(dtype);
    const int64_t io = op == "swiglu" || op == "geglu" ? 3 : 2;
    EXPECT_GE(find_operator(op).device_bytes(shape), io * 100 * width * e);
    const Validation v = run_validate(op, shape, kSeed);
    EXPECT_TRUE(v.passed) << validation_summary(v);
    // At 100 rows every element is checked (gelu checks all up to its full-check size): the
    // reference saw the whole honoured width.
    EXPECT_EQ(v.checked_elements, 100 * width);
  }
}

INSTANTIATE_TEST_SUITE_P(
    LlamaAndOddWidths, ExplicitWidths,
    testing::Values(WidthParam{"rmsnorm", 4096, 14336}, WidthParam{"layernorm", 4096, 14336},
                    WidthParam{"gelu", 4096, 14336}, WidthParam{"swiglu", 4096, 14336},
                    WidthParam{"geglu", 4096, 14336}, WidthParam{"rmsnorm", 4104, 0},
                    WidthParam{"layernorm", 4104, 0}, WidthParam{"swiglu", 0, 4101},
                    WidthParam{"geglu", 0, 1000}, WidthParam{"gelu", 0, 4101}),
    width_name);

TEST(ExplicitWidths, NormsRefuseWidthsTheyCannotRun) {
  for (const char* op : {"rmsnorm", "layernorm"}) {
    SCOPED_TRACE(op);
    Shape shape = widths_shape(4100, 0, Dtype::kBf16);  // not a multiple of 8
    try {
      find_operator(op).check_shape(shape);
      ADD_FAILURE() << "hidden 4100 accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
      EXPECT_NE(std::string(e.what()).find("d_model 4100 (--hidden"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace rooflinectl
