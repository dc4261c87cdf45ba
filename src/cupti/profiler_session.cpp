#include "cupti/profiler_session.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <fmt/format.h>

#include <chrono>
#include <utility>

#include "core/error.hpp"
#include "core/wall_clock.hpp"
#include "gpu/cuda_check.hpp"

namespace rooflinectl {
namespace {

/// A CUPTI parameter struct with `structSize` set and everything else zero, as the API requires
/// (each struct's size macro is how CUPTI tells which fields a caller knows about).
template <class Params>
Params cupti_params(size_t struct_size) {
  Params params{};
  params.structSize = struct_size;
  return params;
}
#define RFL_CUPTI_PARAMS(Type) cupti_params<Type>(Type##_STRUCT_SIZE)

/// CUPTI errors a user can act on: the symbol (for searching) and the fix.
struct KnownCuptiError {
  CUptiResult code;
  const char* symbol;
  const char* fix;
};

constexpr const char* kNoCountersHint = "(timings are unaffected; --no-counters skips counters)";

const KnownCuptiError kKnownCuptiErrors[] = {
    {CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES",
     "GPU performance counters are restricted to admin users: set "
     "NVreg_RestrictProfilingToAdminUsers=0 (options nvidia ... in /etc/modprobe.d, then reboot) "
     "or run as root / add CAP_SYS_ADMIN (containers: --cap-add SYS_ADMIN)"},
    {CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES,
     "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES",
     "profiling is not enabled for this vGPU: ask the host administrator to enable it"},
    {CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
     "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED",
     "another profiler (ncu, nsys) is attached: run outside it"},
    {CUPTI_ERROR_HARDWARE_BUSY, "CUPTI_ERROR_HARDWARE_BUSY",
     "another process is profiling this GPU: wait until it finishes"},
    {CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED",
     "this MIG instance cannot be profiled: use a whole GPU or a MIG compute instance that owns "
     "its whole GPU instance"},
    {CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED, "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED",
     "this virtualized GPU does not support profiling"},
    {CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED,
     "CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED",
     "confidential-computing mode disables profiling"},
    {CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED, "CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED",
     "crypto-mining processors (CMP) cannot be profiled"},
    {CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED, "CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED",
     "disable SLI to profile"},
    {CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED, "CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED",
     "this device cannot be profiled under WSL with this driver"},
    {CUPTI_ERROR_NOT_SUPPORTED, "CUPTI_ERROR_NOT_SUPPORTED",
     "this GPU or driver does not support the CUPTI range profiler (needs a GPU the CUDA 13 "
     "CUPTI supports and a driver at least as new as the toolkit)"},
    {CUPTI_ERROR_INVALID_CHIP_NAME, "CUPTI_ERROR_INVALID_CHIP_NAME",
     "this CUPTI does not know the GPU's chip: use a CUDA toolkit released after the GPU"},
};

/// One line: the failed call, the CUPTI error symbol, and the fix when one is known.
std::string describe_cupti_error(CUptiResult result, const char* call) {
  for (const auto& known : kKnownCuptiErrors) {
    if (known.code == result) {
      return fmt::format("{} failed: {}: {} {}", call, known.symbol, known.fix, kNoCountersHint);
    }
  }
  const char* symbol = nullptr;
  if (cuptiGetResultString(result, &symbol) != CUPTI_SUCCESS || symbol == nullptr) {
    symbol = "unknown CUptiResult";
  }
  const char* message = nullptr;
  if (cuptiGetErrorMessage(result, &message) != CUPTI_SUCCESS || message == nullptr) message = "";
  return fmt::format("{} failed: {} ({}; code {}) {}", call, symbol, message,
                     static_cast<int>(result), kNoCountersHint);
}

void check_cupti(CUptiResult result, const char* call) {
  if (result != CUPTI_SUCCESS) throw environment_error(describe_cupti_error(result, call));
}
#define RFL_CUPTI_CALL(function, params) check_cupti(function(params), #function)

/// A driver-API function, looked up through the runtime so that the library needs no link
/// against libcuda (CUPTI wants a CUcontext; the runtime only hands out its primary context
/// implicitly). `version` picks the variant: the entry point as CUDA `version` defined it.
template <class Function>
Function driver_function(const char* symbol, int version = CUDART_VERSION) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  RFL_CUDA_CHECK(
      cudaGetDriverEntryPointByVersion(symbol, &function, version, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || function == nullptr) {
    throw environment_error(fmt::format("driver function {} not found: driver too old?", symbol));
  }
  return reinterpret_cast<Function>(function);
}

/// CUDA 13.0 gave cuCtxGetDevice and cuCtxSynchronize a _v2 that takes the context as an argument
/// (cuda.h), and the entry point at CUDART_VERSION 13000 is that _v2; the CUDA 12.0 entry points
/// keep the one-argument forms these calls use on the current context.
constexpr int kCurrentContextEntryVersion = 12000;

void check_driver(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) {
    throw environment_error(fmt::format("{} failed: CUresult {}", call, static_cast<int>(result)));
  }
}

CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  CUcontext context = nullptr;
  check_driver(driver_function<GetCurrent>("cuCtxGetCurrent")(&context), "cuCtxGetCurrent");
  if (context == nullptr) throw environment_error("no current CUDA context for CUPTI to attach to");
  return context;
}

