// Writers of `rooflinectl layer`'s LayerReport, analytic or measured: a console table and JSON (its
// fields in docs/layer-report-schema.json). They only read the report (src/model/layer_report.hpp).
// Pure host code.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/layer_report.hpp"
#include "result/layer_times.hpp"

namespace rooflinectl {

/// Console text: the GPU's roofs and ridge points, the preset's layer and its weights; a summary
/// table with one row per (batch, length): layer time, model time and TTFT (prefill) or decode
/// tokens/s, the attention and FFN-GEMM shares, the time reading weights and the KV cache, peak
/// memory in GB and GiB (decimal and binary prefixes) and whether it fits; then per point the
/// operator table (M N K, GFLOP, min DRAM bytes split into weights, KV cache and activations,
/// arithmetic intensity, bound, time lower bound, share); what the estimates leave out; the
/// conclusion. A measured report instead leads with the measured summary (layer time = Σ median
/// operator times, TTFT or tokens/s from it, shares, the datasheet lower bound beside it) and per
/// point the operators' median time, share, measured bound and fraction of roof, kernel version
/// and datasheet bound, each unmeasured operator on a line of its own with its reason.
std::string format_layer_table(const LayerReport& report);

/// The report as ordered JSON: "layer_schema_version", "basis" ("analytic" | "measured"),
/// "measurement" (where and how it was measured; null when analytic), "gpu", "roofs", "model",
/// "phase", "length_axis" ("seq_len" for prefill, "context" for decode), "batches", "lengths",
/// "points" (each with the length under the length_axis key, the analytic model-level estimates,
/// "peak_memory", "measured" (null when analytic) and "operators", each with its "measured"),
/// "omissions", "conclusion". SI units in the key names; a value not measured is null with its
/// reason; never NaN or Inf.
nlohmann::ordered_json layer_report_to_json(const LayerReport& report);

/// layer_report_to_json dumped with a 2-space indent and a trailing newline.
std::string layer_report_to_json_text(const LayerReport& report);

}  // namespace rooflinectl
