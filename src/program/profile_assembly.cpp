#include "program/profile_assembly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "core/statistics.hpp"
#include "cupti/metrics.hpp"
#include "peaks/roof_selection.hpp"
#include "profile/demangle.hpp"
#include "profile/full_mode.hpp"
#include "profile/launch_selection.hpp"
#include "profile/placed_verdict.hpp"
#include "result/placement_inputs.hpp"

namespace rooflinectl {
namespace {

std::string dims(const std::array<uint32_t, 3>& d) {
  return fmt::format("({},{},{})", d[0], d[1], d[2]);
}

std::array<uint32_t, 3> unsigned_dims(const std::array<int32_t, 3>& d) {
  return {static_cast<uint32_t>(d[0]), static_cast<uint32_t>(d[1]), static_cast<uint32_t>(d[2])};
}

std::optional<double> finite_metric(const std::map<std::string, double>& range, const char* name) {
  const auto found = range.find(name);
  if (found == range.end() || !std::isfinite(found->second)) return std::nullopt;
  return found->second;
}

/// Run 2's counterpart of one launch: its record and process, or why there is none.
struct FlopCounterpart {
  const LaunchRecord* record = nullptr;
  const ProcessRecords* process = nullptr;
  std::string null_reason;
};

/// The verdict of a launch that is not placed, from its in-window DRAM throughput.
std::string dram_verdict(double dram_fraction, const std::string& why) {
  return dram_fraction >= kMemoryBoundDramFraction
             ? fmt::format("memory-bound, DRAM at {} of its roof ({})",
                           verdict_percent(dram_fraction), why)
             : fmt::format("undetermined, DRAM at {} of its roof ({})",
                           verdict_percent(dram_fraction), why);
}

/// Places one profiled launch, or says why it is not placed; always sets the verdict. In full
/// mode `flops` is its run-2 counterpart (nullptr in single-pass mode).
void place_launch(ProfiledLaunch& launch, const ProcessRecords& process,
                  const ProfileInputs& inputs, const FlopCounterpart* flops) {
  const LaunchRecord& record = launch.record;
  if (!record.profiled) {
    launch.roofline_null_reason = "not profiled: " + record.not_profiled_reason;
    launch.flop_null_reason = launch.roofline_null_reason;
    launch.verdict = "not profiled";
    return;
  }
  launch.verdict = "not placed";
  if (record.ranges.size() != 2) {
    launch.roofline_null_reason = fmt::format(
        "{} counter ranges for one launch (expected 2: the kernel, then the write-back sweep)",
        record.ranges.size());
    launch.flop_null_reason = launch.roofline_null_reason;
    return;
  }
  CounterPassRanges ranges;
  ranges.bytes = record.ranges;
  std::vector<CounterSession> sessions = process.sessions;
  const bool full_flops = flops != nullptr && flops->record != nullptr;
  if (full_flops) {
    ranges.follow_up = {flops->record->ranges};
    sessions.insert(sessions.end(), flops->process->sessions.begin(),
                    flops->process->sessions.end());
    int passes = 0;
    for (const auto& s : flops->process->sessions) passes = std::max(passes, s.passes);
    launch.flop_source = fmt::format("counted, run 2, kernel replay, {} passes", passes);
  } else if (flops != nullptr) {
    launch.flop_null_reason = flops->null_reason;
  } else {
    launch.flop_source = "counted, run 1, one pass: bf16 tensor FLOPs only (single-pass mode)";
  }
  launch.counters = counters_from_passes(ranges, {launch.name}, sessions, process.cache_policy,
                                         process.sweep_method);
  const CounterResult& counters = *launch.counters;
  const auto device = inputs.devices.find(record.device);
  const auto peaks = inputs.peaks.find(record.device);
  if (device == inputs.devices.end() || peaks == inputs.peaks.end()) {
    launch.roofline_null_reason = fmt::format("no roofs for device {}", record.device);
    return;
  }
  const std::optional<FlopPipe> dominant = dominant_flop_pipe(counters.total);
  // The DRAM roof of the pipe the FLOPs ran on, else bf16 tensor's: the DRAM ceiling is the same.
  std::string why;
  const std::optional<Roof> roof = select_point_roof(
      peaks->second.used, dominant && dominant->pipe ? *dominant->pipe : Pipe::kTensor,
      dominant ? dominant->dtype : Dtype::kBf16, peaks->second, counters, device->second.cc_major,
      device->second.cc_minor, why);
  if (!roof) {
    launch.roofline_null_reason = "no roof: " + why;
    return;
  }
  const std::optional<double> isolated = counters.dram_bytes_isolated();
  const std::optional<double> bytes = isolated ? isolated : counters.total.dram_bytes();
  const std::optional<double> time = counters.total.duration_s;
  if (!bytes || !time || *bytes <= 0 || *time <= 0) {
    launch.roofline_null_reason = "DRAM bytes or the duration were not counted";
    return;
  }
  // The share of the DRAM roof sustained in the kernel's window: the write-backs the sweep counts
  // after the window are not part of the kernel's duration.
  const std::optional<double> window_bytes = counters.total.dram_bytes();
  const double dram_fraction = window_bytes.value_or(*bytes) / *time / roof->peak_bytes_per_s;
  if (dominant && dominant->pipe) {
    L2Bytes l2;
    if (counters.total.l2_bytes && *counters.total.l2_bytes > 0) {
      l2.bytes = counters.total.l2_bytes;
    } else {
      l2.null_reason = "L2 bytes not counted";
    }
    // On the write-back-inclusive basis the DRAM slope is judged on the in-window bytes.
    RooflinePoint point = place_on_roofline(*roof, *counters.total.counted_flop(), *bytes, *time,
                                            "counters", l2, isolated ? window_bytes : std::nullopt);
    point.bytes_basis = isolated ? kBytesIsolated : kBytesInWindow;
    launch.verdict = placed_verdict(point, *dominant);
    launch.roofline = std::move(point);
    return;
  }
  if (dominant) {
    launch.roofline_null_reason = fmt::format(
        "most of its FLOPs are {} FLOPs, for which the roofs have no ceiling (fp32 SIMT, bf16 "
        "and fp16 tensor only)",
        dominant->label);
    launch.verdict = fmt::format("not placed: {} work, DRAM at {} of its roof", dominant->label,
                                 verdict_percent(dram_fraction));
    return;
  }
  if (full_flops) {
    launch.roofline_null_reason = "no FLOPs counted on any pipe (full FLOP set)";
    launch.verdict = dram_verdict(dram_fraction, "no FLOPs");
    return;
  }
  const std::string run2 =
      launch.flop_null_reason.empty() ? "" : "; no run-2 FLOPs: " + launch.flop_null_reason;
  const std::optional<double> tensor_inst = finite_metric(record.ranges[0], kMetricTensorPipeInst);
  if (tensor_inst && *tensor_inst > 0) {
    launch.roofline_null_reason =
        "tensor-pipe work in a dtype whose FLOPs the single-pass set does not count (fp16, "
        "tf32, fp8 or int8)" +
        run2;
    launch.verdict = fmt::format("not placed: non-bf16 tensor work, DRAM at {} of its roof",
                                 verdict_percent(dram_fraction));
    return;
  }
  launch.roofline_null_reason =
      "no tensor-pipe work, and SIMT FLOPs are not counted in single-pass mode" + run2;
  launch.verdict = dram_fraction >= kMemoryBoundDramFraction
                       ? dram_verdict(dram_fraction, "no tensor work")
                       : dram_verdict(dram_fraction, "no tensor work; SIMT FLOPs not counted");
}

/// The activity of `record`: same correlation, same kernel and launch configuration. A launch's
/// correlation ID is shared by the kernels the injection library runs inside its callback (the
/// L2 flush, the read sweep, CUPTI's own), so the correlation alone does not identify it.
bool is_activity_of(const KernelActivity& a, const LaunchRecord& record) {
  return a.name == record.mangled_name && unsigned_dims(a.grid) == record.grid &&
         unsigned_dims(a.block) == record.block;
}

/// The launches of the processes: records joined with activities, then activities of their own.
/// Activities under a correlation of a recorded launch or of the library's own launches that are
/// not the launch itself are the library's work and are left out, from the GPU time too. Calls
/// captured into a CUDA graph ran nothing and are only counted (`captured_calls`).
std::vector<ProfiledLaunch> join_launches(const ProfileInputs& inputs,
                                          std::vector<const ProcessRecords*>& owner,
                                          double& total_kernel_time_s, int64_t& captured_calls) {
  std::vector<ProfiledLaunch> launches;
  total_kernel_time_s = 0;
  captured_calls = 0;
  const auto seconds = [](const KernelActivity& a) {
    return static_cast<double>(a.end_ns - a.start_ns) * 1e-9;
  };
  for (const ProcessRecords& process : inputs.processes) {
    std::set<uint32_t> tool(process.tool_correlations.begin(), process.tool_correlations.end());
    std::multimap<uint32_t, size_t> by_correlation;
    for (size_t i = 0; i < process.activities.size(); ++i) {
      by_correlation.emplace(process.activities[i].correlation, i);
    }
    std::vector<bool> used(process.activities.size(), false);
    for (const LaunchRecord& record : process.launches) {
      tool.insert(record.correlation);
      if (record.captured) {
        ++captured_calls;
        continue;
      }
      ProfiledLaunch launch;
      launch.record = record;
      launch.name = demangle_kernel_name(record.mangled_name);
      const auto range = by_correlation.equal_range(record.correlation);
      const auto found = std::find_if(range.first, range.second, [&](const auto& entry) {
        return !used[entry.second] && is_activity_of(process.activities[entry.second], record);
      });
      if (found != range.second) {
        used[found->second] = true;
        launch.duration_s = seconds(process.activities[found->second]);
        total_kernel_time_s += *launch.duration_s;
      } else {
        launch.duration_null_reason = process.complete
                                          ? "no kernel activity record for this launch"
                                          : "no kernel activity record (the process did not exit "
                                            "normally, so CUPTI's last buffers were lost)";
      }
      launches.push_back(std::move(launch));
      owner.push_back(&process);
    }
    for (size_t i = 0; i < process.activities.size(); ++i) {
      const KernelActivity& a = process.activities[i];
      if (used[i] || tool.count(a.correlation) != 0) continue;
      ProfiledLaunch launch;
      launch.record.pid = a.pid;
      launch.record.correlation = a.correlation;
      launch.record.mangled_name = a.name;
      launch.record.grid = unsigned_dims(a.grid);
      launch.record.block = unsigned_dims(a.block);
      launch.record.dynamic_shared_bytes = static_cast<uint32_t>(a.dynamic_shared_bytes);
      launch.record.device = a.device;
      launch.record.api = a.graph_id != 0 ? "cuGraphLaunch" : "unknown";
      launch.record.not_profiled_reason =
          a.graph_id != 0 ? fmt::format(
                                "ran as a node of CUDA graph {}: graph launches are not profiled "
                                "(disable CUDA graphs for per-kernel counters)",
                                a.graph_id)
                          : "launched through a call rooflinectl does not hook";
      launch.name = demangle_kernel_name(a.name);
      launch.duration_s = seconds(a);
      total_kernel_time_s += *launch.duration_s;
      launches.push_back(std::move(launch));
      owner.push_back(&process);
    }
  }
  return launches;
}

/// The profiled launch of `indices` with the median counted duration, or nullptr.
const ProfiledLaunch* median_profiled(const std::vector<ProfiledLaunch>& launches,
                                      const std::vector<size_t>& indices) {
  std::vector<std::pair<double, size_t>> timed;
  for (size_t i : indices) {
    const auto& c = launches[i].counters;
    if (c && c->total.duration_s) timed.emplace_back(*c->total.duration_s, i);
  }
  if (timed.empty()) return nullptr;
  std::sort(timed.begin(), timed.end());
  return &launches[timed[(timed.size() - 1) / 2].second];
}

std::vector<KernelSummary> summarize(const std::vector<ProfiledLaunch>& launches,
                                     double total_kernel_time_s) {
  std::map<std::string, std::vector<size_t>> groups;
  std::vector<std::string> order;
  for (size_t i = 0; i < launches.size(); ++i) {
    const LaunchRecord& r = launches[i].record;
    const std::string key =
        kernel_key(launches[i].name, r.grid, r.block, r.dynamic_shared_bytes, r.nvtx_path);
    auto& group = groups[key];
    if (group.empty()) order.push_back(key);
    group.push_back(i);
  }
  std::vector<KernelSummary> kernels;
  for (const std::string& key : order) {
    const std::vector<size_t>& indices = groups[key];
    const ProfiledLaunch& first = launches[indices.front()];
    KernelSummary k;
    k.key = key;
    k.name = first.name;
    k.grid = first.record.grid;
    k.block = first.record.block;
    k.dynamic_shared_bytes = first.record.dynamic_shared_bytes;
    k.nvtx_path = first.record.nvtx_path;
    for (size_t i : indices) {
      ++k.launches;
      if (launches[i].record.profiled) ++k.profiled_launches;
      if (launches[i].duration_s) k.durations_s.push_back(*launches[i].duration_s);
    }
    for (double d : k.durations_s) k.total_time_s += d;
    if (!k.durations_s.empty()) k.median_time_s = median(k.durations_s);
    k.share_of_gpu_time = total_kernel_time_s > 0 ? k.total_time_s / total_kernel_time_s : 0;
    if (const ProfiledLaunch* m = median_profiled(launches, indices)) {
      k.counters = m->counters;
      k.roofline = m->roofline;
      k.roofline_null_reason = m->roofline_null_reason;
      k.verdict = m->verdict;
    } else {
      k.roofline_null_reason =
          "no launch of this kernel was profiled: " + first.record.not_profiled_reason;
      k.verdict = "not profiled";
    }
    kernels.push_back(std::move(k));
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelSummary& a, const KernelSummary& b) {
                     return a.total_time_s > b.total_time_s;
                   });
  return kernels;
}

/// How many launches were left out as NCCL kernels, and their distinct names (the first three,
/// then how many more), for the report's warning.
std::pair<size_t, std::string> nccl_launches_left_out(const std::vector<ProfiledLaunch>& launches) {
  size_t count = 0;
  std::vector<std::string> names;
  for (const ProfiledLaunch& l : launches) {
    if (l.record.not_profiled_reason != kNcclNotProfiledReason) continue;
    ++count;
    const std::string name = l.name.substr(0, l.name.find('('));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::string listed;
  for (size_t i = 0; i < names.size() && i < 3; ++i) listed += (i ? ", " : "") + names[i];
  if (names.size() > 3) listed += fmt::format(" and {} more", names.size() - 3);
  return {count, listed};
}

/// The processes of `processes` in pid order.
std::vector<const ProcessRecords*> by_pid(const std::vector<ProcessRecords>& processes) {
  std::vector<const ProcessRecords*> out;
  for (const auto& p : processes) out.push_back(&p);
  std::sort(out.begin(), out.end(),
            [](const ProcessRecords* a, const ProcessRecords* b) { return a->pid < b->pid; });
  return out;
}

/// The selected launches of `process`, in launch order.
std::vector<LaunchRecord> selected_launches(const ProcessRecords& process) {
  std::vector<LaunchRecord> out;
  for (const auto& l : process.launches) {
    if (l.selected) out.push_back(l);
  }
  std::sort(out.begin(), out.end(),
            [](const LaunchRecord& a, const LaunchRecord& b) { return a.sequence < b.sequence; });
  return out;
}

/// Each launch's run-2 counterpart (one entry per launch of `launches`): the processes of the
/// two runs paired in pid order, their selected launches by match_flop_run. Adds the warnings
/// that summarize the launches left without FLOPs.
std::vector<FlopCounterpart> flop_counterparts(const ProfileInputs& inputs,
                                               const std::vector<ProfiledLaunch>& launches,
                                               const std::vector<const ProcessRecords*>& owner,
                                               std::vector<std::string>& warnings) {
  const FlopRunInputs& run2 = *inputs.flop_run;
  std::vector<FlopCounterpart> out(launches.size());
  const std::vector<const ProcessRecords*> first = by_pid(inputs.processes);
  const std::vector<const ProcessRecords*> second = by_pid(run2.processes);
  std::string common_reason;
  if (!run2.outcome.failure.empty()) {
    common_reason = run2.outcome.failure;
  } else if (first.size() != second.size()) {
    common_reason =
        fmt::format("run 2 had {} process(es) using CUDA, run 1 {}: launches cannot be paired",
                    second.size(), first.size());
  }
  // (process of run 1, sequence) -> counterpart
  std::map<std::pair<const ProcessRecords*, uint64_t>, FlopCounterpart> found;
  size_t differing = 0;
  size_t refused = 0;
  for (size_t p = 0; common_reason.empty() && p < first.size(); ++p) {
    const std::vector<LaunchRecord> run1_selected = selected_launches(*first[p]);
    const std::vector<LaunchRecord> run2_selected = selected_launches(*second[p]);
    const std::vector<FlopMatch> matches = match_flop_run(run1_selected, run2_selected);
    // Pointers into second[p]->launches, which outlive this function.
    std::map<uint64_t, const LaunchRecord*> run2_by_sequence;
    for (const auto& l : second[p]->launches) run2_by_sequence[l.sequence] = &l;
    for (size_t i = 0; i < matches.size(); ++i) {
      FlopCounterpart c;
      if (!matches[i].run2_index) {
        c.null_reason = matches[i].null_reason;
        ++differing;
      } else {
        const LaunchRecord* twin =
            run2_by_sequence.at(run2_selected[*matches[i].run2_index].sequence);
        if (twin->profiled && twin->ranges.size() == 1) {
          c.record = twin;
          c.process = second[p];
        } else {
          c.null_reason = "run 2 (kernel replay): " +
                          (twin->profiled ? fmt::format("{} counter ranges for one launch "
                                                        "(expected 1)",
                                                        twin->ranges.size())
                                          : twin->not_profiled_reason);
          ++refused;
        }
      }
      found[{first[p], run1_selected[i].sequence}] = std::move(c);
    }
  }
  for (size_t i = 0; i < launches.size(); ++i) {
    if (!launches[i].record.selected) continue;
    if (!common_reason.empty()) {
      out[i].null_reason = common_reason;
      continue;
    }
    const auto it = found.find({owner[i], launches[i].record.sequence});
    if (it != found.end()) out[i] = it->second;
  }
  if (!common_reason.empty()) {
    warnings.push_back("full mode: no launch has FLOPs from run 2: " + common_reason);
  }
  if (differing > 0) {
    warnings.push_back(fmt::format(
        "full mode: {} selected launch(es) have no FLOPs: run 2 launched another kernel or "
        "launch configuration at their index, or fewer launches (the program's launch sequence "
        "is not deterministic)",
        differing));
  }
  if (refused > 0) {
    warnings.push_back(fmt::format(
        "full mode: {} launch(es) have no FLOPs: the FLOP set failed under kernel replay in run "
        "2 (each launch's flop_null_reason says why)",
        refused));
  }
  return out;
}

}  // namespace

std::string kernel_key(const std::string& name, const std::array<uint32_t, 3>& grid,
                       const std::array<uint32_t, 3>& block, uint32_t dynamic_shared_bytes,
                       const std::vector<std::string>& nvtx_path) {
  std::string nvtx;
  for (const auto& range : nvtx_path) nvtx += (nvtx.empty() ? "" : "/") + range;
  return fmt::format("{} grid={} block={} smem={} nvtx={}", name, dims(grid), dims(block),
                     dynamic_shared_bytes, nvtx.empty() ? "-" : nvtx);
}

ProfileReport assemble_profile(const ProfileInputs& inputs) {
  ProfileReport report;
  report.program = inputs.program;
  report.config = inputs.config;
  for (const auto& [index, device] : inputs.devices) report.devices.push_back(device);
  if (!inputs.peaks.empty()) report.peaks = inputs.peaks.begin()->second;
  std::vector<const ProcessRecords*> owner;
  int64_t captured_calls = 0;
  report.launches = join_launches(inputs, owner, report.total_kernel_time_s, captured_calls);
  std::vector<FlopCounterpart> flops;
  if (inputs.flop_run) {
    report.flop_run = inputs.flop_run->outcome;
    flops = flop_counterparts(inputs, report.launches, owner, report.warnings);
  }
  for (size_t i = 0; i < report.launches.size(); ++i) {
    place_launch(report.launches[i], *owner[i], inputs, flops.empty() ? nullptr : &flops[i]);
  }
  report.kernels = summarize(report.launches, report.total_kernel_time_s);
  for (const ProcessRecords& process : inputs.processes) {
    report.graph_launches += process.graph_launches;
    for (const auto& warning : process.warnings) {
      report.warnings.push_back(fmt::format("process {}: {}", process.pid, warning));
    }
    if (!process.complete) {
      report.complete = false;
      report.warnings.push_back(fmt::format(
          "process {} did not exit normally: its last launches may lack durations", process.pid));
    }
  }
  if (report.graph_launches > 0) {
    report.warnings.push_back(
        fmt::format("{} CUDA graph launch(es): kernels run by a graph are timed but not profiled",
                    report.graph_launches));
  }
  if (captured_calls > 0) {
    report.warnings.push_back(fmt::format(
        "{} kernel launch call(s) were captured into CUDA graphs (stream capture), not run: "
        "their executions are the graph nodes",
        captured_calls));
  }
  const auto nccl = nccl_launches_left_out(report.launches);
  if (nccl.first > 0) {
    report.warnings.push_back(fmt::format(
        "{} launch(es) of NCCL kernels timed, not profiled ({}): serializing a collective's "
        "launches can hang it; --include-nccl profiles them",
        nccl.first, nccl.second));
  }
  if (report.launches.empty()) {
    report.warnings.push_back("the program launched no CUDA kernel");
  }
  return report;
}

}  // namespace rooflinectl
