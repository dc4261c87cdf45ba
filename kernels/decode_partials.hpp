// Decode attention's split-KV bookkeeping (kernels/decode_attention.cu): the kernel parameters,
// where a key's K and V row lies (contiguous or paged KV cache), a block's part of the flat key
// range, the log-sum-exp merge, and the end of a segment: the
// block's partial to the fp32 workspace, then, in the last block to finish a KV head, the merge
// of all its parts into O (the step a separate combine kernel did up to v3). Device code:
// include from .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "core/shape.hpp"
#include "kernels/common/pack_pair.hpp"

namespace rooflinectl::decode {

/// Kernel arguments. The cache is one flat range of total_keys = batch·kv_heads·kv_len keys:
/// flat key f is position f mod kv_len of KV head f / kv_len (the batch·kv_heads index
/// b·kv_heads + kv_head); where its K and V rows lie, see step_rows. Part x covers flat keys
/// [x·keys_per_part, min(total_keys, (x + 1)·keys_per_part)). Query rows (b·heads + h) of KV
/// head f / kv_len are (f / kv_len)·group + r, r < group.
struct DecodeParams {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  /// Unnormalized Σ p·v, [parts, slots, group, head_dim]; slot j of part x is KV head
  /// (x·keys_per_part) / kv_len + j.
  float* partial_o;
  /// (max of log2-scaled scores, Σ 2^(s - max)), [parts, slots, group].
  float2* partial_ml;
  /// Arrival counters, [batch·kv_heads, head chunks]: the blocks of a (KV head, head chunk) that
  /// have written their partial. Zero before a launch; the last block to arrive resets its own.
  unsigned int* arrivals;
  int64_t kv_len;
  int64_t group;  ///< g = heads / kv_heads
  int64_t total_keys;
  int64_t keys_per_part;
  int64_t slots;       ///< most KV heads one part touches
  float q_scale_log2;  ///< softmax scale · log2(e): scores come out ready for exp2
  /// Paged KV cache only (null, 0 when contiguous): int32 page indices [batch, pages_per_seq]
  /// into K and V seen as [pages, kv_heads, page_size, head_dim], page_size = 2^page_shift.
  const int32_t* block_table;
  int64_t pages_per_seq;
  int64_t kv_heads;  ///< H_kv, set for every layout (the FP8 scales are indexed by it too)
  int page_shift;
  /// FP8 KV cache only (null when 16-bit): fp32 scales [kv_heads] of K and of V; a stored E4M3
  /// element x of KV head j stands for x·k_scale[j] (K) or x·v_scale[j] (V).
  const float* k_scale;
  const float* v_scale;
};

/// Row (of head_dim elements) of a paged K or V pool, [pages, kv_heads, P, head_dim] with P =
/// 2^page_shift, that holds position `pos` of KV head `kv_head` of the sequence whose block-table
/// row is `pages`: (pages[pos / P]·kv_heads + kv_head)·P + pos mod P. One 4-byte block-table
/// read per call (through the read-only cache: every lane of a key row asks for the same entry).
/// Positions are 32-bit (check_decode_shape keeps a paged seq_len within int32): 64-bit ones
/// doubled decode_split_kv_kernel's spills at its 64-register bound.
__device__ __forceinline__ int64_t paged_kv_row(const int32_t* pages, int64_t kv_heads,
                                                int64_t kv_head, int page_shift, int64_t pos) {
  const int pos32 = static_cast<int>(pos);
  const int64_t page = __ldg(pages + (pos32 >> page_shift));
  return ((page * kv_heads + kv_head) << page_shift) + (pos32 & ((1 << page_shift) - 1));
}

/// What kv_row and step_rows need of one segment (a block's keys in one KV head batch_kv).
struct KvSegment {
  int64_t first_key;     ///< flat key of position 0: batch_kv·kv_len
  const int32_t* pages;  ///< paged: the sequence's block-table row
  int64_t kv_head;       ///< paged: batch_kv mod kv_heads
};

template <KvLayout kLayout>
__device__ __forceinline__ KvSegment kv_segment(const DecodeParams& p, int64_t batch_kv) {
  KvSegment seg{batch_kv * p.kv_len, nullptr, 0};
  if constexpr (kLayout == KvLayout::kPaged) {
    seg.pages = p.block_table + (batch_kv / p.kv_heads) * p.pages_per_seq;
    seg.kv_head = batch_kv % p.kv_heads;
  }
  return seg;
}

/// Row of K and V (rows of head_dim elements) holding flat key `key` of segment `seg`: the key
/// itself in a contiguous [batch, kv_heads, kv_len, head_dim] cache, paged_kv_row (one
/// block-table read per key) in a paged one. decode_split_kv_kernel reads its rows through it.
template <KvLayout kLayout>
__device__ __forceinline__ int64_t kv_row(const DecodeParams& p, const KvSegment& seg,
                                          int64_t key) {
  if constexpr (kLayout == KvLayout::kPaged) {
    return paged_kv_row(seg.pages, p.kv_heads, seg.kv_head, p.page_shift, key - seg.first_key);
  } else {
    return key;
  }
}

/// Where the K and V rows of one warp step's keys key0 .. key0 + kMaxStepKeys − 1 lie in a paged
/// cache: key0 + j is at row j + (j < in_first ? first_base : second_base). The step meets at
/// most two pages (P ≥ 16 = kMaxStepKeys), whose block-table entries are read once per step (the
/// same two for every lane). decode_split_kv_mma_kernel reads its rows through it: per-key
/// lookups (kv_row) spilled registers there, two per step do not.
struct StepRows {
  int64_t first_base;
  int64_t second_base;
  int in_first;
};

/// Most consecutive keys of one warp step of decode_split_kv_mma_kernel; the smallest page size
/// must hold them.
constexpr int kMaxStepKeys = 16;
static_assert(kKvPageSizes[0] >= kMaxStepKeys, "a warp step meets at most two pages");

template <KvLayout kLayout>
__device__ __forceinline__ StepRows step_rows(const DecodeParams& p, const KvSegment& seg,
                                              int64_t key0) {
  if constexpr (kLayout == KvLayout::kPaged) {
    const int64_t pos0 = key0 - seg.first_key;
    const int64_t page_size = int64_t{1} << p.page_shift;
    StepRows r;
    r.in_first = static_cast<int>(page_size - (pos0 & (page_size - 1)));
    r.first_base = paged_kv_row(seg.pages, p.kv_heads, seg.kv_head, p.page_shift, pos0);
    // Past the sequence's last page every key of the step is beyond seg_end and never loaded.
    const int64_t next = pos0 + r.in_first;  // first position of the next page
    r.second_base =
        (next < p.kv_len ? paged_kv_row(seg.pages, p.kv_heads, seg.kv_head, p.page_shift, next)
                         : 0) -
        r.in_first;
    return r;
  } else {
    return {};  // contiguous: step_row needs nothing
  }
}

/// Row of K and V of key `key` = key0 + j of the step that step_rows(…, key0) describes: the key
/// itself when contiguous. With kv_row, the only place the two layouts differ: both kernels visit
/// the same keys in the same order either way, so their sums are the same.
template <KvLayout kLayout>
__device__ __forceinline__ int64_t step_row(const StepRows& r, int64_t key0, int64_t key) {
  if constexpr (kLayout == KvLayout::kPaged) {
    const int j = static_cast<int>(key - key0);
    return j + (j < r.in_first ? r.first_base : r.second_base);
  } else {
    return key;
  }
}

/// Arrival word of a (KV head, head chunk) in the ticket protocol: the low 16 bits count the
/// blocks that finished streaming (tickets), the high 16 bits those whose partial is written.
constexpr unsigned int kWrittenOne = 1u << 16;
constexpr unsigned int kTicketMask = kWrittenOne - 1;

/// atom.add with acquire semantics at GPU scope (PTX ISA, "Memory Consistency Model"): loads
/// after it see the writes released before the adds it observes. Returns the old value.
__device__ __forceinline__ unsigned int atomic_add_acquire(unsigned int* address, unsigned int v) {
  unsigned int old;
  asm volatile("atom.acquire.gpu.global.add.u32 %0, [%1], %2;\n"
               : "=r"(old)
               : "l"(address), "r"(v)
               : "memory");
  return old;
}

/// red.add with release semantics at GPU scope: the writes ordered before it (by program order
/// or a block barrier) are visible to whoever acquires a value that includes this add.
__device__ __forceinline__ void reduce_add_release(unsigned int* address, unsigned int v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;\n" : : "l"(address), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned int load_acquire(const unsigned int* address) {
  unsigned int v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(address) : "memory");
  return v;
}

