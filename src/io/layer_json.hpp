// Reader of a measured `rooflinectl layer` report (render/layer_writer.hpp writes it,
// docs/layer-report-schema.json lists its fields) into the records `compare` gates on. Pure host
// code.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "result/layer_times.hpp"

namespace rooflinectl {

/// True when `document` is a `rooflinectl layer` report: an object holding "layer_schema_version".
bool is_layer_report(const nlohmann::json& document);

/// is_layer_report of the file at `path`, reading only its top level; false for an unreadable
/// file or malformed JSON (its own reader reports those).
bool is_layer_report_file(const std::string& path);

/// The measured times of a layer report already parsed. `origin` names it in messages. Reads the
/// top-level "basis", "model" (id, name, layers), "phase", "kv_dtype", "measurement" (device, tool
/// version, git revision, timestamp) and per point its batch, its length (under the "length_axis"
/// key), "measured.layer_time_s" and per operator its name and "measured" record (sweep operator,
/// shape, status, version, validated, time_s, time_null_reason, median_noise). Unknown keys are
/// ignored. Throws a bad-input Error: for a "layer_schema_version" other than kLayerSchemaVersion
/// (naming both); for an analytic report ("basis": "analytic" or "measurement": null; it holds
/// datasheet bounds, nothing to gate); for a missing or mistyped key (naming the key path); for a
/// "basis", "phase" or "kv_dtype" outside its values; for a time or noise that is negative or not
/// finite, a point whose operators differ in number from the first point's, a time on an operator
/// whose status is not "ok" or that was not validated, or a layer time that is not the sum of its
/// operators' times within 1e-5 (null unless every operator has a time).
LayerTimes layer_times_from_json(const nlohmann::json& document, const std::string& origin);

/// Reads and parses the layer report at `path` (layer_times_from_json); an unreadable file or
/// malformed JSON is a bad-input Error naming the path.
LayerTimes load_layer_times(const std::string& path);

}  // namespace rooflinectl
