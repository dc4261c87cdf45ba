#include "compare/point_set_difference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace rooflinectl {
namespace {

struct Axis {
  const char* name;
  std::string (*value)(const PointResult&);
};

const Axis kAxes[] = {
    {"operator", [](const PointResult& p) { return p.op; }},
    {"L", [](const PointResult& p) { return std::to_string(p.shape.seq_len); }},
    {"batch", [](const PointResult& p) { return std::to_string(p.shape.batch); }},
    {"heads", [](const PointResult& p) { return std::to_string(p.shape.heads); }},
    {"kv_heads", [](const PointResult& p) { return std::to_string(p.shape.kv_heads); }},
    {"head_dim", [](const PointResult& p) { return std::to_string(p.shape.head_dim); }},
    {"dtype", [](const PointResult& p) { return to_string(p.shape.dtype); }},
    {"causal", [](const PointResult& p) { return std::string(p.shape.causal ? "true" : "false"); }},
    {"gelu_form", [](const PointResult& p) { return to_string(p.shape.gelu_form); }},
};

constexpr size_t kMaxValuesShown = 8;

std::vector<std::string> values_of(const Report& report, const Axis& axis) {
  std::vector<std::string> values;
  for (const PointResult& p : report.points) {
    std::string v = axis.value(p);
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(std::move(v));
  }
  return values;
}

std::string join(const std::vector<std::string>& values) {
  std::string text;
  for (size_t i = 0; i < values.size() && i < kMaxValuesShown; ++i) {
    text += (i == 0 ? "" : ",") + values[i];
  }
  if (values.size() > kMaxValuesShown) text += ",...";
  return text.empty() ? "(none)" : text;
}

bool same_set(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace

std::string describe_point_set_difference(const Report& base, const Report& current) {
  std::string text;
  for (const Axis& axis : kAxes) {
    const std::vector<std::string> a = values_of(base, axis);
    const std::vector<std::string> b = values_of(current, axis);
    if (same_set(a, b)) continue;
    text +=
        fmt::format("{}{}: base {}, new {}", text.empty() ? "" : "; ", axis.name, join(a), join(b));
  }
  return text.empty() ? "every axis has the same values in both, only their combinations differ"
                      : text;
}

}  // namespace rooflinectl
