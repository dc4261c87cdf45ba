// librooflinectl_inject.so: loaded into any CUDA program through CUDA_INJECTION64_PATH (the
// CUDA driver calls InitializeInjection while it initializes), it records every kernel launch at
// its driver call (callback API), every kernel execution (activity API) and the NVTX ranges open
// at each launch, collects counters for the launches the filters select (LaunchCounters), and
// writes it all as raw records for `rooflinectl profile` (io/profile_json.hpp). It never stops
// the program: a failure becomes a warning record and the launch is left unprofiled.
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <generated_nvtx_meta.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "inject/launch_counters.hpp"
#include "inject/raw_writer.hpp"
#include "io/profile_json.hpp"
#include "profile/demangle.hpp"
#include "profile/launch_selection.hpp"

namespace rooflinectl {
namespace {

constexpr size_t kActivityBufferBytes = size_t{8} << 20;
constexpr size_t kActivityBufferAlignment = 8;

struct InjectionState {
  std::unique_ptr<RawWriter> writer;
  ProfileConfig config;
  CounterRun run = CounterRun::kBytes;  ///< the byte set, or full mode's FLOP set (run 2)
  std::optional<LaunchSelector> selector;
  std::mutex launch_mutex;  ///< held from a launch's entry to its exit: one launch at a time
  std::map<CUcontext, std::unique_ptr<LaunchCounters>> counters;
  std::map<CUcontext, std::string> counter_failures;  ///< contexts whose counters cannot run
  /// The open counter collection and its launches, written when it closes (under launch_mutex).
  LaunchCounters* collection = nullptr;
  std::vector<LaunchRecord> collected;
  bool sessions_written = false;
  std::atomic<uint64_t> sequence{0};
  CUpti_SubscriberHandle subscriber = nullptr;
  std::atomic<bool> finished{false};
};

InjectionState* g_state = nullptr;

/// The launch between its entry and exit callbacks on this thread.
struct PendingLaunch {
  LaunchRecord record;
  LaunchCounters* counters = nullptr;  ///< set when its counters are being collected
};

thread_local bool t_in_tool = false;  ///< this library's own CUDA calls (flush, sweep, sync)
thread_local std::vector<std::string> t_nvtx;
thread_local std::optional<PendingLaunch> t_pending;
thread_local std::unique_lock<std::mutex> t_launch_lock;

void warn(const std::string& text) {
  g_state->writer->write_line(simple_line(kRawWarning, "text", text));
}

/// Grid, block, shared memory and stream of a launch call, from its parameters.
bool read_launch_params(CUpti_CallbackId cbid, const void* params, LaunchRecord& record,
                        CUstream& stream) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      // cuLaunchCooperativeKernel's parameters start with the same members.
      const auto* p = static_cast<const cuLaunchKernel_params*>(params);
      record.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      record.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      record.dynamic_shared_bytes = p->sharedMemBytes;
      stream = p->hStream;
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
      const CUlaunchConfig* c = p->config;
      record.grid = {c->gridDimX, c->gridDimY, c->gridDimZ};
      record.block = {c->blockDimX, c->blockDimY, c->blockDimZ};
      record.dynamic_shared_bytes = c->sharedMemBytes;
      stream = c->hStream;
      return true;
    }
    default:
      return false;
  }
}

bool is_capturing(CUstream stream) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return cuStreamIsCapturing(stream, &status) == CUDA_SUCCESS &&
         status != CU_STREAM_CAPTURE_STATUS_NONE;
}