CUdevice driver_device(int device) {
  using DeviceGet = CUresult (*)(CUdevice*, int);
  CUdevice handle = 0;
  check_driver(driver_function<DeviceGet>("cuDeviceGet")(&handle, device), "cuDeviceGet");
  return handle;
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

/// Throws when CUPTI reports the device cannot be profiled, naming each reason it gives.
/// An undetermined (UNKNOWN) level is not treated as a refusal: the later calls will tell.
void check_device_supported(int device) {
  auto params = RFL_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  params.cuDevice = driver_device(device);
  params.api = CUPTI_PROFILER_RANGE_PROFILING;
  RFL_CUPTI_CALL(cuptiProfilerDeviceSupported, &params);
  if (params.isSupported != CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED &&
      params.isSupported != CUPTI_PROFILER_CONFIGURATION_DISABLED) {
    return;
  }
  const auto refused = [](CUpti_Profiler_Support_Level level) {
    return level == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED ||
           level == CUPTI_PROFILER_CONFIGURATION_DISABLED;
  };
  std::vector<std::string> reasons;
  if (refused(params.architecture)) reasons.emplace_back("GPU architecture not supported");
  if (refused(params.sli)) reasons.emplace_back("SLI is enabled: disable it");
  if (params.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED) {
    reasons.emplace_back("vGPU profiling is disabled: ask the host administrator to enable it");
  } else if (refused(params.vGpu)) {
    reasons.emplace_back("this vGPU does not support profiling");
  }
  if (refused(params.confidentialCompute)) {
    reasons.emplace_back("confidential-computing mode disables profiling");
  }
  if (refused(params.cmp))
    reasons.emplace_back("crypto-mining processors (CMP) cannot be profiled");
  if (refused(params.wsl)) reasons.emplace_back("not supported under WSL with this driver");
  if (reasons.empty()) reasons.emplace_back("CUPTI gave no reason");
  throw environment_error(
      fmt::format("device {} cannot be profiled by the CUPTI range profiler: {} {}", device,
                  joined(reasons, "; "), kNoCountersHint));
}

std::vector<const char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<const char*> out;
  out.reserve(strings.size());
  for (const auto& s : strings) out.push_back(s.c_str());
  return out;
}

}  // namespace

ProfilerSession::ProfilerSession(int device, std::vector<std::string> metrics)
    : ProfilerSession(device) {
  // The delegated constructor has finished, so the destructor releases everything if this throws.
  add_metric_set(std::move(metrics));
}

ProfilerSession::ProfilerSession(int device) : device_(device) {
  RFL_CUDA_CHECK(cudaSetDevice(device_));
  RFL_CUDA_CHECK(cudaFree(nullptr));  // creates the primary context if it does not exist yet
  attach(current_context());
}

ProfilerSession::ProfilerSession(CurrentContext) {
  using GetDevice = CUresult (*)(CUdevice*);
  const CUcontext context = current_context();
  CUdevice device = 0;
  check_driver(driver_function<GetDevice>("cuCtxGetDevice", kCurrentContextEntryVersion)(&device),
               "cuCtxGetDevice");
  device_ = static_cast<int>(device);
  attach(context);
}

