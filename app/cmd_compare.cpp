#include "cmd_compare.hpp"

#include <fmt/format.h>

#include "cli/output_extension.hpp"
#include "compare/layer_compare.hpp"
#include "core/error.hpp"
#include "io/atomic_file.hpp"
#include "io/json_reader.hpp"
#include "io/layer_json.hpp"
#include "io/profile_json.hpp"
#include "render/compare_writer.hpp"
#include "render/junit_writer.hpp"
#include "render/layer_compare_writer.hpp"
#include "render/profile_compare_writer.hpp"

namespace rooflinectl {

void add_compare_gate_flags(CLI::App& sub, CompareGateFlags& f) {
  sub.add_option("--time-threshold", f.time_threshold,
                 "Median change that can count as slower/faster, e.g. 5% or 0.05 (default 5%)");
  sub.add_option("--counter-threshold", f.counter_threshold,
                 "Counted-FLOP change that counts regardless of timing noise (default 1%)")
      ->each([&f](const std::string&) { f.counter_threshold_given = true; });
  sub.add_option("--traffic-threshold", f.traffic_threshold,
                 "DRAM-byte change that counts regardless of timing noise (default 5%: "
                 "back-to-back H200 sweeps differed by up to 4% where L2 absorbs re-reads)")
      ->each([&f](const std::string&) { f.traffic_threshold_given = true; });
  sub.add_option("--l2-threshold", f.l2_threshold,
                 "L2-byte change that counts regardless of timing noise (default 10%: "
                 "back-to-back H200 runs of the wgmma GEMM differed by 5.5%)")
      ->each([&f](const std::string&) { f.l2_threshold_given = true; });
  sub.add_option("--by", f.by,
                 "What the time gate compares: time (median, clock-normalized for compute-bound "
                 "points) | roof (fraction of the attainable roof) (default time)")
      ->each([&f](const std::string&) { f.by_given = true; });
  sub.add_flag(
      "--strict", f.strict,
      "Inconclusive points (too noisy to tell) and points missing from the new report also exit 1");
  sub.add_flag("--allow-different-gpu,--allow-different-gpus", f.allow_different_gpu,
               "Compare reports from different GPUs instead of refusing (exit 2); "
               "--allow-different-gpus, merge's spelling, is the same flag");
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
  if (is_profile_report_file(path)) {
    throw bad_input(fmt::format(
        "{} is a `rooflinectl profile` report; a sweep baseline must be a sweep report (compare "
        "two profile reports with `rooflinectl compare`)",
        path));
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
      "Compare two sweep reports point by point, two profile reports kernel by kernel, or two "
      "measured layer reports operator by operator: same, faster, slower (regression), "
      "inconclusive, added, removed, failed. Exit 0: no "
      "regression; 1: a regression; 2: bad input (unreadable report, schema or GPU mismatch)");
  sub->add_option("base", o.base_file,
                  "Baseline report (JSON from `sweep --output`, `profile --output` or `layer "
                  "--output`)")
      ->required();
  sub->add_option("new", o.new_file, "New report of the same kind to judge against the baseline")
      ->required();
  add_compare_gate_flags(*sub, o.gate);
  sub->add_option("--min-share", o.min_share,
                  "Profile reports only: kernels under this share of the base program's GPU time "
                  "are not gated by time (their counters still are), e.g. 1% or 0.01; 0 gates "
                  "every kernel (default 1%)")
      ->each([&o](const std::string&) { o.min_share_given = true; });
  sub->add_option("--format", o.format,
                  "Output format: table | md | json | junit (JUnit XML for CI test reporters; "
                  "sweep reports only) (default: from -o's extension, "
                  ".txt table, .md md, .json "
                  "json, .xml junit; else table)")
      ->each([&o](const std::string&) { o.format_given = true; });
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
  /// The same format for two profile reports; nullptr when it has none (junit).
  std::string (*render_profile)(const ProfileCompareResult&);
  bool has_warnings;  ///< the text carries the warnings itself
};

// Invalid UTF-8 in a copied reason or kernel name becomes U+FFFD instead of throwing (as
// report_to_json_text).
std::string json_text(const nlohmann::ordered_json& document) {
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string render_json(const CompareResult& result) { return json_text(compare_to_json(result)); }

std::string render_profile_json(const ProfileCompareResult& result) {
  return json_text(profile_compare_to_json(result));
}

constexpr CompareFormat kFormats[] = {
    {"table", ".txt", format_compare_table, format_profile_compare_table, true},
    {"md", ".md", format_compare_markdown, format_profile_compare_markdown, true},
    {"json", ".json", render_json, render_profile_json, false},
    {"junit", ".xml", format_compare_junit, nullptr, true},
};

// The format an -o name picks when --format is not given; nullptr for an extension no format
// writes.
const CompareFormat* format_of_output(const std::string& path) {
  const std::string extension = output_name_extension(path);
  for (const CompareFormat& f : kFormats) {
    if (extension == f.extension) return &f;
  }
  return nullptr;
}

const CompareFormat& parse_compare_format(const std::string& name) {
  for (const CompareFormat& f : kFormats) {
    if (name == f.name) return f;
  }
  throw bad_input(fmt::format("invalid --format '{}': allowed table, md, json, junit", name));
}

void write_comparison(const CompareCommandOptions& o, const std::string& text) {
  if (o.output_given) {
    write_file_atomically(o.output, text);
    fmt::print(stderr, "written to {}\n", o.output);
  } else {
    write_stdout(text);
  }
}

enum class ReportKind { kSweep, kProfile, kLayer };

ReportKind report_kind(const std::string& path) {
  if (is_profile_report_file(path)) return ReportKind::kProfile;
  if (is_layer_report_file(path)) return ReportKind::kLayer;
  return ReportKind::kSweep;
}

const char* to_string(ReportKind kind) {
  switch (kind) {
    case ReportKind::kProfile:
      return "profile";
    case ReportKind::kLayer:
      return "layer";
    case ReportKind::kSweep:
      break;
  }
  return "sweep";
}

// Two measured `layer` reports: each operator's median and interval, the interval gate
// (compare/layer_compare.hpp). The sweep-only flags are refused rather than ignored.
int run_layer_compare(const CompareCommandOptions& o, const CompareFormat& format) {
  if (format.name == std::string("junit")) {
    throw bad_input(
        "--format junit is for sweep reports; allowed for layer reports: table, md, json");
  }
  const auto refuse = [](const std::string& flag, const std::string& why) {
    throw bad_input(fmt::format("{} does not apply to layer reports: {}", flag, why));
  };
  const std::string no_counters =
      "a layer report keeps each operator's time, not its counter sums (gate the counters with "
      "two sweep reports)";
  if (o.gate.counter_threshold_given) refuse("--counter-threshold", no_counters);
  if (o.gate.traffic_threshold_given) refuse("--traffic-threshold", no_counters);
  if (o.gate.l2_threshold_given) refuse("--l2-threshold", no_counters);
  // A typo is named as for sweep reports; roof is refused: a layer report has no placements.
  if (o.gate.by_given && parse_compare_by(o.gate.by) != CompareBy::kTime) {
    refuse("--by " + o.gate.by, "layer reports compare times");
  }
  if (o.min_share_given) refuse("--min-share", "it is for profile reports");
  LayerCompareOptions options;
  options.time_threshold = parse_threshold(o.gate.time_threshold, "--time-threshold");
  options.strict = o.gate.strict;
  options.allow_different_gpu = o.gate.allow_different_gpu;
  const LayerCompareResult result =
      compare_layer_reports(load_layer_times(o.base_file), load_layer_times(o.new_file), options);
  std::string text;
  if (format.name == std::string("json")) {
    for (const auto& w : result.warnings) fmt::print(stderr, "warning: {}\n", w);
    text = json_text(layer_compare_to_json(result));
  } else if (format.name == std::string("md")) {
    text = format_layer_compare_markdown(result);
  } else {
    text = format_layer_compare_table(result);
  }
  write_comparison(o, text);
  return result.exit_code();
}

int run_profile_compare(const CompareCommandOptions& o, const CompareFormat& format) {
  if (format.render_profile == nullptr) {
    throw bad_input(fmt::format(
        "--format {} is for sweep reports; allowed for profile reports: table, md, json",
        format.name));
  }
  ProfileCompareOptions options;
  options.gate = compare_options_from_flags(o.gate);
  if (options.gate.by != CompareBy::kTime) {
    throw bad_input(fmt::format(
        "--by {} is for sweep reports; profile reports are compared by time (their launches "
        "have no placement each)",
        to_string(options.gate.by)));
  }
  options.min_share = parse_threshold(o.min_share, "--min-share", true);
  const ProfileReport base = load_profile_report(o.base_file);
  const ProfileReport current = load_profile_report(o.new_file);
  const ProfileCompareResult result = compare_profiles(base, current, options);
  if (!format.has_warnings) {
    for (const auto& w : result.warnings) fmt::print(stderr, "warning: {}\n", w);
  }
  write_comparison(o, format.render_profile(result));
  return result.exit_code();
}

int run_sweep_compare(const CompareCommandOptions& o, const CompareFormat& format) {
  if (o.min_share_given) {
    throw bad_input(fmt::format("--min-share is for profile reports; {} and {} are sweep reports",
                                o.base_file, o.new_file));
  }
  const CompareOptions options = compare_options_from_flags(o.gate);
  const Report base = load_report_to_compare(o.base_file);
  const Report current = load_report_to_compare(o.new_file);
  const CompareResult result = compare_reports(base, current, options);
  // JSON readers may not show the warnings the other formats carry.
  if (!format.has_warnings) {
    for (const auto& w : result.warnings) fmt::print(stderr, "warning: {}\n", w);
  }
  write_comparison(o, format.render(result));
  return result.exit_code();
}

}  // namespace

int run_compare_command(const CompareCommandOptions& o) {
  const CompareFormat* implied =
      o.output_given && !o.format_given ? format_of_output(o.output) : nullptr;
  if (o.output_given && !o.format_given && implied == nullptr && !o.output.empty()) {
    throw bad_input(fmt::format(
        "invalid --output '{}': without --format the file name picks the writer, so it must end "
        "in .txt (table), .md, .json or .xml (junit)",
        o.output));
  }
  const CompareFormat& format = implied != nullptr ? *implied : parse_compare_format(o.format);
  if (o.output_given) {
    check_output_extension(o.output, format.extension,
                           fmt::format("--format {} writes {}", format.name, format.extension));
    check_output_is_not_input(o.output, o.base_file);
    check_output_is_not_input(o.output, o.new_file);
    check_output_file_path(o.output);
  }
  const ReportKind base_kind = report_kind(o.base_file);
  const ReportKind new_kind = report_kind(o.new_file);
  if (base_kind != new_kind) {
    // A file taken for a sweep report may be no report at all (missing, empty, malformed): its
    // reader names that, which says more than "a sweep report".
    if (base_kind == ReportKind::kSweep) load_report(o.base_file);
    if (new_kind == ReportKind::kSweep) load_report(o.new_file);
    throw bad_input(fmt::format(
        "compare reads two reports of one kind: the base {} is a {} report, the new {} a {} "
        "report",
        o.base_file, to_string(base_kind), o.new_file, to_string(new_kind)));
  }
  switch (base_kind) {
    case ReportKind::kProfile:
      return run_profile_compare(o, format);
    case ReportKind::kLayer:
      return run_layer_compare(o, format);
    case ReportKind::kSweep:
      break;
  }
  return run_sweep_compare(o, format);
}

}  // namespace rooflinectl
