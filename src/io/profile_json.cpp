#include "io/profile_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

#include "core/error.hpp"
#include "core/json_input.hpp"
#include "core/statistics.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "io/peaks_json.hpp"
#include "profile/full_mode.hpp"
#include "profile/placed_verdict.hpp"
#include "result/placement_inputs.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

Json metric_map_to_json(const std::map<std::string, double>& values) {
  Json j = Json::object();
  for (const auto& [name, value] : values) {
    j[name] = std::isfinite(value) ? Json(value) : Json(nullptr);
  }
  return j;
}

std::map<std::string, double> metric_map_from_json(const Json& j) {
  std::map<std::string, double> out;
  for (const auto& item : j.items()) {
    out[item.key()] = item.value().is_null() ? std::nan("") : item.value().get<double>();
  }
  return out;
}

LaunchRecord launch_from_json(const Json& j) {
  LaunchRecord l;
  l.sequence = j.at("sequence").get<uint64_t>();
  l.pid = j.at("pid").get<int64_t>();
  l.correlation = j.at("correlation").get<uint32_t>();
  l.api = j.at("api").get<std::string>();
  l.mangled_name = j.at("name").get<std::string>();
  l.grid = j.at("grid").get<std::array<uint32_t, 3>>();
  l.block = j.at("block").get<std::array<uint32_t, 3>>();
  l.dynamic_shared_bytes = j.at("dynamic_shared_bytes").get<uint32_t>();
  l.stream = j.at("stream").get<uint64_t>();
  l.device = j.at("device").get<int>();
  l.nvtx_path = j.at("nvtx").get<std::vector<std::string>>();
  l.selected = j.at("selected").get<bool>();
  l.profiled = j.at("profiled").get<bool>();
  l.captured = j.at("captured").get<bool>();
  l.not_profiled_reason = j.at("not_profiled_reason").get<std::string>();
  for (const auto& range : j.at("ranges")) l.ranges.push_back(metric_map_from_json(range));
  return l;
}

KernelActivity activity_from_json(const Json& j) {
  KernelActivity a;
  a.correlation = j.at("correlation").get<uint32_t>();
  a.pid = j.at("pid").get<int64_t>();
  a.name = j.at("name").get<std::string>();
  a.start_ns = j.at("start_ns").get<uint64_t>();
  a.end_ns = j.at("end_ns").get<uint64_t>();
  a.device = j.at("device").get<int>();
  a.stream = j.at("stream").get<uint32_t>();
  a.graph_id = j.at("graph_id").get<uint32_t>();
  a.grid = j.at("grid").get<std::array<int32_t, 3>>();
  a.block = j.at("block").get<std::array<int32_t, 3>>();
  a.dynamic_shared_bytes = j.at("dynamic_shared_bytes").get<int32_t>();
  return a;
}

void read_record(const Json& j, ProcessRecords& records) {
  const std::string kind = j.at("record").get<std::string>();
  if (kind == kRawProcess) {
    records.pid = j.at("pid").get<int64_t>();
  } else if (kind == kRawSessions) {
    records.sessions.clear();
    for (const auto& s : j.at("sessions")) {
      CounterSession session;
      session.role = s.at("role").get<std::string>();
      session.replay = s.at("replay").get<std::string>();
      session.passes = s.at("passes").get<int>();
      session.metrics = s.at("metrics").get<std::vector<std::string>>();
      records.sessions.push_back(std::move(session));
    }
    records.cache_policy = j.at("cache_policy").get<std::string>();
    records.sweep_method = j.at("sweep_method").get<std::string>();
  } else if (kind == kRawLaunch) {
    records.launches.push_back(launch_from_json(j));
  } else if (kind == kRawActivity) {
    records.activities.push_back(activity_from_json(j));
  } else if (kind == kRawToolLaunch) {
    records.tool_correlations.push_back(j.at("correlation").get<uint32_t>());
  } else if (kind == kRawGraphLaunch) {
    ++records.graph_launches;
  } else if (kind == kRawWarning) {
    records.warnings.push_back(j.at("text").get<std::string>());
  } else if (kind == kRawEnd) {
    records.complete = true;
  } else {
    throw bad_input(fmt::format("unknown record kind '{}'", kind));
  }
}

