#include "io/json_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <optional>
#include <utility>

#include "core/parallel_for.hpp"
#include "core/sweep_plan.hpp"
#include "io/peaks_json.hpp"
#include "result/counter_fields.hpp"
#include "roofline/above_roof_guard.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::ordered_json;

std::string non_finite_reason(double v) {
  if (std::isnan(v)) return "non-finite value (not a number)";
  return v > 0 ? "non-finite value (+infinite)" : "non-finite value (-infinite)";
}

// NaN and Inf are not JSON. A non-finite double here is an upstream bug (a division by a zero
// time, a counter glitch), but it is written as null plus "<key>_null_reason" instead of
// throwing: the report comes at the end of a sweep that may have run for an hour, and one bad
// number should be flagged where it sits, not cost every other point.
void put_number(Json& object, const std::string& key, double v) {
  if (std::isfinite(v)) {
    object[key] = v;
    return;
  }
  object[key] = nullptr;
  object[key + "_null_reason"] = non_finite_reason(v);
}

// An empty object with room for `members` members. ordered_json keeps an object's members in a
// std::vector of (const key, value) pairs; a const key cannot be moved, so each time that vector
// grows it copies every member, nested values and all. An object that holds big values (the
// points, a point's counters and timing) is given its room up front: without it, writing a
// 2016-point report copied the whole points array once more (the root's ninth key) and every
// point's counters and timing several times.
Json object_with_room(size_t members) {
  Json j = Json::object();
  j.get_ref<Json::object_t&>().reserve(members);
  return j;
}

void put_optional(Json& object, const std::string& key, const std::optional<double>& v) {
  if (!v) {
    object[key] = nullptr;
    return;
  }
  put_number(object, key, *v);
}

// Only a paged KV cache is written: absent keys read as contiguous, the layout of every report
// before paged decode existed, so those reports (and their golden files) stay as they are.
void put_kv_layout(Json& j, const Shape& s) {
  if (s.kv_layout != KvLayout::kPaged) return;
  j["kv_layout"] = to_string(s.kv_layout);
  j["page_size"] = s.page_size;
}

// Explicit GEMM dims are written only when set (gemm points of a sweep given --gemm-n/--gemm-k):
// absent keys read as 0, the FFN up projection of every report before them.
void put_gemm_dims(Json& j, const Shape& s) {
  if (s.gemm_n != 0) j["gemm_n"] = s.gemm_n;
  if (s.gemm_k != 0) j["gemm_k"] = s.gemm_k;
}

// Explicit layer widths are written only when set (--hidden, --ffn-dim, and `layer`'s points):
// absent keys read as 0, heads·head_dim and 4·d_model, the widths of every report before them.
void put_layer_widths(Json& j, const Shape& s) {
  if (s.hidden != 0) j["hidden"] = s.hidden;
  if (s.ffn_dim != 0) j["ffn_dim"] = s.ffn_dim;
}

// Only an FP8 KV cache is written: absent reads as auto (the point's dtype), the KV dtype of every
// report before FP8 decode existed.
void put_kv_dtype(Json& j, const Shape& s) {
  if (s.kv_dtype != KvDtype::kAuto) j["kv_dtype"] = to_string(s.kv_dtype);
}

// Only FP8 GEMM inputs are written: absent reads as auto (the point's dtype), the gemm inputs of
// every report before FP8 GEMM existed (so the schema version stays: older reports read as before).
void put_gemm_dtype(Json& j, const Shape& s) {
  if (s.gemm_dtype != GemmDtype::kAuto) j["gemm_dtype"] = to_string(s.gemm_dtype);
}

// A query length other than L is written only when set (--q-len): absent reads as 0, L_q = L, the
// query length of every report before --q-len.
void put_q_len(Json& j, const Shape& s) {
  if (s.q_len != 0) j["q_len"] = s.q_len;
}

Json shape_to_json(const Shape& s) {
  Json j;
  j["batch"] = s.batch;
  j["heads"] = s.heads;
  j["kv_heads"] = s.kv_heads;
  j["head_dim"] = s.head_dim;
  j["seq_len"] = s.seq_len;
  put_q_len(j, s);
  j["causal"] = s.causal;
  j["dtype"] = to_string(s.dtype);
  j["gelu_form"] = to_string(s.gelu_form);
  put_kv_layout(j, s);
  put_gemm_dims(j, s);
  put_layer_widths(j, s);
  put_kv_dtype(j, s);
  put_gemm_dtype(j, s);
  j["d_model"] = s.d_model();  // derived, for readers of the file; not read back
  return j;
}

