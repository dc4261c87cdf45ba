// Decode attention over a paged KV cache against the contiguous kernel on the same K and V, and
// both against the reference (CPU float64 at these sizes).
//
// What "the same" can mean: both layouts split the keys into the same parts and each thread
// visits the same keys in the same order (kernels/decode_partials.hpp, kv_row), so every part's
// fp32 partial is bit-identical. The final merge of a KV head's partials runs in whichever block
// finishes last, which starts from its own partial: that order changes from launch to launch (a
// contiguous run repeated differs the same way), so O may differ by rounding. The test requires
// at most 1 unit in the last place of the 16-bit output and reports how many elements differ at
// all.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel_version.hpp"
#include "core/shape.hpp"
#include "core/validation.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/operator.hpp"
#include "operator_runs.hpp"

namespace rooflinectl {
namespace {

constexpr uint64_t kSeed = 20261205;

struct PagedCase {
  int64_t page_size;
  int64_t seq_len;
  int64_t heads;
  int64_t kv_heads;
  int64_t head_dim;
  Dtype dtype;
};

std::string describe(const PagedCase& c) {
  return "P=" + std::to_string(c.page_size) + " L=" + std::to_string(c.seq_len) +
         " H=" + std::to_string(c.heads) + "/" + std::to_string(c.kv_heads) +
         " d=" + std::to_string(c.head_dim) + " " + to_string(c.dtype);
}

Shape contiguous_shape(const PagedCase& c) {
  Shape s;
  s.batch = 2;  // two sequences: the block table has a row per sequence
  s.heads = c.heads;
  s.kv_heads = c.kv_heads;
  s.head_dim = c.head_dim;
  s.seq_len = c.seq_len;
  s.dtype = c.dtype;
  return s;
}

Shape paged_shape(const PagedCase& c) {
  Shape s = contiguous_shape(c);
  s.kv_layout = KvLayout::kPaged;
  s.page_size = c.page_size;
  return s;
}

// bf16 and fp16 bit patterns as integers that count units in the last place across zero.
int64_t ordered(uint16_t bits) {
  return (bits & 0x8000u) != 0 ? -static_cast<int64_t>(bits & 0x7fffu) : int64_t{bits};
}

std::string validation_text(const Validation& v) {
  return v.reference + ": checked " + std::to_string(v.checked_elements) + ", failed " +
         std::to_string(v.failed_elements) + ", worst ratio " + std::to_string(v.worst_ratio) +
         " " + v.detail;
}

// The pool holds the contiguous cache's pages, each exactly once, and not in order: every
// (page, KV head) block of P rows equals the rows of one (sequence, page j) of the contiguous K,
// with the same page for every KV head, and few pages sit where an in-order pool would put them.
void expect_scattered_pages(const Shape& paged, const std::vector<uint16_t>& k,
                            const std::vector<uint16_t>& k_pages) {
  const int64_t d = paged.head_dim;
  const int64_t p = paged.page_size;
  const int64_t pages_per_seq = paged.kv_pages_per_sequence();
  const int64_t pages = paged.batch * pages_per_seq;
  auto contiguous_row = [&](int64_t b, int64_t kv_head, int64_t pos) {
    return k.data() + ((b * paged.kv_heads + kv_head) * paged.seq_len + pos) * d;
  };
  auto pool_row = [&](int64_t page, int64_t kv_head, int64_t row) {
    return k_pages.data() + ((page * paged.kv_heads + kv_head) * p + row) * d;
  };
  std::map<std::vector<uint16_t>, int64_t> logical_of_first_row;  // first row -> b·pages + j
  for (int64_t b = 0; b < paged.batch; ++b) {
    for (int64_t j = 0; j < pages_per_seq; ++j) {
      const uint16_t* row = contiguous_row(b, 0, j * p);
      logical_of_first_row[std::vector<uint16_t>(row, row + d)] = b * pages_per_seq + j;
    }
  }
  ASSERT_EQ(static_cast<int64_t>(logical_of_first_row.size()), pages) << "random rows repeat";
  std::vector<bool> seen(static_cast<size_t>(pages), false);
  int64_t in_place = 0;
  for (int64_t page = 0; page < pages; ++page) {
    const uint16_t* first = pool_row(page, 0, 0);
    const auto found = logical_of_first_row.find(std::vector<uint16_t>(first, first + d));
    ASSERT_NE(found, logical_of_first_row.end()) << "pool page " << page << " holds no page of K";
    const int64_t b = found->second / pages_per_seq;
    const int64_t j = found->second % pages_per_seq;
    ASSERT_FALSE(seen[static_cast<size_t>(found->second)]) << "page held twice";
    seen[static_cast<size_t>(found->second)] = true;
    if (found->second == page) ++in_place;
    const int64_t rows = std::min(p, paged.seq_len - j * p);  // the last page is partly filled
    for (int64_t kv_head = 0; kv_head < paged.kv_heads; ++kv_head) {
      for (int64_t r = 0; r < rows; ++r) {
        const std::vector<uint16_t> want(contiguous_row(b, kv_head, j * p + r),
                                         contiguous_row(b, kv_head, j * p + r) + d);
        const std::vector<uint16_t> got(pool_row(page, kv_head, r), pool_row(page, kv_head, r) + d);
        ASSERT_EQ(got, want) << "pool page " << page << " KV head " << kv_head << " row " << r;
      }
    }
  }
  // A random permutation leaves about one page in place on average.
  EXPECT_LT(in_place, pages / 4 + 2) << in_place << " of " << pages << " pages in order";
}

class DecodePaged : public ::testing::TestWithParam<PagedCase> {};

TEST_P(DecodePaged, MatchesContiguousAndReference) {
  const PagedCase c = GetParam();
  const std::unique_ptr<OperatorRun> contiguous =
      make_filled_run("decode_attention", contiguous_shape(c), kSeed);
  const std::unique_ptr<OperatorRun> paged =
      make_filled_run("decode_attention", paged_shape(c), kSeed);
  EXPECT_EQ(paged->version(), contiguous->version());

  // Both against the reference; validate() launches the operator, so O is written after it.
  const Validation vc = contiguous->validate();
  EXPECT_TRUE(vc.passed) << "contiguous " << describe(c) << ": " << validation_text(vc);
  const Validation vp = paged->validate();
  EXPECT_TRUE(vp.passed) << "paged " << describe(c) << ": " << validation_text(vp);
  EXPECT_EQ(vp.reference, vc.reference);

  expect_scattered_pages(paged_shape(c), download<uint16_t>(tensor(*contiguous, "k")),
                         download<uint16_t>(tensor(*paged, "k_pages")));

  const std::vector<uint16_t> oc = download<uint16_t>(tensor(*contiguous, "o"));
  const std::vector<uint16_t> op = download<uint16_t>(tensor(*paged, "o"));
  ASSERT_EQ(oc.size(), op.size());
  int64_t differing = 0;
  int64_t max_ulp = 0;
  for (size_t i = 0; i < oc.size(); ++i) {
    const int64_t ulp = std::llabs(ordered(oc[i]) - ordered(op[i]));
    if (ulp != 0) ++differing;
    max_ulp = std::max(max_ulp, ulp);
  }
  std::printf("%s: paged vs contiguous O, %lld of %zu elements differ, at most %lld ulp\n",
              describe(c).c_str(), static_cast<long long>(differing), oc.size(),
              static_cast<long long>(max_ulp));
  EXPECT_LE(max_ulp, 1) << describe(c);
}

// Page sizes 16 and 128; L = 1000 (no page multiple: the last page is partly filled) and 4096;
// GQA group 1 (the CUDA-core kernel) and 4 (tensor cores); plus group 16 (two head chunks read
// the table), d = 64 and fp16 once each.
INSTANTIATE_TEST_SUITE_P(Shapes, DecodePaged,
                         ::testing::Values(PagedCase{16, 1000, 16, 16, 128, Dtype::kBf16},
                                           PagedCase{16, 4096, 16, 16, 128, Dtype::kBf16},
                                           PagedCase{128, 1000, 16, 16, 128, Dtype::kBf16},
                                           PagedCase{128, 4096, 16, 16, 128, Dtype::kBf16},
                                           PagedCase{16, 1000, 32, 8, 128, Dtype::kBf16},
                                           PagedCase{16, 4096, 32, 8, 128, Dtype::kBf16},
                                           PagedCase{128, 1000, 32, 8, 128, Dtype::kBf16},
                                           PagedCase{128, 4096, 32, 8, 128, Dtype::kBf16},
                                           PagedCase{32, 1000, 32, 2, 128, Dtype::kBf16},
                                           PagedCase{64, 1000, 16, 16, 64, Dtype::kFp16}));

}  // namespace
}  // namespace rooflinectl
