// The one place rooflinectl talks to CUPTI: a move-only RAII session around the CUDA 13 range
// profiler (auto ranges = one range per kernel launch), following the sequence verified on the
// H200 (docs/counter-method.md). Counters run in their own pass, never inside the timed one:
// replay makes a launch many times slower.
//
// A session holds one or more metric sets (one CUPTI config image each) on one context. A set
// that fits one pass is collected under user replay with its one pass and is not replayed: the
// kernel runs once and the counters see exactly the cache state the caller prepared. A set that
// needs more passes is collected with kernel replay, CUPTI's memory save/restore between passes,
// and with CUDA 13.0 nothing resets L2 in between, so its DRAM byte counts include write-backs
// that are not the kernel's (docs/counter-method.md): never take DRAM bytes from a multi-pass
// set.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

// Opaque CUPTI / driver handles, so that users of this header need no CUPTI include.
struct CUpti_Profiler_Host_Object;
struct CUpti_RangeProfiler_Object;
struct CUctx_st;

namespace rooflinectl {

/// Wall time of the steps of one ProfilerSession::profile call, seconds.
struct ProfileStepTimes {
  double setup_s = 0;    ///< range-profiler object (re-created on a set switch), image, config
  double prepare_s = 0;  ///< the caller's `prepare` (e.g. an L2 flush) and a device sync
  double run_s = 0;      ///< start, the profiled launch, device sync, stop
  double decode_s = 0;   ///< decoding the counter data and evaluating every range's metrics
};

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
  /// checks that the device supports the range profiler and enables the range profiler on the
  /// context, with no metric set yet. At most one session may exist per context at a time.
  explicit ProfilerSession(int device);
  /// For a caller that does not own the context (an injected profiler): a session on the
  /// context current on this thread and its device, leaving the current device and context as
  /// they are. Otherwise as ProfilerSession(device).
  struct CurrentContext {};
  explicit ProfilerSession(CurrentContext);
  /// As ProfilerSession(device), then adds `metrics` as metric set 0 (see add_metric_set).
  ProfilerSession(int device, std::vector<std::string> metrics);
  /// Disables the range profiler and releases the host objects; never throws.
  ~ProfilerSession();
  ProfilerSession(ProfilerSession&& other) noexcept;
  ProfilerSession& operator=(ProfilerSession&& other) noexcept;
  ProfilerSession(const ProfilerSession&) = delete;
  ProfilerSession& operator=(const ProfilerSession&) = delete;

  /// Validates every name in `metrics` against the chip's metric list (an unknown name →
  /// environment Error naming it and the chip), builds the set's config and counter-data images
  /// once, and returns the set's index for profile(). An empty `metrics` is a bad-input Error.
  size_t add_metric_set(std::vector<std::string> metrics);

  /// Replay passes `metrics` would need on this chip (cuptiProfilerHostGetNumOfPasses), without
  /// adding a set. Errors as add_metric_set.
  int count_passes(const std::vector<std::string>& metrics) const;

  /// Sets up the range profiler for `set` (re-creating its object when the previous call used
  /// another set: switching sets is costly, so group the calls of one set), then runs `prepare`
  /// unprofiled (e.g. an L2 flush) and synchronizes the device, then profiles every
  /// kernel `launch` enqueues with metric set `set` — one range per kernel launch, each replayed
  /// passes(set) times inside its launch (a one-pass set: user replay, run once) — and
  /// synchronizes again. `launch`
  /// must enqueue on this session's device (checked: it is the current device). Returns one
  /// metric→value map per range, in launch order; values are CUPTI's GPU values (counts, bytes, ns
  /// for gpu__time_duration, per-second rates, per-cycle peaks) and may be NaN for units CUPTI
  /// cannot read (e.g. a shared MIG instance). Throws an environment Error when a CUPTI or CUDA
  /// call fails or more than kMaxRanges kernels were launched (ranges dropped); exceptions from
  /// `prepare`/`launch` propagate, and the session stays usable afterwards. An out-of-range `set`
  /// is a bad-input Error.
  std::vector<std::map<std::string, double>> profile(const std::function<void()>& prepare,
                                                     const std::function<void()>& launch,
                                                     size_t set = 0);