Json validation_to_json(const Validation& v) {
  Json j;
  j["passed"] = v.passed;
  j["reference"] = v.reference;
  Json tolerance;
  put_number(tolerance, "abs", v.tolerance.abs);
  put_number(tolerance, "rel", v.tolerance.rel);
  j["tolerance"] = std::move(tolerance);
  j["checked_elements"] = v.checked_elements;
  j["failed_elements"] = v.failed_elements;
  j["non_finite_elements"] = v.non_finite_elements;
  put_number(j, "max_abs_error", v.max_abs_error);
  put_number(j, "worst_ratio", v.worst_ratio);
  j["detail"] = v.detail;
  if (v.quantization) {  // absent: the inputs were not quantized
    const QuantizationError& q = *v.quantization;
    Json quantization;
    quantization["reference"] = q.reference;
    quantization["checked_elements"] = q.checked_elements;
    put_number(quantization, "max_abs_difference", q.max_abs_difference);
    put_number(quantization, "rms_difference", q.rms_difference);
    put_number(quantization, "max_abs_reference", q.max_abs_reference);
    j["quantization_error"] = std::move(quantization);
  }
  return j;
}

Json timing_to_json(const TimingResult& t) {
  Json j = object_with_room(20);  // the 16 keys below, and null reasons
  Json samples = Json::array();
  std::string samples_reason;
  for (size_t i = 0; i < t.samples_s.size(); ++i) {
    const double s = t.samples_s[i];
    if (std::isfinite(s)) {
      samples.push_back(s);
      continue;
    }
    samples.push_back(nullptr);
    if (samples_reason.empty()) {
      samples_reason = non_finite_reason(s) + " at index " + std::to_string(i);
    }
  }
  j["samples_s"] = std::move(samples);
  if (!samples_reason.empty()) j["samples_s_null_reason"] = samples_reason;
  put_number(j, "median_s", t.median_s);
  put_number(j, "min_s", t.min_s);
  put_number(j, "max_s", t.max_s);
  j["repetitions"] = t.samples_s.size();  // derived from samples_s; not read back
  j["warmup_runs"] = t.warmup_runs;
  j["l2_flushed"] = t.l2_flushed;
  if (!t.cache_policy.empty()) j["cache_policy"] = t.cache_policy;  // empty: an older report
  put_optional(j, "sm_clock_hz", t.sm_clock_hz);
  put_optional(j, "noise", t.noise);  // derived from samples_s; recomputed when read
  if (!t.sampling.empty()) j["sampling"] = t.sampling;  // empty: an older report
  if (t.sample_clocks) {
    Json clocks = Json::array();
    for (const ClockReading& c : *t.sample_clocks) {
      Json reading;
      put_number(reading, "sm_clock_hz", c.sm_clock_hz);
      put_number(reading, "memory_clock_hz", c.memory_clock_hz);
      reading["clock_event_reasons"] = c.clock_event_reasons;
      reading["throttled"] = c.power_or_thermal_throttled;  // derived; recomputed when read
      clocks.push_back(std::move(reading));
    }
    j["sample_clocks"] = std::move(clocks);
  } else {
    j["sample_clocks"] = nullptr;
    j["sample_clocks_null_reason"] =
        t.sample_clocks_null_reason.empty() ? "not recorded" : t.sample_clocks_null_reason;
  }
  // Derived from sample_clocks; recomputed when read.
  const auto throttled = t.throttled_samples();
  j["throttled_samples"] = throttled ? Json(*throttled) : Json(nullptr);
  return j;
}

Json clock_lock_to_json(const ClockLockRecord& lock) {
  Json j;
  j["setting"] = lock.setting;
  put_number(j, "sm_clock_hz", lock.sm_clock_hz);
  j["source"] = lock.source;
  j["restore"] = lock.restore;
  return j;
}

