#include "device/gpu_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <set>

#include "core/ascii_case.hpp"
#include "core/error.hpp"
#include "core/json_input.hpp"
#include "device/gpu_spec_embedded.hpp"

namespace rooflinectl {
namespace {

/// Plausible range of one unit. A value outside it is almost always written in another unit
/// (TB/s instead of B/s, GB instead of bytes), which would silently move every ridge point.
struct UnitRange {
  const char* unit;
  double min;
  double max;
};
constexpr UnitRange kBytes{"bytes", 1e9, 1e13};  // device memory: 1 GB .. 10 TB
constexpr UnitRange kBytesPerS{"bytes/s", 1e10, 1e14};
constexpr UnitRange kL2Bytes{"bytes", 1e5, 1e10};
constexpr UnitRange kHz{"Hz", 1e8, 1e10};
constexpr UnitRange kFlopPerS{"FLOP/s", 1e11, 1e17};
constexpr int kMaxSmCount = 10000;

const std::vector<std::string> kTensorDtypes = {"fp16", "bf16", "tf32", "fp8"};

SpecValue read_value(const JsonObjectReader& parent, const std::string& key,
                     const UnitRange& range) {
  const JsonObjectReader r = parent.get_object(key);
  r.reject_unknown_keys({"value", "source"});
  SpecValue v;
  v.value = r.get_double("value");
  v.source = r.get_string("source");
  if (!(v.value > 0)) r.fail_key("value", fmt::format("must be > 0, found {}", v.value));
  if (v.value < range.min || v.value > range.max) {
    r.fail_key("value", fmt::format("{:g} is not plausible in {} (expected {:g} .. {:g}); "
                                    "write SI units, e.g. 4.8e12 for 4.8 TB/s",
                                    v.value, range.unit, range.min, range.max));
  }
  if (v.source.find_first_not_of(" \t") == std::string::npos) {
    r.fail_key("source", "must name where the figure comes from (datasheet and version)");
  }
  return v;
}

void parse_compute_capability(const JsonObjectReader& r, GpuSpec& spec) {
  const std::string text = r.get_string("compute_capability");
  int major = 0, minor = 0;
  char dot = 0;
  size_t used = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%zn", &major, &dot, &minor, &used) != 3 || dot != '.' ||
      used != text.size() || major <= 0 || minor < 0) {
    r.fail_key(
        "compute_capability",
        fmt::format("'{}' is not a compute capability: expected MAJOR.MINOR, e.g. \"9.0\"", text));
  }
  spec.cc_major = major;
  spec.cc_minor = minor;
}

}  // namespace

GpuSpec parse_gpu_spec(const std::string& json_text, const std::string& origin) {
  const nlohmann::json document = parse_json_text(json_text, origin);
  const JsonObjectReader r(document, origin, "");
  r.reject_unknown_keys({"id", "name", "device_names", "compute_capability", "sm_count",
                         "memory_bytes", "hbm_bytes_per_s", "l2_bytes", "boost_clock_hz",
                         "dense_tensor_flop_per_s", "fp32_flop_per_s", "fp64_flop_per_s"});
  GpuSpec spec;
  spec.id = r.get_string("id");
  if (spec.id.empty() ||
      spec.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
    r.fail_key("id",
               fmt::format("'{}' must be non-empty lower-case letters, digits and '-'", spec.id));
  }
  spec.name = r.get_string("name");
  if (spec.name.empty()) r.fail_key("name", "must not be empty");
  spec.device_names = r.get_string_array("device_names");
  if (spec.device_names.empty()) r.fail_key("device_names", "must list at least one name");
  for (const auto& name : spec.device_names) {
    if (name.empty()) r.fail_key("device_names", "names must not be empty");
  }
  parse_compute_capability(r, spec);

  const JsonObjectReader sm = r.get_object("sm_count");
  sm.reject_unknown_keys({"value", "source"});
  const int64_t sm_count = sm.get_int64("value");
  if (sm_count <= 0 || sm_count > kMaxSmCount) {
    sm.fail_key("value", fmt::format("{} is not an SM count (1 .. {})", sm_count, kMaxSmCount));
  }
  spec.sm_count_source = sm.get_string("source");
  if (spec.sm_count_source.empty()) sm.fail_key("source", "must not be empty");
  spec.sm_count = static_cast<int>(sm_count);

  spec.memory_bytes = read_value(r, "memory_bytes", kBytes);
  spec.hbm_bytes_per_s = read_value(r, "hbm_bytes_per_s", kBytesPerS);
  if (r.has("l2_bytes")) spec.l2_bytes = read_value(r, "l2_bytes", kL2Bytes);
  if (r.has("boost_clock_hz")) spec.boost_clock_hz = read_value(r, "boost_clock_hz", kHz);
  if (r.has("dense_tensor_flop_per_s")) {
    const JsonObjectReader tensor = r.get_object("dense_tensor_flop_per_s");
    tensor.reject_unknown_keys(kTensorDtypes);
    for (const auto& dtype : kTensorDtypes) {
      if (tensor.has(dtype))
        spec.dense_tensor_flop_per_s[dtype] = read_value(tensor, dtype, kFlopPerS);
    }
  }
  if (r.has("fp32_flop_per_s")) spec.fp32_flop_per_s = read_value(r, "fp32_flop_per_s", kFlopPerS);
  if (r.has("fp64_flop_per_s")) spec.fp64_flop_per_s = read_value(r, "fp64_flop_per_s", kFlopPerS);
  return spec;
}

const std::vector<GpuSpec>& builtin_gpu_specs() {
  static const std::vector<GpuSpec> specs = [] {
    std::vector<GpuSpec> out;
    std::set<std::string> ids;
    for (const auto& file : embedded_gpu_spec_files()) {
      GpuSpec spec = parse_gpu_spec(file.json_text, file.path);
      if (!ids.insert(spec.id).second) {
        throw bad_input(fmt::format("{}: duplicate GPU spec id '{}'", file.path, spec.id));
      }
      out.push_back(std::move(spec));
    }
    return out;
  }();
  return specs;
}

const GpuSpec* match_gpu_spec(const std::string& device_name, int cc_major, int cc_minor,
                              int sm_count) {
  for (const auto& spec : builtin_gpu_specs()) {
    if (spec.cc_major != cc_major || spec.cc_minor != cc_minor || spec.sm_count != sm_count)
      continue;
    for (const auto& name : spec.device_names) {
      if (name == device_name) return &spec;
    }
  }
  return nullptr;
}

const GpuSpec& find_gpu_spec(const std::string& id) {
  std::vector<std::string> ids;
  for (const auto& spec : builtin_gpu_specs()) {
    if (equal_ignoring_case(spec.id, id)) return spec;
    ids.push_back(spec.id);
  }
  throw bad_input(fmt::format("unknown GPU '{}': known {}", id, fmt::join(ids, ", ")));
}

}  // namespace rooflinectl
