#include "cmd_compare.hpp"

#include <fmt/format.h>

#include "cli/output_extension.hpp"
#include "core/error.hpp"
#include "io/atomic_file.hpp"
#include "io/json_reader.hpp"
#include "io/profile_json.hpp"
#include "render/compare_writer.hpp"
#include "render/junit_writer.hpp"

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
                 "points) | roof (fraction of the attainable roof) (default time)");
  sub.add_flag(
      "--strict", f.strict,
      "Inconclusive points (too noisy to tell) and points missing from the new report also exit 1");
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
  // Matching kernels across two profiles is not written yet; a half comparison would mislead.
  if (is_profile_report_file(path)) {
    throw bad_input(fmt::format(
        "compare does not read profile reports yet ({} is a `rooflinectl profile` report)", path));
  }
  Report report = load_report(path);
  if (report.points.empty()) {
    throw bad_input(
        fmt::format("{} has no points: nothing to compare (a sweep writes one per "
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
  sub->add_option("--format", o.format,
                  "Output format: table | md | json | junit (JUnit XML for CI test reporters)")
      ->capture_default_str();
  sub->add_option("--output,-o", o.output,
                  "Write the comparison here instead of stdout (atomically; name ending in the "
                  "--format's extension: .txt, .md, .json, .xml) (default: stdout)")
      ->each([&o](const std::string&) { o.output_given = true; });
  return sub;
}

namespace {

struct CompareFormat {
  const char* name;
  const char* extension;  ///< of an --output file
  std::string (*render)(const CompareResult&);
  bool has_warnings;  ///< the text carries the warnings itself
};

std::string render_json(const CompareResult& result) {
  // Invalid UTF-8 in a copied reason becomes U+FFFD instead of throwing (as report_to_json_text).
  return compare_to_json(result).dump(2, ' ', false,
                                      nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

constexpr CompareFormat kFormats[] = {
    {"table", ".txt", format_compare_table, true},
    {"md", ".md", format_compare_markdown, true},
    {"json", ".json", render_json, false},
    {"junit", ".xml", format_compare_junit, true},
};

const CompareFormat& parse_compare_format(const std::string& name) {
  for (const CompareFormat& f : kFormats) {
    if (name == f.name) return f;
  }
  throw bad_input(fmt::format("invalid --format '{}': allowed table, md, json, junit", name));
}

}  // namespace

int run_compare_command(const CompareCommandOptions& o) {
  const CompareFormat& format = parse_compare_format(o.format);
  if (o.output_given) {
    check_output_extension(o.output, format.extension,
                           fmt::format("--format {} writes {}", format.name, format.extension));
    check_output_is_not_input(o.output, o.base_file);
    check_output_is_not_input(o.output, o.new_file);
    check_output_file_path(o.output);
  }
  const CompareOptions options = compare_options_from_flags(o.gate);
  const Report base = load_report_to_compare(o.base_file);
  const Report current = load_report_to_compare(o.new_file);
  const CompareResult result = compare_reports(base, current, options);
  // JSON readers may not show the warnings the other formats carry.
  if (!format.has_warnings) {
    for (const auto& w : result.warnings) fmt::print(stderr, "warning: {}\n", w);
  }
  const std::string text = format.render(result);
  if (o.output_given) {
    write_file_atomically(o.output, text);
    fmt::print(stderr, "written to {}\n", o.output);
  } else {
    write_stdout(text);
  }
  return result.exit_code();
}

}  // namespace rooflinectl
