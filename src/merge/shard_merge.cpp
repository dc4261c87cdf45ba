#include "merge/shard_merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "compare/gpu_match.hpp"
#include "core/error.hpp"
#include "core/shard.hpp"
#include "core/sweep_plan.hpp"
#include "io/json_writer.hpp"
#include "result/point_key.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::ordered_json;

// The config as JSON without what legitimately differs between the shards of one sweep.
Json sweep_identity(const SweepConfig& config) {
  Json j = sweep_config_to_json(config);
  j.erase("shard");
  j.erase("device");
  return j;
}

// How a report's counters were collected, in one line: shards of different methods measured
// different quantities (docs/counter-method.md) and cannot sit in one report. nullopt when
// counters were on and available but no point was counted (a shard of no points, or whose points
// were all skipped): such a shard says nothing about the method.
std::optional<std::string> counter_method(const Report& report) {
  if (!report.config.counters) return "no counters (--no-counters)";
  if (!report.device.counters_available) {
    return fmt::format("counters unavailable ({})", report.device.counters_reason);
  }
  for (const PointResult& point : report.points) {
    if (point.counters.sessions.empty()) continue;
    std::string method;
    for (const CounterSession& session : point.counters.sessions) {
      std::vector<std::string> metrics = session.metrics;
      std::sort(metrics.begin(), metrics.end());
      method += fmt::format("{}{}: {}, {} passes, {}", method.empty() ? "" : "; ", session.role,
                            session.replay, session.passes, fmt::join(metrics, " "));
    }
    return method;
  }
  return std::nullopt;
}

// Every shard that counted a point counted it the same way.
void check_counter_methods(const std::vector<MergeInput>& inputs) {
  const MergeInput* reference = nullptr;
  std::string reference_method;
  for (const MergeInput& input : inputs) {
    const std::optional<std::string> method = counter_method(input.report);
    if (!method) continue;
    if (reference == nullptr) {
      reference = &input;
      reference_method = *method;
    } else if (*method != reference_method) {
      throw bad_input(fmt::format("cannot merge {}: counted with {}, {} with {}", input.file,
                                  *method, reference->file, reference_method));
    }
  }
}

void check_same_sweep(const MergeInput& first, const MergeInput& other) {
  const Report& a = first.report;
  const Report& b = other.report;
  if (a.tool_version != b.tool_version || a.git_revision != b.git_revision) {
    throw bad_input(fmt::format(
        "cannot merge {}: written by rooflinectl {} ({}), {} by {} ({}); shards of one sweep "
        "must come from one build",
        other.file, b.tool_version, b.git_revision.empty() ? "revision unknown" : b.git_revision,
        first.file, a.tool_version, a.git_revision.empty() ? "revision unknown" : a.git_revision));
  }
  const Json ja = sweep_identity(a.config);
  const Json jb = sweep_identity(b.config);
  for (const auto& [key, value] : ja.items()) {
    const Json other_value = jb.contains(key) ? jb.at(key) : Json(nullptr);
    if (value != other_value) {
      throw bad_input(fmt::format(
          "cannot merge {}: config.{} is {}, {} has {}; shards of one sweep share its config",
          other.file, key, other_value.dump(), first.file, value.dump()));
    }
  }
  for (const auto& [key, value] : jb.items()) {
    if (!ja.contains(key)) {
      throw bad_input(fmt::format("cannot merge {}: config.{} is {}, {} has none", other.file, key,
                                  value.dump(), first.file));
    }
  }
  if (std::string(a.config.shard->assignment()) != b.config.shard->assignment()) {
    throw bad_input(fmt::format(
        "cannot merge {}: its points were assigned by '{}', those of {} "
        "by '{}'",
        other.file, b.config.shard->assignment(), first.file, a.config.shard->assignment()));
  }
  if (a.config.shard->count != b.config.shard->count) {
    throw bad_input(fmt::format("cannot merge {}: it is shard {} but {} is shard {}", other.file,
                                b.config.shard->text(), first.file, a.config.shard->text()));
  }
  const auto roof = [](const Report& r) {
    return r.peaks ? to_string(r.peaks->used) : std::string("none");
  };
  if (roof(a) != roof(b)) {
    throw bad_input(fmt::format(
        "cannot merge {}: its points sit under {} roofs, those of {} under {} roofs (pass the "
        "same --roof to every shard)",
        other.file, roof(b), first.file, roof(a)));
  }
}