OrderedJson summary_counters_json(const std::optional<CounterResult>& counters) {
  return counters ? counter_result_to_json(*counters) : OrderedJson(nullptr);
}

OrderedJson roofline_json(const std::optional<RooflinePoint>& roofline) {
  return roofline ? roofline_point_to_json(*roofline) : OrderedJson(nullptr);
}

OrderedJson optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? OrderedJson(*v) : OrderedJson(nullptr);
}

OrderedJson kernel_summary_to_json(const KernelSummary& k) {
  OrderedJson j;
  j["key"] = k.key;
  j["name"] = k.name;
  j["grid"] = k.grid;
  j["block"] = k.block;
  j["dynamic_shared_bytes"] = k.dynamic_shared_bytes;
  j["nvtx"] = k.nvtx_path;
  j["launches"] = k.launches;
  j["profiled_launches"] = k.profiled_launches;
  j["durations_s"] = k.durations_s;
  j["total_time_s"] = k.total_time_s;
  j["median_time_s"] = optional_number(k.median_time_s);
  j["share_of_gpu_time"] = k.share_of_gpu_time;
  j["verdict"] = k.verdict;
  j["counters"] = summary_counters_json(k.counters);
  j["roofline"] = roofline_json(k.roofline);
  if (!k.roofline) j["roofline_null_reason"] = k.roofline_null_reason;
  return j;
}

OrderedJson launch_to_report_json(const ProfiledLaunch& l, int minor_version) {
  OrderedJson j;
  j["sequence"] = l.record.sequence;
  j["pid"] = l.record.pid;
  j["name"] = l.name;
  j["mangled_name"] = l.record.mangled_name;
  j["api"] = l.record.api;
  j["grid"] = l.record.grid;
  j["block"] = l.record.block;
  j["dynamic_shared_bytes"] = l.record.dynamic_shared_bytes;
  j["stream"] = l.record.stream;
  j["device"] = l.record.device;
  j["nvtx"] = l.record.nvtx_path;
  j["duration_s"] = optional_number(l.duration_s);
  if (!l.duration_s) j["duration_null_reason"] = l.duration_null_reason;
  j["profiled"] = l.record.profiled;
  if (!l.record.profiled) j["not_profiled_reason"] = l.record.not_profiled_reason;
  j["verdict"] = l.verdict;
  j["counters"] = summary_counters_json(l.counters);
  if (minor_version >= 1) {
    j["flop_source"] = l.flop_source.empty() ? OrderedJson(nullptr) : OrderedJson(l.flop_source);
    if (l.flop_source.empty()) j["flop_null_reason"] = l.flop_null_reason;
  }
  j["roofline"] = roofline_json(l.roofline);
  if (!l.roofline) j["roofline_null_reason"] = l.roofline_null_reason;
  return j;
}

OrderedJson flop_run_to_json(const FlopRunOutcome& run) {
  OrderedJson j;
  j["exit_code"] = run.exit_code ? OrderedJson(*run.exit_code) : OrderedJson(nullptr);
  j["signal"] = run.signal ? OrderedJson(*run.signal) : OrderedJson(nullptr);
  j["wall_time_s"] = run.wall_time_s;
  j["complete"] = run.complete;
  j["failure"] = run.failure;
  return j;
}

// ---- Reading a profile report back (profile_report_from_json) ----

std::array<uint32_t, 3> dims_from_json(const JsonObjectReader& r, const std::string& key) {
  const std::vector<int64_t> values = r.get_int64_array(key);
  if (values.size() != 3) {
    r.fail_key(key, fmt::format("expected 3 integers (x, y, z), found {}", values.size()));
  }
  std::array<uint32_t, 3> out{};
  for (size_t i = 0; i < 3; ++i) {
    if (values[i] < 0 || values[i] > std::numeric_limits<uint32_t>::max()) {
      r.fail_key(key, fmt::format("{} is not a launch dimension (0 to 2^32 - 1)", values[i]));
    }
    out[i] = static_cast<uint32_t>(values[i]);
  }
  return out;
}

uint32_t get_uint32(const JsonObjectReader& r, const std::string& key) {
  const uint64_t v = r.get_uint64(key);
  if (v > std::numeric_limits<uint32_t>::max()) {
    r.fail_key(key, fmt::format("{} does not fit a 32-bit unsigned integer", v));
  }
  return static_cast<uint32_t>(v);
}

