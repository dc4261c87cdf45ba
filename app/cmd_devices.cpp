#include "cmd_devices.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "core/error.hpp"
#include "cupti/counter_probe.hpp"
#include "device/device_info.hpp"
#include "device/environment_facts.hpp"
#include "io/device_json.hpp"

namespace rooflinectl {
namespace {

/// Fills the record's counter fields with the probe `doctor` and the sweep share.
void probe_counters(DeviceRecord& record) {
  const CounterAccess access = probe_counter_access(record.index);
  record.counters_available = access.readable;
  record.counters_reason = access.reason;
}

}  // namespace

CLI::App* setup_devices(CLI::App& app, DevicesOptions& o) {
  CLI::App* sub = app.add_subcommand("devices",
                                     "List GPUs: name, compute capability, SMs, "
                                     "memory, clocks, whether counters can be read");
  sub->add_flag("--json", o.json, "Print JSON (default: text)");
  return sub;
}

int run_devices_command(const DevicesOptions& o) {
  const int count = device_count();
  if (count == 0) {
    const std::string reason = no_device_reason();
    // Scripts reading --json get a JSON answer on stdout as well as the exit code (3).
    if (o.json) {
      const nlohmann::ordered_json none = {{"devices", nlohmann::ordered_json::array()},
                                           {"error", "no CUDA GPU found"},
                                           {"reason", reason},
                                           {"hint", no_device_fix(nvidia_driver_loaded())}};
      fmt::print("{}\n", none.dump(2));
    }
    throw environment_error(no_device_message());
  }
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (int i = 0; i < count; ++i) {
    DeviceRecord d = query_device(i);
    probe_counters(d);
    if (o.json) {
      nlohmann::ordered_json j = device_identity_json(d);
      j["driver_version"] = d.driver_version;
      j["runtime_version"] = d.runtime_version;
      j["counters_available"] = d.counters_available;
      j["counters_reason"] = d.counters_reason;
      list.push_back(std::move(j));
      continue;
    }
    fmt::print(
        "{}: {} (cc {}.{}), {} SMs, {:.1f} GiB, L2 {:.0f} MiB, SM clock max {:.0f} MHz, "
        "memory clock {:.0f} MHz x {} bit, driver {}, runtime {}\n   counters: {}\n",
        d.index, d.name, d.cc_major, d.cc_minor, d.sm_count,
        static_cast<double>(d.memory_bytes) / (1 << 30),
        static_cast<double>(d.l2_bytes) / (1 << 20), d.sm_clock_max_hz / 1e6,
        d.memory_clock_hz / 1e6, d.memory_bus_width_bits, d.driver_version, d.runtime_version,
        d.counters_available ? "readable" : "NOT readable: " + d.counters_reason);
  }
  if (o.json) fmt::print("{}\n", list.dump(2));
  return 0;
}

}  // namespace rooflinectl
