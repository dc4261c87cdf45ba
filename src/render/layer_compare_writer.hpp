// Writers of a layer comparison (compare/layer_compare.hpp): a console table and JSON. Pure host
// code; none throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "compare/layer_compare.hpp"

namespace rooflinectl {

/// Version of the layer comparison's JSON layout ("layer_compare_schema_version", first key).
inline constexpr int kLayerCompareSchemaVersion = 1;

/// Console text: a header naming the model, phase, both runs, the GPU, the threshold and the
/// interval gate; warnings; one row per (batch, length) and role (the layer's total first, then
/// its operators in layer order) with base and new median, change and verdict, the kernel version
/// (old -> new when it changed); unmatched points on a row each; then a reason line for every
/// row that is not "same"; then the summary and the exit code.
std::string format_layer_compare_table(const LayerCompareResult& result);

/// Markdown for a pull request comment: the outcome with an icon, the header, warnings, the
/// counts, a table of the rows that are not "same" (attention order) with their reasons (an
/// operator's with its layer's change beside it), and every row in a collapsed <details> block,
/// cut with a line saying how many rows were left out where the text would pass 60,000
/// characters (GitHub takes 65,536 in a comment).
std::string format_layer_compare_markdown(const LayerCompareResult& result);

/// The comparison as ordered JSON: "layer_compare_schema_version", "model", "phase", "kv_dtype",
/// "base", "new" (tool version, git revision, timestamp, GPU), "options" (time_threshold, strict,
/// allow_different_gpu, the gate's name and time_resolution_floor_s), "warnings", "summary"
/// (a count per verdict, regressions), "exit_code", and "points": per (batch, length) its
/// "verdict" (the one of its rows that needs attention first), its "layer" row and its "operators"
/// (role, verdict, reason, base_time_s, new_time_s, relative_change, the two half-widths in
/// seconds, version and new_version), the length under "seq_len" (prefill) or "context" (decode).
/// Unknown values are null.
nlohmann::ordered_json layer_compare_to_json(const LayerCompareResult& result);

}  // namespace rooflinectl
