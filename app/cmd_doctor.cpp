#include "cmd_doctor.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/strict_integer.hpp"
#include "core/error.hpp"
#include "core/version.hpp"
#include "cupti/counter_probe.hpp"
#include "device/device_info.hpp"
#include "device/environment_facts.hpp"
#include "io/atomic_file.hpp"
#include "io/device_json.hpp"
#include "measure/clock_probe.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::ordered_json;

/// Versions of the tool and of the CUDA stack it runs on.
struct VersionFacts {
  std::optional<int> driver;  ///< cudaDriverGetVersion; nullopt when no driver is loaded
  int runtime = 0;            ///< cudaRuntimeGetVersion
  std::optional<uint32_t> cupti;
};

/// What doctor found on one device; both outputs are rendered from it.
struct DeviceDiagnosis {
  DeviceRecord record;
  std::optional<double> sm_clock_now_hz;  ///< probe kernel on the idle GPU; nullopt: see error
  std::string sm_clock_error;
  bool mig_instance = false;  ///< by its name (the CUDA runtime has no MIG-mode query)
  std::optional<bool> mps;    ///< cudaDevAttrMpsEnabled; nullopt when the query failed
  CounterAccess counters;
  std::string refusal_hint;  ///< empty when counters are readable or the facts explain nothing
};

/// Everything doctor found. `devices` is empty when no GPU is visible.
struct Diagnosis {
  VersionFacts versions;
  HostProfilingFacts host;
  int visible_devices = 0;
  std::vector<DeviceDiagnosis> devices;

  bool ready() const {
    if (devices.empty()) return false;
    for (const DeviceDiagnosis& d : devices) {
      if (!d.counters.readable) return false;
    }
    return true;
  }
  std::string verdict() const {
    if (visible_devices == 0) return "cannot sweep: no CUDA GPU";
    return ready() ? "ready: sweeps can read counters"
                   : "timing only: counters cannot be read (see above)";
  }
  int exit_code() const {
    return static_cast<int>(ready() ? ExitCode::kOk : ExitCode::kEnvironment);
  }
};

/// "13.0" from cudaDriverGetVersion / cudaRuntimeGetVersion's 1000·major + 10·minor.
std::string cuda_version_text(int version) {
  return fmt::format("{}.{} ({})", version / 1000, (version % 1000) / 10, version);
}

/// "13.0 Update 1" style from CUPTI's 10000·major + 100·minor + update.
std::string cupti_version_text(uint32_t version) {
  return fmt::format("{}.{}.{} ({})", version / 10000, (version / 100) % 100, version % 100,
                     version);
}

/// kGitRevision, or nullopt when the build did not know it.
std::optional<std::string> git_revision() {
  if (kGitRevision[0] == '\0') return std::nullopt;
  return std::string(kGitRevision);
}

VersionFacts read_versions() {
  VersionFacts v;
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
    (void)cudaGetLastError();
  } else {
    v.driver = driver;
  }
  (void)cudaRuntimeGetVersion(&v.runtime);
  v.cupti = cupti_api_version();
  return v;
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

/// Diagnoses one device: its record, the SM clock now, MIG/MPS, and whether counters open.
DeviceDiagnosis diagnose_device(int index, const HostProfilingFacts& facts) {
  DeviceDiagnosis d;
  d.record = query_device(index);
  try {
    if (cudaSetDevice(index) != cudaSuccess) throw environment_error("cudaSetDevice failed");
    d.sm_clock_now_hz = measure_sm_clock_hz(nullptr);
  } catch (const Error& e) {
    d.sm_clock_error = e.what();
  }
  int mps = 0;
  if (cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, index) == cudaSuccess) {
    d.mps = mps != 0;
  } else {
    (void)cudaGetLastError();
  }
  d.mig_instance = device_name_says_mig(d.record.name);
  d.counters = probe_counter_access(index);
  if (!d.counters.readable) d.refusal_hint = refusal_hint(facts);
  return d;
}