// Every shard 1..n exactly once; the inputs come back in shard order.
void check_shard_set(std::vector<MergeInput>& inputs) {
  std::sort(inputs.begin(), inputs.end(), [](const MergeInput& x, const MergeInput& y) {
    return x.report.config.shard->index < y.report.config.shard->index;
  });
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].report.config.shard->index == inputs[i - 1].report.config.shard->index) {
      throw bad_input(fmt::format("cannot merge: shard {} is given twice ({} and {})",
                                  inputs[i].report.config.shard->text(), inputs[i - 1].file,
                                  inputs[i].file));
    }
  }
  const int count = inputs.front().report.config.shard->count;
  std::vector<std::string> missing;
  size_t next = 0;
  for (int index = 1; index <= count; ++index) {
    if (next < inputs.size() && inputs[next].report.config.shard->index == index) {
      ++next;
    } else {
      missing.push_back(ShardSpec{index, count, {}}.text());
    }
  }
  if (!missing.empty()) {
    throw bad_input(fmt::format("cannot merge: missing shard{} {} of {} (merge needs all {})",
                                missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), count,
                                count));
  }
}

void check_gpus(const std::vector<MergeInput>& inputs, const MergeOptions& options,
                std::vector<std::string>& warnings) {
  const DeviceRecord& first = inputs.front().report.device;
  for (const MergeInput& input : inputs) {
    const DeviceRecord& device = input.report.device;
    if (!same_gpu(first, device) && !options.allow_different_gpus) {
      throw bad_input(fmt::format(
          "cannot merge {}: measured on {}, {} on {}; pass --allow-different-gpus to merge them "
          "(each point keeps its GPU and roofs)",
          input.file, describe_gpu(device), inputs.front().file, describe_gpu(first)));
    }
    if (device.driver_version != first.driver_version) {
      warnings.push_back(fmt::format("{} ran under CUDA driver {}, {} under {}", input.file,
                                     device.driver_version, inputs.front().file,
                                     first.driver_version));
    }
  }
}

}  // namespace

