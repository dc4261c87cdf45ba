// JSON report reader: the inverse of json_writer (used by `compare` and `plot`). Pure host code.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/json_input.hpp"
#include "core/sweep_config.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// Parses a report written by report_to_json_text. `origin` names the source in messages (the
/// file path). Every field the writer stores is read back: doubles exactly, null optionals as
/// nullopt, and null in a non-optional double (a non-finite value the writer replaced) as NaN.
/// Derived keys (d_model, repetitions, the KernelCounters sums, and a point's roofline placement:
/// intensity, achieved FLOP/s and bytes/s, ridge, attainable, fraction of roof, above_roof, bound)
/// and "*_null_reason" keys are not read: the placement is recomputed from the stored roof, FLOPs,
/// bytes and time, so an edited fraction cannot print above 100% without the above-roof flag.
/// Unknown keys are ignored. Throws a bad-input Error for: malformed JSON (naming origin and
/// position); a "schema_version" other than kReportSchemaVersion (naming the found and the
/// supported version); a missing required key or a value of the wrong type (naming origin and the
/// key path, e.g. "points[2].timing.median_s"); a roofline whose roof peaks, FLOPs, bytes or
/// time are not finite and > 0 (naming the key); a roofline time_s that differs from the point's
/// timing.median_s by more than rounding (relative 1e-9; naming the point and both values).
Report report_from_json_text(const std::string& text, const std::string& origin);

/// report_from_json_text of a document already parsed (parse_json_text), for a caller that reads
/// a file once and then decides by its "kind" which reader takes it. Same errors but the syntax.
Report report_from_json(const nlohmann::json& document, const std::string& origin);

/// Reads and parses the report file at `path`; an unreadable file is a bad-input Error with the
/// OS reason.
Report load_report(const std::string& path);

/// Inverse of sweep_config_to_json: every key is required, "seq_lens" is taken as written (not
/// re-expanded from "seq"). `where` is the object's key path for messages (e.g. "config").
/// Throws bad-input Errors as report_from_json_text.
SweepConfig sweep_config_from_json(const nlohmann::json& object, const std::string& origin,
                                   const std::string& where);

/// Inverse of counter_result_to_json (a point's "counters", also each launch's and kernel's in a
/// profile report). `where` names the owner in messages ("gelu at L = 4096"). Derived keys are
/// not read. Throws a bad-input Error naming the key path for a missing or mistyped key or a
/// negative counter value.
CounterResult counter_result_from_json(const JsonObjectReader& r, const std::string& where);

/// Inverse of roofline_point_to_json: reads the measured inputs (roof with its L2 ceiling, FLOPs,
/// DRAM and L2 bytes, DRAM bytes in the window, time, basis) and recomputes every derived value
/// with place_on_roofline. `counted_in_window` (the owner's counters.total read + write DRAM
/// bytes) stands in for dram_bytes_in_window in a write-back-inclusive placement written before
/// that key existed. Throws a bad-input Error naming the key for a roof peak, FLOP count, byte
/// count or time that is not finite and > 0, for an unknown bytes_basis, and for in-window bytes
/// outside [0, dram_bytes] or on a basis other than dram_isolated.
RooflinePoint roofline_point_from_json(const JsonObjectReader& r,
                                       std::optional<double> counted_in_window);

/// Inverse of device_record_to_json. Throws a bad-input Error naming the key path for a missing
/// or mistyped key.
DeviceRecord device_record_from_json(const JsonObjectReader& r);

}  // namespace rooflinectl