std::string versions_text(const VersionFacts& v) {
  std::string out =
      fmt::format("rooflinectl {} ({})\n", kToolVersion, git_revision().value_or("unknown"));
  out += v.driver ? fmt::format("CUDA driver:   supports CUDA {}\n", cuda_version_text(*v.driver))
                  : "CUDA driver:   not found (no NVIDIA driver loaded)\n";
  out += fmt::format("CUDA runtime:  {}\n", cuda_version_text(v.runtime));
  out += fmt::format("CUPTI:         {} (built against {})\n",
                     v.cupti ? cupti_version_text(*v.cupti) : "cuptiGetVersion failed",
                     cupti_version_text(cupti_header_version()));
  return out;
}

std::string host_text(const HostProfilingFacts& facts) {
  std::string admin_only = "unknown (/proc/driver/nvidia/params not readable)";
  if (facts.driver_admin_only) {
    admin_only =
        *facts.driver_admin_only
            ? "1: counters restricted to admin users (NVreg_RestrictProfilingToAdminUsers=1)"
            : "0: any user may read counters";
  }
  std::string out = fmt::format("profiling:     RmProfilingAdminOnly {}\n", admin_only);
  out += fmt::format("privileges:    euid {}, CAP_SYS_ADMIN {}\n",
                     facts.is_root ? "0 (root)" : "non-root",
                     facts.cap_sys_admin ? (*facts.cap_sys_admin ? "yes" : "no") : "unknown");
  if (facts.injection_path.empty()) {
    out += "other profiler: none injected (CUDA_INJECTION64_PATH unset)\n";
  } else {
    out += fmt::format(
        "other profiler: CUDA_INJECTION64_PATH={} (ncu, nsys or another tool is attached; "
        "CUPTI allows one subscriber: run rooflinectl outside it)\n",
        facts.injection_path);
  }
  return out;
}

std::string device_text(const DeviceDiagnosis& diagnosis) {
  const DeviceRecord& d = diagnosis.record;
  std::string out = fmt::format(
      "\ndevice {}:      {} (compute capability {}.{}), {} SMs, {:.1f} GiB, L2 {:.0f} MiB\n",
      d.index, d.name, d.cc_major, d.cc_minor, d.sm_count,
      static_cast<double>(d.memory_bytes) / (1 << 30), static_cast<double>(d.l2_bytes) / (1 << 20));
  out += fmt::format("  clocks:      SM max {:.0f} MHz, memory {:.0f} MHz x {} bit (cudaDevAttr)\n",
                     d.sm_clock_max_hz / 1e6, d.memory_clock_hz / 1e6, d.memory_bus_width_bits);
  out += diagnosis.sm_clock_now_hz
             ? fmt::format(
                   "  SM clock now: {:.0f} MHz measured by a probe kernel on an idle GPU (sweep "
                   "records NVML clocks per sample; `sweep --lock-clocks base` locks them)\n",
                   *diagnosis.sm_clock_now_hz / 1e6)
             : fmt::format("  SM clock now: not measured: {}\n", diagnosis.sm_clock_error);
  out += fmt::format("  MIG:         {}\n",
                     diagnosis.mig_instance
                         ? "this is a MIG instance (by its name); counters need a MIG instance "
                           "that owns its whole GPU instance"
                         : "not a MIG instance by its name (the GPU's MIG mode itself needs NVML "
                           "/ nvidia-smi -q; the CUDA runtime cannot tell)");
  out += fmt::format(
      "  MPS:         {}\n",
      !diagnosis.mps ? "unknown" : (*diagnosis.mps ? "contexts shared via MPS" : "off"));
  if (diagnosis.counters.readable) {
    return out + "  counters:    readable (CUPTI range profiler opened with the sweep's metrics)\n";
  }
  out += fmt::format("  counters:    NOT readable: {}\n", diagnosis.counters.reason);
  if (!diagnosis.refusal_hint.empty()) {
    out += fmt::format("  why:         {}\n", diagnosis.refusal_hint);
  }
  return out +
         "  effect:      sweeps run timing-only with null counters; --require-counters exits 3\n";
}

