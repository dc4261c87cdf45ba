// JSON report writer: the machine-readable output CI compares (docs/report-schema.json describes
// the layout). Pure host code.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/sweep_config.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// The whole report as ordered JSON: "schema_version" (always kReportSchemaVersion, the layout
/// this writer produces) first, then "tool", "timestamp_utc", "device", "config", "peaks"
/// (the three roof sources and the one used; null when the report has none), "points".
/// Units are in the key names (time_s, bytes_per_s, flop_per_s, flop_per_byte, ..._hz).
/// An empty std::optional is written as null. A non-finite double is never written: it becomes
/// null plus a sibling "<key>_null_reason" (see the .cpp for why this does not throw).
/// Does not throw for any Report value.
nlohmann::ordered_json report_to_json(const Report& report);

/// report_to_json dumped with a 2-space indent and a trailing newline. Doubles are written in
/// nlohmann's shortest round-trip form, so load_report reads back the exact same values.
std::string report_to_json_text(const Report& report);

/// The sweep config as recorded in a report: the config-file keys of parse_sweep_config
/// ("ops", "seq", "batch", ..., "device") plus "seq_lens", the expanded lengths that ran;
/// "kernels" (operator → requested version key) only when the config holds any.
nlohmann::ordered_json sweep_config_to_json(const SweepConfig& config);

/// `config` as a config file (`sweep --config`): only the keys parse_sweep_config reads, so that
/// loading the text gives back every field it can hold (not device, shard, lock_clocks or
/// require_counters, which are CLI only). What `sweep --devices` hands its workers.
nlohmann::ordered_json sweep_config_file_json(const SweepConfig& config);

/// One point's counters as a report stores them ("counters" of a point): what `profile` writes
/// per launch too.
nlohmann::ordered_json counter_result_to_json(const CounterResult& counters);
/// One placement as a report stores it ("roofline" of a point).
nlohmann::ordered_json roofline_point_to_json(const RooflinePoint& point);
/// The GPU as a report stores it ("device").
nlohmann::ordered_json device_record_to_json(const DeviceRecord& device);

}  // namespace rooflinectl
