#include "compare/profile_report_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "compare/gpu_match.hpp"
#include "core/error.hpp"

namespace rooflinectl {
namespace {

void check_fraction(double value, const char* flag, bool zero_allowed) {
  if ((zero_allowed ? value >= 0 : value > 0) && value < 1) return;
  throw bad_input(fmt::format("invalid {} {}: must be a fraction in {}0, 1)", flag, value,
                              zero_allowed ? "[" : "("));
}

void check_unique_keys(const ProfileReport& report, const char* side) {
  std::set<std::string> seen;
  for (const KernelSummary& k : report.kernels) {
    if (!seen.insert(k.key).second) {
      throw bad_input(
          fmt::format("the {} report holds kernel '{}' twice", side, kernel_label(k.key, k.name)));
    }
  }
}

std::string settings_text(const ProfileConfig& c) {
  return fmt::format(
      "--kernel-regex '{}', --nvtx-include [{}], --launch-skip {}, --launch-count "
      "{}, --sample-every {}, counters {}, mode {}",
      c.kernel_regex, fmt::join(c.nvtx_include, ", "), c.launch_skip,
      c.launch_count ? std::to_string(*c.launch_count) : "none", c.sample_every,
      c.counters ? "on" : "off", c.mode);
}

std::string first_keys(const ProfileReport& r) {
  std::string text;
  for (size_t i = 0; i < r.kernels.size() && i < 3; ++i) {
    text += fmt::format("{}'{}'", i == 0 ? " e.g. " : ", ",
                        kernel_label(r.kernels[i].key, r.kernels[i].name));
  }
  return text;
}

}  // namespace

void check_profile_compare_options(const ProfileCompareOptions& o) {
  check_fraction(o.gate.time_threshold, "--time-threshold", false);
  check_fraction(o.gate.counter_threshold, "--counter-threshold", false);
  check_fraction(o.gate.traffic_threshold, "--traffic-threshold", false);
  check_fraction(o.min_share, "--min-share", true);
}

void check_profiles_comparable(const ProfileReport& base, const ProfileReport& current,
                               bool allow_different_gpu) {
  if (base.schema_version != current.schema_version) {
    throw bad_input(fmt::format(
        "profile reports have different schema versions: base {}, new {}; profile the older "
        "program again with this rooflinectl",
        base.schema_version, current.schema_version));
  }
  if (!allow_different_gpu && !base.devices.empty() && !current.devices.empty() &&
      !same_gpu(base.devices.front(), current.devices.front())) {
    throw bad_input(fmt::format(
        "profile reports come from different GPUs: base {}, new {}; pass --allow-different-gpu "
        "to compare anyway",
        describe_gpu(base.devices.front()), describe_gpu(current.devices.front())));
  }
  check_unique_keys(base, "base");
  check_unique_keys(current, "new");
}

std::vector<std::string> profile_setting_warnings(const ProfileReport& base,
                                                  const ProfileReport& current) {
  std::vector<std::string> warnings;
  if (!base.devices.empty() && !current.devices.empty()) {
    const DeviceRecord& b = base.devices.front();
    const DeviceRecord& c = current.devices.front();
    if (!same_gpu(b, c)) {
      warnings.push_back(
          fmt::format("different GPUs compared (--allow-different-gpu): base {}, "
                      "new {}",
                      describe_gpu(b), describe_gpu(c)));
    }
    if (b.driver_version != c.driver_version || b.runtime_version != c.runtime_version) {
      warnings.push_back(fmt::format("CUDA driver/runtime differ: base {}/{}, new {}/{}",
                                     b.driver_version, b.runtime_version, c.driver_version,
                                     c.runtime_version));
    }
  }
  for (const auto* r : {&base, &current}) {
    const char* side = r == &base ? "base" : "new";
    if (!r->complete) {
      warnings.push_back(fmt::format(
          "the {} profile is incomplete (a process wrote no end record): launches may be missing",
          side));
    }
    if (r->program.signal) {
      warnings.push_back(
          fmt::format("the {} program was killed by signal {}", side, *r->program.signal));
    } else if (r->program.exit_code && *r->program.exit_code != 0) {
      warnings.push_back(fmt::format("the {} program exited with {}", side, *r->program.exit_code));
    }
    if (!r->config.counters) {
      warnings.push_back(
          fmt::format("counter gate off: the {} profile ran with --no-counters", side));
    }
  }
  const std::string base_settings = settings_text(base.config);
  const std::string new_settings = settings_text(current.config);
  if (base_settings != new_settings) {
    warnings.push_back(fmt::format(
        "the profiles ran with different settings (base {}; new {}): kernels and launches may "
        "differ for that reason",
        base_settings, new_settings));
  }
  return warnings;
}

std::string describe_no_kernel_matched(const ProfileReport& base, const ProfileReport& current) {
  return fmt::format(
      "no kernel of the new profile matches one of the base profile (by name, grid, block, "
      "dynamic shared memory and NVTX path): the base has {} kernel{}{}, the new {}{}; compare "
      "profiles of the same program and settings, or make a new baseline",
      base.kernels.size(), base.kernels.size() == 1 ? "" : "s", first_keys(base),
      current.kernels.size(), first_keys(current));
}

}  // namespace rooflinectl
