#include "compare/layer_compare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

using PointIndex = std::map<std::pair<int64_t, int64_t>, size_t>;

std::string point_name(const std::string& phase, int64_t batch, int64_t length) {
  return fmt::format("B = {} {} = {}", batch, phase == "decode" ? "context" : "L", length);
}

PointIndex index_points(const LayerTimes& t, const std::string& origin) {
  PointIndex index;
  for (size_t k = 0; k < t.points.size(); ++k) {
    const LayerPointTimes& p = t.points[k];
    if (!index.emplace(std::make_pair(p.batch, p.length), k).second) {
      throw bad_input(
          fmt::format("{} report lists {} twice", origin, point_name(t.phase, p.batch, p.length)));
    }
  }
  return index;
}

// The verdict that needs attention first (kVerdictAttentionOrder): failed, slower,
// inconclusive, faster, removed, added, same.
Verdict worse(Verdict a, Verdict b) {
  const auto rank = [](Verdict v) {
    return std::find(kVerdictAttentionOrder.begin(), kVerdictAttentionOrder.end(), v) -
           kVerdictAttentionOrder.begin();
  };
  return rank(a) <= rank(b) ? a : b;
}

ReportIdentity identity(const LayerTimes& t) {
  return ReportIdentity{t.tool_version, t.git_revision, t.timestamp_utc, t.device_name};
}

std::string percent(double fraction) { return fmt::format("{:+.1f}%", 100 * fraction); }

// The interval gate on two medians with their half-widths (nullopt: unknown noise).
void gate_times(LayerTimeComparison& c, double base, double current,
                std::optional<double> base_half, std::optional<double> current_half,
                double threshold) {
  c.base_time_s = base;
  c.current_time_s = current;
  c.base_half_width_s = base_half;
  c.current_half_width_s = current_half;
  const double change = (current - base) / base;
  c.relative_change = change;
  const std::string times = fmt::format("{} -> {} ({})", format_duration_s(base),
                                        format_duration_s(current), percent(change));
  if (std::fabs(current - base) < kTimeResolutionFloorS) {
    c.verdict = Verdict::kSame;
    c.reason = times + fmt::format(", within the {} resolution of the event timer",
                                   format_duration_s(kTimeResolutionFloorS));
  } else if (std::fabs(change) <= threshold) {
    c.verdict = Verdict::kSame;
    c.reason = times + fmt::format(", within the {:.1f}% threshold", 100 * threshold);
  } else if (!base_half || !current_half) {
    c.verdict = Verdict::kInconclusive;
    c.reason = times + ": beyond the threshold, but a median's noise is unknown";
  } else if (std::fabs(current - base) <= *base_half + *current_half) {
    c.verdict = Verdict::kInconclusive;
    c.reason = times + fmt::format(
                           ": beyond the threshold, but the 95% intervals overlap (half-widths "
                           "{} and {})",
                           format_duration_s(*base_half), format_duration_s(*current_half));
  } else {
    c.verdict = change > 0 ? Verdict::kSlower : Verdict::kFaster;
    c.reason = times + fmt::format(
                           ": beyond the threshold and the 95% intervals apart (half-widths {} "
                           "and {})",
                           format_duration_s(*base_half), format_duration_s(*current_half));
  }
}

std::optional<double> half_width(const LayerOperatorTime& t) {
  if (!t.time_s || !t.median_noise) return std::nullopt;
  return *t.time_s * *t.median_noise;
}

