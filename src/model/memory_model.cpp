#include "model/memory_model.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

double naive_bytes(const Shape& s, int64_t seq_len) {
  const double b = s.batch, h = s.heads, hkv = s.kv_heads, d = s.head_dim, l = seq_len;
  const double e = dtype_size_bytes(s.dtype);
  return 2.0 * b * h * l * l * e + (2.0 * b * h + 2.0 * b * hkv) * l * d * e;
}

}  // namespace

AttentionMemory attention_memory(const Shape& s) {
  const double b = s.batch, h = s.heads, hkv = s.kv_heads, d = s.head_dim, l = s.seq_len;
  const double e = dtype_size_bytes(s.dtype);
  AttentionMemory m;
  m.seq_len = s.seq_len;
  m.s_bytes_per_head = l * l * e;
  m.s_and_p_bytes_per_head = 2.0 * l * l * e;
  m.s_and_p_bytes_total = 2.0 * b * h * l * l * e;
  m.qkvo_bytes = (2.0 * b * h + 2.0 * b * hkv) * l * d * e;
  m.naive_attention_bytes = m.qkvo_bytes + m.s_and_p_bytes_total;
  m.kv_cache_bytes = 2.0 * b * hkv * l * d * static_cast<double>(kv_element_bytes(s));
  return m;
}

int64_t max_naive_attention_seq_len(const Shape& s, double memory_bytes) {
  if (!(memory_bytes > 0)) {
    throw bad_input(fmt::format("invalid memory size {} bytes: must be > 0", memory_bytes));
  }
  const double e = dtype_size_bytes(s.dtype);
  const double a = 2.0 * s.batch * s.heads * e;
  const double b = (2.0 * s.batch * s.heads + 2.0 * s.batch * s.kv_heads) * s.head_dim * e;
  const double root = (-b + std::sqrt(b * b + 4.0 * a * memory_bytes)) / (2.0 * a);
  int64_t l = static_cast<int64_t>(std::floor(root));
  // The root is exact only up to rounding: settle the integer on the exact footprint.
  while (l > 0 && naive_bytes(s, l) > memory_bytes) --l;
  while (naive_bytes(s, l + 1) <= memory_bytes) ++l;
  return l;
}

}  // namespace rooflinectl