Json kernel_counters_to_json(const KernelCounters& k) {
  Json j = object_with_room(1 + std::size(kCounterFields) + std::size(kDerivedCounterFields));
  j["name"] = k.name;
  for (const CounterField& f : kCounterFields) {
    // tensor_fp8_flop is counted only by sweeps with FP8 GEMM points: written only when measured
    // (absent reads as null, KeyPresence::kMayBeAbsent), so every other report, profile and
    // sweep, stays as it was written before the field existed.
    if (f.member == &KernelCounters::tensor_fp8_flop && !(k.*f.member)) continue;
    put_optional(j, f.json_key, k.*f.member);
  }
  // Derived, written so a reader needs no formulas; not read back.
  for (const DerivedCounterField& f : kDerivedCounterFields) {
    put_optional(j, f.json_key, (k.*f.value)());
  }
  return j;
}

Json counters_to_json(const CounterResult& c) {
  Json j = object_with_room(16);  // the 13 keys below, and null reasons
  j["null_reason"] = c.null_reason ? Json(*c.null_reason) : Json(nullptr);
  j["passes"] = c.passes;
  j["cache_policy"] = c.cache_policy;
  j["note"] = c.note;
  Json sessions = Json::array();
  for (const auto& s : c.sessions) {
    Json session{
        {"role", s.role}, {"replay", s.replay}, {"passes", s.passes}, {"metrics", s.metrics}};
    put_optional(session, "wall_time_s", s.wall_time_s);
    if (s.points_in_collection) session["points_in_collection"] = *s.points_in_collection;
    sessions.push_back(std::move(session));
  }
  j["sessions"] = std::move(sessions);
  put_optional(j, "dram_writeback_bytes", c.dram_writeback_bytes);
  if (!c.dram_writeback_bytes) j["dram_writeback_bytes_null_reason"] = c.writeback_null_reason;
  j["writeback_method"] = c.writeback_method;
  // Derived (CounterResult methods); not read back.
  put_optional(j, "dram_write_bytes_isolated", c.dram_write_bytes_isolated());
  put_optional(j, "dram_bytes_isolated", c.dram_bytes_isolated());
  Json kernels = Json::array();
  for (const auto& k : c.kernels) kernels.push_back(kernel_counters_to_json(k));
  j["kernels"] = std::move(kernels);
  j["total"] = kernel_counters_to_json(c.total);
  Json peaks;
  for (const CounterPeakField& f : kCounterPeakFields) {
    // As tensor_fp8_flop above: written only where an FP8 GEMM point's sweep read it.
    if (f.member == &CounterPeaks::tensor_fp8_per_cycle && !(c.peaks.*f.member)) continue;
    put_optional(peaks, f.json_key, c.peaks.*f.member);
  }
  j["peaks"] = std::move(peaks);
  return j;
}

Json analytic_to_json(const AnalyticResult& a) {
  Json j;
  put_number(j, "flop", a.flop);
  put_number(j, "min_dram_bytes", a.min_dram_bytes);
  put_number(j, "implemented_dram_bytes", a.implemented_dram_bytes);
  j["flop_formula"] = a.flop_formula;
  j["bytes_formula"] = a.bytes_formula;
  return j;
}

Json roofline_to_json(const RooflinePoint& r) {
  Json j = object_with_room(31);  // the 27 keys below, and null reasons
  j["pipe"] = to_string(r.roof.pipe);
  Json roof;
  put_number(roof, "peak_flop_per_s", r.roof.peak_flop_per_s);
  put_number(roof, "peak_bytes_per_s", r.roof.peak_bytes_per_s);
  roof["source"] = r.roof.source;
  roof["source_kind"] = to_string(r.roof.source_kind);
  put_optional(roof, "l2_bytes_per_s", r.roof.l2_bytes_per_s);
  roof["l2_source"] = r.roof.l2_source;
  roof["l2_source_kind"] =
      r.roof.l2_source_kind ? Json(to_string(*r.roof.l2_source_kind)) : Json(nullptr);
  j["roof"] = std::move(roof);
  put_number(j, "flop", r.flop);
  put_number(j, "dram_bytes", r.dram_bytes);
  put_optional(j, "dram_bytes_in_window", r.dram_bytes_in_window);
  put_optional(j, "l2_bytes", r.l2_bytes);
  put_number(j, "time_s", r.time_s);
  put_number(j, "arithmetic_intensity_flop_per_byte", r.arithmetic_intensity_flop_per_byte);
  put_optional(j, "in_window_arithmetic_intensity_flop_per_byte",
               r.in_window_arithmetic_intensity_flop_per_byte);
  put_optional(j, "l2_arithmetic_intensity_flop_per_byte", r.l2_arithmetic_intensity_flop_per_byte);
  put_number(j, "achieved_flop_per_s", r.achieved_flop_per_s);
  put_number(j, "achieved_bytes_per_s", r.achieved_bytes_per_s);
  put_optional(j, "achieved_l2_bytes_per_s", r.achieved_l2_bytes_per_s);
  put_number(j, "ridge_flop_per_byte", r.ridge_flop_per_byte);
  put_optional(j, "l2_ridge_flop_per_byte", r.l2_ridge_flop_per_byte);
  put_number(j, "dram_attainable_flop_per_s", r.dram_attainable_flop_per_s);
  put_optional(j, "l2_attainable_flop_per_s", r.l2_attainable_flop_per_s);
  put_number(j, "attainable_flop_per_s", r.attainable_flop_per_s);
  put_number(j, "fraction_of_roof", r.fraction_of_roof);
  j["above_roof"] = r.above_roof;
  j["write_back_after_window"] = r.write_back_after_window;
  // The guard's message (derived from the fields above; not read back): an error, not a percentage.
  const auto above_roof = above_roof_error(r);
  j["above_roof_error"] = above_roof ? Json(*above_roof) : Json(nullptr);
  j["bound"] = to_string(r.bound);
  j["binding_level"] = to_string(r.binding_level);
  j["l2_null_reason"] = r.l2_null_reason;
  j["basis"] = r.basis;
  // Empty: the caller did not say (a reader then assumes the schema-1 meaning).
  if (!r.bytes_basis.empty()) j["bytes_basis"] = r.bytes_basis;
  return j;
}