LayerTimeComparison compare_operator(const LayerOperatorTime& base,
                                     const LayerOperatorTime& current, double threshold) {
  LayerTimeComparison c;
  c.role = base.role;
  c.base_version = base.version;
  if (current.version != base.version) c.new_version = current.version;
  c.base_time_s = base.time_s;
  c.current_time_s = current.time_s;
  const auto unmeasured = [](const LayerOperatorTime& t) {
    return fmt::format("status {}{}", t.status, t.null_reason.empty() ? "" : ": " + t.null_reason);
  };
  if (current.status == "failed") {
    c.verdict = Verdict::kFailed;
    c.reason = "failed in the new report (" + unmeasured(current) + ")";
  } else if (base.shape_json != current.shape_json) {
    c.verdict = Verdict::kInconclusive;
    c.reason = fmt::format("the reports ran different shapes: {} vs {}", base.shape_json,
                           current.shape_json);
  } else if (!base.time_s && !current.time_s) {
    c.verdict = Verdict::kSame;
    c.reason = "measured in neither report (new: " + unmeasured(current) + ")";
  } else if (!current.time_s) {
    c.verdict = Verdict::kInconclusive;
    c.reason = "not measured in the new report: " + unmeasured(current);
  } else if (!base.time_s) {
    c.verdict = Verdict::kAdded;
    c.reason = "measured now, not in the base (" + unmeasured(base) + ")";
  } else {
    gate_times(c, *base.time_s, *current.time_s, half_width(base), half_width(current), threshold);
  }
  if (!c.new_version.empty()) {
    c.reason =
        fmt::format("version changed: {} -> {}; {}", base.version, current.version, c.reason);
  }
  return c;
}

// The layer row: Σ operator medians with Σ half-widths, when every operator has a time on both
// sides.
LayerTimeComparison compare_layer_total(const LayerPointTimes& base, const LayerPointTimes& current,
                                        double threshold) {
  LayerTimeComparison c;
  c.role = "layer";
  c.base_time_s = base.layer_time_s;
  c.current_time_s = current.layer_time_s;
  if (!base.layer_time_s && !current.layer_time_s) {
    // Unknown on both sides (an operator its kernel refuses in both): nothing changed that the
    // operator rows do not already say, and --strict must not fail it forever.
    c.verdict = Verdict::kSame;
    c.reason = "the layer time is unknown in both reports (an operator unmeasured in each)";
    return c;
  }
  if (!base.layer_time_s || !current.layer_time_s) {
    c.verdict = Verdict::kInconclusive;
    c.reason = fmt::format("the layer time is unknown in the {} report (an operator unmeasured)",
                           !current.layer_time_s ? "new" : "base");
    return c;
  }
  const auto total_half = [](const LayerPointTimes& p) -> std::optional<double> {
    double sum = 0;
    for (const LayerOperatorTime& op : p.ops) {
      const std::optional<double> h = half_width(op);
      if (!h) return std::nullopt;
      sum += *h;
    }
    return sum;
  };
  gate_times(c, *base.layer_time_s, *current.layer_time_s, total_half(base), total_half(current),
             threshold);
  return c;
}

void check_same_layer(const LayerTimes& base, const LayerTimes& current) {
  const auto refuse = [](const char* what, const std::string& a, const std::string& b) {
    throw bad_input(fmt::format(
        "compare: the layer reports differ in {}: base '{}', new '{}' (a layer comparison "
        "matches the same layer: model, phase, KV-cache dtype and operators)",
        what, a, b));
  };
  if (base.model_id != current.model_id) refuse("model", base.model_id, current.model_id);
  if (base.phase != current.phase) refuse("phase", base.phase, current.phase);
  if (base.kv_dtype != current.kv_dtype) refuse("kv_dtype", base.kv_dtype, current.kv_dtype);
  const auto roles = [](const LayerTimes& t) {
    std::string out;
    if (t.points.empty()) return out;
    for (const LayerOperatorTime& op : t.points.front().ops) {
      out += (out.empty() ? "" : ",") + op.role;
    }
    return out;
  };
  if (!base.points.empty() && !current.points.empty() && roles(base) != roles(current)) {
    refuse("operators", roles(base), roles(current));
  }
}

// "B in {1, 16}, context in {512, 1024}": the axes of a report's points, short enough for one
// message line whatever their number.
std::string point_list(const LayerTimes& t) {
  std::vector<int64_t> batches;
  std::vector<int64_t> lengths;
  for (const LayerPointTimes& p : t.points) {
    if (std::find(batches.begin(), batches.end(), p.batch) == batches.end()) {
      batches.push_back(p.batch);
    }
    if (std::find(lengths.begin(), lengths.end(), p.length) == lengths.end()) {
      lengths.push_back(p.length);
    }
  }
  if (batches.empty()) return "no points";
  return fmt::format("B in {{{}}}, {} in {{{}}}", fmt::join(batches, ", "),
                     t.phase == "decode" ? "context" : "L", fmt::join(lengths, ", "));
}

}  // namespace