std::string diagnosis_text(const Diagnosis& diagnosis) {
  std::string out = versions_text(diagnosis.versions) + host_text(diagnosis.host);
  if (diagnosis.visible_devices == 0) {
    return out + fmt::format("\ndevices:       none visible ({}): {}\nverdict:       {}\n",
                             no_device_reason(), no_device_fix(nvidia_driver_loaded()),
                             diagnosis.verdict());
  }
  for (const DeviceDiagnosis& d : diagnosis.devices) out += device_text(d);
  return out + fmt::format("\nverdict:       {}\n", diagnosis.verdict());
}

/// `value` as JSON, null when absent.
template <typename T>
Json or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

/// A text field as JSON, null when empty.
Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

Json device_json(const DeviceDiagnosis& diagnosis) {
  Json j = device_identity_json(diagnosis.record);
  j["sm_clock_now_hz"] = or_null(diagnosis.sm_clock_now_hz);
  j["sm_clock_now_error"] = text_or_null(diagnosis.sm_clock_error);
  j["mig_instance"] = diagnosis.mig_instance;
  j["mps_enabled"] = or_null(diagnosis.mps);
  j["counters_readable"] = diagnosis.counters.readable;
  j["counters_reason"] = text_or_null(diagnosis.counters.reason);
  j["refusal_hint"] = text_or_null(diagnosis.refusal_hint);
  return j;
}

std::string diagnosis_json(const Diagnosis& diagnosis) {
  const VersionFacts& v = diagnosis.versions;
  const HostProfilingFacts& host = diagnosis.host;
  Json devices = Json::array();
  for (const DeviceDiagnosis& d : diagnosis.devices) devices.push_back(device_json(d));
  Json verdict = {{"ready", diagnosis.ready()},
                  {"text", diagnosis.verdict()},
                  {"exit_code", diagnosis.exit_code()}};
  if (diagnosis.visible_devices == 0) verdict["hint"] = no_device_fix(nvidia_driver_loaded());
  const Json out = {{"versions",
                     {{"rooflinectl", kToolVersion},
                      {"git_revision", or_null(git_revision())},
                      {"cuda_driver", or_null(v.driver)},
                      {"cuda_runtime", v.runtime},
                      {"cupti", or_null(v.cupti)},
                      {"cupti_built_against", cupti_header_version()}}},
                    {"host",
                     {{"profiling_admin_only", or_null(host.driver_admin_only)},
                      {"euid_root", host.is_root},
                      {"cap_sys_admin", or_null(host.cap_sys_admin)},
                      {"cuda_injection64_path", text_or_null(host.injection_path)}}},
                    {"visible_devices", diagnosis.visible_devices},
                    {"devices", devices},
                    {"verdict", verdict}};
  return out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

CLI::App* setup_doctor(CLI::App& app, DoctorOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "doctor",
      "Diagnose the environment: driver, CUDA and CUPTI versions, devices, clocks, "
      "MIG, and whether counters can be read (with the fix when not)");
  sub->add_option("--device", o.device, "Only this CUDA device index (default: all)")
      ->transform(device_index());
  sub->add_flag("--json", o.json, "Print the same diagnosis as JSON (default: text)");
  return sub;
}

int run_doctor_command(const DoctorOptions& o) {
  if (o.device && *o.device < 0) {
    throw bad_input(fmt::format("invalid --device {}: must be 0 or more", *o.device));
  }
  Diagnosis diagnosis;
  diagnosis.versions = read_versions();
  diagnosis.host = read_host_profiling_facts();
  diagnosis.visible_devices = device_count();
  if (o.device && diagnosis.visible_devices > 0 && *o.device >= diagnosis.visible_devices) {
    throw bad_input(fmt::format("invalid --device {}: allowed 0..{}", *o.device,
                                diagnosis.visible_devices - 1));
  }
  for (int i = 0; i < diagnosis.visible_devices; ++i) {
    if (o.device && i != *o.device) continue;
    diagnosis.devices.push_back(diagnose_device(i, diagnosis.host));
  }
  write_stdout(o.json ? diagnosis_json(diagnosis) : diagnosis_text(diagnosis));
  return diagnosis.exit_code();
}

}  // namespace rooflinectl
