#include "model/memory_model.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "model/layer_operators.hpp"

namespace rooflinectl {
namespace {

// Naive attention's footprint at L = seq_len, with L_q = shape.q_len (L when 0).
double naive_bytes(const Shape& s, int64_t seq_len) {
  const double b = s.batch, h = s.heads, hkv = s.kv_heads, d = s.head_dim, l = seq_len;
  const double q = s.q_len != 0 ? static_cast<double>(s.q_len) : l;
  const double e = dtype_size_bytes(s.dtype);
  return 2.0 * b * h * q * l * e + (2.0 * b * h * q + 2.0 * b * hkv * l) * d * e;
}

}  // namespace

AttentionMemory attention_memory(const Shape& s) {
  const double b = s.batch, h = s.heads, hkv = s.kv_heads, d = s.head_dim, l = s.seq_len;
  const double q = static_cast<double>(s.query_len());
  const double e = dtype_size_bytes(s.dtype);
  AttentionMemory m;
  m.seq_len = s.seq_len;
  m.s_bytes_per_head = q * l * e;
  m.s_and_p_bytes_per_head = 2.0 * q * l * e;
  m.s_and_p_bytes_total = 2.0 * b * h * q * l * e;
  m.qkvo_bytes = (2.0 * b * h * q + 2.0 * b * hkv * l) * d * e;
  m.naive_attention_bytes = m.qkvo_bytes + m.s_and_p_bytes_total;
  m.kv_cache_bytes = 2.0 * b * hkv * l * d * static_cast<double>(kv_element_bytes(s));
  return m;
}

int64_t max_naive_attention_seq_len(const Shape& s, double memory_bytes) {
  if (!(memory_bytes > 0)) {
    throw bad_input(fmt::format("invalid memory size {} bytes: must be > 0", memory_bytes));
  }
  const double e = dtype_size_bytes(s.dtype);
  double root = 0;
  if (s.q_len == 0) {
    const double a = 2.0 * s.batch * s.heads * e;
    const double b = (2.0 * s.batch * s.heads + 2.0 * s.batch * s.kv_heads) * s.head_dim * e;
    root = (-b + std::sqrt(b * b + 4.0 * a * memory_bytes)) / (2.0 * a);
  } else {
    const double q = static_cast<double>(s.q_len);
    const double slope =
        2.0 * s.batch * s.heads * q * e + 2.0 * s.batch * s.kv_heads * s.head_dim * e;
    root = std::max(0.0, (memory_bytes - 2.0 * s.batch * s.heads * q * s.head_dim * e) / slope);
  }
  int64_t l = static_cast<int64_t>(std::floor(root));
  // The root is exact only up to rounding: settle the integer on the exact footprint.
  while (l > 0 && naive_bytes(s, l) > memory_bytes) --l;
  while (naive_bytes(s, l + 1) <= memory_bytes) ++l;
  return l < s.q_len ? 0 : l;
}

KvCapacity kv_capacity(const KvCapacitySpec& spec, const std::vector<int64_t>& seq_lens) {
  check_positive_axis("layers", "--layers", spec.layers);
  check_positive_axis("kv-heads", "--kv-heads", spec.kv_heads);
  check_positive_axis("head-dim", "--head-dim", spec.head_dim);
  check_positive_axis("max-model-len", "--max-model-len", spec.max_model_len);
  if (spec.kv_element_bytes != 1 && spec.kv_element_bytes != 2) {
    throw bad_input(fmt::format("invalid KV element size {} bytes: allowed 1 (fp8_e4m3), 2",
                                spec.kv_element_bytes));
  }
  bool page_size_known = false;
  for (const int64_t p : kKvPageSizes) page_size_known = page_size_known || p == spec.page_size;
  if (!page_size_known) {
    throw bad_input(
        fmt::format("invalid page size {} (--page-size): allowed 16, 32, 64, 128", spec.page_size));
  }
  if (!(spec.budget_bytes > 0) || !std::isfinite(spec.budget_bytes)) {
    throw bad_input(
        fmt::format("invalid KV-cache budget {} bytes: must be > 0", spec.budget_bytes));
  }
  KvCapacity c;
  c.spec = spec;
  c.bytes_per_position = 2.0 * static_cast<double>(spec.layers) *
                         static_cast<double>(spec.kv_heads) * static_cast<double>(spec.head_dim) *
                         static_cast<double>(spec.kv_element_bytes);
  c.page_bytes = static_cast<double>(spec.page_size) * c.bytes_per_position;
  c.total_pages = static_cast<int64_t>(std::floor(spec.budget_bytes / c.page_bytes));
  const double contiguous_bytes = static_cast<double>(spec.max_model_len) * c.bytes_per_position;
  for (const int64_t seq_len : seq_lens) {
    if (seq_len < 1 || seq_len > spec.max_model_len) {
      throw bad_input(
          fmt::format("invalid --kv-lengths {}: a sequence holds 1 .. --max-model-len {} positions",
                      seq_len, spec.max_model_len));
    }
    KvCapacityRow row;
    row.seq_len = seq_len;
    row.pages_per_sequence = (seq_len + spec.page_size - 1) / spec.page_size;
    row.contiguous_bytes_per_sequence = contiguous_bytes;
    row.paged_bytes_per_sequence = static_cast<double>(row.pages_per_sequence) * c.page_bytes;
    row.contiguous_sequences =
        static_cast<int64_t>(std::floor(spec.budget_bytes / contiguous_bytes));
    row.paged_sequences = c.total_pages / row.pages_per_sequence;
    row.contiguous_waste_fraction =
        1.0 - static_cast<double>(seq_len) / static_cast<double>(spec.max_model_len);
    row.paged_waste_fraction =
        1.0 -
        static_cast<double>(seq_len) / static_cast<double>(row.pages_per_sequence * spec.page_size);
    c.rows.push_back(row);
  }
  return c;
}

double model_weight_bytes(const ModelPreset& preset, int64_t layers) {
  check_positive_axis("layers", "--layers", layers);
  const double embedding_bytes =
      static_cast<double>(preset.vocab_size) * static_cast<double>(preset.widths.d_model) * 2.0;
  const double embedding_matrices = preset.tied_embeddings ? 1.0 : 2.0;
  return static_cast<double>(layers) * layer_weight_bytes(preset) +
         embedding_matrices * embedding_bytes;
}

double kv_budget_after_weights(double memory_bytes, double gpu_memory_utilization,
                               double weight_bytes) {
  if (!(gpu_memory_utilization > 0) || gpu_memory_utilization > 1) {
    throw bad_input(fmt::format("invalid --gpu-memory-utilization {}: allowed above 0 up to 1",
                                gpu_memory_utilization));
  }
  const double budget = gpu_memory_utilization * memory_bytes - weight_bytes;
  if (!(budget > 0)) {
    throw bad_input(fmt::format(
        "no memory left for the KV cache: {} x {:.2f} GB of device memory - {:.2f} GB of weights "
        "= {:.2f} GB (give --kv-budget-gib, or a larger GPU or --gpu-memory-utilization)",
        gpu_memory_utilization, memory_bytes / 1e9, weight_bytes / 1e9, budget / 1e9));
  }
  return budget;
}

}  // namespace rooflinectl