size_t LayerCompareResult::count(Verdict verdict) const {
  size_t n = 0;
  for (const LayerPointComparison& p : points) {
    if (!p.layer) {
      n += p.verdict == verdict ? 1 : 0;
      continue;
    }
    n += p.layer->verdict == verdict ? 1 : 0;
    for (const LayerTimeComparison& op : p.ops) n += op.verdict == verdict ? 1 : 0;
  }
  return n;
}

size_t LayerCompareResult::regressions() const {
  return count(Verdict::kSlower) + count(Verdict::kFailed);
}

int LayerCompareResult::exit_code() const { return gate_exit_code(*this, options.strict); }

LayerCompareResult compare_layer_reports(const LayerTimes& base, const LayerTimes& current,
                                         const LayerCompareOptions& options) {
  if (!(options.time_threshold > 0 && options.time_threshold < 1)) {
    throw bad_input(fmt::format("invalid --time-threshold {}: must be a fraction in (0, 1)",
                                options.time_threshold));
  }
  check_same_layer(base, current);
  LayerCompareResult result;
  result.options = options;
  result.base = identity(base);
  result.current = identity(current);
  result.model_name = base.model_name;
  result.phase = base.phase;
  result.kv_dtype = base.kv_dtype;
  if (base.device_name != current.device_name) {
    if (!options.allow_different_gpu) {
      throw bad_input(fmt::format(
          "compare: the layers were measured on different GPUs (base '{}', new '{}'); pass "
          "--allow-different-gpu to compare them anyway",
          base.device_name, current.device_name));
    }
    result.warnings.push_back(fmt::format(
        "different GPUs (base {}, new {}): verdicts compare the GPUs as much as the code",
        base.device_name, current.device_name));
  }
  const PointIndex base_index = index_points(base, "the base");
  const PointIndex current_index = index_points(current, "the new");
  size_t matched = 0;
  for (const LayerPointTimes& b : base.points) {
    LayerPointComparison pc;
    pc.batch = b.batch;
    pc.length = b.length;
    const auto found = current_index.find({b.batch, b.length});
    if (found == current_index.end()) {
      pc.verdict = Verdict::kRemoved;
      result.points.push_back(std::move(pc));
      continue;
    }
    ++matched;
    const LayerPointTimes& c = current.points[found->second];
    for (size_t i = 0; i < b.ops.size(); ++i) {
      pc.ops.push_back(compare_operator(b.ops[i], c.ops[i], options.time_threshold));
    }
    pc.layer = compare_layer_total(b, c, options.time_threshold);
    pc.verdict = pc.layer->verdict;
    for (const LayerTimeComparison& op : pc.ops) pc.verdict = worse(pc.verdict, op.verdict);
    result.points.push_back(std::move(pc));
  }
  if (matched == 0) {
    throw bad_input(
        fmt::format("compare: the layer reports share no (batch, length): base {}; new {}",
                    point_list(base), point_list(current)));
  }
  size_t removed = 0;
  const LayerPointComparison* first_removed = nullptr;
  for (const LayerPointComparison& p : result.points) {
    if (p.verdict != Verdict::kRemoved) continue;
    if (removed++ == 0) first_removed = &p;
  }
  if (removed > 0 && !options.strict) {
    result.warnings.push_back(fmt::format(
        "{} (batch, length) point(s) of the base are not in the new report (first: B = {}, {} = "
        "{}; --strict fails them)",
        removed, first_removed->batch, base.phase == "decode" ? "context" : "L",
        first_removed->length));
  }
  for (const LayerPointTimes& c : current.points) {
    if (base_index.count({c.batch, c.length}) != 0) continue;
    LayerPointComparison pc;
    pc.batch = c.batch;
    pc.length = c.length;
    pc.verdict = Verdict::kAdded;
    result.points.push_back(std::move(pc));
  }
  return result;
}

}  // namespace rooflinectl