void ProfilerSession::attach(CUctx_st* context) {
  try {
    auto initialize = RFL_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    RFL_CUPTI_CALL(cuptiProfilerInitialize, &initialize);
    cupti_initialized_ = true;
    check_device_supported(device_);

    auto chip = RFL_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    chip.deviceIndex = static_cast<size_t>(device_);
    RFL_CUPTI_CALL(cuptiDeviceGetChipName, &chip);
    chip_name_ = chip.pChipName;

    // Size first, then the image. Must happen before the range profiler is enabled: the call may
    // fail while a profiling session is active on the context (cupti_profiler_target.h).
    auto availability = RFL_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    availability.ctx = context;
    RFL_CUPTI_CALL(cuptiProfilerGetCounterAvailability, &availability);
    availability_image_.resize(availability.counterAvailabilityImageSize);
    availability.pCounterAvailabilityImage = availability_image_.data();
    RFL_CUPTI_CALL(cuptiProfilerGetCounterAvailability, &availability);

    auto enable = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    enable.ctx = context;
    RFL_CUPTI_CALL(cuptiRangeProfilerEnable, &enable);
    range_profiler_ = enable.pRangeProfilerObject;
  } catch (...) {
    release();
    throw;
  }
}

ProfilerSession::MetricSet ProfilerSession::configure(std::vector<std::string> metrics) const {
  if (metrics.empty()) throw bad_input("a profiler metric set needs at least one metric");
  MetricSet set;
  set.metrics = std::move(metrics);
  const auto deinitialize_host = [&set] {
    if (set.host == nullptr) return;
    auto deinitialize = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    deinitialize.pHostObject = set.host;
    (void)cuptiProfilerHostDeinitialize(&deinitialize);
    set.host = nullptr;
  };
  try {
    // The availability image lets the host side drop counters this context cannot read (MIG).
    auto host = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    host.pChipName = chip_name_.c_str();
    host.pCounterAvailabilityImage = availability_image_.data();
    RFL_CUPTI_CALL(cuptiProfilerHostInitialize, &host);
    set.host = host.pHostObject;

    // One bad name makes cuptiProfilerHostConfigAddMetrics reject the whole list with a bare
    // CUPTI_ERROR_INVALID_PARAMETER, so name the culprits first.
    std::vector<std::string> unknown;
    for (const auto& metric : set.metrics) {
      auto properties = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
      properties.pHostObject = set.host;
      properties.pMetricName = metric.c_str();
      const CUptiResult result = cuptiProfilerHostGetMetricProperties(&properties);
      if (result == CUPTI_ERROR_INVALID_METRIC_NAME) {
        unknown.push_back(metric);
      } else {
        check_cupti(result, "cuptiProfilerHostGetMetricProperties");
      }
    }
    if (!unknown.empty()) {
      throw environment_error(fmt::format("metric(s) not available on {} (device {}): {}",
                                          chip_name_, device_, joined(unknown, ", ")));
    }

    std::vector<const char*> names = c_strings(set.metrics);
    auto add = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    add.pHostObject = set.host;
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    RFL_CUPTI_CALL(cuptiProfilerHostConfigAddMetrics, &add);

    auto config_size = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    config_size.pHostObject = set.host;
    RFL_CUPTI_CALL(cuptiProfilerHostGetConfigImageSize, &config_size);
    set.config_image.resize(config_size.configImageSize);
    auto config = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    config.pHostObject = set.host;
    config.configImageSize = set.config_image.size();
    config.pConfigImage = set.config_image.data();
    RFL_CUPTI_CALL(cuptiProfilerHostGetConfigImage, &config);

    auto passes = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
    passes.configImageSize = set.config_image.size();
    passes.pConfigImage = set.config_image.data();
    RFL_CUPTI_CALL(cuptiProfilerHostGetNumOfPasses, &passes);
    set.passes = static_cast<int>(passes.numOfPasses);
  } catch (...) {
    deinitialize_host();
    throw;
  }
  return set;
}

size_t ProfilerSession::add_metric_set(std::vector<std::string> metrics) {
  if (range_profiler_ == nullptr) {
    throw environment_error("ProfilerSession::add_metric_set called on a moved-from session");
  }
  MetricSet set = configure(std::move(metrics));
  try {
    set.counter_data_image.resize(counter_data_size(set.metrics));
  } catch (...) {
    auto deinitialize = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    deinitialize.pHostObject = set.host;
    (void)cuptiProfilerHostDeinitialize(&deinitialize);
    throw;
  }
  sets_.push_back(std::move(set));
  return sets_.size() - 1;
}

