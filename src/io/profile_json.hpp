// The two documents of `rooflinectl profile`: the raw record lines the injection library
// appends while the program runs (one JSON object per line, one file per process), and the
// profile report (docs/profile-report-schema.json). Pure host code.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "profile/profile_report.hpp"

namespace rooflinectl {

/// Raw record kinds, the "record" member of each line.
inline constexpr const char* kRawProcess = "process";
inline constexpr const char* kRawSessions = "sessions";
inline constexpr const char* kRawLaunch = "launch";
inline constexpr const char* kRawActivity = "activity";
inline constexpr const char* kRawToolLaunch = "tool_launch";
inline constexpr const char* kRawGraphLaunch = "graph_launch";
inline constexpr const char* kRawWarning = "warning";
inline constexpr const char* kRawEnd = "end";

/// One launch as a raw line (without the newline).
std::string launch_record_line(const LaunchRecord& launch);
/// One activity record as a raw line.
std::string kernel_activity_line(const KernelActivity& activity);
/// The metric sets and flush method of the library, as a raw line.
std::string sessions_line(const std::vector<CounterSession>& sessions,
                          const std::string& cache_policy, const std::string& sweep_method);
/// A one-member record line: {"record": kind, key: value}.
std::string simple_line(const char* kind, const std::string& key, const nlohmann::json& value);

/// Parses one process's raw file. A last line without its newline (the process was killed while
/// writing) is dropped with a warning; any other malformed line is a bad-input Error naming
/// `origin` and the line number. `complete` is set when the end record is present.
ProcessRecords parse_process_records(const std::string& text, const std::string& origin);

/// The profile report as ordered JSON: "kind": "profile", "schema_version", "tool",
/// "timestamp_utc", "program", "config", "devices", "peaks", "summary", "kernels" (by total time),
/// "launches" (in order), "warnings". Counters and placements have the sweep report's layout.
nlohmann::ordered_json profile_report_to_json(const ProfileReport& report);
/// profile_report_to_json dumped with a 2-space indent and a trailing newline.
std::string profile_report_to_json_text(const ProfileReport& report);

}  // namespace rooflinectl
