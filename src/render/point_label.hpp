// What tells a point apart from the others of its operator in a table or a list, after the
// operator's name: the shape variants no swept axis names and the values of the axes that vary.
#pragma once

#include <string>

#include "core/shape.hpp"
#include "core/sweep_axes.hpp"

namespace rooflinectl {

/// shape_variant_label's parts but those of the axes that vary in `axes` (" paged/16",
/// " kv=fp8_e4m3", " q=512", " in=fp8_e4m3", " N=6144 K=4096", " hidden=4096"), then
/// swept_axes_label's values of the axes that vary for `op` (" H_kv=32 kv=bf16"); each part with
/// its leading space, "" when the operator's points differ by L alone. The table's row names and
/// the reconciliation list use it.
std::string point_variant_label(const SweepAxes& axes, const std::string& op, const Shape& shape);

}  // namespace rooflinectl
