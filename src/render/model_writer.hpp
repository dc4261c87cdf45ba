// Writers of `rooflinectl model`'s ModelReport: a console table and JSON (every field in
// docs/model-report-schema.json). They only read the report (src/model/prediction.hpp). Pure host
// code.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/prediction.hpp"

namespace rooflinectl {

/// Version of the model JSON layout ("model_schema_version", first key); bump on incompatible
/// change.
inline constexpr int kModelSchemaVersion = 1;

/// Console text: the GPU and its datasheet roofs with sources, the shape and the layer widths
/// (with a preset, its notes), the predicted table, the attention
/// memory table (MB = 1e6 bytes) with the largest L that fits, the
/// flash IO bounds and, when asked for, the KV-cache capacity (sequences that fit, contiguous vs
/// paged, with the budget's origin). A prediction without a roof prints "-" and the reason once
/// below the table.
std::string format_model_table(const ModelReport& report);

/// The report as ordered JSON: "model_schema_version", "gpu" (figures with their sources),
/// "shape", "layer" (preset id or null, d_model, ffn_dim, ffn_kind, norm, notes), "seq_lens",
/// "points", "memory", "max_naive_attention_seq_len", "sram_bytes", "flash_io", "kv_capacity"
/// (layers, kv_heads, head_dim, kv_element_bytes, page_size, max_model_len, budget_bytes,
/// budget_source "gpu_memory_minus_weights" | "kv_budget_gib", gpu_memory_utilization,
/// weight_bytes, bytes_per_position, page_bytes, total_pages, rows; null when not asked for).
/// Missing values are null with a "<key>_null_reason"; never NaN or Inf.
nlohmann::ordered_json model_report_to_json(const ModelReport& report);

/// model_report_to_json dumped with a 2-space indent and a trailing newline.
std::string model_report_to_json_text(const ModelReport& report);

}  // namespace rooflinectl