/// The counters of `context`, created on first use; nullptr with `reason` when they cannot run.
LaunchCounters* counters_for(CUcontext context, std::string& reason) {
  InjectionState& s = *g_state;
  const auto failed = s.counter_failures.find(context);
  if (failed != s.counter_failures.end()) {
    reason = failed->second;
    return nullptr;
  }
  auto found = s.counters.find(context);
  if (found != s.counters.end()) return found->second.get();
  try {
    auto counters = std::make_unique<LaunchCounters>(s.run);
    if (!s.sessions_written) {
      s.writer->write_line(
          sessions_line(counters->sessions(), counters->cache_policy(), counters->sweep_method()));
      s.sessions_written = true;
    }
    LaunchCounters* raw = counters.get();
    s.counters.emplace(context, std::move(counters));
    return raw;
  } catch (const std::exception& e) {
    reason = std::string("counters unavailable: ") + e.what();
    s.counter_failures.emplace(context, reason);
    warn(reason);
    return nullptr;
  }
}

/// Closes the open counter collection, if any, and writes its launches: profiled with their
/// ranges, or unprofiled with the reason the collection failed. Call with launch_mutex held.
void close_collection() {
  InjectionState& s = *g_state;
  if (s.collection == nullptr) return;
  LaunchCounters* collection = s.collection;
  s.collection = nullptr;
  std::vector<LaunchRecord> records = std::move(s.collected);
  s.collected.clear();
  t_in_tool = true;
  try {
    std::vector<LaunchCounters::LaunchRanges> ranges = collection->close();
    if (ranges.size() != records.size()) {
      throw environment_error(fmt::format("ranges of {} launch(es) for {} launch record(s)",
                                          ranges.size(), records.size()));
    }
    for (size_t i = 0; i < records.size(); ++i) {
      if (!records[i].not_profiled_reason.empty()) continue;  // its write-back sweep failed
      records[i].ranges = std::move(ranges[i]);
      records[i].profiled = true;
    }
  } catch (const std::exception& e) {
    for (auto& record : records) {
      record.not_profiled_reason = std::string("counter session failed: ") + e.what();
    }
  }
  t_in_tool = false;
  for (const auto& record : records) s.writer->write_line(launch_record_line(record));
}

void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  InjectionState& s = *g_state;
  PendingLaunch pending;
  LaunchRecord& record = pending.record;
  CUstream stream = nullptr;
  if (!read_launch_params(cbid, data->functionParams, record, stream)) return;
  record.sequence = s.sequence++;
  record.pid = static_cast<int64_t>(getpid());
  record.correlation = data->correlationId;
  record.api = data->functionName != nullptr ? data->functionName : "";
  record.mangled_name = data->symbolName != nullptr ? data->symbolName : "";
  record.stream = reinterpret_cast<uint64_t>(stream);
  CUdevice device = 0;
  if (cuCtxGetDevice(&device) == CUDA_SUCCESS) record.device = static_cast<int>(device);
  record.nvtx_path = t_nvtx;

  t_launch_lock = std::unique_lock<std::mutex>(s.launch_mutex);
  if (is_capturing(stream)) {
    record.captured = true;
    record.not_profiled_reason =
        "captured into a CUDA graph (stream capture): it runs later as a graph node";
  } else {
    const LaunchDecision decision =
        s.selector->decide(demangle_kernel_name(record.mangled_name), record.nvtx_path);
    if (!decision.profile) {
      // A kernel that is not isolated must not run inside a collection.
      close_collection();
      record.not_profiled_reason = decision.reason;
    } else if (!s.config.counters) {
      record.selected = true;
      record.not_profiled_reason = "--no-counters";
    } else {
      record.selected = true;
      std::string reason;
      t_in_tool = true;
      LaunchCounters* counters = counters_for(data->context, reason);
      t_in_tool = false;
      if (s.collection != nullptr && (s.collection != counters || s.collection->full())) {
        close_collection();
      }
      if (counters != nullptr) {
        t_in_tool = true;
        try {
          counters->before_launch();
          pending.counters = counters;
        } catch (const std::exception& e) {
          reason = std::string("counter session failed to start: ") + e.what();
        }
        // A collection it opened is closed later even when the flush inside it failed.
        if (counters->open()) s.collection = counters;
        t_in_tool = false;
      }
      if (pending.counters == nullptr) record.not_profiled_reason = reason;
    }
  }
  t_pending = std::move(pending);
}

