#include "core/point_filter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "core/error.hpp"
#include "core/operator_names.hpp"
#include "core/sweep_axes.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kFields =
    "op, batch, heads, kv_heads, head_dim, dtype, causal, gelu_form, kv_dtype, gemm_dtype, q_len, "
    "seq";

/// The canonical name of a field as written, or "" when unknown.
std::string canonical_field(const std::string& name) {
  static const std::map<std::string, std::string> aliases = {{"op", "op"},
                                                             {"batch", "batch"},
                                                             {"heads", "heads"},
                                                             {"kv_heads", "kv_heads"},
                                                             {"kv-heads", "kv_heads"},
                                                             {"head_dim", "head_dim"},
                                                             {"head-dim", "head_dim"},
                                                             {"dtype", "dtype"},
                                                             {"causal", "causal"},
                                                             {"gelu_form", "gelu_form"},
                                                             {"gelu-form", "gelu_form"},
                                                             {"kv_dtype", "kv_dtype"},
                                                             {"kv-dtype", "kv_dtype"},
                                                             {"gemm_dtype", "gemm_dtype"},
                                                             {"gemm-dtype", "gemm_dtype"},
                                                             {"q_len", "q_len"},
                                                             {"q-len", "q_len"},
                                                             {"seq", "seq"},
                                                             {"seq_len", "seq"},
                                                             {"L", "seq"}};
  const auto it = aliases.find(name);
  return it == aliases.end() ? "" : it->second;
}

bool is_integer_field(const std::string& field) {
  return field != "op" && field != "dtype" && field != "causal" && field != "gelu_form" &&
         field != "kv_dtype" && field != "gemm_dtype";
}

std::string trim(const std::string& text) {
  const size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

/// Splits at any of `separators`, keeping empty parts (they are errors for the caller).
std::vector<std::string> split_any(const std::string& text, const std::string& separators) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t at = text.find_first_of(separators, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

/// The axis a field names, for operator_uses_axis; false for op and seq (every operator has them).
bool field_axis(const std::string& field, SweepAxis& axis) {
  for (const SweepAxis candidate : kSweepAxes) {
    if (axis_name(candidate) == field) {
      axis = candidate;
      return true;
    }
  }
  return false;
}

PointFilter::Condition parse_condition(const std::string& term, const std::string& expression) {
  const auto fail = [&](const std::string& what) {
    throw bad_input(fmt::format("invalid --filter '{}': term '{}': {}", expression, term, what));
  };
  const size_t op_at = term.find_first_of("=!<>");
  if (op_at == std::string::npos) {
    fail("expected FIELD OP VALUE, e.g. batch>=8 (OP: =, !=, <, <=, >, >=)");
  }
  PointFilter::Condition c;
  const std::string name = trim(term.substr(0, op_at));
  c.field = canonical_field(name);
  if (c.field.empty()) fail(fmt::format("unknown field '{}' (allowed {})", name, kFields));
  size_t value_at = op_at + 1;
  if (value_at < term.size() && term[value_at] == '=') ++value_at;
  c.op = term.substr(op_at, value_at - op_at);
  if (c.op == "==") c.op = "=";
  if (c.op == "!") fail("'!' must be followed by '=' (!=)");
  const std::string value = trim(term.substr(value_at));
  if (value.empty()) fail("missing value after '" + c.op + "'");
  if (c.field == "q_len" && value == "L") {  // L_q = L, the full prefill (stored as q_len 0)
    if (c.op != "=" && c.op != "!=") {
      fail(fmt::format(
          "q_len compares with L by = or != only, not '{}' (q_len=L keeps the full prefill, "
          "q_len!=L the chunks; q_len<=N compares the query length with an integer)",
          c.op));
    }
    c.text = value;
    return c;
  }
  if (is_integer_field(c.field)) {
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), c.number);
    if (error != std::errc() || end != value.data() + value.size()) {
      fail(fmt::format("value '{}' is not an integer ({} takes integers{})", value, c.field,
                       c.field == "q_len" ? ", or L" : ""));
    }
    return c;
  }
  if (c.op != "=" && c.op != "!=") {
    fail(fmt::format("{} takes = or != only, not '{}'", c.field, c.op));
  }
  if (c.field == "causal") {
    if (value != "on" && value != "off") {
      fail(fmt::format("value '{}' is not on or off (causal takes on, off)", value));
    }
    c.text = value;
    return c;
  }
  try {
    if (c.field == "op") {
      c.text = parse_operator_name(value);
    } else if (c.field == "dtype") {
      c.text = to_string(parse_dtype(value));
    } else if (c.field == "kv_dtype") {
      c.text = to_string(parse_kv_dtype(value));
    } else if (c.field == "gemm_dtype") {
      c.text = to_string(parse_gemm_dtype(value));
    } else {
      c.text = to_string(parse_gelu_form(value));
    }
  } catch (const Error& e) {
    if (e.exit_code() != ExitCode::kBadInput) throw;
    fail(e.what());
  }
  return c;
}

int64_t integer_field(const std::string& field, const Shape& s) {
  if (field == "batch") return s.batch;
  if (field == "heads") return s.heads;
  if (field == "kv_heads") return s.kv_heads;
  if (field == "head_dim") return s.head_dim;
  if (field == "q_len") return s.query_len();  // the query length itself: L where q_len is 0
  return s.seq_len;
}

bool holds(const PointFilter::Condition& c, const std::string& op, const Shape& s) {
  SweepAxis axis{};
  if (field_axis(c.field, axis) && !operator_uses_axis(op, axis)) return true;
  if (c.field == "q_len" && c.text == "L") return (s.q_len == 0) == (c.op == "=");
  if (!is_integer_field(c.field)) {
    const std::string actual = c.field == "op" ? op : axis_value_text(axis, s);
    return (actual == c.text) == (c.op == "=");
  }
  const int64_t v = integer_field(c.field, s);
  if (c.op == "=") return v == c.number;
  if (c.op == "!=") return v != c.number;
  if (c.op == "<") return v < c.number;
  if (c.op == "<=") return v <= c.number;
  if (c.op == ">") return v > c.number;
  return v >= c.number;
}

}  // namespace

bool PointFilter::keeps(const std::string& op, const Shape& shape) const {
  return std::all_of(clauses.begin(), clauses.end(), [&](const std::vector<Condition>& clause) {
    return std::any_of(clause.begin(), clause.end(),
                       [&](const Condition& c) { return holds(c, op, shape); });
  });
}

PointFilter parse_point_filter(const std::string& text) {
  PointFilter filter;
  if (trim(text).empty()) {
    throw bad_input("invalid --filter '': empty (e.g. --filter 'op!=gelu,batch>=8')");
  }
  for (const std::string& clause_text : split_any(text, ",&")) {
    std::vector<PointFilter::Condition> clause;
    for (const std::string& term : split_any(clause_text, "|")) {
      if (trim(term).empty()) {
        throw bad_input(fmt::format(
            "invalid --filter '{}': empty term (terms are joined by ',' or '&' (and), '|' (or))",
            text));
      }
      clause.push_back(parse_condition(trim(term), text));
    }
    filter.clauses.push_back(std::move(clause));
  }
  return filter;
}

}  // namespace rooflinectl