/// Merges the log-sum-exp state (m2, l2, o2) into (m, l, o): both are partial softmax sums over
/// disjoint key sets in base 2; an empty set is (-inf, 0, 0).
template <int kCount>
__device__ __forceinline__ void merge_state(float& m, float& l, float (&o)[kCount], float m2,
                                            float l2, const float (&o2)[kCount]) {
  const float m_new = fmaxf(m, m2);
  const float m_ref = m_new == -INFINITY ? 0.0f : m_new;  // both empty: weights 0, not NaN
  const float a = exp2f(m - m_ref);
  const float b = exp2f(m2 - m_ref);
  l = fmaf(l, a, l2 * b);
#pragma unroll
  for (int c = 0; c < kCount; ++c) o[c] = fmaf(o[c], a, o2[c] * b);
  m = m_new;
}

/// A block's share of the flat split: part blockIdx.x's keys [begin, end), first_kv = the KV
/// head (b·kv_heads + kv_head) of its first key, and the query heads [head_begin, head_begin +
/// heads_here) of each group for head chunk blockIdx.y (kHeads per chunk).
struct BlockPart {
  int64_t begin;
  int64_t end;
  int64_t first_kv;
  int64_t head_begin;
  int heads_here;
};

template <int kHeads>
__device__ __forceinline__ BlockPart block_part(const DecodeParams& p) {
  BlockPart part;
  part.begin = static_cast<int64_t>(blockIdx.x) * p.keys_per_part;
  part.end = min(p.total_keys, part.begin + p.keys_per_part);
  part.first_kv = part.begin / p.kv_len;
  part.head_begin = static_cast<int64_t>(blockIdx.y) * kHeads;
  part.heads_here = static_cast<int>(min(p.group - part.head_begin, int64_t{kHeads}));
  return part;
}