void on_launch_exit() {
  if (!t_pending) return;
  PendingLaunch pending = std::move(*t_pending);
  t_pending.reset();
  LaunchRecord& record = pending.record;
  if (pending.counters != nullptr) {
    // Written when its collection closes, in the collection's launch order.
    t_in_tool = true;
    try {
      pending.counters->after_launch();
    } catch (const std::exception& e) {
      record.not_profiled_reason = std::string("counter session failed: ") + e.what();
    }
    t_in_tool = false;
    g_state->collected.push_back(std::move(record));
  } else {
    g_state->writer->write_line(launch_record_line(record));
  }
  if (t_launch_lock.owns_lock()) t_launch_lock.unlock();
}

void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  const auto message = [](const nvtxEventAttributes_t* attributes) -> std::string {
    if (attributes == nullptr || attributes->messageType != NVTX_MESSAGE_TYPE_ASCII ||
        attributes->message.ascii == nullptr) {
      return "<unnamed>";
    }
    return attributes->message.ascii;
  };
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      const auto* p = static_cast<const nvtxRangePushA_params*>(data->functionParams);
      t_nvtx.emplace_back(p->message != nullptr ? p->message : "<unnamed>");
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      t_nvtx.push_back(
          message(static_cast<const nvtxRangePushEx_params*>(data->functionParams)->eventAttrib));
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
      t_nvtx.push_back(
          message(static_cast<const nvtxDomainRangePushEx_params*>(data->functionParams)
                      ->core.eventAttrib));
      break;
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      if (!t_nvtx.empty()) t_nvtx.pop_back();
      break;
    default:
      break;
  }
}

bool is_launch(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      return true;
    default:
      return false;
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* info) {
  if (g_state == nullptr || g_state->finished) return;
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    on_nvtx(cbid, static_cast<const CUpti_NvtxData*>(info));
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* data = static_cast<const CUpti_CallbackData*>(info);
  if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
      cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
    if (data->callbackSite == CUPTI_API_ENTER) {
      // The graph's kernels are not isolated: they must not run inside a collection.
      std::lock_guard<std::mutex> lock(g_state->launch_mutex);
      close_collection();
      g_state->writer->write_line(simple_line(kRawGraphLaunch, "correlation", data->correlationId));
    }
    return;
  }
  if (cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxResetPersistingL2Cache) {
    // The driver runs a kernel of its own for it, which no launch callback announces: a
    // collection it ran in would have one range more than its launches account for.
    if (data->callbackSite == CUPTI_API_ENTER && !t_in_tool) {
      std::lock_guard<std::mutex> lock(g_state->launch_mutex);
      close_collection();
    }
    return;
  }
  if (!is_launch(cbid)) return;
  if (t_in_tool) {
    if (data->callbackSite == CUPTI_API_ENTER) {
      g_state->writer->write_line(simple_line(kRawToolLaunch, "correlation", data->correlationId));
    }
    return;
  }
  if (data->callbackSite == CUPTI_API_ENTER) {
    on_launch_enter(cbid, data);
  } else {
    on_launch_exit();
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer =
      static_cast<uint8_t*>(std::aligned_alloc(kActivityBufferAlignment, kActivityBufferBytes));
  *size = *buffer != nullptr ? kActivityBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  const int64_t pid = static_cast<int64_t>(getpid());
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    KernelActivity a;
    a.correlation = k->correlationId;
    a.pid = pid;
    a.name = k->name != nullptr ? k->name : "";
    a.start_ns = k->start;
    a.end_ns = k->end;
    a.device = static_cast<int>(k->deviceId);
    a.stream = k->streamId;
    a.graph_id = k->graphId;
    a.grid = {k->gridX, k->gridY, k->gridZ};
    a.block = {k->blockX, k->blockY, k->blockZ};
    a.dynamic_shared_bytes = k->dynamicSharedMemory;
    g_state->writer->write_line(kernel_activity_line(a));
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0) {
    warn(std::to_string(dropped) + " kernel activity records dropped by CUPTI");
  }
  std::free(buffer);
}