std::optional<int> get_optional_int(const JsonObjectReader& r, const std::string& key) {
  return r.is_null(key) ? std::nullopt : std::optional<int>(r.get_int(key));
}

// The writer stores a non-finite time as null without a reason (optional_number).
std::string null_time_reason(const JsonObjectReader& r, const std::string& key) {
  return r.has(key) ? r.get_string(key) : "not finite when the report was written";
}

// The placement must be what assemble_profile makes of the counters beside it: a hand-edited
// FLOP count or time would otherwise print a verdict the counters do not support.
void check_placement_follows_counters(const JsonObjectReader& r, const RooflinePoint& point,
                                      const std::optional<CounterResult>& counters,
                                      const std::string& where) {
  if (!counters) r.fail_key("roofline", where + ": a placement without the counters it came from");
  const std::optional<double> bytes = point.bytes_basis == kBytesIsolated
                                          ? counters->dram_bytes_isolated()
                                          : counters->total.dram_bytes();
  const std::optional<double> flop = counters->total.counted_flop();
  const std::optional<double> time = counters->total.duration_s;
  for (const auto& [key, placed, counted] :
       {std::tuple<const char*, double, std::optional<double>>{"time_s", point.time_s, time},
        {"flop", point.flop, flop},
        {"dram_bytes", point.dram_bytes, bytes}}) {
    if (!counted || std::fabs(placed - *counted) > 1e-9 * std::fabs(*counted)) {
      r.fail_key(fmt::format("roofline.{}", key),
                 fmt::format("{}: {} differs from the counters' {}", where, placed,
                             counted ? fmt::format("{}", *counted) : std::string("null")));
    }
  }
  // On the write-back-inclusive basis the in-window bytes are the counters' read + write; on
  // every other basis there are none (the reader refuses them there).
  if (point.bytes_basis != kBytesIsolated) return;
  const std::optional<double> in_window = counters->total.dram_bytes();
  const std::optional<double>& placed = point.dram_bytes_in_window;
  if (!placed || !in_window || std::fabs(*placed - *in_window) > 1e-9 * std::fabs(*in_window)) {
    const auto text = [](const std::optional<double>& v) {
      return v ? fmt::format("{}", *v) : std::string("null");
    };
    r.fail_key("roofline.dram_bytes_in_window",
               fmt::format("{}: {} differs from the counters' read + write {}", where, text(placed),
                           text(in_window)));
  }
}

// "counters", "roofline" and "roofline_null_reason" of a launch or a kernel; a placed one's
// verdict is re-derived from the recomputed placement (as the assembly wrote it), so that a report
// written under an earlier placement rule reads with the fraction its table column shows.
void read_placement(const JsonObjectReader& r, const std::string& where,
                    std::optional<CounterResult>& counters, std::optional<RooflinePoint>& roofline,
                    std::string& null_reason, std::string& verdict) {
  if (!r.is_null("counters")) counters = counter_result_from_json(r.get_object("counters"), where);
  if (r.is_null("roofline")) {
    null_reason = r.get_string("roofline_null_reason");
    return;
  }
  roofline = roofline_point_from_json(
      r.get_object("roofline"), counters ? counters->total.dram_bytes() : std::optional<double>{});
  check_placement_follows_counters(r, *roofline, counters, where);
  if (const std::optional<FlopPipe> pipe = dominant_flop_pipe(counters->total)) {
    verdict = placed_verdict(*roofline, *pipe);
  }
}

