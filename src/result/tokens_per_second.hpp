// The tokens/s a sweep point records beside its time: derived from the shape and the median time,
// so the writer and every reader compute it the same way.
#pragma once

#include <string>

#include "core/shape.hpp"

namespace rooflinectl {

/// Tokens processed per second: B·L / time for prefill operators (B·L_q for naive and flash
/// attention: a chunk of L_q queries processes L_q new tokens), B / time for decode (one new
/// token per sequence per step). Throws a bad-input Error when time_s ≤ 0.
double tokens_per_second(const std::string& op, const Shape& shape, double time_s);

}  // namespace rooflinectl
