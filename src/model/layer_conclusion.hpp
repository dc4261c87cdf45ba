// The seeds' conclusion about whole layers ("prefill is compute-bound, decode is memory-bound;
// beyond L = … attention takes over"), stated from the numbers of a layer view rather than
// asserted: which operator group takes over as L grows, how much of the time is compute-bound,
// and in decode how the bytes split between weights and the KV cache. Pure host code.
#pragma once

#include <string>
#include <vector>

#include "model/layer_prediction.hpp"

namespace rooflinectl {

/// Sentences concluding `points` (one phase; any mix of batches and lengths, each (batch, length)
/// once). Prefill, per batch: the first L at which attention takes more time than every other
/// operator (each FFN GEMM) and the first at which it takes more than ffn_gate + ffn_up +
/// ffn_down together, each named as "beyond <the L before>" or said not to happen in the range;
/// and the compute-bound share of the time at the smallest and largest L with the memory-bound
/// operators. Decode: whether every operator is memory-bound (else the least memory-bound share),
/// the weight and KV-cache shares of the time at the smallest batch and context, the KV-cache
/// share of the bytes at the largest batch and context 32768 (the largest context when 32768 is
/// not swept), and per batch the first context at which the KV cache outweighs the weights.
/// Percentages with one decimal. Empty for no points.
std::vector<std::string> layer_conclusion(const std::vector<LayerPrediction>& points);

}  // namespace rooflinectl
