#include "cmd_compare.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "report/compare_writer.hpp"
#include "report/json_reader.hpp"

namespace rooflinectl {

void add_compare_gate_flags(CLI::App& sub, CompareGateFlags& f) {
  sub.add_option("--time-threshold", f.time_threshold,
                 "Median change that can count as slower/faster, e.g. 5% or 0.05 (default 5%)");
  sub.add_option("--counter-threshold", f.counter_threshold,
                 "Counted-FLOP change that counts regardless of timing noise (default 1%)");
  sub.add_option("--traffic-threshold", f.traffic_threshold,
                 "DRAM-byte change that counts regardless of timing noise (default 5%: "
                 "back-to-back H200 sweeps differed by up to 4% where L2 absorbs re-reads)");
  sub.add_option("--l2-threshold", f.l2_threshold,
                 "L2-byte change that counts regardless of timing noise (default 10%: "
                 "back-to-back H200 runs of the wgmma GEMM differed by 5.5%)");
  sub.add_option("--by", f.by,
                 "What the time gate compares: time (median, clock-normalized for compute-bound "
                 "points) | roof (fraction of the attainable roof)");
  sub.add_flag("--strict", f.strict, "Inconclusive points (too noisy to tell) and points missing from the new report also exit 1");
  sub.add_flag("--allow-different-gpu", f.allow_different_gpu,
               "Compare reports from different GPUs instead of refusing (exit 2)");
}

CompareOptions compare_options_from_flags(const CompareGateFlags& f) {
  CompareOptions options;
  options.time_threshold = parse_threshold(f.time_threshold, "--time-threshold");
  options.counter_threshold = parse_threshold(f.counter_threshold, "--counter-threshold");
  options.traffic_threshold = parse_threshold(f.traffic_threshold, "--traffic-threshold");
  options.l2_threshold = parse_threshold(f.l2_threshold, "--l2-threshold");
  options.by = parse_compare_by(f.by);
  options.strict = f.strict;
  options.allow_different_gpu = f.allow_different_gpu;
  return options;
}

Report load_report_to_compare(const std::string& path) {
  Report report = load_report(path);
  if (report.points.empty()) {
    throw bad_input(fmt::format("{} has no points: nothing to compare (a sweep writes one per "
                                "operator and length)",
                                path));
  }
  return report;
}

CLI::App* setup_compare(CLI::App& app, CompareCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "compare",
      "Compare two sweep reports point by point: same, faster, slower (regression), "
      "inconclusive, added, removed, failed. Exit 0: no regression; 1: a regression; 2: bad "
      "input (unreadable report, schema or GPU mismatch)");
  sub->add_option("base", o.base_file, "Baseline report (JSON from `sweep --output`)")->required();
  sub->add_option("new", o.new_file, "New report to judge against the baseline")->required();
  add_compare_gate_flags(*sub, o.gate);
  sub->add_option("--format", o.format, "stdout format: table | md | json");
  return sub;
}

int run_compare_command(const CompareCommandOptions& o) {
  if (o.format != "table" && o.format != "md" && o.format != "json") {
    throw bad_input(fmt::format("invalid --format '{}': allowed table, md, json", o.format));
  }
  const CompareOptions options = compare_options_from_flags(o.gate);
  const Report base = load_report_to_compare(o.base_file);
  const Report current = load_report_to_compare(o.new_file);
  const CompareResult result = compare_reports(base, current, options);
  if (o.format == "json") {
    // The table and Markdown carry the warnings themselves; JSON readers may not show them.
    for (const auto& w : result.warnings) fmt::print(stderr, "warning: {}\n", w);
    // Invalid UTF-8 in a copied reason becomes U+FFFD instead of throwing (as report_to_json_text).
    fmt::print("{}\n", compare_to_json(result).dump(
                           2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  } else if (o.format == "md") {
    fmt::print("{}", format_compare_markdown(result));
  } else {
    fmt::print("{}", format_compare_table(result));
  }
  return result.exit_code();
}

}  // namespace rooflinectl
