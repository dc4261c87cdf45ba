// The points a sweep runs, in run order: the product of dtype, operators, the other shape axes and
// sequence lengths, kept by the config's --filter, cut to the config's shard when it has one. Read
// by the sweep loop, by `sweep
// --baseline`'s power check and by `merge`, so that all three agree on what a sweep is.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "core/sweep_config.hpp"

namespace rooflinectl {

/// One point of the plan.
struct PlannedPoint {
  std::string op;
  Shape shape;
  /// 1-based position in the whole, unsharded plan (what the progress line and the point's
  /// random seed count).
  size_t index = 0;
  /// What progress lines and NVTX ranges call the point when a caller plans it outside a sweep's
  /// product (`layer`: "decode B=16 context=512 qkv_proj"); empty in a sweep's plan, whose points
  /// are named by operator, swept axes and L.
  std::string label{};
};

/// Every point of `config`, ignoring config.shard, in product order, outermost first: dtype, the
/// operator (config.ops order), batch, heads, kv_heads, head_dim, causal, gelu_form, kv_dtype,
/// gemm_dtype, q_len, seq_len (each axis in the order its values were given). An axis the operator
/// does not use (operator_uses_axis) takes its first value only, so it does not multiply that
/// operator's points; the explicit GEMM dims (gemm_n, gemm_k) are 0 in every point but gemm's, the
/// layer widths (hidden, ffn_dim) 0 in the attention operators' points, q_len 0 in the points of
/// every operator but naive and flash attention. A q_len longer than the point's L is not planned
/// at that L; one equal to L is stored as 0 (the full prefill), and not planned twice where the
/// q_len list holds L too. Points the
/// config's filter drops are left out (indices count the kept points); a
/// malformed filter is a bad-input Error. Dtype is outermost so that a sweep counts each dtype's
/// points with one counter set-up (its tensor pipe's metrics). Without lists: operators ×
/// lengths, as before lists.
std::vector<PlannedPoint> plan_all_points(const SweepConfig& config);

/// Runs `check(op, shape)` on each of `points` in order (a bad-input Error for a shape that
/// cannot run) and throws the first point's error. In a sweep with lists, an error that only
/// some combinations of its operator get is re-thrown naming the combination and the --filter
/// term that drops it: "...: in the combination flash_attention d=96 (drop it with --filter
/// 'op!=flash_attention|head_dim!=96')"; an error every point of the operator gets alike (a
/// value no combination can run, `--batch 1,2 --heads 0`), and any error without lists,
/// propagates unchanged.
void check_planned_points(
    const SweepConfig& config, const std::vector<PlannedPoint>& points,
    const std::function<void(const std::string& op, const Shape& shape)>& check);

/// Whether `shard` runs `point`: the point's plan position is in shard.plan_indices when the
/// shard has an explicit list, else shard_of_point decides.
bool shard_runs(const ShardSpec& shard, const PlannedPoint& point);

/// plan_all_points, cut to config.shard's points (shard_runs) when config.shard is set.
std::vector<PlannedPoint> plan_points(const SweepConfig& config);

}  // namespace rooflinectl
