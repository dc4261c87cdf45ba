// RAII owner of one CUDA event (move-only), for timing with cudaEventElapsedTime.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "gpu/cuda_check.hpp"

namespace rooflinectl {

/// A timing-capable cudaEvent_t, created in the constructor (environment Error on failure) and
/// destroyed in the destructor (errors there are ignored).
class Event {
 public:
  Event() { RFL_CUDA_CHECK(cudaEventCreate(&event_)); }
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    if (this != &other) {
      reset();
      event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { reset(); }
  cudaEvent_t get() const { return event_; }

 private:
  void reset() noexcept {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
    event_ = nullptr;
  }
  cudaEvent_t event_ = nullptr;
};

}  // namespace rooflinectl
