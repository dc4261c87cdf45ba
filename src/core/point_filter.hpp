// `sweep --filter EXPR`: which points of the axis product run.
//
// Grammar (no spaces needed; spaces around tokens are ignored):
//   EXPR   = CLAUSE { ("," | "&") CLAUSE }     every clause must hold (and)
//   CLAUSE = COND { "|" COND }                 at least one condition holds (or)
//   COND   = FIELD OP VALUE
//   FIELD  = op | batch | heads | kv_heads | head_dim | dtype | causal | gelu_form | kv_dtype
//            | gemm_dtype | q_len | seq (kv-heads, head-dim, gelu-form, kv-dtype, gemm-dtype,
//            q-len and seq_len, L are accepted too)
//   OP     = "=" | "==" | "!=" | "<" | "<=" | ">" | ">="
//            (op, dtype, causal, gelu_form, kv_dtype, gemm_dtype, q_len=L: = and != only)
//   VALUE  = an integer (batch, heads, kv_heads, head_dim, q_len, seq), an operator name,
//            bf16 | fp16, on | off, erf | tanh, auto | fp8_e4m3, L (q_len only: L_q = L)
// q_len compares the query length itself (L where the point's q_len is L), so "q_len<=512" keeps
// full prefills up to L = 512 too; "q_len!=L" keeps only the chunks shorter than L.
// A point is kept when the expression holds; a condition on an axis the point's operator does
// not use (operator_uses_axis, e.g. causal for gelu) holds. Examples: "op!=gelu,batch>=8" keeps
// the points of every operator but gelu at batch 8 and up; "op!=flash_attention|head_dim!=96"
// drops flash attention at head_dim 96 only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/shape.hpp"

namespace rooflinectl {

/// A parsed --filter expression (see the grammar above). Default: keeps every point.
class PointFilter {
 public:
  /// Whether the point of operator `op` at `shape` is kept.
  bool keeps(const std::string& op, const Shape& shape) const;

  /// One comparison of a point's field with a value.
  struct Condition {
    std::string field;   ///< canonical field name: "op", "batch", ..., "seq"
    std::string op;      ///< "=", "!=", "<", "<=", ">", ">="
    int64_t number = 0;  ///< the value of an integer field
    std::string text;    ///< the value of a text field, canonical ("bf16", "on", "tanh", ...)
  };
  std::vector<std::vector<Condition>> clauses;  ///< and of ors
};

/// Parses `text` (the grammar above). Throws a bad-input Error naming the bad token and what is
/// allowed: "invalid --filter 'batch>>8': term 'batch>>8': value '>8' is not an integer".
PointFilter parse_point_filter(const std::string& text);

}  // namespace rooflinectl