Json reconciliation_to_json(const Reconciliation& r) {
  Json j;
  Json checks = Json::array();
  for (const auto& c : r.checks) {
    Json check;
    check["quantity"] = c.quantity;
    check["reference"] = c.reference;
    put_number(check, "measured", c.measured);
    put_number(check, "reference_value", c.reference_value);
    put_number(check, "ratio", c.ratio);
    put_optional(check, "band_low", c.band_low);
    put_optional(check, "band_high", c.band_high);
    check["flagged"] = c.flagged;
    check["explanation"] = c.explanation;
    checks.push_back(std::move(check));
  }
  j["checks"] = std::move(checks);
  j["null_reason"] = r.null_reason;
  return j;
}

Json point_to_json(const PointResult& p) {
  Json j = object_with_room(24);  // the 19 keys below, and null reasons
  j["op"] = p.op;
  j["version"] = p.version;
  j["shape"] = shape_to_json(p.shape);
  j["status"] = to_string(p.status);
  j["reason"] = p.reason;
  j["seed"] = p.seed;
  // The same seed as text: JSON readers that hold numbers as doubles (JavaScript, jq, Python's
  // json with parse_int=float) round integers above 2^53, and most seeds are above it.
  j["seed_hex"] = fmt::format("0x{:016x}", p.seed);
  j["device_bytes_needed"] = p.device_bytes_needed;
  j["validation"] = p.validation ? validation_to_json(*p.validation) : Json(nullptr);
  j["timing"] = p.timing ? timing_to_json(*p.timing) : Json(nullptr);
  j["counters"] = counters_to_json(p.counters);
  j["analytic"] = analytic_to_json(p.analytic);
  j["roofline"] = p.roofline ? roofline_to_json(*p.roofline) : Json(nullptr);
  j["roofline_null_reason"] = p.roofline_null_reason;
  put_optional(j, "tokens_per_s", p.tokens_per_s);
  j["reconciliation"] =
      p.reconciliation ? reconciliation_to_json(*p.reconciliation) : Json(nullptr);
  put_optional(j, "peak_device_memory_bytes", p.peak_device_memory_bytes);
  if (!p.peak_device_memory_bytes) {
    j["peak_device_memory_bytes_null_reason"] = p.peak_device_memory_null_reason;
  }
  if (p.source) j["source"] = *p.source;
  return j;
}

