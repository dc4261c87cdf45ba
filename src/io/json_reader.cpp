#include "io/json_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "core/error.hpp"
#include "core/json_input.hpp"
#include "core/operator_names.hpp"
#include "core/shard.hpp"
#include "core/statistics.hpp"
#include "core/sweep_plan.hpp"
#include "io/peaks_json.hpp"
#include "io/profile_json.hpp"
#include "result/counter_fields.hpp"
#include "result/placement_inputs.hpp"
#include "result/point_key.hpp"
#include "result/tokens_per_second.hpp"

namespace rooflinectl {
namespace {

Pipe parse_pipe(const std::string& text) {
  if (text == "tensor") return Pipe::kTensor;
  if (text == "fp32") return Pipe::kFp32;
  throw bad_input(fmt::format("invalid pipe '{}': allowed tensor, fp32", text));
}

// A single timed launch longer than a day is not a measurement but a corrupted or edited value
// (1e300 s); the longest point of a sweep runs for seconds.
constexpr double kMaxSampleSeconds = 86400.0;

// Stored values a sweep can never write are refused on loading, so that report, plot and compare
// never judge them: `where` names the point ("gelu at L = 4096") in front of the reason.
void require_positive_finite(const JsonObjectReader& r, const std::string& key, double value,
                             const std::string& where) {
  if (!std::isfinite(value) || !(value > 0)) {
    r.fail_key(key, fmt::format("{}: must be a finite number > 0, found {}", where,
                                std::isnan(value) ? "null" : fmt::format("{}", value)));
  }
}

void require_time(const JsonObjectReader& r, const std::string& key, double value,
                  const std::string& where) {
  require_positive_finite(r, key, value, where);
  if (value > kMaxSampleSeconds) {
    r.fail_key(key, fmt::format("{}: {} s is not a plausible kernel time (at most {} s)", where,
                                value, kMaxSampleSeconds));
  }
}

// Counts, bytes, clocks and durations: null (not measured) is allowed, a negative value is not.
void require_non_negative(const JsonObjectReader& r, const std::string& key,
                          const std::optional<double>& value, const std::string& where) {
  if (value && !(*value >= 0)) {
    r.fail_key(
        key, fmt::format("{}: must be >= 0 (or null when not measured), found {}", where, *value));
  }
}

// Fields added to schema 1 after the first reports were written (the committed H200 sweep lacks
// them): absent reads as not measured, so those reports stay readable.
std::optional<double> optional_double_if_present(const JsonObjectReader& r,
                                                 const std::string& key) {
  return r.has(key) ? r.get_optional_double(key) : std::nullopt;
}

int64_t get_positive_int64(const JsonObjectReader& r, const std::string& key) {
  const int64_t v = r.get_int64(key);
  if (v <= 0) r.fail_key(key, fmt::format("must be a positive integer, found {}", v));
  return v;
}

// "kv_layout" and "page_size" are written for a paged KV cache only (json_writer.cpp): absent,
// the cache is contiguous.
void read_kv_layout(const JsonObjectReader& r, Shape& s) {
  if (!r.has("kv_layout")) return;
  s.kv_layout = r.get_parsed("kv_layout", parse_kv_layout);
  if (s.kv_layout == KvLayout::kPaged) s.page_size = r.get_int64("page_size");
  try {
    validate_kv_layout(s);
  } catch (const Error& e) {
    r.fail_key("page_size", e.what());
  }
}

// "gemm_n" and "gemm_k" are written only when set (json_writer.cpp): absent, 0 (the default).
void read_gemm_dims(const JsonObjectReader& r, Shape& s) {
  // Each key checked as it is read, so a bad value is blamed on its own key.
  const auto read = [&](const char* key, int64_t& field) {
    if (!r.has(key)) return;
    field = r.get_int64(key);
    try {
      validate_gemm_dims(s);
    } catch (const Error& e) {
      r.fail_key(key, e.what());
    }
  };
  read("gemm_n", s.gemm_n);
  read("gemm_k", s.gemm_k);
}

// "hidden" and "ffn_dim" are written only when set (json_writer.cpp): absent, 0 (the default).
void read_layer_widths(const JsonObjectReader& r, Shape& s) {
  const auto read = [&](const char* key, int64_t& field) {
    if (!r.has(key)) return;
    field = r.get_int64(key);
    try {
      validate_layer_widths(s);
    } catch (const Error& e) {
      r.fail_key(key, e.what());
    }
  };
  read("hidden", s.hidden);
  read("ffn_dim", s.ffn_dim);
}

// "kv_dtype" is written for an FP8 KV cache only (json_writer.cpp): absent, it is auto.
void read_kv_dtype(const JsonObjectReader& r, Shape& s) {
  if (r.has("kv_dtype")) s.kv_dtype = r.get_parsed("kv_dtype", parse_kv_dtype);
}

// "gemm_dtype" is written for FP8 GEMM inputs only (json_writer.cpp): absent, it is auto.
void read_gemm_dtype(const JsonObjectReader& r, Shape& s) {
  if (r.has("gemm_dtype")) s.gemm_dtype = r.get_parsed("gemm_dtype", parse_gemm_dtype);
}

// "q_len" is written only when set (json_writer.cpp): absent, 0 (L_q = L).
void read_q_len(const JsonObjectReader& r, Shape& s) {
  if (!r.has("q_len")) return;
  s.q_len = r.get_int64("q_len");
  try {
    validate_query_len(s);
  } catch (const Error& e) {
    r.fail_key("q_len", e.what());
  }
}

Shape shape_from_json(const JsonObjectReader& r) {
  Shape s;
  s.batch = get_positive_int64(r, "batch");
  s.heads = get_positive_int64(r, "heads");
  s.kv_heads = get_positive_int64(r, "kv_heads");
  s.head_dim = get_positive_int64(r, "head_dim");
  s.seq_len = get_positive_int64(r, "seq_len");
  read_q_len(r, s);
  s.causal = r.get_bool("causal");
  s.dtype = r.get_parsed("dtype", parse_dtype);
  s.gelu_form = r.get_parsed("gelu_form", parse_gelu_form);
  read_kv_layout(r, s);
  read_gemm_dims(r, s);
  read_layer_widths(r, s);
  read_kv_dtype(r, s);
  read_gemm_dtype(r, s);
  return s;
}

Validation validation_from_json(const JsonObjectReader& r) {
  Validation v;
  v.passed = r.get_bool("passed");
  v.reference = r.get_string("reference");
  const JsonObjectReader tolerance = r.get_object("tolerance");
  v.tolerance.abs = tolerance.get_double("abs");
  v.tolerance.rel = tolerance.get_double("rel");
  v.checked_elements = r.get_int64("checked_elements");
  v.failed_elements = r.get_int64("failed_elements");
  v.non_finite_elements = r.get_int64("non_finite_elements");
  v.max_abs_error = r.get_double("max_abs_error");
  v.worst_ratio = r.get_double("worst_ratio");
  v.detail = r.get_string("detail");
  if (r.has("quantization_error")) {
    const JsonObjectReader q = r.get_object("quantization_error");
    QuantizationError e;
    e.reference = q.get_string("reference");
    e.checked_elements = q.get_int64("checked_elements");
    e.max_abs_difference = q.get_double("max_abs_difference");
    e.rms_difference = q.get_double("rms_difference");
    e.max_abs_reference = q.get_double("max_abs_reference");
    v.quantization = e;
  }
  return v;
}

// timing.sample_clocks: one reading per sample, SM clock > 0, memory clock >= 0; the derived
// `throttled` flags and `throttled_samples` are recomputed from the reason bits, not trusted.
// Absent (a report written before the clocks were recorded): null with kSampleClocksAbsentReason.
void read_sample_clocks(const JsonObjectReader& r, const std::string& where, TimingResult& t) {
  if (!r.has("sample_clocks")) {
    t.sample_clocks_null_reason = kSampleClocksAbsentReason;
    return;
  }
  if (r.is_null("sample_clocks")) {
    t.sample_clocks_null_reason = r.has("sample_clocks_null_reason")
                                      ? r.get_string("sample_clocks_null_reason")
                                      : "not recorded";
    return;
  }
  const std::vector<JsonObjectReader> readings = r.get_object_array("sample_clocks");
  if (readings.size() != t.samples_s.size()) {
    r.fail_key("sample_clocks",
               fmt::format("{}: {} readings for {} timed samples (one per sample expected)", where,
                           readings.size(), t.samples_s.size()));
  }
  std::vector<ClockReading> clocks;
  clocks.reserve(readings.size());
  for (const JsonObjectReader& c : readings) {
    const double sm_clock_hz = c.get_double("sm_clock_hz");
    require_positive_finite(c, "sm_clock_hz", sm_clock_hz, where);
    const double memory_clock_hz = c.get_double("memory_clock_hz");
    require_non_negative(c, "memory_clock_hz", memory_clock_hz, where);
    const uint64_t reasons = c.get_uint64("clock_event_reasons");
    (void)c.get_bool("throttled");  // derived from the bits: recomputed below
    clocks.push_back(make_clock_reading(sm_clock_hz, memory_clock_hz, reasons));
  }
  t.sample_clocks = std::move(clocks);
  t.sample_clocks_null_reason.clear();
}

// Every sample and the three statistics are finite, > 0 and at most kMaxSampleSeconds, and
// min_s <= median_s <= max_s; at least one sample.
TimingResult timing_from_json(const JsonObjectReader& r, const std::string& where) {
  TimingResult t;
  t.samples_s = r.get_double_array("samples_s");
  if (t.samples_s.empty()) r.fail_key("samples_s", where + ": no samples (at least one needed)");
  for (size_t i = 0; i < t.samples_s.size(); ++i) {
    require_time(r, fmt::format("samples_s[{}]", i), t.samples_s[i], where);
  }
  t.median_s = r.get_double("median_s");
  t.min_s = r.get_double("min_s");
  t.max_s = r.get_double("max_s");
  require_time(r, "median_s", t.median_s, where);
  require_time(r, "min_s", t.min_s, where);
  require_time(r, "max_s", t.max_s, where);
  if (t.median_s < t.min_s || t.median_s > t.max_s) {
    r.fail_key("median_s", fmt::format("{}: {} s lies outside min_s {} s .. max_s {} s", where,
                                       t.median_s, t.min_s, t.max_s));
  }
  // Derived from samples_s: an edited median, min or max would make `report` (which shows them)
  // and `compare` (which recomputes from the samples) disagree about the same file.
  const auto [lowest, highest] = std::minmax_element(t.samples_s.begin(), t.samples_s.end());
  for (const auto& [key, stored, derived] :
       {std::tuple<const char*, double, double>{"median_s", t.median_s, median(t.samples_s)},
        {"min_s", t.min_s, *lowest},
        {"max_s", t.max_s, *highest}}) {
    if (std::fabs(stored - derived) > 1e-9 * std::fabs(derived)) {
      r.fail_key(key, fmt::format("{}: {} s differs from {} s computed from samples_s (edited "
                                  "report?): the stored summary must follow its samples",
                                  where, stored, derived));
    }
  }
  t.warmup_runs = r.get_int("warmup_runs");
  t.l2_flushed = r.get_bool("l2_flushed");
  // Optional: reports written before the policy was stated in words lack the key.
  if (r.has("cache_policy")) t.cache_policy = r.get_string("cache_policy");
  t.sm_clock_hz = r.get_optional_double("sm_clock_hz");
  // Derived, so recomputed rather than trusted (an edited report cannot claim less noise).
  t.noise = median_noise(t.samples_s);
  if (r.has("sampling")) t.sampling = r.get_string("sampling");
  read_sample_clocks(r, where, t);
  return t;
}

// Every counter value is null or >= 0. All keys are read before any value is checked.
KernelCounters kernel_counters_from_json(const JsonObjectReader& r, const std::string& where) {
  KernelCounters k;
  k.name = r.get_string("name");
  for (const CounterField& f : kCounterFields) {
    k.*f.member = f.presence == KeyPresence::kMayBeAbsent
                      ? optional_double_if_present(r, f.json_key)
                      : r.get_optional_double(f.json_key);
  }
  for (const CounterField& f : kCounterFields) {
    require_non_negative(r, f.json_key, k.*f.member, where);
  }
  return k;
}

CounterResult counters_from_json(const JsonObjectReader& r, const std::string& where) {
  CounterResult c;
  c.null_reason = r.get_optional_string("null_reason");
  c.passes = r.get_int("passes");
  c.cache_policy = r.get_string("cache_policy");
  c.note = r.get_string("note");
  // Schema 2; absent in schema-1 reports.
  if (r.has("sessions")) {
    for (const auto& s : r.get_object_array("sessions")) {
      c.sessions.push_back(CounterSession{s.get_string("role"), s.get_string("replay"),
                                          s.get_int("passes"), s.get_string_array("metrics"),
                                          optional_double_if_present(s, "wall_time_s"),
                                          std::nullopt});
      require_non_negative(s, "wall_time_s", c.sessions.back().wall_time_s, where);
      if (s.has("points_in_collection")) {
        const int points = s.get_int("points_in_collection");
        if (points < 1) {
          s.fail_key("points_in_collection",
                     fmt::format("{}: must be >= 1 (the points one collection held), found {}",
                                 where, points));
        }
        c.sessions.back().points_in_collection = points;
      }
    }
  }
  c.dram_writeback_bytes = optional_double_if_present(r, "dram_writeback_bytes");
  require_non_negative(r, "dram_writeback_bytes", c.dram_writeback_bytes, where);
  if (r.has("dram_writeback_bytes_null_reason")) {
    c.writeback_null_reason = r.get_string("dram_writeback_bytes_null_reason");
  } else if (!c.dram_writeback_bytes) {
    c.writeback_null_reason = "not measured (report written before the write-back figure existed)";
  }
  if (r.has("writeback_method")) c.writeback_method = r.get_string("writeback_method");
  for (const auto& k : r.get_object_array("kernels"))
    c.kernels.push_back(kernel_counters_from_json(k, where));
  c.total = kernel_counters_from_json(r.get_object("total"), where);
  const JsonObjectReader peaks = r.get_object("peaks");
  for (const CounterPeakField& f : kCounterPeakFields) {
    c.peaks.*f.member = f.presence == KeyPresence::kMayBeAbsent
                            ? optional_double_if_present(peaks, f.json_key)
                            : peaks.get_optional_double(f.json_key);
  }
  return c;
}

AnalyticResult analytic_from_json(const JsonObjectReader& r, const std::string& where) {
  AnalyticResult a;
  a.flop = r.get_double("flop");
  a.min_dram_bytes = r.get_double("min_dram_bytes");
  a.implemented_dram_bytes = r.get_double("implemented_dram_bytes");
  for (const auto& [key, value] : {std::pair<const char*, double>{"flop", a.flop},
                                   {"min_dram_bytes", a.min_dram_bytes},
                                   {"implemented_dram_bytes", a.implemented_dram_bytes}}) {
    if (!std::isfinite(value) || !(value >= 0)) {
      r.fail_key(key, fmt::format("{}: must be a finite number >= 0, found {}", where,
                                  std::isnan(value) ? "null" : fmt::format("{}", value)));
    }
  }
  a.flop_formula = r.get_string("flop_formula");
  a.bytes_formula = r.get_string("bytes_formula");
  return a;
}

// Why the L2 figures of a placement stored before they existed are null.
constexpr const char* kBeforeL2Roofline = "report written before the L2 roofline existed";

// The roof's L2 ceiling; absent keys (older reports) read as null with kBeforeL2Roofline. A
// value must be finite, > 0 and name its source kind.
void l2_roof_from_json(const JsonObjectReader& roof_object, Roof& roof) {
  if (!roof_object.has("l2_bytes_per_s")) {
    roof.l2_source = kBeforeL2Roofline;
    return;
  }
  roof.l2_bytes_per_s = roof_object.get_optional_double("l2_bytes_per_s");
  roof.l2_source = roof_object.get_string("l2_source");
  if (!roof.l2_bytes_per_s) return;
  if (!std::isfinite(*roof.l2_bytes_per_s) || !(*roof.l2_bytes_per_s > 0)) {
    roof_object.fail_key("l2_bytes_per_s", fmt::format("must be finite and > 0 (or null), found {}",
                                                       *roof.l2_bytes_per_s));
  }
  roof.l2_source_kind = roof_object.get_parsed("l2_source_kind", parse_roof_source);
}

// The placement's L2 bytes; absent (older reports) reads as null with kBeforeL2Roofline, null as
// null with the stored l2_null_reason.
L2Bytes l2_bytes_from_json(const JsonObjectReader& r) {
  if (!r.has("l2_bytes")) return L2Bytes{std::nullopt, kBeforeL2Roofline};
  L2Bytes l2{r.get_optional_double("l2_bytes"), ""};
  if (!l2.bytes) {
    l2.null_reason = r.get_string("l2_null_reason");
    if (l2.null_reason.empty()) l2.null_reason = "L2 bytes null without a reason";
  } else if (!std::isfinite(*l2.bytes) || !(*l2.bytes > 0)) {
    r.fail_key("l2_bytes", fmt::format("must be finite and > 0 (or null), found {}", *l2.bytes));
  }
  return l2;
}

// Only the measured inputs (roof with its L2 ceiling, FLOPs, DRAM and L2 bytes, time) and the
// basis are read; the derived values (intensities, achieved rates, ridges, attainables, fraction
// of roof, above-roof flag, bound, binding level) are recomputed with place_on_roofline, so an
// edited or corrupted fraction can never print as "500%" without the above-roof flag. The stored
// derived keys are ignored.
RooflinePoint roofline_from_json(const JsonObjectReader& r,
                                 std::optional<double> counted_in_window) {
  Roof roof;
  roof.pipe = r.get_parsed("pipe", parse_pipe);
  const JsonObjectReader roof_object = r.get_object("roof");
  roof.peak_flop_per_s = roof_object.get_double("peak_flop_per_s");
  roof.peak_bytes_per_s = roof_object.get_double("peak_bytes_per_s");
  roof.source = roof_object.get_string("source");
  // Reports written before roof sources existed have no source_kind: their roofs were all
  // counter-derived.
  if (roof_object.has("source_kind")) {
    roof.source_kind = roof_object.get_parsed("source_kind", parse_roof_source);
  }
  l2_roof_from_json(roof_object, roof);
  for (const auto& [key, value] :
       {std::pair<const char*, double>{"peak_flop_per_s", roof.peak_flop_per_s},
        {"peak_bytes_per_s", roof.peak_bytes_per_s}}) {
    if (!std::isfinite(value) || !(value > 0)) {
      roof_object.fail_key(key, fmt::format("roof peak must be finite and > 0, found {}", value));
    }
  }
  const double flop = r.get_double("flop");
  const double dram_bytes = r.get_double("dram_bytes");
  const double time_s = r.get_double("time_s");
  for (const auto& [key, value] : {std::pair<const char*, double>{"flop", flop},
                                   {"dram_bytes", dram_bytes},
                                   {"time_s", time_s}}) {
    if (!std::isfinite(value) || !(value > 0)) {
      r.fail_key(key, fmt::format("must be finite and > 0 to place the point, found {}", value));
    }
  }
  const std::string basis = r.get_string("basis");
  // Schema-1 reports have no bytes_basis: their counted bytes were in-window only (and so is a
  // placement written without one).
  std::string bytes_basis = basis == "analytic" ? kBytesAnalytic : kBytesInWindow;
  if (r.has("bytes_basis")) {
    bytes_basis = r.get_string("bytes_basis");
    if (bytes_basis != kBytesIsolated && bytes_basis != kBytesInWindow &&
        bytes_basis != kBytesAnalytic && bytes_basis != kBytesAnalyticMin) {
      r.fail_key("bytes_basis",
                 fmt::format("'{}' is not one of {}, {}, {}, {}", bytes_basis, kBytesIsolated,
                             kBytesInWindow, kBytesAnalytic, kBytesAnalyticMin));
    }
  }
  // Reports written before the DRAM slope was judged on in-window bytes lack the key: their
  // write-back-inclusive placements take the in-window bytes from the counters beside them, so
  // that every report reads under the same rule.
  std::optional<double> in_window =
      r.has("dram_bytes_in_window")
          ? r.get_optional_double("dram_bytes_in_window")
          : (bytes_basis == kBytesIsolated ? counted_in_window : std::nullopt);
  if (in_window && bytes_basis != kBytesIsolated) {
    r.fail_key("dram_bytes_in_window",
               fmt::format("{} with bytes_basis '{}': only a write-back-inclusive placement ({}) "
                           "has DRAM bytes in the window apart from its whole traffic",
                           *in_window, bytes_basis, kBytesIsolated));
  }
  if (in_window && !(std::isfinite(*in_window) && *in_window >= 0 && *in_window <= dram_bytes)) {
    r.fail_key("dram_bytes_in_window",
               fmt::format("must be finite, >= 0 and at most dram_bytes {}, found {}", dram_bytes,
                           *in_window));
  }
  RooflinePoint point =
      place_on_roofline(roof, flop, dram_bytes, time_s, basis, l2_bytes_from_json(r), in_window);
  point.bytes_basis = bytes_basis;
  return point;
}

Reconciliation reconciliation_from_json(const JsonObjectReader& r) {
  Reconciliation out;
  for (const auto& c : r.get_object_array("checks")) {
    ReconcileCheck check;
    check.quantity = c.get_string("quantity");
    check.reference = c.get_string("reference");
    check.measured = c.get_double("measured");
    check.reference_value = c.get_double("reference_value");
    check.ratio = c.get_double("ratio");
    check.band_low = c.get_optional_double("band_low");
    check.band_high = c.get_optional_double("band_high");
    check.flagged = c.get_bool("flagged");
    check.explanation = c.get_string("explanation");
    out.checks.push_back(check);
  }
  out.null_reason = r.get_string("null_reason");
  return out;
}

// Besides the types, only values a sweep can write: one of the operators, a positive shape,
// plausible times, non-negative counters, and status "ok" only with a kernel version, timing and
// a validation that passed (otherwise compare would call a wrong kernel "same").
PointResult point_from_json(const JsonObjectReader& r) {
  PointResult p;
  p.op = r.get_parsed("op", parse_operator_name);
  p.shape = shape_from_json(r.get_object("shape"));
  const std::string where = fmt::format("{} at L = {}", p.op, p.shape.seq_len);
  p.version = r.get_string("version");
  p.status = r.get_parsed("status", parse_point_status);
  // Points skipped or interrupted before their kernel was created have no version.
  if (p.status == PointStatus::kOk && p.version.empty()) {
    r.fail_key("version", where + ": empty, but status \"ok\" needs the kernel version that ran");
  }
  p.reason = r.get_string("reason");
  p.seed = r.get_uint64("seed");
  // Written since seeds were also given as text; absent in older reports.
  if (r.has("seed_hex")) {
    const std::string hex = r.get_string("seed_hex");
    const bool well_formed = hex.size() == 18 && hex.rfind("0x", 0) == 0 &&
                             hex.find_first_not_of("0123456789abcdef", 2) == std::string::npos;
    if (!well_formed || std::stoull(hex.substr(2), nullptr, 16) != p.seed) {
      r.fail_key("seed_hex",
                 fmt::format("'{}' is not seed {} as 0x and 16 lowercase hex digits", hex, p.seed));
    }
  }
  p.device_bytes_needed = r.get_int64("device_bytes_needed");
  if (!r.is_null("validation")) p.validation = validation_from_json(r.get_object("validation"));
  if (p.status == PointStatus::kOk && !(p.validation && p.validation->passed)) {
    r.fail_key("validation", fmt::format("{}: status is \"ok\" but {}: a point whose output was "
                                         "not checked or was wrong cannot be ok",
                                         where, p.validation ? "passed is false" : "it is null"));
  }
  if (!r.is_null("timing")) p.timing = timing_from_json(r.get_object("timing"), where);
  if (p.status == PointStatus::kOk && !p.timing) {
    r.fail_key("timing", where + ": status is \"ok\" but timing is null");
  }
  p.counters = counters_from_json(r.get_object("counters"), where);
  p.analytic = analytic_from_json(r.get_object("analytic"), where);
  if (!r.is_null("roofline")) {
    const JsonObjectReader roofline = r.get_object("roofline");
    p.roofline = roofline_from_json(roofline, p.counters.total.dram_bytes());
    // The writer places a point at its timing median (schema: "Median of the timed pass"); a
    // different time would print a roofline that contradicts the timing columns.
    if (p.timing) {
      const double roof_time = p.roofline->time_s;
      const double median = p.timing->median_s;
      if (std::fabs(roof_time - median) >
          1e-9 * std::max(std::fabs(roof_time), std::fabs(median))) {
        roofline.fail_key("time_s", fmt::format("{}: {} s differs from timing.median_s {} s (the "
                                                "roofline is placed at the timing median)",
                                                where, roof_time, median));
      }
    }
  }
  p.roofline_null_reason = r.get_string("roofline_null_reason");
  p.tokens_per_s = r.get_optional_double("tokens_per_s");
  require_non_negative(r, "tokens_per_s", p.tokens_per_s, where);
  // Derived from the shape and the timing median, so recomputed, as the roofline's rates are:
  // what a reader shows is never a stored figure the measurement does not give.
  if (p.tokens_per_s && p.timing && p.timing->median_s > 0) {
    p.tokens_per_s = tokens_per_second(p.op, p.shape, p.timing->median_s);
  }
  // Optional: reports written before reconciliation existed lack the key.
  if (r.has("reconciliation") && !r.is_null("reconciliation")) {
    p.reconciliation = reconciliation_from_json(r.get_object("reconciliation"));
  }
  if (r.has("source")) {
    const int64_t source = r.get_int64("source");
    if (source < 0) r.fail_key("source", fmt::format("{} (allowed: 0 or more)", source));
    p.source = static_cast<size_t>(source);
  }
  p.peak_device_memory_bytes = optional_double_if_present(r, "peak_device_memory_bytes");
  require_non_negative(r, "peak_device_memory_bytes", p.peak_device_memory_bytes, where);
  if (!p.peak_device_memory_bytes) {
    p.peak_device_memory_null_reason =
        r.has("peak_device_memory_bytes_null_reason")
            ? r.get_string("peak_device_memory_bytes_null_reason")
            : "not in this report (written before peak device memory was measured)";
  }
  return p;
}

DeviceRecord device_from_json(const JsonObjectReader& r) {
  DeviceRecord d;
  d.index = r.get_int("index");
  d.name = r.get_string("name");
  // Absent in reports written before they were recorded (then not written back either); null
  // when unknown.
  d.identity_recorded = r.has("uuid");
  if (d.identity_recorded) {
    d.uuid = r.get_optional_string("uuid").value_or("");
    d.pci_bus_id = r.get_optional_string("pci_bus_id").value_or("");
    d.vbios_version = r.get_optional_string("vbios_version");
    const auto optional_bool = [&](const std::string& key) {
      return r.is_null(key) ? std::nullopt : std::optional<bool>(r.get_bool(key));
    };
    d.ecc_enabled = optional_bool("ecc_enabled");
    d.power_limit_w = r.get_optional_double("power_limit_w");
    d.mig_enabled = optional_bool("mig_enabled");
    if (r.has("fingerprint_null_reason")) {
      d.fingerprint_null_reason = r.get_string("fingerprint_null_reason");
    }
  } else {
    d.fingerprint_null_reason = "not recorded: written before the GPU's UUID and fingerprint were";
  }
  d.cc_major = r.get_int("cc_major");
  d.cc_minor = r.get_int("cc_minor");
  d.sm_count = r.get_int("sm_count");
  d.l2_bytes = r.get_int64("l2_bytes");
  d.memory_bytes = r.get_int64("memory_bytes");
  d.sm_clock_max_hz = r.get_double("sm_clock_max_hz");
  d.memory_clock_hz = r.get_double("memory_clock_hz");
  d.memory_bus_width_bits = r.get_int("memory_bus_width_bits");
  d.driver_version = r.get_int("driver_version");
  d.runtime_version = r.get_int("runtime_version");
  d.counters_available = r.get_bool("counters_available");
  d.counters_reason = r.get_string("counters_reason");
  // Absent before sweep --lock-clocks existed; null when the clocks were left alone.
  if (r.has("clock_lock") && !r.is_null("clock_lock")) {
    const JsonObjectReader lock = r.get_object("clock_lock");
    ClockLockRecord record;
    record.setting = lock.get_string("setting");
    record.sm_clock_hz = lock.get_double("sm_clock_hz");
    require_positive_finite(lock, "sm_clock_hz", record.sm_clock_hz, "the clock lock");
    record.source = lock.get_string("source");
    record.restore = lock.get_string("restore");
    d.clock_lock = record;
  }
  return d;
}

// config.shard of a shard's report, checked against the config it sits in: the rule and the
// plan size must be this rooflinectl's, or merge could not tell which points the shard owes.
ShardSpec shard_from_json(const JsonObjectReader& r, const SweepConfig& config) {
  ShardSpec shard;
  shard.count = r.get_int("count");
  shard.index = r.get_int("index");
  if (shard.count < 1 || shard.count > kMaxShardCount) {
    r.fail_key("count", fmt::format("{} (allowed: 1..{})", shard.count, kMaxShardCount));
  }
  if (shard.index < 1 || shard.index > shard.count) {
    r.fail_key("index", fmt::format("{} (allowed: 1..count = {})", shard.index, shard.count));
  }
  const int64_t planned = r.get_int64("planned_points");
  const size_t expected = plan_all_points(config).size();
  if (planned < 0 || static_cast<size_t>(planned) != expected) {
    r.fail_key("planned_points",
               fmt::format("{} differs from the {} points of the config's ops and seq_lens",
                           planned, expected));
  }
  const std::string assignment = r.get_string("assignment");
  if (assignment == kBalancedAssignment) {
    // Written ascending and unique; read through the same parser as the worker's flag.
    std::string list;
    for (const int64_t index : r.get_int64_array("plan_indices")) {
      list += (list.empty() ? "" : ",") + std::to_string(index);
    }
    try {
      shard.plan_indices = parse_plan_indices(list, expected, "plan_indices");
    } catch (const Error& e) {
      r.fail_key("plan_indices", e.what());
    }
  } else if (assignment != kShardAssignment) {
    r.fail_key("assignment", fmt::format("'{}' is not one of this rooflinectl's rules ('{}', '{}')",
                                         assignment, kShardAssignment, kBalancedAssignment));
  }
  return shard;
}

CanaryResult canary_from_json(const JsonObjectReader& r) {
  CanaryResult c;
  c.copy_bytes_per_s = r.get_optional_double("copy_bytes_per_s");
  c.null_reason = r.get_string("null_reason");
  c.copy_bytes = r.get_int64("copy_bytes");
  c.samples_s = r.get_double_array("samples_s");
  c.method = r.get_string("method");
  return c;
}

// One entry of a merged report's "sources" (MergeSource).
MergeSource merge_source_from_json(const JsonObjectReader& r) {
  MergeSource source;
  source.file = r.get_string("file");
  const std::string shard = r.get_string("shard");
  try {
    source.shard = parse_shard_spec(shard, "shard");
  } catch (const Error&) {
    r.fail_key("shard", fmt::format("'{}' (allowed: i/n, 1 <= i <= n)", shard));
  }
  source.timestamp_utc = r.get_string("timestamp_utc");
  source.device = device_from_json(r.get_object("device"));
  if (!r.is_null("peaks")) source.peaks = peaks_block_from_json(r.get_object("peaks"));
  if (!r.is_null("canary")) source.canary = canary_from_json(r.get_object("canary"));
  return source;
}

// A merged report's points each name a source, and only a merged report's do.
void check_point_sources(const Report& report, const JsonObjectReader& r) {
  for (size_t i = 0; i < report.points.size(); ++i) {
    const std::optional<size_t>& source = report.points[i].source;
    if (report.sources.empty() && source) {
      r.fail_key("points", fmt::format("points[{}] names source {} but the report has no "
                                       "\"sources\" (only `merge` writes either)",
                                       i, *source));
    }
    if (!report.sources.empty() && (!source || *source >= report.sources.size())) {
      r.fail_key("points", fmt::format("points[{}] of a merged report needs a \"source\" in 0..{}",
                                       i, report.sources.size() - 1));
    }
  }
}

}  // namespace

CounterResult counter_result_from_json(const JsonObjectReader& r, const std::string& where) {
  return counters_from_json(r, where);
}

RooflinePoint roofline_point_from_json(const JsonObjectReader& r,
                                       std::optional<double> counted_in_window) {
  return roofline_from_json(r, counted_in_window);
}

DeviceRecord device_record_from_json(const JsonObjectReader& r) { return device_from_json(r); }

SweepConfig sweep_config_from_json(const nlohmann::json& object, const std::string& origin,
                                   const std::string& where) {
  const JsonObjectReader r(object, origin, where);
  SweepConfig c;
  c.ops = r.get_string_array("ops");
  c.seq_spec = r.get_string("seq");
  c.seq_lens = r.get_int64_array("seq_lens");
  read_shape_axes(r, c, true);  // each a value, or an array for an axis swept as a list
  read_kv_layout(r, c.base);
  read_gemm_dims(r, c.base);
  read_layer_widths(r, c.base);
  if (r.has("filter")) c.filter = r.get_string("filter");      // absent: no --filter
  if (r.has("model")) c.model_preset = r.get_string("model");  // absent: no --model
  c.repetitions = r.get_int("repetitions");
  // Absent in reports written before adaptive sampling (2026-12-02): fixed sampling.
  if (r.has("max_noise")) c.max_noise = r.get_optional_double("max_noise");
  if (r.has("min_samples")) c.min_samples = r.get_int("min_samples");
  if (r.has("min_time_s")) c.min_time_s = r.get_double("min_time_s");
  if (r.has("max_time_s")) c.max_time_s = r.get_double("max_time_s");
  c.warmup_runs = r.get_int("warmup_runs");
  c.counters = r.get_bool("counters");
  c.warm_l2 = r.get_bool("warm_l2");
  // Absent in reports written before the option: those counted sm__throughput at every point.
  c.sm_throughput = r.has("sm_throughput") ? r.get_bool("sm_throughput") : true;
  c.device = r.get_int("device");
  // Absent before sweep --lock-clocks existed; null: the clocks were left alone.
  if (r.has("lock_clocks") && !r.is_null("lock_clocks")) {
    c.lock_clocks = r.get_string("lock_clocks");
    if (c.lock_clocks != "base") {
      r.fail_key("lock_clocks", fmt::format("'{}' is not a --lock-clocks value (allowed: base, or "
                                            "null)",
                                            c.lock_clocks));
    }
  }
  // Absent before `--kernel` existed: every operator ran its default, or the version the
  // environment variables of that time asked for (each point's `version` says which ran).
  if (r.has("kernels")) c.kernels = r.get_string_map("kernels");
  if (r.has("shard")) c.shard = shard_from_json(r.get_object("shard"), c);
  return c;
}

Report report_from_json_text(const std::string& text, const std::string& origin) {
  return report_from_json(parse_json_text(text, origin), origin);
}

Report report_from_json(const nlohmann::json& document, const std::string& origin) {
  const JsonObjectReader r(document, origin, "");
  // A profile report has no "device" and would otherwise fail on that key, hiding the cause.
  if (r.has("kind") && document.at("kind") == kProfileReportKind) {
    throw bad_input(fmt::format(
        "{}: a `rooflinectl profile` report (\"kind\": \"profile\"), not a sweep report", origin));
  }
  // Likewise `layer` output (docs/layer-report-schema.json): a layer view, no sweep points.
  if (r.has("layer_schema_version")) {
    const std::string basis = r.has("basis") && document.at("basis").is_string()
                                  ? document.at("basis").get<std::string>()
                                  : "analytic";
    throw bad_input(fmt::format(
        "{}: a `rooflinectl layer` report (\"layer_schema_version\", basis {}), not a sweep "
        "report: `report` prints its time split, `compare` gates two measured ones, `plot` draws "
        "it; merge and sweep --baseline read sweep reports",
        origin, basis));
  }
  // Nor a `model --output` file: predictions, nothing measured.
  if (r.has("model_schema_version")) {
    throw bad_input(fmt::format(
        "{}: a `rooflinectl model` prediction (\"model_schema_version\"), not a sweep report: "
        "report, plot, compare and merge read sweep reports; the model's table is what "
        "`rooflinectl model` printed (run it again with --format table)",
        origin));
  }
  // A benchmark's rows are not a report: scripts/bench_gpu.py writes "schema":
  // "rooflinectl-bench/1", bench_fp8_decode.py and bench_paged_decode.py their own
  // "rooflinectl-bench-*" schema, and their files from before that carry "rows", "measurements"
  // and "work_dir" without a schema.
  const bool bench_schema =
      r.has("schema") && document.at("schema").is_string() &&
      document.at("schema").get<std::string>().rfind("rooflinectl-bench", 0) == 0;
  if (bench_schema ||
      (!r.has("schema_version") && r.has("rows") && r.has("measurements") && r.has("work_dir"))) {
    throw bad_input(fmt::format(
        "{}: benchmark rows of a scripts/bench_*.py script ({}), not a sweep report: each row's "
        "sweep report is in the benchmark's --work-dir",
        origin,
        bench_schema ? fmt::format("\"schema\": \"{}\"", document.at("schema").get<std::string>())
                     : "\"rows\", \"measurements\", \"work_dir\""));
  }
  // A JSON document of no rooflinectl kind at all: say what is read rather than name one key.
  if (!r.has("schema_version")) {
    throw bad_input(fmt::format(
        "{}: not a rooflinectl sweep report (no \"schema_version\"): report, compare and merge "
        "read what `rooflinectl sweep --output` and `merge` write (report, compare and plot also "
        "a `profile -o` or `layer -o` file)",
        origin));
  }
  // The version is checked before anything else: a report of another layout would otherwise fail
  // on some renamed key with a message that hides the real cause.
  const int64_t version = r.get_int64("schema_version");
  if (version < kOldestReadableSchemaVersion || version > kReportSchemaVersion) {
    throw bad_input(fmt::format(
        "{}: report schema_version {} is not supported (this rooflinectl reads versions {} to {})",
        origin, version, kOldestReadableSchemaVersion, kReportSchemaVersion));
  }
  Report report;
  report.schema_version = static_cast<int>(version);
  const JsonObjectReader tool = r.get_object("tool");
  report.tool_version = tool.get_string("version");
  if (report.tool_version.empty()) tool.fail_key("version", "empty (the rooflinectl version)");
  // null (unknown) and, in reports written before that rule, "" both read as empty.
  report.git_revision = tool.get_optional_string("git_revision").value_or("");
  report.timestamp_utc = r.get_string("timestamp_utc");
  report.device = device_from_json(r.get_object("device"));
  if (!r.has("config")) r.fail_key("config", "missing (required)");
  report.config = sweep_config_from_json(document.at("config"), origin, "config");
  if (r.has("peaks") && !r.is_null("peaks")) {
    report.peaks = peaks_block_from_json(r.get_object("peaks"));
  }
  const std::vector<JsonObjectReader> points = r.get_object_array("points");
  report.points.reserve(points.size());  // a merged report holds thousands
  for (const JsonObjectReader& p : points) report.points.push_back(point_from_json(p));
  // Optional: reports written before the canary existed have no such key.
  if (r.has("canary") && !r.is_null("canary")) {
    report.canary = canary_from_json(r.get_object("canary"));
  }
  if (r.has("sources")) {
    for (const auto& entry : r.get_object_array("sources")) {
      report.sources.push_back(merge_source_from_json(entry));
    }
  }
  check_point_sources(report, r);
  return report;
}

Report load_report(const std::string& path) {
  return report_from_json_text(read_text_file(path, "report"), path);
}

}  // namespace rooflinectl
