// The one place rooflinectl talks to CUPTI: a move-only RAII session around the CUDA 13 range
// profiler (auto ranges = one range per kernel launch, kernel replay), following the sequence
// verified on the H200 (cupti-on-h200.md). Counters run in their own pass, never inside the timed
// one: replay makes a launch many times slower.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

// Opaque CUPTI / driver handles, so that users of this header need no CUPTI include.
struct CUpti_Profiler_Host_Object;
struct CUpti_RangeProfiler_Object;

namespace rooflinectl {

/// A range-profiler session on one device for a fixed list of metrics.
///
/// Errors are environment Errors (exit code 3) whose message is one line naming the CUPTI call,
/// the CUPTI error symbol and the fix, e.g. for CUPTI_ERROR_INSUFFICIENT_PRIVILEGES "set
/// NVreg_RestrictProfilingToAdminUsers=0 or run as root / add CAP_SYS_ADMIN", for
/// CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED "another profiler (ncu, nsys) is attached: run
/// outside it", and for unsupported devices, vGPU, MIG, WSL or confidential computing.
class ProfilerSession {
 public:
  /// Initializes CUPTI for `device` (makes it current and creates its primary context if needed),
  /// checks that the device supports the range profiler, validates every name in `metrics`
  /// against the chip's metric list before configuring (an unknown name → environment Error
  /// naming it and the chip), builds the configuration and enables the range profiler on the
  /// context. At most one session may exist per context at a time. An empty `metrics` is a
  /// bad-input Error.
  ProfilerSession(int device, std::vector<std::string> metrics);
  /// Disables the range profiler and releases the host objects; never throws.
  ~ProfilerSession();
  ProfilerSession(ProfilerSession&& other) noexcept;
  ProfilerSession& operator=(ProfilerSession&& other) noexcept;
  ProfilerSession(const ProfilerSession&) = delete;
  ProfilerSession& operator=(const ProfilerSession&) = delete;

  /// Runs `prepare` unprofiled (e.g. an L2 flush) and synchronizes the device, then profiles every
  /// kernel `launch` enqueues — one range per kernel launch, each replayed passes() times — and
  /// synchronizes again. `launch` must enqueue on this session's device (checked: it is the
  /// current device). Returns one metric→value map per range, in launch order; values are
  /// CUPTI's GPU values (counts, bytes, ns for gpu__time_duration, per-second rates, per-cycle
  /// peaks) and may be NaN for units CUPTI cannot read (e.g. a shared MIG instance).
  /// Throws an environment Error when a CUPTI or CUDA call fails or more than kMaxRanges kernels
  /// were launched (ranges dropped); exceptions from `prepare`/`launch` propagate, and the session
  /// stays usable afterwards.
  std::vector<std::map<std::string, double>> profile(const std::function<void()>& prepare,
                                                     const std::function<void()>& launch);

  /// Replay passes the metric list needs (cuptiProfilerHostGetNumOfPasses).
  int passes() const { return passes_; }

  /// Ranges (kernel launches) one profile() call can record.
  static constexpr int kMaxRanges = 64;

 private:
  void release() noexcept;

  int device_ = 0;
  std::vector<std::string> metrics_;
  std::string chip_name_;  ///< kept alive: the host object was initialized with its c_str()
  bool cupti_initialized_ = false;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  CUpti_RangeProfiler_Object* range_profiler_ = nullptr;
  std::vector<uint8_t> config_image_;
  std::vector<uint8_t> counter_data_image_;
  int passes_ = 0;
};

}  // namespace rooflinectl