/// Workspace entry of part x's partial for KV head batch_kv and query head 0 of the group
/// (add the head): slot batch_kv − (x's first KV head), which is 0 for every part after `first`
/// (the first part touching batch_kv): they start inside this KV head.
__device__ __forceinline__ int64_t partial_entry(const DecodeParams& p, int64_t batch_kv,
                                                 int64_t first, int64_t x) {
  const int64_t slot = x == first ? batch_kv - first * p.keys_per_part / p.kv_len : 0;
  return (x * p.slots + slot) * p.group;
}

/// Merges the partials of parts first..last for KV head batch_kv (and the block's head chunk)
/// and writes O for the chunk's heads: O = Σ_x 2^(m_x − M)·o_x / Σ_x 2^(m_x − M)·l_x, M = max_x
/// m_x (each part holds one of the KV head's keys at least, so m_x is finite and l_x > 0).
/// Partials come from the workspace through L2 (ld.cg), except part blockIdx.x's own, read from
/// shared memory: own_o[h·kHeadDim + c] (16-byte aligned) and own_ml[h] for the block's head h.
/// The caller has ordered the other parts' partial writes before this call.
/// Work split: an output item is one float4 of one head's row; each item gets `lanes` adjacent
/// threads (a power of two, as many as the block has to spare), lane j takes parts first + j,
/// first + j + lanes, ..., kBatch at a time with independent loads, keeps an online state, and
/// the lanes are merged by shuffles. All threads call it.
template <class T, int kThreads, int kHeadDim, int kBatch>
__device__ void merge_parts(const DecodeParams& p, const BlockPart& part, int64_t batch_kv,
                            int64_t first, int64_t last, const float* own_o, const float2* own_ml) {
  constexpr int kVecs = kHeadDim / 4;  // float4 vectors per head row
  const int items = part.heads_here * kVecs;
  int lanes = 1;
  while (lanes < 32 && items * lanes * 2 <= kThreads) lanes *= 2;
  const int64_t own = blockIdx.x;
  const int64_t first_entry = partial_entry(p, batch_kv, first, first);
  for (int base = 0; base < items * lanes; base += kThreads) {  // uniform trip count
    const int idx = base + static_cast<int>(threadIdx.x);
    const int item = idx / lanes;
    const int local_head = item / kVecs;
    const int64_t head = part.head_begin + local_head;
    const int vec = item % kVecs;
    float m = -INFINITY;
    float l = 0.0f;
    float acc[4] = {};
    if (item < items && idx % lanes == 0) {
      const float4 o = *reinterpret_cast<const float4*>(own_o + local_head * kHeadDim + vec * 4);
      m = own_ml[local_head].x;
      l = own_ml[local_head].y;
      acc[0] = o.x;
      acc[1] = o.y;
      acc[2] = o.z;
      acc[3] = o.w;
    }
    const int64_t stride = int64_t{lanes} * kBatch;
    for (int64_t x0 = first + idx % lanes; item < items && x0 <= last; x0 += stride) {
      float2 ml[kBatch];
      float4 o[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int64_t x = x0 + int64_t{j} * lanes;
        const bool load = x <= last && x != own;
        const int64_t entry = (x == first ? first_entry : x * p.slots * p.group) + head;
        ml[j] = load ? __ldcg(p.partial_ml + entry) : make_float2(-INFINITY, 0.0f);
        o[j] = load ? __ldcg(reinterpret_cast<const float4*>(p.partial_o + entry * kHeadDim) + vec)
                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
      float m_new = m;
#pragma unroll
      for (int j = 0; j < kBatch; ++j) m_new = fmaxf(m_new, ml[j].x);
      // −inf only if this lane has seen nothing yet and its batch is all padding (the own part
      // alone): every weight is then 0 and the state stays empty.
      const float m_ref = m_new == -INFINITY ? 0.0f : m_new;
      const float alpha = exp2f(m - m_ref);
      l *= alpha;
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[c] *= alpha;
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const float w = exp2f(ml[j].x - m_ref);  // padding entries: 2^−inf = 0
        l = fmaf(ml[j].y, w, l);
        acc[0] = fmaf(o[j].x, w, acc[0]);
        acc[1] = fmaf(o[j].y, w, acc[1]);
        acc[2] = fmaf(o[j].z, w, acc[2]);
        acc[3] = fmaf(o[j].w, w, acc[3]);
      }
      m = m_new;
    }
    for (int offset = 1; offset < lanes; offset *= 2) {  // lanes of an item share a warp
      float acc2[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) acc2[c] = __shfl_xor_sync(0xffffffffu, acc[c], offset);
      const float m2 = __shfl_xor_sync(0xffffffffu, m, offset);
      const float l2 = __shfl_xor_sync(0xffffffffu, l, offset);
      merge_state(m, l, acc, m2, l2, acc2);
    }
    if (item < items && idx % lanes == 0) {
      const float inv_l = 1.0f / l;
      const uint2 packed = make_uint2(pack_pair<T>(acc[0] * inv_l, acc[1] * inv_l),
                                      pack_pair<T>(acc[2] * inv_l, acc[3] * inv_l));
      *reinterpret_cast<uint2*>(static_cast<T*>(p.o) + (batch_kv * p.group + head) * kHeadDim +
                                vec * 4) = packed;
    }
  }
}

