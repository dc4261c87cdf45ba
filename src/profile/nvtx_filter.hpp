// NVTX push/pop range filters in the subset of Nsight Compute's `--nvtx-include` syntax that
// rooflinectl supports (Nsight Compute CLI guide, "NVTX Filtering"): a kernel is selected when
// the stack of NVTX ranges open on its launching thread matches. Pure host code.
#pragma once

#include <regex>
#include <string>
#include <vector>

namespace rooflinectl {

/// One parsed expression. Syntax, ranges separated by '/':
///   `A/`      A is open (anywhere on the stack);   `A/B/`  B open directly inside A;
///   `A/*/B`   zero or more ranges between A and B; `A/+/B` exactly one range between;
///   `[A`      A at the bottom of the stack;        `A]`    A at the top (innermost);
///   `regex:E` every range name of E is an ECMAScript regular expression matched in full.
/// Domains (`Domain@A`) and start/end ranges (`A,B`) are not supported: a bad-input Error names
/// them.
class NvtxFilter {
 public:
  /// Parses `expression`; throws a bad-input Error "--nvtx-include '<expression>': <why>" for an
  /// empty expression or range name, a domain, a start/end range or a bad regular expression.
  explicit NvtxFilter(const std::string& expression);
  /// Whether `stack` (outermost first) matches.
  bool matches(const std::vector<std::string>& stack) const;
  const std::string& expression() const { return expression_; }

 private:
  enum class Kind { kName, kAnyGap, kOne };
  struct Element {
    Kind kind = Kind::kName;
    std::string name;
    std::regex pattern;
  };
  bool name_matches(const Element& element, const std::string& range) const;
  bool match_from(size_t element, size_t position, const std::vector<std::string>& stack) const;

  std::string expression_;
  std::vector<Element> elements_;
  bool use_regex_ = false;
  bool anchored_bottom_ = false;
  bool anchored_top_ = false;
};

/// True when `filters` is empty or any of them matches `stack` (repeated --nvtx-include OR).
bool any_nvtx_filter_matches(const std::vector<NvtxFilter>& filters,
                             const std::vector<std::string>& stack);

}  // namespace rooflinectl