MergeResult merge_shard_reports(std::vector<MergeInput> inputs, const MergeOptions& options) {
  if (inputs.empty()) throw bad_input("cannot merge: no report given");
  for (const MergeInput& input : inputs) {
    const Report& report = input.report;
    if (!report.sources.empty()) {
      throw bad_input(fmt::format(
          "cannot merge {}: it is already a merged report; merge the shard reports it came from",
          input.file));
    }
    if (!report.config.shard) {
      throw bad_input(
          fmt::format("cannot merge {}: not a shard report (no config.shard); merge "
                      "joins the reports of `sweep --shard i/n`",
                      input.file));
    }
    if (report.schema_version != kReportSchemaVersion) {
      throw bad_input(
          fmt::format("cannot merge {}: report schema_version {} (this rooflinectl "
                      "writes {})",
                      input.file, report.schema_version, kReportSchemaVersion));
    }
    check_unique_points(report, input.file);
  }
  for (size_t i = 1; i < inputs.size(); ++i) check_same_sweep(inputs.front(), inputs[i]);
  check_counter_methods(inputs);
  check_shard_set(inputs);
  MergeResult result;
  check_gpus(inputs, options, result.warnings);

  // The plan, and which input owes each of its points (inputs are in shard order, every shard
  // once: check_shard_set).
  const std::vector<PlannedPoint> plan = plan_all_points(inputs.front().report.config);
  std::map<std::string, size_t> plan_position;  // point key -> index into plan
  for (size_t k = 0; k < plan.size(); ++k) {
    plan_position.emplace(shard_point_key(plan[k].op, plan[k].shape), k);
  }
  constexpr size_t kNoOwner = static_cast<size_t>(-1);
  std::vector<size_t> owner(plan.size(), kNoOwner);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ShardSpec& shard = *inputs[i].report.config.shard;
    for (size_t k = 0; k < plan.size(); ++k) {
      if (!shard_runs(shard, plan[k])) continue;
      if (owner[k] != kNoOwner) {
        throw bad_input(fmt::format(
            "cannot merge {}: it is assigned point '{}', which {} is assigned too", inputs[i].file,
            PointKey{plan[k].op, "", plan[k].shape}.shape_label(), inputs[owner[k]].file));
      }
      owner[k] = i;
    }
  }
  const auto owner_text = [&](size_t k) {
    return owner[k] == kNoOwner ? std::string("no shard")
                                : "shard " + inputs[owner[k]].report.config.shard->text();
  };

  // Where each measured point came from: (input, point), keyed as the plan names points.
  std::map<std::string, std::pair<size_t, size_t>> measured;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Report& report = inputs[i].report;
    for (size_t j = 0; j < report.points.size(); ++j) {
      const PointResult& point = report.points[j];
      const std::string key = shard_point_key(point.op, point.shape);
      const auto position = plan_position.find(key);
      if (position == plan_position.end()) {
        throw bad_input(fmt::format(
            "cannot merge {}: point '{}' is not in the sweep its config plans (ops × seq_lens)",
            inputs[i].file, point_key(point).shape_label()));
      }
      if (owner[position->second] != i) {
        throw bad_input(
            fmt::format("cannot merge {}: point '{}' belongs to {}, not to this report's shard {}",
                        inputs[i].file, point_key(point).shape_label(),
                        owner_text(position->second), report.config.shard->text()));
      }
      measured.emplace(key, std::make_pair(i, j));
    }
  }
  SweepConfig config = inputs.front().report.config;
  config.shard.reset();
  Report& merged = result.report;
  const Report& first = inputs.front().report;
  merged.schema_version = first.schema_version;
  merged.tool_version = first.tool_version;
  merged.git_revision = first.git_revision;
  // When the sweep was measured: its last shard's time (each shard's own is in sources); ISO
  // 8601 UTC strings of one format order as text.
  for (const MergeInput& input : inputs) {
    merged.timestamp_utc = std::max(merged.timestamp_utc, input.report.timestamp_utc);
  }
  merged.device = first.device;
  merged.peaks = first.peaks;
  merged.canary = first.canary;
  merged.config = config;
  for (const MergeInput& input : inputs) {
    merged.sources.push_back({input.file, *input.report.config.shard, input.report.timestamp_utc,
                              input.report.device, input.report.peaks, input.report.canary});
  }
  merged.points.reserve(plan.size());
  for (size_t k = 0; k < plan.size(); ++k) {
    const auto found = measured.find(shard_point_key(plan[k].op, plan[k].shape));
    if (found == measured.end()) {
      const std::string label = PointKey{plan[k].op, "", plan[k].shape}.shape_label();
      if (owner[k] == kNoOwner) {
        throw bad_input(fmt::format(
            "cannot merge: no shard is assigned point '{}' (plan position {})", label, k + 1));
      }
      throw bad_input(fmt::format("cannot merge: {} has no point '{}' ({} owes it)",
                                  inputs[owner[k]].file, label, owner_text(k)));
    }
    const auto [input_index, point_index] = found->second;
    // Moved: each measured point is taken once (measured is keyed by point), and the inputs are
    // this function's own.
    PointResult point = std::move(inputs[input_index].report.points[point_index]);
    point.source = input_index;
    merged.points.push_back(std::move(point));
  }
  return result;
}

}  // namespace rooflinectl