/// Parts first..last of the flat split that touch KV head batch_kv (a range of n keys starting
/// at x·keys_per_part meets the KV heads it overlaps).
__device__ __forceinline__ int64_t first_part(const DecodeParams& p, int64_t batch_kv) {
  return batch_kv * p.kv_len / p.keys_per_part;
}
__device__ __forceinline__ int64_t last_part(const DecodeParams& p, int64_t batch_kv) {
  return ((batch_kv + 1) * p.kv_len - 1) / p.keys_per_part;
}

/// End-of-part protocol, ticket first: the merging block skips its own workspace round trip
/// and the fences of a partial-then-count protocol.
/// Thread 0 takes a ticket (acquire add of 1 to the arrival word) while the block reduces its
/// warp states into warp_o[0] / own_ml (shared memory); the block with the last ticket merges,
/// the others write their partial, then (after a block barrier) add kWrittenOne with release.
/// The merging block uses its own partial from shared memory; the old arrival word its ticket
/// returned says how many partials were written by then, and only if some are missing does
/// thread 0 spin (ld.acquire) until they are: those blocks have taken their tickets, so they are
/// running and need nothing from anyone to finish. The merging block then resets the word to
/// zero (no block touches it again in this launch).
/// Returns true (in every thread) in the merging block, whose partial is then in warp_o[0]
/// (unnormalized o of block head h at warp_o[0][h]) and own_ml[h].
template <int kThreads, int kWarps, int kHeads, int kHeadDim>
__device__ __forceinline__ bool arrive_ticket(float (&warp_o)[kWarps][kHeads][kHeadDim],
                                              const float2 (&warp_ml)[kWarps][kHeads],
                                              float2 (&own_ml)[kHeads], const DecodeParams& p,
                                              const BlockPart& part, int64_t batch_kv,
                                              int64_t first, unsigned int others) {
  __shared__ unsigned int seen;
  unsigned int* counter = p.arrivals + batch_kv * gridDim.y + blockIdx.y;
  __syncthreads();
  unsigned int old = 0;
  if (threadIdx.x == 0) old = atomic_add_acquire(counter, 1u);
  // Block reduction of the warp states with the log-sum-exp rescale (warps that saw no key hold
  // (−inf, 0, 0) and weigh 0; warp 0 always saw one), in place into warp_o[0]: the thread of
  // (h, c) is the only one to read or write warp_o[·][h][c].
  for (int idx = static_cast<int>(threadIdx.x); idx < part.heads_here * kHeadDim; idx += kThreads) {
    const int h = idx / kHeadDim;
    const int c = idx % kHeadDim;
    float m_max = -INFINITY;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) m_max = fmaxf(m_max, warp_ml[w][h].x);
    float l_sum = 0.0f;
    float acc = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const float weight = exp2f(warp_ml[w][h].x - m_max);
      l_sum = fmaf(warp_ml[w][h].y, weight, l_sum);
      acc = fmaf(warp_o[w][h][c], weight, acc);
    }
    warp_o[0][h][c] = acc;
    if (c == 0) own_ml[h] = make_float2(m_max, l_sum);
  }
  if (threadIdx.x == 0) seen = old;
  __syncthreads();
  const unsigned int before = seen;
  if ((before & kTicketMask) != others) {
    const int64_t entry0 = partial_entry(p, batch_kv, first, blockIdx.x) + part.head_begin;
    float4* dst_o = reinterpret_cast<float4*>(p.partial_o + entry0 * kHeadDim);
    constexpr int kVecs = kHeadDim / 4;
    for (int idx = static_cast<int>(threadIdx.x); idx < part.heads_here * kVecs; idx += kThreads) {
      dst_o[idx] = reinterpret_cast<const float4*>(&warp_o[0][0][0])[idx];
    }
    if (static_cast<int>(threadIdx.x) < part.heads_here) {
      p.partial_ml[entry0 + threadIdx.x] = own_ml[threadIdx.x];
    }
    __syncthreads();
    if (threadIdx.x == 0) reduce_add_release(counter, kWrittenOne);
    return false;
  }
  if (threadIdx.x == 0) {
    for (unsigned int word = before; (word >> 16) != others;) word = load_acquire(counter);
    *counter = 0u;
  }
  __syncthreads();
  return true;
}

/// Ends the block's segment in KV head batch_kv: the warp states in warp_o / warp_ml (written
/// by each warp before the call) become the part's partial, then the last part merges. warp_o
/// must be 16-byte aligned (__align__(16)): its rows are copied and read as float4. All threads
/// call it; shared memory is free for the next segment when it returns.
template <class T, int kThreads, int kMergeBatch, int kWarps, int kHeads, int kHeadDim>
__device__ __forceinline__ void finish_segment(float (&warp_o)[kWarps][kHeads][kHeadDim],
                                               const float2 (&warp_ml)[kWarps][kHeads],
                                               const DecodeParams& p, const BlockPart& part,
                                               int64_t batch_kv) {
  __shared__ float2 own_ml[kHeads];
  const int64_t first = first_part(p, batch_kv);
  const int64_t last = last_part(p, batch_kv);
  if (arrive_ticket<kThreads>(warp_o, warp_ml, own_ml, p, part, batch_kv, first,
                              static_cast<unsigned int>(last - first))) {
    merge_parts<T, kThreads, kHeadDim, kMergeBatch>(p, part, batch_kv, first, last,
                                                    &warp_o[0][0][0], own_ml);
  }
  __syncthreads();
}

}  // namespace rooflinectl::decode
