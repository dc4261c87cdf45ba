#include "measure/memory_check.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "gpu/cuda_check.hpp"
#include "measure/l2_flush.hpp"

namespace rooflinectl {
namespace {

constexpr double kBytesPerGb = 1e9;

double gigabytes(int64_t bytes) { return static_cast<double>(bytes) / kBytesPerGb; }

}  // namespace

MemoryCheck check_device_memory(int64_t needed_bytes) {
  if (needed_bytes < 0) {
    throw bad_input(fmt::format("invalid memory need {} bytes: must be >= 0", needed_bytes));
  }
  int device = 0;
  int l2_bytes = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  RFL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));

  MemoryCheck check;
  check.needed_bytes = needed_bytes;
  check.free_bytes = static_cast<int64_t>(free_bytes);
  check.reserve_bytes =
      kFixedReserveBytes + kL2FlusherBufferPerL2Byte * static_cast<int64_t>(l2_bytes);
  check.fits = check.needed_bytes + check.reserve_bytes <= check.free_bytes;
  return check;
}

std::string describe_memory_shortfall(const MemoryCheck& check) {
  return fmt::format("needs {:.1f} GB ({:.1f} GB of buffers + {:.1f} GB reserve), {:.1f} GB free",
                     gigabytes(check.needed_bytes + check.reserve_bytes),
                     gigabytes(check.needed_bytes), gigabytes(check.reserve_bytes),
                     gigabytes(check.free_bytes));
}

}  // namespace rooflinectl
