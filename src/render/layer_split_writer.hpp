// `rooflinectl report LAYER.json`: a saved layer report's time split re-printed without the GPU,
// one row per (batch, length) with the layer time, the model-level estimate and each operator's
// time and share, as a console table, Markdown or CSV. Pure host code; none throws.
#pragma once

#include <string>

#include "model/layer_time_split.hpp"

namespace rooflinectl {

/// Console text: a header naming the model, phase, basis of the times and the GPU; one row per
/// bar (batch, length): the layer time, then TTFT (prefill: the model time, layers × layer) or the
/// model time and decode tokens/s (B / model time), then per operator its time and share of the
/// layer; "-" where an operator was not measured (the JSON's time_null_reason says why) and for
/// every estimate of such a row; then what the estimates leave out (the report's omissions).
std::string format_layer_split_table(const LayerTimeSplit& split);

/// The same as one Markdown table, with the header as a paragraph above it.
std::string format_layer_split_markdown(const LayerTimeSplit& split);

/// One row per (batch, length, operator) and one per (batch, length) for the layer itself
/// (operator "layer"): batch, the length (column "seq_len" for prefill, "context" for decode),
/// operator, time_s, share_of_layer, and on the layer's row model_time_s and ttft_s (prefill) or
/// decode_tokens_per_s (decode), basis; empty cells where not measured or not the layer's.
std::string format_layer_split_csv(const LayerTimeSplit& split);

}  // namespace rooflinectl
