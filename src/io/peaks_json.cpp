#include "io/peaks_json.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::ordered_json;

// NaN and Inf are not JSON; a non-finite rate (a zero time) is as unknown as a missing one.
Json optional_number(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return Json(nullptr);
  return Json(*v);
}

CeilingKind parse_ceiling_kind(const std::string& text) {
  for (const CeilingKind kind : kAllCeilingKinds) {
    if (ceiling_key(kind) == text) return kind;
  }
  throw bad_input(fmt::format(
      "invalid ceiling kind '{}': allowed dram_bytes_per_s, l2_bytes_per_s, fp32_flop_per_s, "
      "tensor_bf16_flop_per_s, tensor_fp16_flop_per_s, tensor_fp8_flop_per_s",
      text));
}

Json benchmark_to_json(const PeakBenchmarkRecord& b) {
  Json j;
  j["name"] = b.name;
  j["kind"] = ceiling_key(b.kind);
  j["label"] = b.label;
  j["accounting"] = b.accounting;
  j["launch"] = b.launch;
  j["work_per_launch"] = optional_number(b.work_per_launch);
  j["repetitions"] = b.repetitions;
  j["median_time_s"] = optional_number(b.median_time_s);
  j["min_time_s"] = optional_number(b.min_time_s);
  j["max_time_s"] = optional_number(b.max_time_s);
  j["sm_clock_hz"] = optional_number(b.sm_clock_hz);
  j["rate"] = optional_number(b.rate);
  j["null_reason"] = b.null_reason;
  j["counted_work"] = optional_number(b.counted_work);
  j["counted_metric"] = b.counted_metric;
  return j;
}

PeakBenchmarkRecord benchmark_from_json(const JsonObjectReader& r) {
  PeakBenchmarkRecord b;
  b.name = r.get_string("name");
  b.kind = r.get_parsed("kind", parse_ceiling_kind);
  b.label = r.get_string("label");
  b.accounting = r.get_string("accounting");
  b.launch = r.get_string("launch");
  b.work_per_launch = r.get_double("work_per_launch");
  b.repetitions = r.get_int("repetitions");
  b.median_time_s = r.get_optional_double("median_time_s");
  b.min_time_s = r.get_optional_double("min_time_s");
  b.max_time_s = r.get_optional_double("max_time_s");
  b.sm_clock_hz = r.get_optional_double("sm_clock_hz");
  b.rate = r.get_optional_double("rate");
  b.null_reason = r.get_string("null_reason");
  b.counted_work = r.get_optional_double("counted_work");
  b.counted_metric = r.get_string("counted_metric");
  return b;
}

/// The source of an FP8 ceiling read from a report or cache written before it existed. Such a
/// ceiling is not written back (nor its ridge), so those files round-trip byte for byte.
constexpr const char* kFp8CeilingNotRecorded =
    "not recorded (written before the FP8 tensor ceiling)";

bool not_recorded(const PeakSet& set, CeilingKind kind) {
  const Ceiling& c = set.get(kind);
  return kind == CeilingKind::kTensorFp8 && !c.value && c.source == kFp8CeilingNotRecorded;
}

}  // namespace

Json peak_set_to_json(const PeakSet& set) {
  Json j;
  j["description"] = set.description;
  Json ceilings;
  for (const CeilingKind kind : kAllCeilingKinds) {
    if (not_recorded(set, kind)) continue;
    const Ceiling& c = set.get(kind);
    ceilings[ceiling_key(kind)] = Json{{"value", optional_number(c.value)}, {"source", c.source}};
  }
  j["ceilings"] = ceilings;
  // Derived for readers (ridge = compute / DRAM); not read back.
  Json ridges;
  for (const CeilingKind kind : {CeilingKind::kFp32, CeilingKind::kTensorBf16,
                                 CeilingKind::kTensorFp16, CeilingKind::kTensorFp8}) {
    if (not_recorded(set, kind)) continue;
    std::string name = ceiling_key(kind);
    name = name.substr(0, name.size() - std::string("_flop_per_s").size());
    ridges[name] = optional_number(ridge_flop_per_byte(set, kind));
  }
  j["ridge_points_flop_per_byte"] = ridges;
  return j;
}

void put_peak_set(Json& object, const std::string& key, const PeakSet& set) {
  if (set.null_reason) {
    object[key] = nullptr;
    object[key + "_null_reason"] = *set.null_reason;
    return;
  }
  object[key] = peak_set_to_json(set);
}

