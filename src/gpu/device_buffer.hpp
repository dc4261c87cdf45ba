// RAII owner of one cudaMalloc'd buffer of T (move-only).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "gpu/cuda_check.hpp"

namespace rooflinectl {

/// `count` elements of T in device memory; freed in the destructor (errors there are ignored).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(int64_t count) : count_(count) {
    if (count > 0) RFL_CUDA_CHECK(cudaMalloc(&ptr_, static_cast<size_t>(count) * sizeof(T)));
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  T* get() const { return ptr_; }
  int64_t count() const { return count_; }
  int64_t bytes() const { return count_ * static_cast<int64_t>(sizeof(T)); }

 private:
  void reset() noexcept {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  int64_t count_ = 0;
};

}  // namespace rooflinectl
