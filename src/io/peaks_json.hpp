// JSON form of the peaks records (src/result/peak_set.hpp): the report's top-level "peaks" block
// and the `rooflinectl peaks` cache file share it. Pure host code.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/json_input.hpp"
#include "result/peak_set.hpp"

namespace rooflinectl {

/// Version of the peaks cache file layout; a cache file of another version is ignored
/// (re-measured).
inline constexpr int kPeaksSchemaVersion = 1;

/// One source as JSON: {"description", "ceilings": {"<ceiling_key>": {"value", "source"}, ...},
/// "ridge_points_flop_per_byte": {"fp32", "tensor_bf16", "tensor_fp16"} (derived, not read back)}.
/// A value that is null or not finite is written as null. An unavailable set (null_reason) is not
/// written through this function: put_peak_set writes null plus "<key>_null_reason" instead.
nlohmann::ordered_json peak_set_to_json(const PeakSet& set);

/// Writes `set` under `key` of `object`, or null and "<key>_null_reason" when the set is
/// unavailable.
void put_peak_set(nlohmann::ordered_json& object, const std::string& key, const PeakSet& set);

/// Inverse of put_peak_set for source `source`: null reads as unavailable_peak_set with the
/// stored reason. Throws a bad-input Error naming the key path for a missing or mistyped member.
PeakSet get_peak_set(const JsonObjectReader& parent, const std::string& key, RoofSource source);

/// The report's "peaks" block: {"roof_requested": name|null, "roof_used", "note",
/// "measured_cache", "datasheet", "counters", "measured"} (each source per put_peak_set).
nlohmann::ordered_json peaks_block_to_json(const PeaksBlock& block);
/// Inverse of peaks_block_to_json; throws bad-input Errors as get_peak_set.
PeaksBlock peaks_block_from_json(const JsonObjectReader& r);

/// The cache file: "peaks_schema_version" first, then "key", "device", "tool", "timestamp_utc",
/// "benchmarks", "datasheet", "counters", "measured".
nlohmann::ordered_json peaks_record_to_json(const PeaksRecord& record);
/// peaks_record_to_json dumped with a 2-space indent and a trailing newline.
std::string peaks_record_to_json_text(const PeaksRecord& record);
/// Parses a cache file written by peaks_record_to_json_text. `origin` names it in messages.
/// Throws a bad-input Error for malformed JSON, another peaks_schema_version, or a missing or
/// mistyped key (naming the key path).
PeaksRecord peaks_record_from_json_text(const std::string& text, const std::string& origin);

}  // namespace rooflinectl