size_t ProfilerSession::counter_data_size(const std::vector<std::string>& metrics) const {
  std::vector<const char*> names = c_strings(metrics);
  auto data_size = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  data_size.pRangeProfilerObject = range_profiler_;
  data_size.pMetricNames = names.data();
  data_size.numMetrics = names.size();
  data_size.maxNumOfRanges = kMaxRanges;
  data_size.maxNumRangeTreeNodes = kMaxRanges;
  RFL_CUPTI_CALL(cuptiRangeProfilerGetCounterDataSize, &data_size);
  return data_size.counterDataSize;
}

int ProfilerSession::count_passes(const std::vector<std::string>& metrics) const {
  MetricSet set = configure(metrics);
  auto deinitialize = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
  deinitialize.pHostObject = set.host;
  (void)cuptiProfilerHostDeinitialize(&deinitialize);
  return set.passes;
}

const ProfilerSession::MetricSet& ProfilerSession::metric_set(size_t set) const {
  if (set >= sets_.size()) {
    throw bad_input(fmt::format("profiler metric set {} does not exist (the session has {})", set,
                                sets_.size()));
  }
  return sets_[set];
}

int ProfilerSession::passes(size_t set) const { return metric_set(set).passes; }

const std::vector<std::string>& ProfilerSession::metrics(size_t set) const {
  return metric_set(set).metrics;
}

std::string ProfilerSession::replay_description(size_t set) const {
  const int passes = metric_set(set).passes;
  if (passes == 1) return "user replay, one pass (not replayed: no memory save/restore)";
  return fmt::format("kernel replay, {} passes (CUPTI saves and restores memory between passes)",
                     passes);
}

ProfilerSession::~ProfilerSession() { release(); }

ProfilerSession::ProfilerSession(ProfilerSession&& other) noexcept
    : device_(other.device_),
      chip_name_(std::move(other.chip_name_)),
      availability_image_(std::move(other.availability_image_)),
      cupti_initialized_(std::exchange(other.cupti_initialized_, false)),
      range_profiler_(std::exchange(other.range_profiler_, nullptr)),
      sets_(std::exchange(other.sets_, {})),
      profiled_set_(std::exchange(other.profiled_set_, kNoSet)),
      ranges_open_(std::exchange(other.ranges_open_, false)),
      last_steps_(other.last_steps_) {}

ProfilerSession& ProfilerSession::operator=(ProfilerSession&& other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    chip_name_ = std::move(other.chip_name_);
    availability_image_ = std::move(other.availability_image_);
    cupti_initialized_ = std::exchange(other.cupti_initialized_, false);
    range_profiler_ = std::exchange(other.range_profiler_, nullptr);
    sets_ = std::exchange(other.sets_, {});
    profiled_set_ = std::exchange(other.profiled_set_, kNoSet);
    ranges_open_ = std::exchange(other.ranges_open_, false);
    last_steps_ = other.last_steps_;
  }
  return *this;
}

void ProfilerSession::release() noexcept {
  // Teardown in reverse order of setup; failures cannot be reported from here and leave nothing
  // this process could still clean up.
  if (range_profiler_ != nullptr && ranges_open_) {
    auto stop = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = range_profiler_;
    (void)cuptiRangeProfilerStop(&stop);
    ranges_open_ = false;
  }
  if (range_profiler_ != nullptr) {
    auto disable = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
    disable.pRangeProfilerObject = range_profiler_;
    (void)cuptiRangeProfilerDisable(&disable);
    range_profiler_ = nullptr;
  }
  for (auto& set : sets_) {
    if (set.host == nullptr) continue;
    auto deinitialize = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    deinitialize.pHostObject = set.host;
    (void)cuptiProfilerHostDeinitialize(&deinitialize);
    set.host = nullptr;
  }
  sets_.clear();
  if (cupti_initialized_) {
    auto deinitialize = RFL_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
    (void)cuptiProfilerDeInitialize(&deinitialize);
    cupti_initialized_ = false;
  }
}