void finish() {
  if (g_state == nullptr || g_state->finished.exchange(true)) return;
  {
    std::lock_guard<std::mutex> lock(g_state->launch_mutex);
    close_collection();
  }
  cuptiActivityFlushAll(1);
  // The counter sessions are left to the process's end: at exit the CUDA runtime may already be
  // tearing down, and releasing device memory or CUPTI objects then can fail or hang.
  g_state->writer->write_line(simple_line(kRawEnd, "launches", g_state->sequence.load()));
}

/// Subscribes to the launch, graph-launch and NVTX callbacks and the kernel activity records.
void start_tracing(InjectionState& s) {
  const CUptiResult subscribed = cuptiSubscribe(&s.subscriber, on_callback, nullptr);
  if (subscribed != CUPTI_SUCCESS) {
    const char* text = nullptr;
    cuptiGetResultString(subscribed, &text);
    warn(std::string("cuptiSubscribe failed: ") + (text != nullptr ? text : "?") +
         (subscribed == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
              ? ": another CUPTI client (nsys, ncu, a PyTorch profiler) is attached: run "
                "without it"
              : ""));
    return;
  }
  const CUpti_CallbackId driver_callbacks[] = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuCtxResetPersistingL2Cache,
  };
  for (const CUpti_CallbackId cbid : driver_callbacks) {
    cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
  }
  cuptiEnableDomain(1, s.subscriber, CUPTI_CB_DOMAIN_NVTX);
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    warn("kernel activity records unavailable: launch durations will be missing");
  }
}

}  // namespace
}  // namespace rooflinectl

/// The entry point the CUDA driver calls (CUDA_INJECTION64_PATH); returns 1 on success, as the
/// CUPTI injection samples do. Without RFL_PROFILE_OUTPUT_DIR it does nothing.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  using namespace rooflinectl;
  if (g_state != nullptr) return 1;
  std::string dir;
  ProfileConfig config;
  CounterRun run = CounterRun::kBytes;
  try {
    const auto lookup = [](const char* name) -> const char* { return std::getenv(name); };
    config = profile_config_from_environment(lookup, dir);
    run = counter_run_from_environment(lookup);
  } catch (const std::exception&) {
    return 1;  // `profile` validated the configuration before it started the program
  }
  if (dir.empty()) return 1;
  auto* state = new InjectionState();
  state->writer = std::make_unique<RawWriter>(dir);
  if (!state->writer->is_open()) {
    delete state;
    return 1;
  }
  state->config = config;
  state->run = run;
  try {
    state->selector.emplace(config);
  } catch (const std::exception& e) {
    state->writer->write_line(simple_line(kRawWarning, "text", e.what()));
    delete state;
    return 1;
  }
  g_state = state;
  state->writer->write_line(simple_line(kRawProcess, "pid", static_cast<int64_t>(getpid())));
  start_tracing(*state);
  std::atexit(finish);
  return 1;
}

/// NVTX's injection entry point: `profile` points NVTX_INJECTION64_PATH at this library, which
/// hands the call to InitializeInjectionNvtx2 of the libcupti it is linked against. Pointing NVTX
/// at a libcupti path directly fails for programs that bring their own copy (PyTorch wheels load
/// nvidia/cu13/lib/libcupti.so.13): NVTX would load a second CUPTI, without this library's
/// subscriber, and the ranges would never arrive. Returns 0 (NVTX stays inert) when the call
/// cannot be handed on.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    const void* (*get_export_table)(uint32_t)) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) == 0 || info.dli_fname == nullptr) {
    return 0;
  }
  void* cupti = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) return 0;
  using Initialize = int (*)(const void* (*)(uint32_t));
  const auto initialize = reinterpret_cast<Initialize>(dlsym(cupti, "InitializeInjectionNvtx2"));
  return initialize != nullptr ? initialize(get_export_table) : 0;
}
