// Clocks on record without a GPU: NVML's reason bits, the unavailable path (a library that does
// not load, an NVML that refuses), one reading per timed sample, and --lock-clocks' lock/reset
// sequencing against a fake NVML (reset exactly once on a normal exit, an exception, an
// interrupted sweep). The real library is never asked to lock anything here.
#include <gtest/gtest.h>

#include <csignal>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "device/nvml_clocks.hpp"
#include "result/clock_reading.hpp"

namespace rooflinectl {
namespace {

// ---------------------------------------------------------------------------------------------
// Reason bits (NVML API reference, Clock Event Reasons).

TEST(ClockEventReasons, PowerAndThermalBitsCountAsThrottledOthersDoNot) {
  for (const uint64_t bit :
       {kClockEventSwPowerCap, kClockEventHwSlowdown, kClockEventSwThermalSlowdown,
        kClockEventHwThermalSlowdown, kClockEventHwPowerBrakeSlowdown}) {
    EXPECT_TRUE(is_power_or_thermal_throttled(bit)) << std::hex << bit;
  }
  for (const uint64_t bit :
       {kClockEventGpuIdle, kClockEventApplicationsClocksSetting, kClockEventSyncBoost,
        kClockEventDisplayClockSetting, uint64_t{0}, uint64_t{0x200}}) {
    EXPECT_FALSE(is_power_or_thermal_throttled(bit)) << std::hex << bit;
  }
  // Idle plus a power cap is throttled; a lock (applications clocks setting) alone is not.
  EXPECT_TRUE(is_power_or_thermal_throttled(kClockEventGpuIdle | kClockEventSwPowerCap));
  EXPECT_FALSE(
      is_power_or_thermal_throttled(kClockEventApplicationsClocksSetting | kClockEventGpuIdle));
}

TEST(ClockEventReasons, TheBitValuesAreNvmls) {
  EXPECT_EQ(kClockEventGpuIdle, 0x1u);
  EXPECT_EQ(kClockEventApplicationsClocksSetting, 0x2u);
  EXPECT_EQ(kClockEventSwPowerCap, 0x4u);
  EXPECT_EQ(kClockEventHwSlowdown, 0x8u);
  EXPECT_EQ(kClockEventSyncBoost, 0x10u);
  EXPECT_EQ(kClockEventSwThermalSlowdown, 0x20u);
  EXPECT_EQ(kClockEventHwThermalSlowdown, 0x40u);
  EXPECT_EQ(kClockEventHwPowerBrakeSlowdown, 0x80u);
  EXPECT_EQ(kClockEventDisplayClockSetting, 0x100u);
  EXPECT_EQ(kPowerOrThermalClockEvents, 0xECu);
}

TEST(ClockEventReasons, NamesInBitOrderUnknownBitsInHex) {
  EXPECT_EQ(describe_clock_event_reasons(0), "none");
  EXPECT_EQ(describe_clock_event_reasons(0x4), "SW power cap");
  EXPECT_EQ(describe_clock_event_reasons(0x1 | 0x40 | 0x4),
            "GPU idle, SW power cap, HW thermal slowdown");
  EXPECT_EQ(describe_clock_event_reasons(0x4 | 0x400), "SW power cap, 0x400");
}

TEST(ClockEventReasons, CountsAndReasonsOfThrottledReadingsOnly) {
  const std::vector<ClockReading> readings = {
      make_clock_reading(1.98e9, 3.2e9, kClockEventGpuIdle),
      make_clock_reading(1.75e9, 3.2e9, kClockEventSwPowerCap | kClockEventGpuIdle),
      make_clock_reading(1.70e9, 3.2e9, kClockEventHwThermalSlowdown),
      make_clock_reading(1.98e9, 3.2e9, kClockEventApplicationsClocksSetting)};
  EXPECT_EQ(count_throttled(readings), 2u);
  // Idle is in a throttled reading but is not a power or thermal reason: left out.
  EXPECT_EQ(throttle_reasons_text(readings), "SW power cap, HW thermal slowdown");
  EXPECT_EQ(throttle_reasons_text({readings[0], readings[3]}), "");
}

// ---------------------------------------------------------------------------------------------
// A fake NVML: return codes to give and the calls it saw.

struct FakeNvml {
  int init_rc = kNvmlSuccess;
  int handle_rc = kNvmlSuccess;
  int clock_rc = kNvmlSuccess;
  int default_clock_rc = kNvmlSuccess;
  int set_rc = kNvmlSuccess;
  int reset_rc = kNvmlSuccess;
  unsigned sm_mhz = 1980;
  unsigned mem_mhz = 3201;
  unsigned default_mhz = 1755;
  unsigned long long reasons = 0;
  int reads_before_failure = -1;  // -1: never fail
  bool has_lock_functions = true;