void ProfilerSession::rebind_range_profiler() {
  auto disable = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
  disable.pRangeProfilerObject = range_profiler_;
  range_profiler_ = nullptr;
  RFL_CUPTI_CALL(cuptiRangeProfilerDisable, &disable);
  auto enable = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  enable.ctx = current_context();
  RFL_CUPTI_CALL(cuptiRangeProfilerEnable, &enable);
  range_profiler_ = enable.pRangeProfilerObject;
}

void ProfilerSession::set_up_collection(size_t set_index) {
  MetricSet& set = sets_[set_index];
  // One range profiler object collects one metric set: on the H200 (CUDA 13.0), profiling a second
  // config image on an object that has collected another returned NaN for every counter, so the
  // object is re-created when the set changes (docs/counter-method.md). It also keeps the metric
  // list of its last counter-data sizing for initializing an image: size again for this set.
  if (profiled_set_ != kNoSet && profiled_set_ != set_index) rebind_range_profiler();
  profiled_set_ = set_index;
  const size_t data_size = counter_data_size(set.metrics);
  if (data_size != set.counter_data_image.size()) {
    throw environment_error(fmt::format(
        "cuptiRangeProfilerGetCounterDataSize: {} bytes for a metric set sized {} bytes before",
        data_size, set.counter_data_image.size()));
  }

  // Re-initializing the image resets it, so every call starts from zero ranges.
  auto reset = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  reset.pRangeProfilerObject = range_profiler_;
  reset.counterDataSize = set.counter_data_image.size();
  reset.pCounterData = set.counter_data_image.data();
  RFL_CUPTI_CALL(cuptiRangeProfilerCounterDataImageInitialize, &reset);

  // Auto range (nesting levels must be 1). A one-pass set runs under user replay with the one
  // pass this call submits: each kernel runs once, sees the cache state the caller left, and
  // costs about 1 ms more per range, where kernel replay of the same one-pass set cost 12-30 ms
  // per range on the H200 (docs/counter-method.md). A multi-pass set uses kernel replay: CUPTI
  // replays each kernel passes times inside its launch, saving and restoring the memory it
  // writes between passes.
  auto set_config = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  set_config.pRangeProfilerObject = range_profiler_;
  set_config.configSize = set.config_image.size();
  set_config.pConfig = set.config_image.data();
  set_config.counterDataImageSize = set.counter_data_image.size();
  set_config.pCounterDataImage = set.counter_data_image.data();
  set_config.range = CUPTI_AutoRange;
  set_config.replayMode = set.passes == 1 ? CUPTI_UserReplay : CUPTI_KernelReplay;
  set_config.maxRangesPerPass = kMaxRanges;
  set_config.numNestingLevels = 1;
  set_config.minNestingLevel = 1;
  set_config.passIndex = 0;
  set_config.targetNestingLevel = 1;
  RFL_CUPTI_CALL(cuptiRangeProfilerSetConfig, &set_config);
}

bool ProfilerSession::run_profiled(const std::function<void()>& launch) {
  auto start = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
  start.pRangeProfilerObject = range_profiler_;
  RFL_CUPTI_CALL(cuptiRangeProfilerStart, &start);
  auto stop = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
  stop.pRangeProfilerObject = range_profiler_;
  try {
    launch();
    RFL_CUDA_CHECK(cudaDeviceSynchronize());
  } catch (...) {
    // Leave the profiler stopped so that the next point can still be profiled.
    (void)cuptiRangeProfilerStop(&stop);
    throw;
  }
  RFL_CUPTI_CALL(cuptiRangeProfilerStop, &stop);
  return stop.isAllPassSubmitted;
}

