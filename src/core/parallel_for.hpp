// A blocking parallel loop for host-side reference computations (the float64 references of the
// validations): [0, count) cut into contiguous chunks, one std::thread per chunk. Every index is
// handled by exactly one call, in the same order within a chunk as a serial loop, so a body that
// writes only its own indices gives bit-identical results on any number of threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace rooflinectl {

/// Threads parallel_for uses: std::thread::hardware_concurrency(), at least 1.
inline int64_t host_thread_count() {
  return std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()));
}

/// Calls body(begin, end) over disjoint chunks covering [0, count), each of at least
/// `min_chunk` indices (>= 1), on up to `max_threads` threads (the calling thread included);
/// returns when all are done. The first exception a chunk throws is rethrown after every thread
/// has joined. count <= 0 calls nothing.
template <typename Body>
void parallel_for(int64_t count, int64_t min_chunk, Body&& body,
                  int64_t max_threads = host_thread_count()) {
  if (count <= 0) return;
  const int64_t by_size = std::max<int64_t>(1, count / std::max<int64_t>(1, min_chunk));
  const int64_t chunks = std::max<int64_t>(1, std::min(max_threads, by_size));
  const int64_t per_chunk = (count + chunks - 1) / chunks;
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto run = [&](int64_t begin, int64_t end) {
    try {
      body(begin, end);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (int64_t begin = per_chunk; begin < count; begin += per_chunk) {
    threads.emplace_back(run, begin, std::min(count, begin + per_chunk));
  }
  run(0, std::min(count, per_chunk));
  for (auto& thread : threads) thread.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace rooflinectl