  int init_calls = 0;
  int shutdown_calls = 0;
  int reads = 0;
  std::string asked_pci_bus_id;
  std::vector<std::pair<unsigned, unsigned>> set_calls;
  int reset_calls = 0;
  std::vector<std::string> sequence;  // "set", "reset", "shutdown" in call order

  int device_token = 42;

  NvmlLoad load() {
    NvmlApi api;
    api.init = [this] {
      ++init_calls;
      return init_rc;
    };
    api.shutdown = [this] {
      ++shutdown_calls;
      sequence.push_back("shutdown");
      return kNvmlSuccess;
    };
    api.error_string = [](int code) {
      return code == kNvmlErrorNoPermission ? std::string("Insufficient Permissions")
                                            : "fake error " + std::to_string(code);
    };
    api.handle_by_pci_bus_id = [this](const std::string& id, NvmlDevice* device) {
      asked_pci_bus_id = id;
      if (handle_rc == kNvmlSuccess) *device = &device_token;
      return handle_rc;
    };
    api.clock_info = [this](NvmlDevice device, int type, unsigned* mhz) {
      EXPECT_EQ(device, &device_token);
      if (type == kNvmlClockSm) {
        if (reads_before_failure >= 0 && reads >= reads_before_failure) return clock_rc;
        ++reads;
        *mhz = sm_mhz;
      } else if (type == kNvmlClockMem) {
        *mhz = mem_mhz;
      } else {
        ADD_FAILURE() << "unexpected clock type " << type;
      }
      return kNvmlSuccess;
    };
    api.clock_event_reasons = [this](NvmlDevice, unsigned long long* bits) {
      *bits = reasons;
      return kNvmlSuccess;
    };
    if (has_lock_functions) {
      api.default_applications_clock = [this](NvmlDevice, int type, unsigned* mhz) {
        EXPECT_EQ(type, kNvmlClockGraphics);
        *mhz = default_mhz;
        return default_clock_rc;
      };
      api.set_gpu_locked_clocks = [this](NvmlDevice, unsigned lo, unsigned hi) {
        set_calls.emplace_back(lo, hi);
        sequence.push_back("set");
        return set_rc;
      };
      api.reset_gpu_locked_clocks = [this](NvmlDevice) {
        ++reset_calls;
        sequence.push_back("reset");
        return reset_rc;
      };
    }
    return NvmlLoad{api, ""};
  }
};

constexpr const char* kBusId = "0000:19:00.0";

ExitCode exit_code_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.exit_code();
  }
  return ExitCode::kOk;
}

// ---------------------------------------------------------------------------------------------
// Unavailable: never an exception, always a reason.

TEST(NvmlClocks, ALibraryThatDoesNotLoadIsUnavailableWithTheDlopenReason) {
  const NvmlLoad load = load_nvml("librfl-no-such-nvml.so.1");
  EXPECT_FALSE(load.api.has_value());
  EXPECT_NE(load.reason.find("librfl-no-such-nvml.so.1 could not be loaded"), std::string::npos)
      << load.reason;

  const NvmlClocks clocks(load, kBusId);
  EXPECT_FALSE(clocks.available());
  EXPECT_EQ(clocks.unavailable_reason(), load.reason);
  std::string error;
  EXPECT_FALSE(clocks.read(error).has_value());
  EXPECT_EQ(error, load.reason);

  // The sweep then keeps its timing unchanged (no callback) and records the reason.
  SampleClockRecorder recorder(clocks);
  EXPECT_FALSE(static_cast<bool>(recorder.callback()));
  TimingResult timing;
  timing.samples_s = {1e-3, 1e-3};
  recorder.store(timing);
  EXPECT_FALSE(timing.sample_clocks.has_value());
  EXPECT_EQ(timing.sample_clocks_null_reason, "not recorded: NVML unavailable: " + load.reason);
  EXPECT_FALSE(timing.throttled_samples().has_value());
}

