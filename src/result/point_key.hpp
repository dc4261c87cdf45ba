// How a point is named and matched across reports (operator and shape, not kernel version), and
// the check that a report names each point once. Used by every reader of a report: `report`,
// `plot`, `compare`. Pure host code.
#pragma once

#include <string>

#include "core/shape.hpp"
#include "core/sweep_axes.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// A point and how it is matched across reports: by operator and shape (every axis, dtype,
/// causal and GELU form included), not by kernel version, so that a new kernel version of an
/// operator is compared with the old one (nvbench and google/benchmark's compare.py likewise match
/// by benchmark name and axes). `version` is the base report's (the new report's for an added
/// point); a matched point whose version changed carries the new one in
/// PointComparison::new_version.
struct PointKey {
  std::string op;
  std::string version;
  Shape shape;
  /// Same operator and the same value on every shape axis; the version is ignored.
  bool same_point(const PointKey& other) const;
  /// One line, e.g. "gelu gelu_v1_vectorized L=4096 B=1 H=16/16 d=128 bf16 erf".
  std::string label() const;
  /// label() without the version, e.g. "gelu L=4096 B=1 H=16/16 d=128 bf16 erf": a name that
  /// stays the same across kernel versions (the Bencher benchmark name, bmf_writer.hpp).
  std::string shape_label() const;
};
PointKey point_key(const PointResult& point);

/// The axes a point has only when they differ from what every report had before them, each with a
/// leading space: " q=512" (a query length other than L), " paged/16" (a paged KV cache), "
/// kv=fp8_e4m3" (an FP8 one), " N=6144 K=4096" (a gemm at explicit dims), " hidden=4096 ffn=14336"
/// (explicit layer widths); empty for a contiguous 16-bit cache, the default up projection and the
/// default widths. Where a table names a point by operator and L alone, it appends this so that
/// such points can be told apart (compare's tables). A part whose axis (query length, KV dtype,
/// GEMM inputs) varies in `named_elsewhere` is left out: the caller's swept-axes label names it
/// (render/point_label.hpp).
std::string shape_variant_label(const Shape& shape, const SweepAxes* named_elsewhere = nullptr);

/// Throws a bad-input Error "<origin>: point '<op shape>' appears twice (points[i] and
/// points[j])" when two points have the same operator and shape (PointKey::same_point; the
/// version does not tell points apart): a table or chart would show both with nothing to tell
/// them apart, and compare could not tell which to judge. Used by `report`, `plot` and
/// `compare`.
void check_unique_points(const Report& report, const std::string& origin);

}  // namespace rooflinectl
