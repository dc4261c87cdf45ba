#include "core/seq_range.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

static_assert(ListSpecNames{}.max_value == std::numeric_limits<int32_t>::max(),
              "a length is a 32-bit int");
// Lengths one spec may give: 1..2147483647:1 would otherwise build a 16 GiB vector before the
// sweep could refuse it. Each length is a point per operator; 1024 is far past any real sweep.
constexpr int64_t kMaxSeqCount = 1024;

void check_count(std::string_view spec, int64_t count, const ListSpecNames& names) {
  if (count > kMaxSeqCount) {
    throw bad_input(fmt::format("invalid {} '{}': gives {} values, at most {} allowed", names.flag,
                                spec, count, kMaxSeqCount));
  }
}

int64_t parse_positive(std::string_view token, std::string_view whole, const ListSpecNames& names) {
  int64_t value = 0;
  const char* first = token.data();
  const char* last = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  const bool whole_token = !token.empty() && ptr == last;
  if (!whole_token || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    throw bad_input(fmt::format("invalid {} '{}': '{}' is not a positive integer ({})", names.flag,
                                whole, token, names.forms));
  }
  if (ec == std::errc::result_out_of_range || value <= 0 || value > names.max_value) {
    throw bad_input(fmt::format("invalid {} '{}': '{}' is out of range (1 to {})", names.flag,
                                whole, token, names.max_text));
  }
  return value;
}

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::vector<int64_t> parse_range(std::string_view spec, size_t dots, const ListSpecNames& names) {
  const std::string_view lo_text = spec.substr(0, dots);
  std::string_view rest = spec.substr(dots + 2);
  std::string_view step_text;
  const size_t colon = rest.find(':');
  const bool linear = colon != std::string_view::npos;
  if (linear) {
    step_text = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  const int64_t lo = parse_positive(lo_text, spec, names);
  const int64_t hi = parse_positive(rest, spec, names);
  if (hi < lo) {
    throw bad_input(fmt::format(
        "invalid {} '{}': range is reversed ({} > {}; write the smaller end first: "
        "{}..{}{})",
        names.flag, spec, lo, hi, hi, lo, linear ? ":" + std::string(step_text) : std::string()));
  }
  std::vector<int64_t> out;
  if (linear) {
    const int64_t step = parse_positive(step_text, spec, names);
    check_count(spec, (hi - lo) / step + 1, names);
    for (int64_t v = lo; v <= hi; v += step) out.push_back(v);
    return out;
  }
  if (!is_power_of_two(lo) || !is_power_of_two(hi)) {
    throw bad_input(fmt::format(
        "invalid {} '{}': a range without ':step' steps by powers of two, so both ends must "
        "be powers of two (use '{}..{}:STEP' for a linear range)",
        names.flag, spec, lo, hi));
  }
  for (int64_t v = lo; v <= hi; v *= 2) out.push_back(v);
  return out;
}

}  // namespace

std::vector<int64_t> parse_length_spec(std::string_view spec, const ListSpecNames& names) {
  if (spec.empty()) {
    throw bad_input(fmt::format("invalid {} '': empty ({})", names.flag, names.forms));
  }
  const size_t dots = spec.find("..");
  if (dots != std::string_view::npos) {
    if (spec.find(',') != std::string_view::npos) {
      throw bad_input(fmt::format("invalid {} '{}': mixes a range and a list", names.flag, spec));
    }
    return parse_range(spec, dots, names);
  }
  std::vector<int64_t> out;
  size_t start = 0;
  while (true) {
    const size_t comma = spec.find(',', start);
    const std::string_view token = spec.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const int64_t value = parse_positive(token, spec, names);
    // Each value is one point per operator; a repeated one would run (and report) it twice.
    if (std::find(out.begin(), out.end(), value) != out.end()) {
      throw bad_input(fmt::format("invalid {} '{}': {} {} is listed more than once", names.flag,
                                  spec, names.element, value));
    }
    out.push_back(value);
    if (comma == std::string_view::npos) break;
    check_count(spec, static_cast<int64_t>(out.size()) + 1, names);
    start = comma + 1;
  }
  return out;
}

std::vector<int64_t> parse_seq_spec(std::string_view spec) {
  return parse_length_spec(spec, ListSpecNames{});
}

}  // namespace rooflinectl
