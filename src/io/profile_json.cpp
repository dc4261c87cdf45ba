#include "io/profile_json.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "io/json_writer.hpp"
#include "io/peaks_json.hpp"

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

OrderedJson launch_to_report_json(const ProfiledLaunch& l) {
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
  j["roofline"] = roofline_json(l.roofline);
  if (!l.roofline) j["roofline_null_reason"] = l.roofline_null_reason;
  return j;
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
      throw bad_input(
          fmt::format("{}: line {}: malformed record: {}", origin, line_number, e.what()));
    }
  }
  return records;
}

nlohmann::ordered_json profile_report_to_json(const ProfileReport& report) {
  OrderedJson j;
  j["kind"] = "profile";
  j["schema_version"] = kProfileSchemaVersion;
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
  OrderedJson config;
  config["mode"] = report.config.mode;
  config["counters"] = report.config.counters;
  config["kernel_regex"] = report.config.kernel_regex;
  config["nvtx_include"] = report.config.nvtx_include;
  config["launch_skip"] = report.config.launch_skip;
  config["launch_count"] =
      report.config.launch_count ? OrderedJson(*report.config.launch_count) : OrderedJson(nullptr);
  config["sample_every"] = report.config.sample_every;
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
  for (const auto& l : report.launches) launches.push_back(launch_to_report_json(l));
  j["launches"] = launches;
  j["warnings"] = report.warnings;
  return j;
}

std::string profile_report_to_json_text(const ProfileReport& report) {
  return profile_report_to_json(report).dump(2, ' ', false,
                                             nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

}  // namespace rooflinectl