ProfiledLaunch launch_from_report_json(const JsonObjectReader& r) {
  ProfiledLaunch l;
  LaunchRecord& record = l.record;
  record.sequence = r.get_uint64("sequence");
  record.pid = r.get_int64("pid");
  l.name = r.get_string("name");
  record.mangled_name = r.get_string("mangled_name");
  record.api = r.get_string("api");
  record.grid = dims_from_json(r, "grid");
  record.block = dims_from_json(r, "block");
  record.dynamic_shared_bytes = get_uint32(r, "dynamic_shared_bytes");
  record.stream = r.get_uint64("stream");
  record.device = r.get_int("device");
  record.nvtx_path = r.get_string_array("nvtx");
  l.duration_s = r.get_optional_double("duration_s");
  if (!l.duration_s) l.duration_null_reason = null_time_reason(r, "duration_null_reason");
  record.profiled = r.get_bool("profiled");
  if (!record.profiled) record.not_profiled_reason = r.get_string("not_profiled_reason");
  l.verdict = r.get_string("verdict");
  // Absent in reports of minor version 0 (before full mode).
  if (r.has("flop_source") && !r.is_null("flop_source")) {
    l.flop_source = r.get_string("flop_source");
  } else if (r.has("flop_null_reason")) {
    l.flop_null_reason = r.get_string("flop_null_reason");
  }
  read_placement(r, fmt::format("launch {} ({})", record.sequence, l.name), l.counters, l.roofline,
                 l.roofline_null_reason, l.verdict);
  return l;
}

// Whether a stored figure matches the one derived from the arrays: within 1e-5 relative (a file
// rounded to six significant digits by jq or a spreadsheet still reads), or exactly 0 for 0.
bool derived_matches(double stored, double derived) {
  return std::fabs(stored - derived) <= 1e-5 * std::fabs(derived);
}

// A kernel's total and median are derived from its durations (profile_assembly.cpp); a file
// where they are not was edited, and its table and the compare gate would show numbers no run
// measured.
void check_kernel_times(const JsonObjectReader& r, const KernelSummary& k) {
  double total = 0;
  for (double d : k.durations_s) total += d;
  if (!derived_matches(k.total_time_s, total)) {
    r.fail_key("total_time_s",
               fmt::format("{}: {} differs from the {} its durations_s sum to (the file was edited "
                           "or damaged)",
                           k.key, k.total_time_s, total));
  }
  const std::optional<double> median_s =
      k.durations_s.empty() ? std::nullopt : std::optional<double>(median(k.durations_s));
  if (median_s.has_value() != k.median_time_s.has_value() ||
      (median_s && !derived_matches(*k.median_time_s, *median_s))) {
    r.fail_key("median_time_s",
               fmt::format("{}: {} differs from the median of its durations_s, {} (the file was "
                           "edited or damaged)",
                           k.key, k.median_time_s ? fmt::format("{}", *k.median_time_s) : "null",
                           median_s ? fmt::format("{}", *median_s) : "null"));
  }
}

KernelSummary kernel_summary_from_json(const JsonObjectReader& r) {
  KernelSummary k;
  k.key = r.get_string("key");
  k.name = r.get_string("name");
  k.grid = dims_from_json(r, "grid");
  k.block = dims_from_json(r, "block");
  k.dynamic_shared_bytes = get_uint32(r, "dynamic_shared_bytes");
  k.nvtx_path = r.get_string_array("nvtx");
  k.launches = r.get_int("launches");
  k.profiled_launches = r.get_int("profiled_launches");
  if (k.profiled_launches < 0 || k.profiled_launches > k.launches) {
    r.fail_key("profiled_launches",
               fmt::format("{} of {} launches", k.profiled_launches, k.launches));
  }
  k.durations_s = r.get_double_array("durations_s");
  k.total_time_s = r.get_double("total_time_s");
  k.median_time_s = r.get_optional_double("median_time_s");
  k.share_of_gpu_time = r.get_double("share_of_gpu_time");
  // The chart's marker areas and the table's shares come from it.
  if (!(k.share_of_gpu_time >= 0 && k.share_of_gpu_time <= 1 + 1e-9)) {
    r.fail_key("share_of_gpu_time",
               fmt::format("{}: must lie in 0..1, found {}", k.key, k.share_of_gpu_time));
  }
  check_kernel_times(r, k);
  k.verdict = r.get_string("verdict");
  read_placement(r, k.key, k.counters, k.roofline, k.roofline_null_reason, k.verdict);
  return k;
}

ProgramOutcome program_from_json(const JsonObjectReader& r, bool& complete) {
  ProgramOutcome p;
  p.command = r.get_string_array("command");
  p.exit_code = get_optional_int(r, "exit_code");
  p.signal = get_optional_int(r, "signal");
  p.wall_time_s = r.get_double("wall_time_s");
  complete = r.get_bool("complete");
  return p;
}