PeakSet get_peak_set(const JsonObjectReader& parent, const std::string& key, RoofSource source) {
  if (parent.is_null(key)) {
    const std::string reason_key = key + "_null_reason";
    return unavailable_peak_set(
        source, parent.has(reason_key) ? parent.get_string(reason_key) : "not recorded");
  }
  const JsonObjectReader r = parent.get_object(key);
  PeakSet set;
  set.source = source;
  set.description = r.get_string("description");
  const JsonObjectReader ceilings = r.get_object("ceilings");
  for (const CeilingKind kind : kAllCeilingKinds) {
    // The FP8 ceiling is newer than the format: absent, it is null (no version bump needed).
    if (kind == CeilingKind::kTensorFp8 && !ceilings.has(ceiling_key(kind))) {
      set.get(kind) = Ceiling{std::nullopt, kFp8CeilingNotRecorded};
      continue;
    }
    const JsonObjectReader c = ceilings.get_object(ceiling_key(kind));
    set.get(kind) = Ceiling{c.get_optional_double("value"), c.get_string("source")};
  }
  return set;
}

Json peaks_block_to_json(const PeaksBlock& block) {
  Json j;
  j["roof_requested"] = block.requested ? Json(to_string(*block.requested)) : Json(nullptr);
  j["roof_used"] = to_string(block.used);
  j["note"] = block.note;
  j["measured_cache"] = block.measured_cache;
  put_peak_set(j, "datasheet", block.datasheet);
  put_peak_set(j, "counters", block.counters);
  put_peak_set(j, "measured", block.measured);
  return j;
}

PeaksBlock peaks_block_from_json(const JsonObjectReader& r) {
  PeaksBlock block;
  if (!r.is_null("roof_requested")) {
    block.requested = r.get_parsed("roof_requested", parse_roof_source);
  }
  block.used = r.get_parsed("roof_used", parse_roof_source);
  block.note = r.get_string("note");
  block.measured_cache = r.get_string("measured_cache");
  block.datasheet = get_peak_set(r, "datasheet", RoofSource::kDatasheet);
  block.counters = get_peak_set(r, "counters", RoofSource::kCounters);
  block.measured = get_peak_set(r, "measured", RoofSource::kMeasured);
  return block;
}

Json peaks_record_to_json(const PeaksRecord& record) {
  Json j;
  j["peaks_schema_version"] = kPeaksSchemaVersion;
  j["key"] = Json{{"gpu_uuid", record.key.gpu_uuid},
                  {"driver", record.key.driver},
                  {"sm_clock_max_hz", optional_number(record.key.sm_clock_max_hz)}};
  j["device"] = Json{{"name", record.device_name},
                     {"cc_major", record.cc_major},
                     {"cc_minor", record.cc_minor},
                     {"sm_count", record.sm_count},
                     {"l2_bytes", record.l2_bytes}};
  j["tool_version"] = record.tool_version;
  j["timestamp_utc"] = record.timestamp_utc;
  Json benchmarks = Json::array();
  for (const auto& b : record.benchmarks) benchmarks.push_back(benchmark_to_json(b));
  j["benchmarks"] = benchmarks;
  put_peak_set(j, "datasheet", record.datasheet);
  put_peak_set(j, "counters", record.counters);
  put_peak_set(j, "measured", record.measured);
  return j;
}

std::string peaks_record_to_json_text(const PeaksRecord& record) {
  return peaks_record_to_json(record).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

PeaksRecord peaks_record_from_json_text(const std::string& text, const std::string& origin) {
  const nlohmann::json document = parse_json_text(text, origin);
  const JsonObjectReader r(document, origin, "");
  const int64_t version = r.get_int64("peaks_schema_version");
  if (version != kPeaksSchemaVersion) {
    throw bad_input(
        fmt::format("{}: peaks_schema_version {} is not supported (this rooflinectl "
                    "reads version {})",
                    origin, version, kPeaksSchemaVersion));
  }
  PeaksRecord record;
  const JsonObjectReader key = r.get_object("key");
  record.key.gpu_uuid = key.get_string("gpu_uuid");
  record.key.driver = key.get_string("driver");
  record.key.sm_clock_max_hz = key.get_double("sm_clock_max_hz");
  const JsonObjectReader device = r.get_object("device");
  record.device_name = device.get_string("name");
  record.cc_major = device.get_int("cc_major");
  record.cc_minor = device.get_int("cc_minor");
  record.sm_count = device.get_int("sm_count");
  record.l2_bytes = device.get_int64("l2_bytes");
  record.tool_version = r.get_string("tool_version");
  record.timestamp_utc = r.get_string("timestamp_utc");
  for (const auto& b : r.get_object_array("benchmarks")) {
    record.benchmarks.push_back(benchmark_from_json(b));
  }
  record.datasheet = get_peak_set(r, "datasheet", RoofSource::kDatasheet);
  record.counters = get_peak_set(r, "counters", RoofSource::kCounters);
  record.measured = get_peak_set(r, "measured", RoofSource::kMeasured);
  return record;
}

}  // namespace rooflinectl
