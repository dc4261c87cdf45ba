#include "cmd_merge.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "cli/output_extension.hpp"
#include "core/error.hpp"
#include "core/json_input.hpp"
#include "core/parallel_for.hpp"
#include "io/atomic_file.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "io/profile_json.hpp"
#include "merge/shard_merge.hpp"
#include "result/consistency.hpp"

namespace rooflinectl {

CLI::App* setup_merge(CLI::App& app, MergeCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "merge",
      "Join the reports of one sweep's shards (`sweep --shard i/n`) into one report, refusing "
      "shards of different sweeps, builds, counter methods or GPU models and any missing shard");
  sub->add_option("reports", o.inputs, "The shard reports, every shard 1..n once, in any order")
      ->required();
  sub->add_option("--output,-o", o.output,
                  "Write the merged report here (atomically; name ending in .json; never one of "
                  "the inputs)")
      ->required();
  sub->add_flag(
      "--allow-different-gpus,--allow-different-gpu", o.allow_different_gpus,
      "Merge shards measured on different GPU models; each point keeps its GPU and "
      "roofs; --allow-different-gpu, compare's spelling, is the same flag (default: refused)");
  return sub;
}

int run_merge_command(const MergeCommandOptions& o) {
  check_output_extension(o.output, ".json", "the merged report is JSON");
  check_output_file_path(o.output);
  for (const std::string& path : o.inputs) check_output_is_not_input(o.output, path);
  // Each input read, parsed and checked once, the files side by side on the host's cores (the
  // shards of a 2000-point sweep are tens of MB of JSON); the first error is rethrown.
  std::vector<MergeInput> inputs(o.inputs.size());
  parallel_for(static_cast<int64_t>(o.inputs.size()), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const std::string& path = o.inputs[static_cast<size_t>(i)];
      const nlohmann::json document = parse_json_text(read_text_file(path, "report"), path);
      if (is_profile_report(document)) {
        throw bad_input(fmt::format(
            "cannot merge {}: a `rooflinectl profile` report; merge joins sweep shard reports",
            path));
      }
      Report report = report_from_json(document, path);
      check_report_consistency(report, path);
      inputs[static_cast<size_t>(i)] = {path, std::move(report)};
    }
  });
  MergeOptions options;
  options.allow_different_gpus = o.allow_different_gpus;
  const MergeResult result = merge_shard_reports(std::move(inputs), options);
  for (const std::string& warning : result.warnings) fmt::print(stderr, "warning: {}\n", warning);
  const Report& merged = result.report;
  write_file_atomically(o.output, report_to_json_text(merged));

  std::map<std::string, size_t> by_status;
  bool all_ok = true;
  for (const PointResult& point : merged.points) {
    ++by_status[to_string(point.status)];
    all_ok = all_ok && point.status == PointStatus::kOk;
  }
  std::vector<std::string> statuses;
  for (const auto& [status, count] : by_status)
    statuses.push_back(fmt::format("{} {}", count, status));
  std::set<std::string> gpus;
  for (const MergeSource& source : merged.sources) {
    gpus.insert(source.device.uuid.empty() ? fmt::format("{} (device {}, UUID unknown)",
                                                         source.device.name, source.device.index)
                                           : source.device.uuid);
  }
  fmt::print("merged {} shards into {}: {} points ({}), measured on {} GPU{}\n",
             merged.sources.size(), o.output, merged.points.size(),
             statuses.empty() ? "none" : fmt::format("{}", fmt::join(statuses, ", ")), gpus.size(),
             gpus.size() == 1 ? "" : "s");
  return static_cast<int>(all_ok ? ExitCode::kOk : ExitCode::kPartial);
}

}  // namespace rooflinectl
