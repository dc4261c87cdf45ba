#include "cmd_doctor.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <string>

#include "core/error.hpp"
#include "core/version.hpp"
#include "cupti/counter_probe.hpp"
#include "device/device_info.hpp"
#include "device/environment_facts.hpp"
#include "measure/clock_probe.hpp"
#include "strict_integer.hpp"

namespace rooflinectl {
namespace {

/// "13.0" from cudaDriverGetVersion / cudaRuntimeGetVersion's 1000·major + 10·minor.
std::string cuda_version_text(int version) {
  return fmt::format("{}.{} ({})", version / 1000, (version % 1000) / 10, version);
}

/// "13.0 Update 1" style from CUPTI's 10000·major + 100·minor + update.
std::string cupti_version_text(uint32_t version) {
  return fmt::format("{}.{}.{} ({})", version / 10000, (version / 100) % 100, version % 100,
                     version);
}

void print_versions() {
  fmt::print("rooflinectl {} ({})\n", kToolVersion, kGitRevision[0] ? kGitRevision : "unknown");
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
    (void)cudaGetLastError();
    fmt::print("CUDA driver:   not found (no NVIDIA driver loaded)\n");
  } else {
    fmt::print("CUDA driver:   supports CUDA {}\n", cuda_version_text(driver));
  }
  int runtime = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  fmt::print("CUDA runtime:  {}\n", cuda_version_text(runtime));
  const auto cupti = cupti_api_version();
  fmt::print("CUPTI:         {} (built against {})\n",
             cupti ? cupti_version_text(*cupti) : std::string("cuptiGetVersion failed"),
             cupti_version_text(cupti_header_version()));
}

void print_host_facts(const HostProfilingFacts& facts) {
  std::string admin_only = "unknown (/proc/driver/nvidia/params not readable)";
  if (facts.driver_admin_only) {
    admin_only =
        *facts.driver_admin_only
            ? "1: counters restricted to admin users (NVreg_RestrictProfilingToAdminUsers=1)"
            : "0: any user may read counters";
  }
  fmt::print("profiling:     RmProfilingAdminOnly {}\n", admin_only);
  fmt::print("privileges:    euid {}, CAP_SYS_ADMIN {}\n", facts.is_root ? "0 (root)" : "non-root",
             facts.cap_sys_admin ? (*facts.cap_sys_admin ? "yes" : "no") : "unknown");
  if (facts.injection_path.empty()) {
    fmt::print("other profiler: none injected (CUDA_INJECTION64_PATH unset)\n");
  } else {
    fmt::print(
        "other profiler: CUDA_INJECTION64_PATH={} (ncu, nsys or another tool is attached; "
        "CUPTI allows one subscriber: run rooflinectl outside it)\n",
        facts.injection_path);
  }
}

/// A hint that ties a refusal to what the host facts say, beyond CUPTI's own message.
std::string refusal_hint(const HostProfilingFacts& facts) {
  if (!facts.injection_path.empty()) {
    return "CUDA_INJECTION64_PATH is set: another profiler is attached to this process";
  }
  const bool privileged = facts.is_root || facts.cap_sys_admin.value_or(false);
  if (facts.driver_admin_only.value_or(false) && !privileged) {
    return "the driver restricts counters to admin users and this process is neither root nor "
           "holds CAP_SYS_ADMIN: set NVreg_RestrictProfilingToAdminUsers=0 (modprobe option, "
           "then reload the driver), run as root, or start the container with --cap-add "
           "SYS_ADMIN";
  }
  return "";
}

/// Diagnoses one device; returns true when a sweep with counters can run on it.
bool diagnose_device(int index, const HostProfilingFacts& facts) {
  const DeviceRecord d = query_device(index);
  fmt::print("\ndevice {}:      {} (compute capability {}.{}), {} SMs, {:.1f} GiB, L2 {:.0f} MiB\n",
             d.index, d.name, d.cc_major, d.cc_minor, d.sm_count,
             static_cast<double>(d.memory_bytes) / (1 << 30),
             static_cast<double>(d.l2_bytes) / (1 << 20));
  fmt::print("  clocks:      SM max {:.0f} MHz, memory {:.0f} MHz x {} bit (cudaDevAttr)\n",
             d.sm_clock_max_hz / 1e6, d.memory_clock_hz / 1e6, d.memory_bus_width_bits);
  try {
    if (cudaSetDevice(index) != cudaSuccess) throw environment_error("cudaSetDevice failed");
    fmt::print(
        "  SM clock now: {:.0f} MHz measured by a probe kernel on an idle GPU (clocks "
        "are not locked; locked/application clocks need NVML, not linked)\n",
        measure_sm_clock_hz(nullptr) / 1e6);
  } catch (const Error& e) {
    fmt::print("  SM clock now: not measured: {}\n", e.what());
  }
  int mps = 0;
  const bool mps_known = cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, index) == cudaSuccess;
  if (!mps_known) (void)cudaGetLastError();
  fmt::print("  MIG:         {}\n",
             device_name_says_mig(d.name)
                 ? "this is a MIG instance (by its name); counters need a MIG instance that "
                   "owns its whole GPU instance"
                 : "not a MIG instance by its name (the GPU's MIG mode itself needs NVML / "
                   "nvidia-smi -q; the CUDA runtime cannot tell)");
  fmt::print("  MPS:         {}\n",
             !mps_known ? "unknown" : (mps ? "contexts shared via MPS" : "off"));

  const CounterAccess access = probe_counter_access(index);
  if (access.readable) {
    fmt::print("  counters:    readable (CUPTI range profiler opened with the sweep's metrics)\n");
    return true;
  }
  fmt::print("  counters:    NOT readable: {}\n", access.reason);
  if (const std::string hint = refusal_hint(facts); !hint.empty()) {
    fmt::print("  why:         {}\n", hint);
  }
  fmt::print(
      "  effect:      sweeps run timing-only with null counters; --require-counters "
      "exits 3\n");
  return false;
}

}  // namespace

CLI::App* setup_doctor(CLI::App& app, DoctorOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "doctor",
      "Diagnose the environment: driver, CUDA and CUPTI versions, devices, clocks, "
      "MIG, and whether counters can be read (with the fix when not)");
  sub->add_option("--device", o.device, "Only this CUDA device index (default: all)")
      ->check(device_index());
  return sub;
}

int run_doctor_command(const DoctorOptions& o) {
  if (o.device && *o.device < 0) {
    throw bad_input(fmt::format("invalid --device {}: must be 0 or more", *o.device));
  }
  print_versions();
  const HostProfilingFacts facts = read_host_profiling_facts();
  print_host_facts(facts);

  const int count = device_count();
  if (count == 0) {
    fmt::print(
        "\ndevices:       none visible (check nvidia-smi and CUDA_VISIBLE_DEVICES)\n"
        "verdict:       cannot sweep: no CUDA GPU\n");
    return static_cast<int>(ExitCode::kEnvironment);
  }
  if (o.device && *o.device >= count) {
    throw bad_input(fmt::format("invalid --device {}: allowed 0..{}", *o.device, count - 1));
  }
  bool all_readable = true;
  for (int i = 0; i < count; ++i) {
    if (o.device && i != *o.device) continue;
    all_readable = diagnose_device(i, facts) && all_readable;
  }
  fmt::print("\nverdict:       {}\n", all_readable
                                          ? "ready: sweeps can read counters"
                                          : "timing only: counters cannot be read (see above)");
  return static_cast<int>(all_readable ? ExitCode::kOk : ExitCode::kEnvironment);
}

}  // namespace rooflinectl
