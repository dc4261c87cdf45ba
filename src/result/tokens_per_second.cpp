#include "result/tokens_per_second.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/operator_names.hpp"

namespace rooflinectl {

double tokens_per_second(const std::string& op, const Shape& shape, double time_s) {
  if (!(time_s > 0)) throw bad_input(fmt::format("invalid time {} s: must be > 0", time_s));
  const bool chunk = op == kNaiveAttentionOp || op == kFlashAttentionOp;
  const double tokens = op == kDecodeAttentionOp ? static_cast<double>(shape.batch)
                        : chunk ? static_cast<double>(shape.batch * shape.query_len())
                                : static_cast<double>(shape.tokens());
  return tokens / time_s;
}

}  // namespace rooflinectl
