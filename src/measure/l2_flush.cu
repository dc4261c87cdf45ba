#include <fmt/format.h>

#include "core/error.hpp"
#include "gpu/cuda_check.hpp"
#include "measure/l2_flush.hpp"

namespace rooflinectl {
namespace {

constexpr int kSweepThreads = 512;
// Enough resident blocks to keep every SM's load units busy; more only adds scheduling work.
constexpr int kSweepBlocksPerSm = 4;
constexpr int64_t kSweepElementBytes = sizeof(uint4);
// Each sweep reads 4 × L2 of lines that are not resident. On the H200 a 2 × L2 sweep left about
// 1.2 MB of a 33.5 MB output dirty (the sum of in-window writes and write-back came to 0.965 of
// the bytes stored); replacement is not strict LRU, so a longer stream of misses is needed.
constexpr int64_t kSweepL2Multiple = kL2FlusherBufferPerL2Byte / 2;
// The buffer is zero-filled at construction, so the XOR of everything read is 0 and never equals
// this key: the sink store below never executes and no dirty line is left, yet the compiler
// cannot drop the loads because their result decides whether it does.
constexpr uint32_t kNeverMatches = 1;

__device__ uint32_t g_sweep_sink;

__global__ void read_sweep_kernel(const uint4* __restrict__ data, int64_t count, uint32_t key) {
  uint32_t acc = 0;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    // .cg: cache in L2 only; the point is to occupy L2, not L1.
    const uint4 v = __ldcg(data + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == key) g_sweep_sink = acc;
}

}  // namespace

L2Flusher::L2Flusher(int64_t l2_bytes) {
  if (l2_bytes <= 0) {
    throw bad_input(
        fmt::format("invalid L2 size {} bytes for the L2 flusher: must be > 0", l2_bytes));
  }
  const int64_t wanted = kSweepL2Multiple * l2_bytes;
  sweep_bytes_ = (wanted + kSweepElementBytes - 1) / kSweepElementBytes * kSweepElementBytes;
  int device = 0;
  int sm_count = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  sweep_blocks_ = sm_count * kSweepBlocksPerSm;
  buffer_ = DeviceBuffer<uint4>(2 * sweep_bytes_ / kSweepElementBytes);
  // Zero once, synchronously: the sweeps XOR what they read and never match kNeverMatches.
  RFL_CUDA_CHECK(cudaMemset(buffer_.get(), 0, static_cast<size_t>(buffer_.bytes())));
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
}

void L2Flusher::flush(cudaStream_t stream) {
  if (buffer_.get() == nullptr)
    throw environment_error("L2Flusher::flush called on a moved-from flusher");
  RFL_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
  sweep(buffer_.get(), stream);
}

void L2Flusher::read_sweep(cudaStream_t stream) {
  if (buffer_.get() == nullptr)
    throw environment_error("L2Flusher::read_sweep called on a moved-from flusher");
  sweep(buffer_.get() + sweep_bytes_ / kSweepElementBytes, stream);
}

void L2Flusher::sweep(const uint4* half, cudaStream_t stream) {
  read_sweep_kernel<<<sweep_blocks_, kSweepThreads, 0, stream>>>(
      half, sweep_bytes_ / kSweepElementBytes, kNeverMatches);
  RFL_CHECK_LAUNCH();
}

std::string L2Flusher::read_sweep_policy() const {
  return fmt::format(
      "DRAM writes of a read-only sweep of another {:.0f} MiB buffer (4 x L2) profiled as its "
      "own range right after the launch",
      static_cast<double>(sweep_bytes_) / (1024.0 * 1024.0));
}

std::string L2Flusher::policy() const {
  return fmt::format(
      "persisting lines reset, read-only sweep of a {:.0f} MiB buffer (4 x L2): L2 left cold, "
      "without dirty lines",
      static_cast<double>(sweep_bytes_) / (1024.0 * 1024.0));
}

}  // namespace rooflinectl