FlopRunOutcome flop_run_from_json(const JsonObjectReader& r) {
  FlopRunOutcome run;
  run.exit_code = get_optional_int(r, "exit_code");
  run.signal = get_optional_int(r, "signal");
  run.wall_time_s = r.get_double("wall_time_s");
  run.complete = r.get_bool("complete");
  run.failure = r.get_string("failure");
  return run;
}

ProfileConfig profile_config_from_json(const JsonObjectReader& r) {
  ProfileConfig c;
  c.mode = r.get_string("mode");
  if (c.mode != kModeSinglePass && c.mode != kModeFull) {
    r.fail_key("mode", fmt::format("'{}': expected {} or {}", c.mode, kModeSinglePass, kModeFull));
  }
  c.counters = r.get_bool("counters");
  c.kernel_regex = r.get_string("kernel_regex");
  c.nvtx_include = r.get_string_array("nvtx_include");
  c.launch_skip = r.get_uint64("launch_skip");
  if (!r.is_null("launch_count")) c.launch_count = r.get_uint64("launch_count");
  c.sample_every = r.get_uint64("sample_every");
  // Reports written before --include-nccl existed profiled NCCL kernels like any other.
  c.include_nccl = r.has("include_nccl") ? r.get_bool("include_nccl") : true;
  return c;
}

// The summary's counts and GPU time are derived from the arrays; they are checked, not trusted.
void check_summary(const JsonObjectReader& summary, const ProfileReport& report) {
  size_t profiled = 0;
  for (const auto& l : report.launches) profiled += l.record.profiled ? 1 : 0;
  for (const auto& [key, derived] :
       {std::pair<const char*, uint64_t>{"launches", report.launches.size()},
        {"profiled_launches", profiled},
        {"kernels", report.kernels.size()}}) {
    const uint64_t stored = summary.get_uint64(key);
    if (stored != derived) {
      summary.fail_key(key, fmt::format("{} differs from the {} counted in the report's arrays",
                                        stored, derived));
    }
  }
  double total = 0;
  for (const auto& l : report.launches) total += l.duration_s.value_or(0.0);
  if (!derived_matches(report.total_kernel_time_s, total)) {
    summary.fail_key("total_kernel_time_s",
                     fmt::format("{} differs from the {} the launches' duration_s sum to (the file "
                                 "was edited or damaged)",
                                 report.total_kernel_time_s, total));
  }
}

// Each kernel's share is its total over the summary's GPU time (checked above).
void check_shares(const std::vector<JsonObjectReader>& kernels, const ProfileReport& report) {
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelSummary& k = report.kernels[i];
    const double share =
        report.total_kernel_time_s > 0 ? k.total_time_s / report.total_kernel_time_s : 0;
    if (!derived_matches(k.share_of_gpu_time, share)) {
      kernels[i].fail_key("share_of_gpu_time",
                          fmt::format("{}: {} differs from its total_time_s over the GPU time, {} "
                                      "(the file was edited or damaged)",
                                      k.key, k.share_of_gpu_time, share));
    }
  }
}

}  // namespace

