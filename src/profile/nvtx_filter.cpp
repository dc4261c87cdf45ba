#include "profile/nvtx_filter.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kRegexPrefix = "regex:";

Error filter_error(const std::string& expression, const std::string& why) {
  return bad_input(fmt::format("--nvtx-include '{}': {}", expression, why));
}

}  // namespace

NvtxFilter::NvtxFilter(const std::string& expression) : expression_(expression) {
  std::string body = expression;
  if (body.rfind(kRegexPrefix, 0) == 0) {
    use_regex_ = true;
    body = body.substr(std::string(kRegexPrefix).size());
  }
  if (!body.empty() && body.front() == '[') {
    anchored_bottom_ = true;
    body.erase(0, 1);
  }
  if (!body.empty() && body.back() == ']') {
    anchored_top_ = true;
    body.pop_back();
  }
  if (!body.empty() && body.back() == '/') body.pop_back();
  if (body.empty()) {
    throw filter_error(expression,
                       anchored_bottom_ || anchored_top_
                           ? "names no range: a leading '[' and a trailing ']' anchor the range "
                             "stack, as in Nsight Compute, and are not part of a name or regular "
                             "expression (expected e.g. '[forward/')"
                           : "names no range (expected e.g. 'forward/')");
  }
  if (!use_regex_ && body.find('@') != std::string::npos) {
    throw filter_error(expression, "NVTX domains (Domain@Range) are not supported");
  }
  if (!use_regex_ && body.find(',') != std::string::npos) {
    throw filter_error(expression, "start/end ranges (A,B) are not supported: use push/pop ranges");
  }
  size_t begin = 0;
  while (begin <= body.size()) {
    const size_t end = body.find('/', begin);
    const std::string part = body.substr(begin, end == std::string::npos ? end : end - begin);
    if (part.empty()) throw filter_error(expression, "empty range name between '/'");
    Element element;
    if (part == "*") {
      element.kind = Kind::kAnyGap;
    } else if (part == "+") {
      element.kind = Kind::kOne;
    } else {
      element.name = part;
      if (use_regex_) {
        try {
          element.pattern = std::regex(part, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
          throw filter_error(expression,
                             fmt::format("bad regular expression '{}': {}", part, e.what()));
        }
      }
    }
    elements_.push_back(std::move(element));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  if (elements_.front().kind != Kind::kName || elements_.back().kind != Kind::kName) {
    throw filter_error(expression, "'*' and '+' may only stand between two range names");
  }
}

bool NvtxFilter::name_matches(const Element& element, const std::string& range) const {
  return use_regex_ ? std::regex_match(range, element.pattern) : range == element.name;
}

bool NvtxFilter::match_from(size_t element, size_t position,
                            const std::vector<std::string>& stack) const {
  if (element == elements_.size()) return !anchored_top_ || position == stack.size();
  const Element& e = elements_[element];
  switch (e.kind) {
    case Kind::kAnyGap:
      for (size_t p = position; p <= stack.size(); ++p) {
        if (match_from(element + 1, p, stack)) return true;
      }
      return false;
    case Kind::kOne:
      return position < stack.size() && match_from(element + 1, position + 1, stack);
    case Kind::kName:
      return position < stack.size() && name_matches(e, stack[position]) &&
             match_from(element + 1, position + 1, stack);
  }
  return false;
}

bool NvtxFilter::matches(const std::vector<std::string>& stack) const {
  if (anchored_bottom_) return match_from(0, 0, stack);
  for (size_t start = 0; start < stack.size(); ++start) {
    if (match_from(0, start, stack)) return true;
  }
  return false;
}

bool any_nvtx_filter_matches(const std::vector<NvtxFilter>& filters,
                             const std::vector<std::string>& stack) {
  if (filters.empty()) return true;
  for (const auto& filter : filters) {
    if (filter.matches(stack)) return true;
  }
  return false;
}

}  // namespace rooflinectl
