// `sweep --devices 0,1,…|all`: one sweep spread over the GPUs of one host, one worker process per
// GPU (CUPTI's range profiler is per process), each worker a `rooflinectl sweep --shard i/n
// --plan-indices …` on its own device running the points assigned to it (balanced by predicted
// time, core/shard.hpp balance_plan_positions); the parent merges their reports
// (merge/shard_merge.hpp) into one.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/sweep_config.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// The `sweep` flags a worker needs that its config file cannot hold.
struct WorkerFlags {
  std::optional<std::string> roof;  ///< --roof, passed on when given
};

/// Runs the points of `config` on `devices` (distinct CUDA indices, at least two): the plan is
/// split by predicted time (each point's datasheet-roof time on an H200 times its launches, plus a
/// fixed per-point cost; only the ratios matter) over the devices, and worker i runs `rooflinectl
/// sweep --config <config> --device D --shard i+1/n --plan-indices <its share>` (this executable,
/// /proc/self/exe) in its own process group (a device left without points gets no worker), its
/// progress lines copied to `progress` prefixed with "[gpu D] ". The first SIGINT/SIGTERM the
/// parent catches (core/interrupt.hpp) is passed to every worker as SIGINT: each stops between
/// points and writes its report, and the merged report marks the points not run as interrupted.
/// Returns the merged report: every point of the plan in run order, each with its `source` (the
/// worker's device, roofs and canary); sources[i].file names the worker. Throws the worker's own
/// Error class (exit 2, 3 or 4, with its last error line) when a worker fails before writing its
/// report, an environment Error when a worker cannot be started, and merge's bad-input Errors when
/// the workers' reports cannot be joined (different GPU models are allowed: each point keeps its
/// own device).
Report run_sweep_on_devices(const SweepConfig& config, const std::vector<int>& devices,
                            const WorkerFlags& flags, std::ostream& progress);

}  // namespace rooflinectl