  /// profile() in two halves, for a caller that does not enqueue the launch itself (the launch
  /// callback of an injected profiler): sets up `set`, runs `prepare` unprofiled, synchronizes
  /// the context and starts the profiler; every kernel launched on the context until
  /// end_ranges() is one range. Errors as profile().
  void begin_ranges(size_t set, const std::function<void()>& prepare);
  /// Synchronizes the context, stops the profiler and decodes the ranges since begin_ranges().
  /// The profiler is stopped on every way out. Errors as profile().
  std::vector<std::map<std::string, double>> end_ranges();
  /// The device the session profiles.
  int device() const { return device_; }
  /// cuCtxSynchronize on the current context (through its CUDA 12.0 entry point: CUDA 13's
  /// cuCtxSynchronize_v2 takes a context). Throws an environment Error when it fails.
  static void synchronize_context();

  /// The step times of the last profile() call (zeros before the first, partial after a throw).
  const ProfileStepTimes& last_step_times() const { return last_steps_; }

  /// Replay passes metric set `set` needs (cuptiProfilerHostGetNumOfPasses).
  int passes(size_t set = 0) const;
  /// The metric names of set `set`, as given.
  const std::vector<std::string>& metrics(size_t set = 0) const;
  /// How set `set` is collected, in one phrase: "user replay, one pass (not replayed: no memory
  /// save/restore)" or "kernel replay, N passes (CUPTI saves and restores memory between
  /// passes)".
  std::string replay_description(size_t set = 0) const;

  /// Ranges (kernel launches) one profile() call can record.
  static constexpr int kMaxRanges = 64;

 private:
  /// One config image and its counter-data image, with the host object that evaluates them.
  struct MetricSet {
    std::vector<std::string> metrics;
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<uint8_t> config_image;
    std::vector<uint8_t> counter_data_image;
    int passes = 0;
  };

  /// A host object for this chip with `metrics` added (names checked first) and its config image.
  MetricSet configure(std::vector<std::string> metrics) const;
  const MetricSet& metric_set(size_t set) const;
  /// cuptiRangeProfilerGetCounterDataSize for `metrics` on the current range profiler object
  /// (which also makes the object initialize the next counter-data image for them).
  size_t counter_data_size(const std::vector<std::string>& metrics) const;
  /// Disables the range profiler object and enables a fresh one on the same context.
  void rebind_range_profiler();
  /// profile()'s set-up: the range profiler object for set `set_index` (re-created when the last
  /// call collected another set), its counter-data image reset to zero ranges, its config set.
  void set_up_collection(size_t set_index);
  /// Profiles what `launch` enqueues and synchronizes; false when kernel replay left passes
  /// unsubmitted. The profiler is stopped on every way out.
  bool run_profiled(const std::function<void()>& launch);
  /// The ranges recorded in `set`'s counter-data image, one metric→value map per range.
  std::vector<std::map<std::string, double>> decode_ranges(const MetricSet& set);
  void release() noexcept;
  /// The constructors' common part: CUPTI initialized and the range profiler enabled on
  /// `context` (a CUcontext).
  void attach(CUctx_st* context);
  static constexpr size_t kNoSet = static_cast<size_t>(-1);

  int device_ = 0;
  std::string chip_name_;  ///< kept alive: host objects are initialized with its c_str()
  std::vector<uint8_t> availability_image_;
  bool cupti_initialized_ = false;
  CUpti_RangeProfiler_Object* range_profiler_ = nullptr;
  std::vector<MetricSet> sets_;
  size_t profiled_set_ = kNoSet;  ///< the set the range profiler object last collected
  bool ranges_open_ = false;      ///< between begin_ranges and end_ranges
  ProfileStepTimes last_steps_;
};

}  // namespace rooflinectl
