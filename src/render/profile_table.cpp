#include "render/profile_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

constexpr size_t kMaxNameChars = 70;

std::string command_line(const std::vector<std::string>& command) {
  std::string out;
  for (const auto& arg : command) out += (out.empty() ? "" : " ") + arg;
  return out;
}

std::string outcome(const ProgramOutcome& program) {
  if (program.exit_code) return fmt::format("exit {}", *program.exit_code);
  if (program.signal) return fmt::format("killed by signal {}", *program.signal);
  return "exit unknown";
}

std::string shortened(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit - 3) + "...";
}

std::string launch_shape(const KernelSummary& k) {
  std::string nvtx;
  for (const auto& range : k.nvtx_path) nvtx += (nvtx.empty() ? "" : "/") + range;
  return fmt::format(
      "grid ({},{},{}) block ({},{},{}){}{}", k.grid[0], k.grid[1], k.grid[2], k.block[0],
      k.block[1], k.block[2],
      k.dynamic_shared_bytes > 0 ? fmt::format(" smem {}", k.dynamic_shared_bytes) : "",
      nvtx.empty() ? "" : " nvtx " + nvtx);
}

// Whether a kernel's placement is above the DRAM slope by its deferred write-back (its roof
// percentage then carries "~", which the footer explains).
bool any_write_back_after_window(const ProfileReport& report) {
  return std::any_of(report.kernels.begin(), report.kernels.end(), [](const KernelSummary& k) {
    return k.roofline && k.roofline->write_back_after_window;
  });
}

}  // namespace

std::string format_profile_table(const ProfileReport& report, size_t max_rows) {
  size_t profiled = 0;
  for (const auto& l : report.launches) profiled += l.record.profiled ? 1 : 0;
  std::string out = fmt::format(
      "rooflinectl profile: {} ({}; {:.2f} s wall)\n{} kernel launches ({} profiled), {} "
      "kernels, GPU kernel time {}\n",
      command_line(report.program.command), outcome(report.program), report.program.wall_time_s,
      report.launches.size(), profiled, report.kernels.size(),
      format_time_s(report.total_kernel_time_s));
  if (report.flop_run) {
    const FlopRunOutcome& run = *report.flop_run;
    ProgramOutcome second;
    second.exit_code = run.exit_code;
    second.signal = run.signal;
    out += run.failure.empty()
               ? fmt::format("full mode: FLOPs from run 2 ({}; {:.2f} s wall, kernel replay)\n",
                             outcome(second), run.wall_time_s)
               : fmt::format("full mode: no FLOPs from run 2: {}\n", run.failure);
  }
  if (!report.devices.empty()) {
    out += fmt::format("GPU: {}; roofs: {}\n", report.devices.front().name,
                       report.peaks ? to_string(report.peaks->used) : "none");
  }
  out += fmt::format("{:>6} {:>10} {:>10} {:>9} {:>10} {:>8} {:>8} {:>8} {:>7}  {}\n", "share",
                     "total", "median", "launches", "DRAM", "FLOP/B", "TFLOP/s", "TB/s", "roof",
                     "verdict / kernel");
  size_t row = 0;
  double rest_time = 0;
  size_t rest_kernels = 0;
  for (const KernelSummary& k : report.kernels) {
    if (row++ >= max_rows) {
      rest_time += k.total_time_s;
      ++rest_kernels;
      continue;
    }
    std::optional<double> dram;
    if (k.counters) {
      dram = k.counters->dram_bytes_isolated();
      if (!dram) dram = k.counters->total.dram_bytes();
    }
    const RooflinePoint* p = k.roofline ? &*k.roofline : nullptr;
    const std::optional<double> bytes_per_s = in_window_dram_bytes_per_s(k);
    out += fmt::format(
        "{:>6} {:>10} {:>10} {:>9} {:>10} {:>8} {:>8} {:>8} {:>7}  {}\n",
        format_percent(k.share_of_gpu_time), format_time_s(k.total_time_s),
        k.median_time_s ? format_time_s(*k.median_time_s) : kNoValue,
        fmt::format("{}/{}", k.profiled_launches, k.launches), format_bytes(dram),
        p ? format_3sig(p->arithmetic_intensity_flop_per_byte) : kNoValue,
        p ? format_3sig(p->achieved_flop_per_s / 1e12) : kNoValue,
        bytes_per_s ? format_3sig(*bytes_per_s / 1e12) : kNoValue,
        p ? format_percent(p->fraction_of_roof) + (p->write_back_after_window ? "~" : "")
          : kNoValue,
        p && p->above_roof ? k.verdict + "; ERROR: above roof!" : k.verdict);
    out += fmt::format("{:>6} {}  {}\n", "", shortened(k.name, kMaxNameChars), launch_shape(k));
  }
  if (rest_kernels > 0) {
    out += fmt::format(
        "{:>6} {:>10}  ({} more kernels)\n",
        format_percent(report.total_kernel_time_s > 0 ? rest_time / report.total_kernel_time_s
                                                      : 0.0),
        format_time_s(rest_time), rest_kernels);
  }
  out += std::string(
             "DRAM: read + in-window write + write-back of the isolated launch (L2 flushed before "
             "it); TB/s: the in-window DRAM bytes over the kernel's duration; ") +
         (any_write_back_after_window(report)
              ? "~ after the roof: above the DRAM slope by write-back that moved after the kernel "
                "(under every ceiling on its in-window bytes: not an error); "
              : "") +
         (report.config.mode == kModeFull
              ? "FLOP/B, TFLOP/s and roof from the FLOPs of every pipe (run 2, kernel replay), "
                "under the roof of the pipe most of them ran on (the verdict names it); "
              : "FLOP/B, TFLOP/s and roof from bf16 tensor FLOPs (single-pass mode counts no "
                "SIMT FLOPs); ") +
         "times from the CUPTI activity records of every launch\n";
  for (const auto& warning : report.warnings) out += "warning: " + warning + "\n";
  return out;
}

}  // namespace rooflinectl