TEST(NvmlClocks, InitFailureIsUnavailableAndShutsNothingDown) {
  FakeNvml fake;
  fake.init_rc = kNvmlErrorDriverNotLoaded;
  {
    const NvmlClocks clocks(fake.load(), kBusId);
    EXPECT_FALSE(clocks.available());
    EXPECT_EQ(clocks.unavailable_reason(), "nvmlInit_v2 failed: fake error 9 (code 9)");
  }
  EXPECT_EQ(fake.shutdown_calls, 0);
}

TEST(NvmlClocks, GpuNotFoundByPciBusIdIsUnavailableAndStillShutsDown) {
  FakeNvml fake;
  fake.handle_rc = kNvmlErrorNotFound;
  {
    const NvmlClocks clocks(fake.load(), kBusId);
    EXPECT_FALSE(clocks.available());
    EXPECT_NE(clocks.unavailable_reason().find("nvmlDeviceGetHandleByPciBusId_v2(0000:19:00.0)"),
              std::string::npos)
        << clocks.unavailable_reason();
  }
  EXPECT_EQ(fake.init_calls, 1);
  EXPECT_EQ(fake.shutdown_calls, 1);
}

TEST(NvmlClocks, NoPciBusIdMeansNoLookupAtAll) {
  FakeNvml fake;
  const NvmlClocks clocks(fake.load(), "");
  EXPECT_FALSE(clocks.available());
  EXPECT_EQ(fake.init_calls, 0);
}

// ---------------------------------------------------------------------------------------------
// Readings.

TEST(NvmlClocks, MatchesTheGpuByPciBusIdAndReadsHz) {
  FakeNvml fake;
  fake.reasons = kClockEventSwPowerCap;
  const NvmlClocks clocks(fake.load(), kBusId);
  ASSERT_TRUE(clocks.available());
  EXPECT_EQ(fake.asked_pci_bus_id, kBusId);
  std::string error;
  const auto reading = clocks.read(error);
  ASSERT_TRUE(reading.has_value()) << error;
  EXPECT_EQ(reading->sm_clock_hz, 1980e6);
  EXPECT_EQ(reading->memory_clock_hz, 3201e6);
  EXPECT_EQ(reading->clock_event_reasons, kClockEventSwPowerCap);
  EXPECT_TRUE(reading->power_or_thermal_throttled);
}

TEST(SampleClockRecorder, OneReadingPerSampleInOrder) {
  FakeNvml fake;
  const NvmlClocks clocks(fake.load(), kBusId);
  SampleClockRecorder recorder(clocks);
  const std::function<void()> after_each_sample = recorder.callback();
  ASSERT_TRUE(static_cast<bool>(after_each_sample));
  TimingResult timing;
  for (int i = 0; i < 3; ++i) {
    fake.sm_mhz = 1900 + i;
    fake.reasons = i == 1 ? kClockEventHwSlowdown : 0;
    timing.samples_s.push_back(1e-3);
    after_each_sample();
  }
  recorder.store(timing);
  ASSERT_TRUE(timing.sample_clocks.has_value()) << timing.sample_clocks_null_reason;
  ASSERT_EQ(timing.sample_clocks->size(), 3u);
  EXPECT_EQ((*timing.sample_clocks)[0].sm_clock_hz, 1900e6);
  EXPECT_EQ((*timing.sample_clocks)[2].sm_clock_hz, 1902e6);
  EXPECT_TRUE((*timing.sample_clocks)[1].power_or_thermal_throttled);
  EXPECT_EQ(timing.throttled_samples(), std::optional<size_t>(1));
  EXPECT_TRUE(timing.sample_clocks_null_reason.empty());
}