std::vector<std::map<std::string, double>> ProfilerSession::decode_ranges(const MetricSet& set) {
  auto decode = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  decode.pRangeProfilerObject = range_profiler_;
  RFL_CUPTI_CALL(cuptiRangeProfilerDecodeData, &decode);
  if (decode.numOfRangeDropped > 0) {
    throw environment_error(fmt::format(
        "{} kernel range(s) dropped: one profiled launch may enqueue at most {} kernels",
        decode.numOfRangeDropped, kMaxRanges));
  }

  auto info = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = set.counter_data_image.data();
  info.counterDataImageSize = set.counter_data_image.size();
  RFL_CUPTI_CALL(cuptiRangeProfilerGetCounterDataInfo, &info);

  std::vector<const char*> names = c_strings(set.metrics);
  std::vector<double> values(names.size());
  std::vector<std::map<std::string, double>> ranges;
  ranges.reserve(info.numTotalRanges);
  for (size_t range = 0; range < info.numTotalRanges; ++range) {
    auto evaluate = RFL_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    evaluate.pHostObject = set.host;
    evaluate.pCounterDataImage = set.counter_data_image.data();
    evaluate.counterDataImageSize = set.counter_data_image.size();
    evaluate.rangeIndex = range;
    evaluate.ppMetricNames = names.data();
    evaluate.numMetrics = names.size();
    evaluate.pMetricValues = values.data();
    RFL_CUPTI_CALL(cuptiProfilerHostEvaluateToGpuValues, &evaluate);
    std::map<std::string, double> by_name;
    for (size_t m = 0; m < set.metrics.size(); ++m) by_name.emplace(set.metrics[m], values[m]);
    ranges.push_back(std::move(by_name));
  }
  return ranges;
}

void ProfilerSession::synchronize_context() {
  using Synchronize = CUresult (*)();
  check_driver(driver_function<Synchronize>("cuCtxSynchronize", kCurrentContextEntryVersion)(),
               "cuCtxSynchronize");
}

void ProfilerSession::begin_ranges(size_t set_index, const std::function<void()>& prepare) {
  if (range_profiler_ == nullptr) {
    throw environment_error("ProfilerSession::begin_ranges called on a moved-from session");
  }
  if (ranges_open_) throw environment_error("ProfilerSession::begin_ranges called twice");
  metric_set(set_index);  // range check
  set_up_collection(set_index);
  prepare();
  synchronize_context();
  auto start = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
  start.pRangeProfilerObject = range_profiler_;
  RFL_CUPTI_CALL(cuptiRangeProfilerStart, &start);
  ranges_open_ = true;
}

std::vector<std::map<std::string, double>> ProfilerSession::end_ranges() {
  if (!ranges_open_) throw environment_error("ProfilerSession::end_ranges without begin_ranges");
  ranges_open_ = false;
  auto stop = RFL_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
  stop.pRangeProfilerObject = range_profiler_;
  try {
    synchronize_context();
  } catch (...) {
    (void)cuptiRangeProfilerStop(&stop);
    throw;
  }
  RFL_CUPTI_CALL(cuptiRangeProfilerStop, &stop);
  const MetricSet& set = sets_[profiled_set_];
  if (!stop.isAllPassSubmitted) {
    throw environment_error(fmt::format(
        "cuptiRangeProfilerStop: kernel replay left passes unsubmitted ({} pass(es))", set.passes));
  }
  return decode_ranges(set);
}

std::vector<std::map<std::string, double>> ProfilerSession::profile(
    const std::function<void()>& prepare, const std::function<void()>& launch, size_t set_index) {
  if (range_profiler_ == nullptr) {
    throw environment_error("ProfilerSession::profile called on a moved-from session");
  }
  const MetricSet& set = metric_set(set_index);  // range check
  // Kernels on another device would simply not be profiled: zero ranges, no error.
  int current_device = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&current_device));
  if (current_device != device_) {
    throw environment_error(fmt::format("profiler session is on device {} but device {} is current",
                                        device_, current_device));
  }
  using Clock = std::chrono::steady_clock;
  last_steps_ = ProfileStepTimes{};
  auto step_start = Clock::now();
  set_up_collection(set_index);
  // Last before the launch: CUPTI's own set-up above writes device memory (a re-created object
  // left ~27 MB dirty in L2 on the H200), which `prepare` (an L2 flush) must come after.
  last_steps_.setup_s = seconds_since(step_start);
  step_start = Clock::now();
  prepare();
  RFL_CUDA_CHECK(cudaDeviceSynchronize());
  last_steps_.prepare_s = seconds_since(step_start);
  step_start = Clock::now();
  const bool all_passes_submitted = run_profiled(launch);
  last_steps_.run_s = seconds_since(step_start);
  step_start = Clock::now();
  if (!all_passes_submitted) {
    throw environment_error(fmt::format(
        "cuptiRangeProfilerStop: kernel replay left passes unsubmitted ({} pass(es))", set.passes));
  }
  std::vector<std::map<std::string, double>> ranges = decode_ranges(set);
  last_steps_.decode_s = seconds_since(step_start);
  return ranges;
}

}  // namespace rooflinectl
