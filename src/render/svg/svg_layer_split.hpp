// The time split of one transformer layer against its length axis (`rooflinectl layer --chart`,
// `rooflinectl plot LAYER.json`), as a self-contained SVG.
#pragma once

#include <cstdint>
#include <string>

#include "model/layer_time_split.hpp"

namespace rooflinectl {

/// A length as its tick under a bar: a multiple of 1024 from 1024 up in K = 1024 as context
/// lengths are named (16384 → "16K", 131072 → "128K"), any other length in full ("512", "1000").
std::string length_tick(int64_t length);

/// One panel per batch size (in the split's order); in each, one bar per length (prefill L or
/// decode context, evenly spaced, labelled with length_tick) stacked to 100% by operator in
/// layer_operators order (input_norm at the bottom … ffn_down at the top), each segment the
/// operator's share of the layer time in the split's basis (measured median times or datasheet
/// lower bounds; the subtitle says which). The layer time is written above each bar. A length
/// whose layer time is unknown (an operator not measured) gets no bar and is named in a note under
/// the chart. Segments are <rect class="segment"> with data-op, data-batch, data-length and
/// data-share (0..1). Deterministic; does not throw for any split.
std::string layer_split_svg(const LayerTimeSplit& split);

}  // namespace rooflinectl