Json device_to_json(const DeviceRecord& d) {
  Json j;
  j["index"] = d.index;
  j["name"] = d.name;
  // Reports read from before these keys existed are written back without them.
  if (d.identity_recorded) {
    j["uuid"] = d.uuid.empty() ? Json(nullptr) : Json(d.uuid);
    j["pci_bus_id"] = d.pci_bus_id.empty() ? Json(nullptr) : Json(d.pci_bus_id);
    j["vbios_version"] = d.vbios_version ? Json(*d.vbios_version) : Json(nullptr);
    j["ecc_enabled"] = d.ecc_enabled ? Json(*d.ecc_enabled) : Json(nullptr);
    j["power_limit_w"] = d.power_limit_w ? Json(*d.power_limit_w) : Json(nullptr);
    j["mig_enabled"] = d.mig_enabled ? Json(*d.mig_enabled) : Json(nullptr);
    if (!d.fingerprint_null_reason.empty()) {
      j["fingerprint_null_reason"] = d.fingerprint_null_reason;
    }
  }
  j["cc_major"] = d.cc_major;
  j["cc_minor"] = d.cc_minor;
  j["sm_count"] = d.sm_count;
  j["l2_bytes"] = d.l2_bytes;
  j["memory_bytes"] = d.memory_bytes;
  put_number(j, "sm_clock_max_hz", d.sm_clock_max_hz);
  put_number(j, "memory_clock_hz", d.memory_clock_hz);
  j["memory_bus_width_bits"] = d.memory_bus_width_bits;
  j["driver_version"] = d.driver_version;
  j["runtime_version"] = d.runtime_version;
  j["counters_available"] = d.counters_available;
  j["counters_reason"] = d.counters_reason;
  j["clock_lock"] = d.clock_lock ? clock_lock_to_json(*d.clock_lock) : Json(nullptr);
  return j;
}

Json canary_to_json(const CanaryResult& c) {
  Json j;
  put_optional(j, "copy_bytes_per_s", c.copy_bytes_per_s);
  j["null_reason"] = c.null_reason;
  j["copy_bytes"] = c.copy_bytes;
  Json samples = Json::array();
  for (const double s : c.samples_s) {
    // A non-finite time would be an upstream bug; JSON has no NaN, so it is stored as null.
    samples.push_back(std::isfinite(s) ? Json(s) : Json(nullptr));
  }
  j["samples_s"] = std::move(samples);
  j["method"] = c.method;
  return j;
}

}  // namespace

nlohmann::ordered_json counter_result_to_json(const CounterResult& counters) {
  return counters_to_json(counters);
}

nlohmann::ordered_json roofline_point_to_json(const RooflinePoint& point) {
  return roofline_to_json(point);
}

nlohmann::ordered_json device_record_to_json(const DeviceRecord& device) {
  return device_to_json(device);
}

namespace {

/// The names of `values` (dtypes or GELU forms): one as a string, several as an array.
template <typename T>
Json texts(const std::vector<T>& values) {
  if (values.size() == 1) return Json(to_string(values.front()));
  Json array = Json::array();
  for (const T& value : values) array.push_back(to_string(value));
  return array;
}

}  // namespace

nlohmann::ordered_json sweep_config_to_json(const SweepConfig& c) {
  Json j;
  j["ops"] = c.ops;
  j["seq"] = c.seq_spec;
  j["seq_lens"] = c.seq_lens;
  // Each shape axis as its one value, or as the array of its values when swept as a list.
  const SweepAxes& a = c.axes;
  j["batch"] = a.batch.empty() ? Json(c.base.batch) : Json(a.batch);
  j["heads"] = a.heads.empty() ? Json(c.base.heads) : Json(a.heads);
  j["kv_heads"] = a.kv_heads.empty() ? Json(c.base.kv_heads) : Json(a.kv_heads);
  j["head_dim"] = a.head_dim.empty() ? Json(c.base.head_dim) : Json(a.head_dim);
  j["dtype"] = texts(axis_values(a.dtype, c.base.dtype));
  j["causal"] = a.causal.empty() ? Json(c.base.causal) : Json(a.causal);
  j["mask_alignment"] = kCausalMaskAlignment;  // fixed by the kernels; written, not read back
  j["gelu_form"] = texts(axis_values(a.gelu_form, c.base.gelu_form));
  put_kv_layout(j, c.base);
  // Absent when auto (put_kv_dtype), an array when swept as a list.
  if (a.kv_dtype.empty()) {
    put_kv_dtype(j, c.base);
  } else {
    j["kv_dtype"] = texts(a.kv_dtype);
  }
  if (a.gemm_dtype.empty()) {
    put_gemm_dtype(j, c.base);
  } else {
    j["gemm_dtype"] = texts(a.gemm_dtype);
  }
  // Absent when L (put_q_len), an array (0 standing for L) when swept as a list.
  if (a.q_len.empty()) {
    put_q_len(j, c.base);
  } else {
    j["q_len"] = a.q_len;
  }
  put_gemm_dims(j, c.base);
  put_layer_widths(j, c.base);
  if (!c.filter.empty()) j["filter"] = c.filter;             // absent without --filter
  if (!c.model_preset.empty()) j["model"] = c.model_preset;  // absent without --model
  j["repetitions"] = c.repetitions;
  j["max_noise"] = c.max_noise ? Json(*c.max_noise) : Json(nullptr);
  j["min_samples"] = c.min_samples;
  j["min_time_s"] = c.min_time_s;
  j["max_time_s"] = c.max_time_s;
  j["warmup_runs"] = c.warmup_runs;
  j["counters"] = c.counters;
  j["warm_l2"] = c.warm_l2;
  j["sm_throughput"] = c.sm_throughput;
  j["device"] = c.device;
  j["lock_clocks"] = c.lock_clocks.empty() ? Json(nullptr) : Json(c.lock_clocks);
  // Absent when no version was on record, so that reports written before the key read back and
  // are written again unchanged.
  if (!c.kernels.empty()) j["kernels"] = c.kernels;
  // Absent for a sweep of every point (and in a merged report, which holds every shard's).
  if (c.shard) {
    j["shard"] = Json{{"index", c.shard->index},
                      {"count", c.shard->count},
                      {"assignment", c.shard->assignment()},
                      {"planned_points", plan_all_points(c).size()},
                      {"shard_points", plan_points(c).size()}};
    if (!c.shard->plan_indices.empty()) j["shard"]["plan_indices"] = c.shard->plan_indices;
  }
  return j;
}

