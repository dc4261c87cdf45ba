// RAII owner of one non-blocking CUDA stream (move-only).
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "gpu/cuda_check.hpp"

namespace rooflinectl {

/// A cudaStreamNonBlocking stream, created in the constructor (environment Error on failure) and
/// destroyed in the destructor (errors there are ignored).
class Stream {
 public:
  Stream() { RFL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    if (this != &other) {
      reset();
      stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { reset(); }
  cudaStream_t get() const { return stream_; }

 private:
  void reset() noexcept {
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
    stream_ = nullptr;
  }
  cudaStream_t stream_ = nullptr;
};

}  // namespace rooflinectl