TEST(SampleClockRecorder, AFailedReadingNullsThePointsClocksNamingTheSample) {
  FakeNvml fake;
  fake.reads_before_failure = 1;
  fake.clock_rc = 15;  // NVML_ERROR_GPU_IS_LOST
  const NvmlClocks clocks(fake.load(), kBusId);
  SampleClockRecorder recorder(clocks);
  const auto after_each_sample = recorder.callback();
  TimingResult timing;
  timing.samples_s = {1e-3, 1e-3, 1e-3};
  for (int i = 0; i < 3; ++i) after_each_sample();
  recorder.store(timing);
  EXPECT_FALSE(timing.sample_clocks.has_value());
  EXPECT_EQ(timing.sample_clocks_null_reason,
            "not recorded: after timed sample 2: nvmlDeviceGetClockInfo(NVML_CLOCK_SM) failed: "
            "fake error 15 (code 15)");
  EXPECT_EQ(fake.reads, 1);  // after the failure no further sample is read
}

TEST(SampleClockRecorder, ACountThatDiffersFromTheSamplesIsNotRecorded) {
  FakeNvml fake;
  const NvmlClocks clocks(fake.load(), kBusId);
  SampleClockRecorder recorder(clocks);
  recorder.callback()();
  TimingResult timing;
  timing.samples_s = {1e-3, 1e-3};
  recorder.store(timing);
  EXPECT_FALSE(timing.sample_clocks.has_value());
  EXPECT_NE(timing.sample_clocks_null_reason.find("1 clock readings for 2 timed samples"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// --lock-clocks base: lock once, reset exactly once whatever the way out.

TEST(GpuClockLock, LocksToTheDefaultApplicationsClockAndResetsOnceOnScopeExit) {
  FakeNvml fake;
  {
    const NvmlClocks clocks(fake.load(), kBusId);
    {
      const auto lock = lock_sweep_clocks("base", clocks);
      ASSERT_NE(lock, nullptr);
      ASSERT_EQ(fake.set_calls.size(), 1u);
      EXPECT_EQ(fake.set_calls[0], std::make_pair(1755u, 1755u));
      EXPECT_EQ(fake.reset_calls, 0);
      EXPECT_NE(lock->description().find("1755 MHz"), std::string::npos);
    }
    EXPECT_EQ(fake.reset_calls, 1);
  }
  // The reset comes before NVML is shut down.
  EXPECT_EQ(fake.sequence, (std::vector<std::string>{"set", "reset", "shutdown"}));
}

TEST(GpuClockLock, RestoreRecordsWhatWasLockedAndTheDestructorDoesNotResetAgain) {
  FakeNvml fake;
  const NvmlClocks clocks(fake.load(), kBusId);
  ClockLockRecord record;
  {
    GpuClockLock lock(clocks, "base");
    record = lock.restore();
    EXPECT_EQ(fake.reset_calls, 1);
    EXPECT_EQ(lock.restore().restore, record.restore);  // a second restore does nothing
  }
  EXPECT_EQ(fake.reset_calls, 1);
  EXPECT_EQ(record.setting, "base");
  EXPECT_EQ(record.sm_clock_hz, 1755e6);
  EXPECT_EQ(record.source, "nvmlDeviceGetDefaultApplicationsClock(NVML_CLOCK_GRAPHICS)");
  EXPECT_EQ(record.restore, "reset with nvmlDeviceResetGpuLockedClocks after the last point");
}

TEST(GpuClockLock, AnExceptionDuringTheSweepResetsExactlyOnce) {
  FakeNvml fake;
  const NvmlClocks clocks(fake.load(), kBusId);
  // run_sweep's shape: the lock lives in the function's scope, a point throws.
  auto sweep = [&] {
    const auto lock = lock_sweep_clocks("base", clocks);
    throw environment_error("CUDA error: an illegal memory access was encountered");
  };
  EXPECT_EQ(exit_code_of(sweep), ExitCode::kEnvironment);
  EXPECT_EQ(fake.set_calls.size(), 1u);
  EXPECT_EQ(fake.reset_calls, 1);
  // Any exception, not only the project's.
  EXPECT_THROW(
      {
        const auto lock = lock_sweep_clocks("base", clocks);
        throw std::runtime_error("bad_alloc or the like");
      },
      std::runtime_error);
  EXPECT_EQ(fake.reset_calls, 2);
  EXPECT_EQ(fake.set_calls.size(), 2u);
}

TEST(GpuClockLock, AnInterruptedSweepReturnsNormallyAndResetsOnce) {
  FakeNvml fake;
  const NvmlClocks clocks(fake.load(), kBusId);
  int points_run = 0;
  {
    const InterruptScope scope;  // cmd_sweep holds it around run_sweep
    auto sweep = [&] {
      const auto lock = lock_sweep_clocks("base", clocks);
      for (int i = 0; i < 5; ++i) {
        if (pending_interrupt() != 0) continue;  // the loop marks the rest interrupted
        ++points_run;
        if (i == 1) std::raise(SIGINT);  // Ctrl-C during the second point
      }
      return lock->restore();
    };
    const ClockLockRecord record = sweep();
    EXPECT_EQ(pending_interrupt(), SIGINT);
    EXPECT_EQ(record.restore, "reset with nvmlDeviceResetGpuLockedClocks after the last point");
  }
  EXPECT_EQ(points_run, 2);
  EXPECT_EQ(fake.reset_calls, 1);
}

TEST(GpuClockLock, NoPermissionExitsThreeWithTheFixAndResetsNothing) {
  FakeNvml fake;
  fake.set_rc = kNvmlErrorNoPermission;
  const NvmlClocks clocks(fake.load(), kBusId);
  std::string message;
  EXPECT_EQ(exit_code_of([&] { lock_sweep_clocks("base", clocks); }, &message),
            ExitCode::kEnvironment);
  EXPECT_NE(message.find("--lock-clocks base: nvmlDeviceSetGpuLockedClocks(1755, 1755 MHz) "
                         "refused: Insufficient Permissions (code 4)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("run the sweep as root"), std::string::npos) << message;
  EXPECT_NE(message.find("nvidia-smi -lgc"), std::string::npos) << message;
  EXPECT_EQ(fake.reset_calls, 0);
}

TEST(GpuClockLock, UnavailableNvmlOrMissingEntryPointsExitThree) {
  const NvmlClocks missing(load_nvml("librfl-no-such-nvml.so.1"), kBusId);
  std::string message;
  EXPECT_EQ(exit_code_of([&] { lock_sweep_clocks("base", missing); }, &message),
            ExitCode::kEnvironment);
  EXPECT_NE(message.find("NVML is unavailable"), std::string::npos) << message;
  EXPECT_NE(message.find("run the sweep as root"), std::string::npos) << message;

  FakeNvml old_driver;
  old_driver.has_lock_functions = false;
  const NvmlClocks clocks(old_driver.load(), kBusId);
  EXPECT_EQ(exit_code_of([&] { lock_sweep_clocks("base", clocks); }, &message),
            ExitCode::kEnvironment);
  EXPECT_NE(message.find("nvmlDeviceSetGpuLockedClocks"), std::string::npos) << message;
}

TEST(GpuClockLock, UnsupportedGpuSaysSo) {
  FakeNvml fake;
  fake.set_rc = kNvmlErrorNotSupported;
  const NvmlClocks clocks(fake.load(), kBusId);
  std::string message;
  EXPECT_EQ(exit_code_of([&] { lock_sweep_clocks("base", clocks); }, &message),
            ExitCode::kEnvironment);
  EXPECT_NE(message.find("does not allow locked clocks"), std::string::npos) << message;
}

TEST(GpuClockLock, NoSettingLocksNothingAndAnUnknownOneIsBadInput) {
  FakeNvml fake;
  const NvmlClocks clocks(fake.load(), kBusId);
  EXPECT_EQ(lock_sweep_clocks("", clocks), nullptr);
  std::string message;
  EXPECT_EQ(exit_code_of([&] { lock_sweep_clocks("turbo", clocks); }, &message),
            ExitCode::kBadInput);
  EXPECT_EQ(message, "invalid --lock-clocks 'turbo' (allowed: base)");
  EXPECT_TRUE(fake.set_calls.empty());
  EXPECT_EQ(fake.reset_calls, 0);
}

TEST(GpuClockLock, AFailedResetSaysHowToResetByHand) {
  FakeNvml fake;
  fake.reset_rc = kNvmlErrorNoPermission;
  const NvmlClocks clocks(fake.load(), kBusId);
  GpuClockLock lock(clocks, "base");
  const ClockLockRecord record = lock.restore();
  EXPECT_NE(record.restore.find("nvmlDeviceResetGpuLockedClocks failed"), std::string::npos);
  EXPECT_NE(record.restore.find("sudo nvidia-smi -rgc"), std::string::npos) << record.restore;
}

}  // namespace
}  // namespace rooflinectl
