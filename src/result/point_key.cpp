#include "result/point_key.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

// Every shape axis, e.g. "L=4096 B=1 H=16/16 d=128 bf16 erf", and " paged/16" after it for a
// paged KV cache of 16-position pages (contiguous, the only layout before, adds nothing).
std::string axes_text(const Shape& shape) {
  const std::string layout =
      shape.kv_layout == KvLayout::kPaged ? " " + kv_layout_label(shape) : std::string();
  return fmt::format("L={} B={} H={}/{} d={} {}{} {}{}", shape.seq_len, shape.batch, shape.heads,
                     shape.kv_heads, shape.head_dim, to_string(shape.dtype),
                     shape.causal ? " causal" : "", to_string(shape.gelu_form), layout);
}

}  // namespace

bool PointKey::same_point(const PointKey& o) const {
  const Shape& a = shape;
  const Shape& b = o.shape;
  return op == o.op && a.batch == b.batch && a.heads == b.heads && a.kv_heads == b.kv_heads &&
         a.head_dim == b.head_dim && a.seq_len == b.seq_len && a.causal == b.causal &&
         a.dtype == b.dtype && a.gelu_form == b.gelu_form && a.kv_layout == b.kv_layout &&
         a.page_size == b.page_size;
}

std::string PointKey::label() const {
  return fmt::format("{} {} {}", op, version, axes_text(shape));
}

std::string PointKey::shape_label() const { return fmt::format("{} {}", op, axes_text(shape)); }

PointKey point_key(const PointResult& point) { return {point.op, point.version, point.shape}; }

void check_unique_points(const Report& report, const std::string& origin) {
  for (size_t i = 0; i < report.points.size(); ++i) {
    const PointKey key = point_key(report.points[i]);
    for (size_t j = i + 1; j < report.points.size(); ++j) {
      if (point_key(report.points[j]).same_point(key)) {
        throw bad_input(fmt::format("{}: point '{}' appears twice (points[{}] and points[{}])",
                                    origin, key.shape_label(), i, j));
      }
    }
  }
}

}  // namespace rooflinectl
