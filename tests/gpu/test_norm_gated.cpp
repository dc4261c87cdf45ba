// RMSNorm, SwiGLU and GeGLU (both GELU forms) through the operator registry: each run's own
// validate() against its CPU float64 reference at the sweep's corner cases (token counts that are
// not multiples of anything, every RMSNorm thread configuration, d_ff not a multiple of 8, sampled
// large shapes), plus hand-written RMSNorm rows (fp16 ±20000, whose Σx² overflows fp16; constant
// rows that must give γ exactly) and the gated launcher at widths the sweep never produces (d_ff =
// 1, 3, 10, ...), checked against float64 here and for writes past the output's end.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "core/validation.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/common/activation_reference.hpp"
#include "kernels/common/tensor_utils.hpp"
#include "kernels/gated_activation.hpp"
#include "kernels/operator.hpp"
#include "kernels/rmsnorm.hpp"
#include "operator_runs.hpp"

namespace rooflinectl {
namespace {

constexpr uint64_t kSeed = 20261206;
constexpr int64_t kCheckBudget = int64_t{1} << 22;  // elements the CPU reference checks at most

Shape make_shape(int64_t tokens, int64_t heads, int64_t head_dim, Dtype dtype) {
  Shape s;
  s.batch = 1;
  s.seq_len = tokens;
  s.heads = heads;
  s.kv_heads = heads;
  s.head_dim = head_dim;
  s.dtype = dtype;
  return s;
}

/// Elements checked_rows lets the reference check of a [rows, width] output.
int64_t expected_checked(int64_t rows, int64_t width) {
  return std::max<int64_t>(std::min({rows, int64_t{4096}, kCheckBudget / width}),
                           std::min<int64_t>(rows, 2)) *
         width;
}

using RowParam = std::tuple<int64_t /*tokens*/, int64_t /*d_model*/, Dtype>;

std::string row_name(const testing::TestParamInfo<RowParam>& info) {
  return "tokens" + std::to_string(std::get<0>(info.param)) + "_dmodel" +
         std::to_string(std::get<1>(info.param)) + "_" + to_string(std::get<2>(info.param));
}

const auto kRowSweep = testing::Combine(testing::Values<int64_t>(1, 127, 512, 1000, 4096),
                                        testing::Values<int64_t>(1024, 2048),
                                        testing::Values(Dtype::kBf16, Dtype::kFp16));

// ---------------------------------------------------------------------------------------------
// RMSNorm

class RmsNormSweep : public testing::TestWithParam<RowParam> {};

TEST_P(RmsNormSweep, MatchesFloat64) {
  const auto [tokens, d_model, dtype] = GetParam();
  const Validation v =
      run_validate("rmsnorm", make_shape(tokens, d_model / 128, 128, dtype), kSeed);
  EXPECT_TRUE(v.passed) << validation_summary(v);
  EXPECT_EQ(v.checked_elements, expected_checked(tokens, d_model));
}

INSTANTIATE_TEST_SUITE_P(Sweep, RmsNormSweep, kRowSweep, row_name);

TEST(RmsNorm, EveryThreadConfigurationAndWidthLimit) {
  // d_model: smallest; last warp-per-row width; first and last 64-, 128- and 256-thread widths;
  // first 1024-thread; the maximum. 5 rows: the last 4-row block of warp rows holds one row.
  const std::vector<std::pair<int64_t, int64_t>> widths = {
      {1, 8},    {1, 2048}, {1, 2056},  {1, 4096},  {1, 4104},
      {1, 8192}, {1, 8200}, {128, 128}, {1, 16392}, {512, 128}};
  for (const auto& [heads, head_dim] : widths) {
    for (Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      SCOPED_TRACE(testing::Message() << "d_model " << heads * head_dim << " " << to_string(dtype));
      const Validation v = run_validate("rmsnorm", make_shape(5, heads, head_dim, dtype), kSeed);
      EXPECT_TRUE(v.passed) << validation_summary(v);
      EXPECT_EQ(v.checked_elements, 5 * heads * head_dim);
    }
  }
}

TEST(RmsNorm, LargeShapesSampleFirstAndLastRows) {
  const Validation many = run_validate("rmsnorm", make_shape(5000, 8, 128, Dtype::kBf16), kSeed);
  EXPECT_TRUE(many.passed) << validation_summary(many);
  EXPECT_EQ(many.checked_elements, 4096 * 1024);
  const Validation wide = run_validate("rmsnorm", make_shape(100, 512, 128, Dtype::kFp16), kSeed);
  EXPECT_TRUE(wide.passed) << validation_summary(wide);
  EXPECT_EQ(wide.checked_elements, 64 * 65536);
}

TEST(RmsNorm, RejectsUnsupportedWidthsAndNamesItsKernel) {
  const OperatorSpec& spec = find_operator("rmsnorm");
  EXPECT_EQ(spec.pipe(Shape{}), Pipe::kFp32);
  // 12 is not a multiple of 8; 65544 = 8193·8 is above the maximum.
  EXPECT_TRUE(throws_bad_input([&] { spec.check_shape(make_shape(4, 1, 12, Dtype::kBf16)); }));
  EXPECT_TRUE(throws_bad_input([&] { spec.check_shape(make_shape(4, 8193, 8, Dtype::kBf16)); }));
  EXPECT_NO_THROW(spec.check_shape(make_shape(4, 512, 128, Dtype::kBf16)));
  // x, y [3, 1024] and γ [1024], 2 bytes each.
  EXPECT_EQ(spec.device_bytes(make_shape(3, 8, 128, Dtype::kBf16)), (2 * 3 * 1024 + 1024) * 2);
  const auto run = spec.create(make_shape(4, 8, 128, Dtype::kBf16), kDefaultVersionKey);
  EXPECT_EQ(run->version(), "rmsnorm_v1_one_pass_8vec");
  EXPECT_EQ(run->kernel_names(), std::vector<std::string>{"rmsnorm"});
}

/// Runs launch_rmsnorm on hand-written fp16 rows x with γ and returns y as double.
std::vector<double> rmsnorm_fp16(const std::vector<float>& x_host,
                                 const std::vector<float>& gamma_host, int64_t rows) {
  const auto width = static_cast<int64_t>(gamma_host.size());
  std::vector<__half> x(x_host.size());
  std::vector<__half> gamma(gamma_host.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = __float2half(x_host[i]);
  for (size_t i = 0; i < gamma.size(); ++i) gamma[i] = __float2half(gamma_host[i]);
  DeviceBuffer<uint16_t> xd(rows * width), yd(rows * width), gd(width);
  RFL_CUDA_CHECK(cudaMemcpy(xd.get(), x.data(), xd.bytes(), cudaMemcpyHostToDevice));
  RFL_CUDA_CHECK(cudaMemcpy(gd.get(), gamma.data(), gd.bytes(), cudaMemcpyHostToDevice));
  launch_rmsnorm(xd.get(), gd.get(), yd.get(), rows, width, Dtype::kFp16, nullptr);
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  return download_as_double(yd.get(), rows * width, Dtype::kFp16);
}

TEST(RmsNorm, Fp16RowsOfPlusMinus20000GivePlusMinusOne) {
  // x² = 4e8 is above fp16's 65504: the sum must be fp32 (2.6e13 at 65536 elements).
  for (int64_t width : {1024, 2048, 16384, 65536}) {
    SCOPED_TRACE(testing::Message() << "d_model " << width);
    const int64_t rows = 3;
    std::vector<float> x(static_cast<size_t>(rows * width));
    for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 2 == 0) ? 20000.0f : -20000.0f;
    const std::vector<double> y =
        rmsnorm_fp16(x, std::vector<float>(static_cast<size_t>(width), 1.0f), rows);
    int64_t bad = 0;
    for (size_t i = 0; i < y.size(); ++i) bad += y[i] != (i % 2 == 0 ? 1.0 : -1.0);
    EXPECT_EQ(bad, 0) << "first y " << y[0] << ", " << y[1];
  }
}

TEST(RmsNorm, ConstantRowsGiveGammaColumnByColumn) {
  // A row of 3s has RMS 3 (ε shifts it by 6e-7, far below fp16's half ulp), so y = γ exactly:
  // each column must take its own γ (γ[c] = (c mod 17 − 8)/4, all exact in fp16) and no mean may
  // be subtracted (LayerNorm would give β = 0 here).
  for (int64_t width : {8, 2048, 4104, 65536}) {
    SCOPED_TRACE(testing::Message() << "d_model " << width);
    const int64_t rows = 5;
    std::vector<float> gamma(static_cast<size_t>(width));
    for (size_t c = 0; c < gamma.size(); ++c) gamma[c] = (static_cast<float>(c % 17) - 8.0f) / 4;
    const std::vector<double> y =
        rmsnorm_fp16(std::vector<float>(static_cast<size_t>(rows * width), 3.0f), gamma, rows);
    int64_t bad = 0;
    for (size_t i = 0; i < y.size(); ++i) bad += y[i] != gamma[i % gamma.size()];
    EXPECT_EQ(bad, 0) << "y[1] " << y[1] << " against gamma[1] " << gamma[1];
  }
}

// ---------------------------------------------------------------------------------------------
// SwiGLU, GeGLU

/// Every gated operator with the GELU forms it reads: swiglu once, geglu per form.
std::vector<std::pair<std::string, GeluForm>> gated_variants() {
  return {{"swiglu", GeluForm::kErf}, {"geglu", GeluForm::kErf}, {"geglu", GeluForm::kTanh}};
}

class GatedSweep : public testing::TestWithParam<RowParam> {};

TEST_P(GatedSweep, MatchesFloat64) {
  const auto [tokens, d_model, dtype] = GetParam();
  for (const auto& [op, form] : gated_variants()) {
    SCOPED_TRACE(op + " " + to_string(form));
    Shape s = make_shape(tokens, d_model / 128, 128, dtype);
    s.gelu_form = form;
    const Validation v = run_validate(op, s, kSeed);
    EXPECT_TRUE(v.passed) << validation_summary(v);
    EXPECT_EQ(v.checked_elements, expected_checked(tokens, 4 * d_model));
  }
}

INSTANTIATE_TEST_SUITE_P(Sweep, GatedSweep, kRowSweep, row_name);

TEST(Gated, WidthsThatAreNotWholeVectors) {
  // d_ff = 4·heads·head_dim: 84 (3·7, element path), 4 (element path), 8 (one vector a row),
  // 4·3·7·11 = 924 (element path, many rows).
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> cases = {
      {5, 3, 7}, {1, 1, 1}, {7, 1, 2}, {1001, 3, 77}};
  for (const auto& [tokens, heads, head_dim] : cases) {
    for (Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
      for (const auto& [op, form] : gated_variants()) {
        SCOPED_TRACE(testing::Message()
                     << op << " " << to_string(form) << " tokens " << tokens << " d_ff "
                     << 4 * heads * head_dim << " " << to_string(dtype));
        Shape s = make_shape(tokens, heads, head_dim, dtype);
        s.gelu_form = form;
        const Validation v = run_validate(op, s, kSeed);
        EXPECT_TRUE(v.passed) << validation_summary(v);
        EXPECT_EQ(v.checked_elements, expected_checked(tokens, 4 * heads * head_dim));
      }
    }
  }
}

TEST(Gated, LargeShapesSampleRows) {
  // 5000 rows of d_ff 4096: 1024 rows fit the budget, the first and last among them.
  const Validation v = run_validate("swiglu", make_shape(5000, 8, 128, Dtype::kBf16), kSeed);
  EXPECT_TRUE(v.passed) << validation_summary(v);
  EXPECT_EQ(v.checked_elements, 1024 * 4096);
}

TEST(Gated, NamesVersionsAndBytes) {
  Shape s = make_shape(3, 2, 64, Dtype::kBf16);
  const OperatorSpec& swiglu = find_operator("swiglu");
  EXPECT_EQ(swiglu.pipe(Shape{}), Pipe::kFp32);
  // x [3, 2·512] and y [3, 512], d_ff = 4·128.
  EXPECT_EQ(swiglu.device_bytes(s), 3 * 3 * 512 * 2);
  const auto run = swiglu.create(s, kDefaultVersionKey);
  EXPECT_EQ(run->kernel_names(), std::vector<std::string>{"swiglu"});
  EXPECT_EQ(run->version(), "swiglu_v1_full_grid");
  const OperatorSpec& geglu = find_operator("geglu");
  s.gelu_form = GeluForm::kErf;
  EXPECT_EQ(geglu.create(s, kDefaultVersionKey)->kernel_names(),
            std::vector<std::string>{"geglu_erf"});
  s.gelu_form = GeluForm::kTanh;
  const auto tanh_run = geglu.create(s, kDefaultVersionKey);
  EXPECT_EQ(tanh_run->kernel_names(), std::vector<std::string>{"geglu_tanh"});
  EXPECT_EQ(tanh_run->version(), "geglu_v1_full_grid");
  EXPECT_TRUE(throws_bad_input([&] { geglu.create(s, "v9"); }));
}

/// y of launch_gated_activation on random x [rows, 2·d_ff] against float64 act(gate)·up, and the
/// `guard` elements after y untouched.
void check_launcher(int64_t rows, int64_t d_ff, GateActivation act, Dtype dtype) {
  constexpr int64_t kGuard = 64;
  DeviceBuffer<uint16_t> x(rows * 2 * d_ff);
  DeviceBuffer<uint16_t> y(rows * d_ff + kGuard);
  fill_uniform(x.get(), x.count(), dtype, kSeed + static_cast<uint64_t>(d_ff), -4.0f, 4.0f);
  RFL_CUDA_CHECK(cudaMemset(y.get(), 0x5A, y.bytes()));
  launch_gated_activation(x.get(), y.get(), rows, d_ff, act, dtype, nullptr);
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<double> xs = download_as_double(x.get(), x.count(), dtype);
  const std::vector<double> ys = download_as_double(y.get(), rows * d_ff, dtype);
  std::vector<double> ref(ys.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < d_ff; ++c) {
      const double gate = xs[static_cast<size_t>(r * 2 * d_ff + c)];
      const double up = xs[static_cast<size_t>(r * 2 * d_ff + d_ff + c)];
      const double a = act == GateActivation::kSilu      ? silu_reference(gate)
                       : act == GateActivation::kGeluErf ? gelu_reference(gate, GeluForm::kErf)
                                                         : gelu_reference(gate, GeluForm::kTanh);
      ref[static_cast<size_t>(r * d_ff + c)] = a * up;
    }
  }
  const Validation v = compare_arrays(ys.data(), ref.data(), static_cast<int64_t>(ref.size()),
                                      default_tolerance(dtype), "test float64");
  EXPECT_TRUE(v.passed) << validation_summary(v);
  std::vector<uint16_t> guard(kGuard);
  RFL_CUDA_CHECK(cudaMemcpy(guard.data(), y.get() + rows * d_ff, kGuard * sizeof(uint16_t),
                            cudaMemcpyDeviceToHost));
  EXPECT_TRUE(std::all_of(guard.begin(), guard.end(), [](uint16_t g) { return g == 0x5A5A; }))
      << "a write past the last output";
}

TEST(Gated, LauncherAtAnyWidth) {
  for (const int64_t d_ff : {1, 2, 3, 7, 8, 10, 16, 24, 1000, 1032}) {
    for (const int64_t rows : {1, 3, 257}) {
      for (const GateActivation act :
           {GateActivation::kSilu, GateActivation::kGeluErf, GateActivation::kGeluTanh}) {
        for (const Dtype dtype : {Dtype::kBf16, Dtype::kFp16}) {
          SCOPED_TRACE(testing::Message() << "d_ff " << d_ff << " rows " << rows << " act "
                                          << static_cast<int>(act) << " " << to_string(dtype));
          check_launcher(rows, d_ff, act, dtype);
        }
      }
    }
  }
}

TEST(Gated, LauncherRejectsEmptyShapes) {
  EXPECT_TRUE(throws_bad_input([] {
    launch_gated_activation(nullptr, nullptr, 0, 8, GateActivation::kSilu, Dtype::kBf16, nullptr);
  }));
  EXPECT_TRUE(throws_bad_input([] {
    launch_gated_activation(nullptr, nullptr, 4, 0, GateActivation::kSilu, Dtype::kBf16, nullptr);
  }));
}

TEST(Gated, SixtyFourBitIndicesPastTwoToThe31Outputs) {
  // d_ff 12 runs element by element; 179 million rows make 2.148e9 outputs > 2^31 − 1, so the
  // kernel takes 64-bit indices. x and y need 12.9 GB: skipped on a smaller GPU.
  const int64_t d_ff = 12;
  const int64_t rows = 179'000'000;
  const int64_t bytes = 3 * rows * d_ff * 2;
  size_t free_bytes = 0, total_bytes = 0;
  RFL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (static_cast<int64_t>(free_bytes) < bytes + (int64_t{1} << 30)) {
    GTEST_SKIP() << "needs " << bytes << " bytes of device memory, " << free_bytes << " free";
  }
  DeviceBuffer<uint16_t> x(rows * 2 * d_ff);
  DeviceBuffer<uint16_t> y(rows * d_ff);
  fill_uniform(x.get(), x.count(), Dtype::kBf16, kSeed, -4.0f, 4.0f);
  launch_gated_activation(x.get(), y.get(), rows, d_ff, GateActivation::kSilu, Dtype::kBf16,
                          nullptr);
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  // The first two and the last two rows: the last ones lie past 2^31 outputs.
  for (const int64_t row : {int64_t{0}, int64_t{1}, rows - 2, rows - 1}) {
    SCOPED_TRACE(testing::Message() << "row " << row);
    const std::vector<double> xs = download_row_as_double(x.get(), row, 2 * d_ff, Dtype::kBf16);
    const std::vector<double> ys = download_row_as_double(y.get(), row, d_ff, Dtype::kBf16);
    std::vector<double> ref(static_cast<size_t>(d_ff));
    for (int64_t c = 0; c < d_ff; ++c) {
      ref[static_cast<size_t>(c)] =
          silu_reference(xs[static_cast<size_t>(c)]) * xs[static_cast<size_t>(d_ff + c)];
    }
    const Validation v = compare_arrays(ys.data(), ref.data(), d_ff,
                                        default_tolerance(Dtype::kBf16), "test float64");
    EXPECT_TRUE(v.passed) << validation_summary(v);
  }
}

}  // namespace
}  // namespace rooflinectl
