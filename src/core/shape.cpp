#include "core/shape.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace rooflinectl {

std::string to_string(Dtype dtype) { return dtype == Dtype::kBf16 ? "bf16" : "fp16"; }

std::string to_string(GeluForm form) { return form == GeluForm::kErf ? "erf" : "tanh"; }

Dtype parse_dtype(std::string_view text) {
  if (text == "bf16") return Dtype::kBf16;
  if (text == "fp16") return Dtype::kFp16;
  throw bad_input(fmt::format("invalid dtype '{}': allowed bf16, fp16", text));
}

GeluForm parse_gelu_form(std::string_view text) {
  if (text == "erf") return GeluForm::kErf;
  if (text == "tanh") return GeluForm::kTanh;
  throw bad_input(fmt::format("invalid GELU form '{}': allowed erf, tanh", text));
}

void validate_common_shape(const Shape& s) {
  auto positive = [](const char* name, int64_t v) {
    if (v <= 0) throw bad_input(fmt::format("invalid {} {}: must be a positive integer", name, v));
  };
  positive("batch", s.batch);
  positive("heads", s.heads);
  positive("kv-heads", s.kv_heads);
  positive("head-dim", s.head_dim);
  positive("seq_len", s.seq_len);
  if (s.heads % s.kv_heads != 0) {
    throw bad_input(fmt::format(
        "invalid kv-heads {}: heads ({}) must be a multiple of kv-heads (GQA group size H/H_kv)",
        s.kv_heads, s.heads));
  }
}

}  // namespace rooflinectl