std::string launch_record_line(const LaunchRecord& l) {
  Json ranges = Json::array();
  for (const auto& range : l.ranges) ranges.push_back(metric_map_to_json(range));
  const Json j = {{"record", kRawLaunch},
                  {"sequence", l.sequence},
                  {"pid", l.pid},
                  {"correlation", l.correlation},
                  {"api", l.api},
                  {"name", l.mangled_name},
                  {"grid", l.grid},
                  {"block", l.block},
                  {"dynamic_shared_bytes", l.dynamic_shared_bytes},
                  {"stream", l.stream},
                  {"device", l.device},
                  {"nvtx", l.nvtx_path},
                  {"selected", l.selected},
                  {"profiled", l.profiled},
                  {"captured", l.captured},
                  {"not_profiled_reason", l.not_profiled_reason},
                  {"ranges", ranges}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string kernel_activity_line(const KernelActivity& a) {
  const Json j = {{"record", kRawActivity}, {"correlation", a.correlation},
                  {"pid", a.pid},           {"name", a.name},
                  {"start_ns", a.start_ns}, {"end_ns", a.end_ns},
                  {"device", a.device},     {"stream", a.stream},
                  {"graph_id", a.graph_id}, {"grid", a.grid},
                  {"block", a.block},       {"dynamic_shared_bytes", a.dynamic_shared_bytes}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string sessions_line(const std::vector<CounterSession>& sessions,
                          const std::string& cache_policy, const std::string& sweep_method) {
  Json list = Json::array();
  for (const auto& s : sessions) {
    list.push_back(
        {{"role", s.role}, {"replay", s.replay}, {"passes", s.passes}, {"metrics", s.metrics}});
  }
  const Json j = {{"record", kRawSessions},
                  {"sessions", list},
                  {"cache_policy", cache_policy},
                  {"sweep_method", sweep_method}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string simple_line(const char* kind, const std::string& key, const nlohmann::json& value) {
  const Json j = {{"record", kind}, {key, value}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

ProcessRecords parse_process_records(const std::string& text, const std::string& origin) {
  ProcessRecords records;
  size_t begin = 0;
  int line_number = 0;
  while (begin < text.size()) {
    ++line_number;
    const size_t end = text.find('\n', begin);
    if (end == std::string::npos) {
      records.warnings.push_back(
          fmt::format("{}: line {} is cut off (the process was killed while writing it): dropped",
                      origin, line_number));
      break;
    }
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (line.empty()) continue;
    try {
      read_record(Json::parse(line), records);
    } catch (const Error& e) {
      throw bad_input(fmt::format("{}: line {}: {}", origin, line_number, e.what()));
    } catch (const nlohmann::json::exception& e) {
      throw bad_input(fmt::format("{}: line {}: malformed record: {}", origin, line_number,
                                  json_error_text(e.what())));
    }
  }
  return records;
}

nlohmann::ordered_json profile_report_to_json(const ProfileReport& report) {
  OrderedJson j;
  j["kind"] = kProfileReportKind;
  j["schema_version"] = kProfileSchemaVersion;
  // A report keeps the minor version it was written with: one read from a minor-0 file is
  // written again without the later keys, byte for byte.
  const int minor = report.schema_minor_version;
  if (minor >= 1) j["schema_minor_version"] = minor;
  OrderedJson tool{{"version", report.tool_version}};
  tool["git_revision"] =
      report.git_revision.empty() ? OrderedJson(nullptr) : OrderedJson(report.git_revision);
  j["tool"] = tool;
  j["timestamp_utc"] = report.timestamp_utc;
  OrderedJson program;
  program["command"] = report.program.command;
  program["exit_code"] =
      report.program.exit_code ? OrderedJson(*report.program.exit_code) : OrderedJson(nullptr);
  program["signal"] =
      report.program.signal ? OrderedJson(*report.program.signal) : OrderedJson(nullptr);
  program["wall_time_s"] = report.program.wall_time_s;
  program["complete"] = report.complete;
  j["program"] = program;
  if (minor >= 1) {
    j["flop_run"] = report.flop_run ? flop_run_to_json(*report.flop_run) : OrderedJson(nullptr);
  }
  OrderedJson config;
  config["mode"] = report.config.mode;
  config["counters"] = report.config.counters;
  config["kernel_regex"] = report.config.kernel_regex;
  config["nvtx_include"] = report.config.nvtx_include;
  config["launch_skip"] = report.config.launch_skip;
  config["launch_count"] =
      report.config.launch_count ? OrderedJson(*report.config.launch_count) : OrderedJson(nullptr);
  config["sample_every"] = report.config.sample_every;
  config["include_nccl"] = report.config.include_nccl;
  j["config"] = config;
  OrderedJson devices = OrderedJson::array();
  for (const auto& d : report.devices) devices.push_back(device_record_to_json(d));
  j["devices"] = devices;
  j["peaks"] =
      report.peaks ? OrderedJson(peaks_block_to_json(*report.peaks)) : OrderedJson(nullptr);
  OrderedJson summary;
  summary["launches"] = report.launches.size();
  size_t profiled = 0;
  for (const auto& l : report.launches) profiled += l.record.profiled ? 1 : 0;
  summary["profiled_launches"] = profiled;
  summary["kernels"] = report.kernels.size();
  summary["total_kernel_time_s"] = report.total_kernel_time_s;
  summary["graph_launches"] = report.graph_launches;
  j["summary"] = summary;
  OrderedJson kernels = OrderedJson::array();
  for (const auto& k : report.kernels) kernels.push_back(kernel_summary_to_json(k));
  j["kernels"] = kernels;
  OrderedJson launches = OrderedJson::array();
  for (const auto& l : report.launches) launches.push_back(launch_to_report_json(l, minor));
  j["launches"] = launches;
  j["warnings"] = report.warnings;
  return j;
}

std::string profile_report_to_json_text(const ProfileReport& report) {
  return profile_report_to_json(report).dump(2, ' ', false,
                                             nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

bool is_profile_report(const nlohmann::json& document) {
  if (!document.is_object()) return false;
  const auto kind = document.find("kind");
  return kind != document.end() && kind->is_string() && *kind == kProfileReportKind;
}

ProfileReport profile_report_from_json(const nlohmann::json& document, const std::string& origin) {
  const JsonObjectReader r(document, origin, "");
  if (!is_profile_report(document)) {
    throw bad_input(fmt::format("{}: not a profile report (no \"kind\": \"{}\"; a sweep report?)",
                                origin, kProfileReportKind));
  }
  // Checked before any other key: a report of another layout would fail on some renamed key.
  const int64_t version = r.get_int64("schema_version");
  if (version != kProfileSchemaVersion) {
    throw bad_input(fmt::format(
        "{}: profile report schema_version {} is not supported (this rooflinectl reads version {})",
        origin, version, kProfileSchemaVersion));
  }
  ProfileReport report;
  report.schema_version = static_cast<int>(version);
  // Absent before full mode: minor version 0. A newer minor version may hold keys this reader
  // would drop.
  const int64_t minor = r.has("schema_minor_version") ? r.get_int64("schema_minor_version") : 0;
  if (minor < 0 || minor > kProfileSchemaMinorVersion) {
    r.fail_key(
        "schema_minor_version",
        fmt::format("{}.{} is not supported (this rooflinectl reads {}.0 to {}.{})", version, minor,
                    kProfileSchemaVersion, kProfileSchemaVersion, kProfileSchemaMinorVersion));
  }
  report.schema_minor_version = static_cast<int>(minor);
  const JsonObjectReader tool = r.get_object("tool");
  report.tool_version = tool.get_string("version");
  report.git_revision = tool.get_optional_string("git_revision").value_or("");
  report.timestamp_utc = r.get_string("timestamp_utc");
  report.program = program_from_json(r.get_object("program"), report.complete);
  if (r.has("flop_run") && !r.is_null("flop_run")) {
    report.flop_run = flop_run_from_json(r.get_object("flop_run"));
  }
  report.config = profile_config_from_json(r.get_object("config"));
  for (const auto& d : r.get_object_array("devices")) {
    report.devices.push_back(device_record_from_json(d));
  }
  if (!r.is_null("peaks")) report.peaks = peaks_block_from_json(r.get_object("peaks"));
  const JsonObjectReader summary = r.get_object("summary");
  report.total_kernel_time_s = summary.get_double("total_kernel_time_s");
  report.graph_launches = summary.get_uint64("graph_launches");
  const std::vector<JsonObjectReader> kernels = r.get_object_array("kernels");
  for (const auto& k : kernels) report.kernels.push_back(kernel_summary_from_json(k));
  for (const auto& l : r.get_object_array("launches")) {
    report.launches.push_back(launch_from_report_json(l));
  }
  check_summary(summary, report);
  check_shares(kernels, report);
  report.warnings = r.get_string_array("warnings");
  return report;
}

ProfileReport profile_report_from_json_text(const std::string& text, const std::string& origin) {
  return profile_report_from_json(parse_json_text(text, origin), origin);
}

bool is_profile_report_file(const std::string& path) {
  try {
    // Only the top-level members are kept: a report of thousands of points is lexed here, not
    // built into a document (its reader parses it in full afterwards).
    using Event = nlohmann::json::parse_event_t;
    const auto top_level_only = [](int depth, Event event, nlohmann::json& /*parsed*/) {
      return depth == 0 || (depth == 1 && (event == Event::key || event == Event::value));
    };
    return is_profile_report(nlohmann::json::parse(read_text_file(path, "report"), top_level_only));
  } catch (const std::exception&) {
    return false;
  }
}

ProfileReport load_profile_report(const std::string& path) {
  return profile_report_from_json_text(read_text_file(path, "profile report"), path);
}

}  // namespace rooflinectl
