// Device-memory footprint of attention as L grows: the score matrix S and probabilities P that
// naive attention materializes (O(L²) per head), the KV cache decode reads every step, the
// largest L at which naive attention still fits a GPU, and how many sequences' KV caches fit a
// memory budget with contiguous max-length or paged allocation. Pure host code, no CUDA.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model_preset.hpp"
#include "core/shape.hpp"

namespace rooflinectl {

/// Memory of one attention shape, in bytes (e = dtype_size_bytes, 2 for bf16 and fp16).
struct AttentionMemory {
  int64_t seq_len = 0;
  double s_bytes_per_head = 0;        ///< S = QKᵀ of one head: L_q·L·e (L²·e at L_q = L)
  double s_and_p_bytes_per_head = 0;  ///< S and P of one head: 2·L_q·L·e
  /// S and P of every head at once, as naive_attention holds them between its launches:
  /// 2·B·H·L_q·L·e
  double s_and_p_bytes_total = 0;
  /// Q, O [B,H,L_q,d] and K, V [B,H_kv,L,d]: (2·B·H·L_q + 2·B·H_kv·L)·d·e
  double qkvo_bytes = 0;
  /// Naive attention's footprint: qkvo_bytes + s_and_p_bytes_total (the 32 MiB cuBLAS workspace
  /// of kernels/naive_attention.cu is not part of the algorithm and is left out).
  double naive_attention_bytes = 0;
  /// KV cache a decode step reads, L cached positions: 2·B·H_kv·L·d·e_kv, e_kv =
  /// kv_element_bytes (2, or 1 for an fp8_e4m3 cache, whose 8·H_kv bytes of scales are left out);
  /// GQA shrinks it by g = H/H_kv.
  double kv_cache_bytes = 0;
};

/// The memory table row of `shape` (all of its axes, seq_len and q_len included: S and P are
/// L_q × L per head, Q and O L_q rows, with L_q = shape.query_len()). Worked example: L = 4096,
/// fp16 → S = 33,554,432 B (33.5 MB) and S + P = 67.1 MB per head; L = 8192 → 268 MB.
AttentionMemory attention_memory(const Shape& shape);

/// Largest L (any integer, not only powers of two) whose naive_attention_bytes fit in
/// `memory_bytes`: with L_q = L (shape.q_len 0) the positive root of 2·B·H·e·L² + (2·B·H +
/// 2·B·H_kv)·d·e·L = memory_bytes, with a fixed L_q = shape.q_len the root of the linear
/// 2·B·H·L_q·e·L + (2·B·H·L_q + 2·B·H_kv·L)·d·e = memory_bytes, rounded down; below L_q (a chunk
/// longer than its cache) it is 0 as well. `shape.seq_len` is ignored. 0 when not even L = 1 (or
/// L = L_q) fits. Throws a bad-input Error when memory_bytes ≤ 0.
int64_t max_naive_attention_seq_len(const Shape& shape, double memory_bytes);

/// What kv_capacity needs: the KV cache of every layer of a model, the memory it may take, the
/// longest sequence the server admits and the page size of the paged allocator.
struct KvCapacitySpec {
  int64_t layers = 0;            ///< transformer layers, each with its own K and V
  int64_t kv_heads = 0;          ///< H_kv
  int64_t head_dim = 0;          ///< d
  int64_t kv_element_bytes = 2;  ///< e_kv: 2 (bf16, fp16) or 1 (fp8_e4m3; scales left out)
  int64_t page_size = kDefaultKvPageSize;  ///< positions per page (vLLM's block_size)
  /// Positions a contiguous allocator reserves for every sequence (vLLM's max_model_len).
  int64_t max_model_len = 0;
  double budget_bytes = 0;  ///< device memory given to the KV cache, bytes
};

/// How many sequences of one actual length fit the budget, allocated both ways.
struct KvCapacityRow {
  int64_t seq_len = 0;                       ///< positions a sequence holds: prompt + output
  int64_t pages_per_sequence = 0;            ///< ceil(seq_len / page_size)
  double contiguous_bytes_per_sequence = 0;  ///< max_model_len · bytes_per_position
  double paged_bytes_per_sequence = 0;       ///< pages_per_sequence · page_bytes
  int64_t contiguous_sequences = 0;          ///< floor(budget / contiguous_bytes_per_sequence)
  int64_t paged_sequences = 0;               ///< floor(total_pages / pages_per_sequence)
  /// Reserved but never used by a contiguous sequence: 1 − seq_len / max_model_len.
  double contiguous_waste_fraction = 0;
  /// The unused tail of a sequence's last page: 1 − seq_len / (pages · page_size), < one page.
  double paged_waste_fraction = 0;
};

/// The KV-cache capacity of a budget: sizes, and one row per actual length.
struct KvCapacity {
  KvCapacitySpec spec;
  double bytes_per_position = 0;  ///< K and V of every layer: 2·layers·H_kv·d·e_kv
  double page_bytes = 0;          ///< page_size · bytes_per_position (vLLM's block bytes)
  int64_t total_pages = 0;        ///< floor(budget / page_bytes) (vLLM's num_gpu_blocks)
  std::vector<KvCapacityRow> rows;
};

/// Sequences whose KV caches fit `spec.budget_bytes`, for each length of `seq_lens`, with
/// contiguous allocation (every sequence reserves max_model_len positions, as serving systems did
/// before paging: Kwon et al. 2023, "Efficient Memory Management for Large Language Model Serving
/// with PagedAttention", §1 and Fig. 2, where 20.4–38.2% of such reservations held tokens) and
/// with paged allocation (the budget cut into pages of page_size positions, vLLM's
/// num_gpu_blocks = free memory / block bytes; a sequence holds ceil(L / page_size) of them, so
/// it wastes less than one page, §4). Worked example, Llama 3.1 8B (32 layers, H_kv = 8, d = 128,
/// bf16): 131072 B per position, 2 MiB pages of 16; a 40 GiB budget holds 20480 pages, 2 sequences
/// reserving 131072 positions each, and 640 sequences of L = 500 (32 pages each). Throws a
/// bad-input Error when a size is < 1, the page size is not one of kKvPageSizes, the budget is not
/// > 0, or a length is < 1 or above max_model_len.
KvCapacity kv_capacity(const KvCapacitySpec& spec, const std::vector<int64_t>& seq_lens);

/// Bytes of `preset`'s parameters in bf16 with `layers` layers: layers × layer_weight_bytes (the
/// attention and FFN projections and the norms, model/layer_operators.hpp) plus the input
/// embedding and the LM head, vocab_size·d_model·2 bytes each, or once where the preset ties them
/// (ModelPreset::tied_embeddings: GPT-2, Gemma 2). Llama 3.1 8B: 8.03·10⁹ parameters, 16.06 GB;
/// Gemma 2 9B: 9.24·10⁹ (its paper's Table 1), 18.48 GB.
double model_weight_bytes(const ModelPreset& preset, int64_t layers);

/// The KV-cache budget a serving engine is left with: gpu_memory_utilization · memory_bytes −
/// weight_bytes (vLLM's rule, whose default utilization is 0.9; it also subtracts the activation
/// peak of a profiling run, which this leaves out). Throws a bad-input Error naming the figures
/// when the result is not > 0 (the weights do not fit) or the utilization is outside (0, 1].
double kv_budget_after_weights(double memory_bytes, double gpu_memory_utilization,
                               double weight_bytes);

}  // namespace rooflinectl
