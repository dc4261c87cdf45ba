// The two documents of `rooflinectl profile`: the raw record lines the injection library
// appends while the program runs (one JSON object per line, one file per process), and the
// profile report (docs/profile-report-schema.json). Pure host code.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "profile/profile_report.hpp"

namespace rooflinectl {

/// The "kind" member of a profile report; sweep reports have no "kind".
inline constexpr const char* kProfileReportKind = "profile";

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

/// The profile report as ordered JSON: "kind": "profile", "schema_version",
/// "schema_minor_version", "tool", "timestamp_utc", "program", "flop_run", "config", "devices",
/// "peaks", "summary", "kernels" (by total time), "launches" (in order, each with its
/// "flop_source" or "flop_null_reason"), "warnings". Counters and placements have the sweep
/// report's layout. A report of minor version 0 (read from a file written before full mode) is
/// written without the minor-1 keys ("schema_minor_version", "flop_run", the FLOP sources).
nlohmann::ordered_json profile_report_to_json(const ProfileReport& report);
/// profile_report_to_json dumped with a 2-space indent and a trailing newline.
std::string profile_report_to_json_text(const ProfileReport& report);

/// True when `document` is a JSON object whose "kind" is "profile" (what profile_report_to_json
/// writes). Never throws.
bool is_profile_report(const nlohmann::json& document);

/// Inverse of profile_report_to_json: every key it writes is read back (doubles exactly, null as
/// nullopt), so profile_report_to_json_text of the result gives the same text. Derived keys (the
/// summary's counts, the counters' and placements' derived values) are recomputed, not read: the
/// counts must match the arrays and each placement must follow its counters (time = the counted
/// duration, FLOPs = every counted FLOP, KernelCounters::counted_flop, DRAM bytes = the isolated or
/// in-window bytes its bytes_basis names, relative 1e-9). A launch's correlation id, captured flag
/// and raw ranges are not in the report and stay empty. `origin` names the source in messages (the
/// file path). Throws a bad-input Error naming origin and, where one is at fault, the key path,
/// for: a "kind" other than "profile"; a "schema_version" other than kProfileSchemaVersion (naming
/// the found and the supported version); a "schema_minor_version" above kProfileSchemaMinorVersion
/// (absent: 0, the keys of later minor versions absent too); a config.mode other than
/// "single-pass" or "full"; a missing required key or a value of the wrong type; a
/// share of GPU time outside 0..1; counts or placements that contradict their sources.
ProfileReport profile_report_from_json(const nlohmann::json& document, const std::string& origin);

/// parse_json_text (a malformed document is a bad-input Error naming origin and the position),
/// then profile_report_from_json.
ProfileReport profile_report_from_json_text(const std::string& text, const std::string& origin);

/// True when the file at `path` holds a profile report (is_profile_report); false when it cannot
/// be read or parsed, which the reader called next reports. Never throws.
bool is_profile_report_file(const std::string& path);

/// Reads and parses the profile report at `path`; an unreadable file is a bad-input Error with
/// the OS reason, otherwise as profile_report_from_json_text.
ProfileReport load_profile_report(const std::string& path);

}  // namespace rooflinectl