nlohmann::ordered_json sweep_config_file_json(const SweepConfig& c) {
  // The report's record of the config, less what the loader does not read: the expanded lengths
  // and the mask alignment (derived), and the CLI-only device, clock lock, shard and preset name.
  Json j = sweep_config_to_json(c);
  for (const char* key :
       {"seq_lens", "mask_alignment", "device", "lock_clocks", "shard", "model"}) {
    j.erase(key);
  }
  if (!c.max_noise) j.erase("max_noise");  // null in a report; a config file leaves it out
  return j;
}

nlohmann::ordered_json report_to_json(const Report& report) {
  Json j = object_with_room(9);  // schema_version ... sources
  j["schema_version"] = kReportSchemaVersion;
  Json tool{{"version", report.tool_version}};
  if (report.git_revision.empty()) {
    tool["git_revision"] = nullptr;
    tool["git_revision_null_reason"] = kGitRevisionNullReason;
  } else {
    tool["git_revision"] = report.git_revision;
  }
  j["tool"] = std::move(tool);
  j["timestamp_utc"] = report.timestamp_utc;
  j["device"] = device_to_json(report.device);
  j["config"] = sweep_config_to_json(report.config);
  j["peaks"] = report.peaks ? Json(peaks_block_to_json(*report.peaks)) : Json(nullptr);
  // Points are independent: a merged report of thousands is built on the host's cores (each
  // chunk of 256 or more points on one thread, in order, so the output is the same).
  std::vector<Json> points(report.points.size());
  parallel_for(static_cast<int64_t>(points.size()), 256, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      points[static_cast<size_t>(i)] = point_to_json(report.points[static_cast<size_t>(i)]);
    }
  });
  j["points"] = Json(std::move(points));
  if (report.canary) j["canary"] = canary_to_json(*report.canary);
  if (!report.sources.empty()) {
    Json sources = Json::array();
    for (const MergeSource& source : report.sources) {
      Json entry;
      entry["file"] = source.file;
      entry["shard"] = source.shard.text();
      entry["timestamp_utc"] = source.timestamp_utc;
      entry["device"] = device_to_json(source.device);
      entry["peaks"] = source.peaks ? Json(peaks_block_to_json(*source.peaks)) : Json(nullptr);
      entry["canary"] = source.canary ? canary_to_json(*source.canary) : Json(nullptr);
      sources.push_back(std::move(entry));
    }
    j["sources"] = std::move(sources);
  }
  return j;
}

std::string report_to_json_text(const Report& report) {
  // Invalid UTF-8 (a kernel name or OS message with stray bytes) becomes U+FFFD instead of
  // throwing, so writing a report never fails on its text. The newline is appended in place: a
  // merged report's text is tens of MB.
  std::string text =
      report_to_json(report).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  text += '\n';
  return text;
}

}  // namespace rooflinectl
