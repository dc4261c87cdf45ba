#include "cmd_sweep.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/seq_range.hpp"
#include "core/sweep_config.hpp"
#include "report/atomic_file.hpp"
#include "report/interruption.hpp"
#include "report/json_writer.hpp"
#include "report/table_writer.hpp"
#include "strict_integer.hpp"
#include "sweep_runner.hpp"

namespace rooflinectl {
namespace {

std::vector<std::string> split_list(const std::string& text, const std::string& flag) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos
                                                                            : comma - start);
    if (item.empty()) throw bad_input(fmt::format("invalid {} '{}': empty item", flag, text));
    out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

SweepConfig build_config(const SweepOptions& o) {
  SweepConfig config =
      o.config_file.empty() ? default_sweep_config() : load_sweep_config(o.config_file);
  if (o.ops) config.ops = split_list(*o.ops, "--ops");
  if (o.seq) {
    config.seq_lens = parse_seq_spec(*o.seq);
    config.seq_spec = *o.seq;
  }
  if (o.batch) config.base.batch = *o.batch;
  if (o.heads) config.base.heads = *o.heads;
  if (o.kv_heads) config.base.kv_heads = *o.kv_heads;
  else if (o.heads) config.base.kv_heads = *o.heads;  // MHA unless --kv-heads says otherwise
  if (o.head_dim) config.base.head_dim = *o.head_dim;
  if (o.dtype) config.base.dtype = parse_dtype(*o.dtype);
  if (o.gelu_form) config.base.gelu_form = parse_gelu_form(*o.gelu_form);
  if (o.causal) config.base.causal = true;
  if (o.repetitions) config.repetitions = *o.repetitions;
  if (o.no_counters) config.counters = false;
  if (o.require_counters) {
    if (!config.counters) {
      throw bad_input(fmt::format(
          "invalid --require-counters: config '{}' sets \"counters\": false", o.config_file));
    }
    config.require_counters = true;
  }
  if (o.warm_l2) config.warm_l2 = true;
  if (o.device) config.device = *o.device;
  return config;
}

void check_output_path(const std::string& path) {
  if (path.empty()) return;
  const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(parent)) {
    throw bad_input(fmt::format("invalid --output '{}': directory '{}' does not exist", path,
                                parent.string()));
  }
  if (std::filesystem::is_directory(path)) {
    throw bad_input(fmt::format("invalid --output '{}': is a directory, a file path is needed",
                                path));
  }
  // Checked now so that a sweep of many minutes does not end in a report it cannot write.
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw bad_input(fmt::format("invalid --output '{}': directory '{}' is not writable: {}", path,
                                parent.string(), std::strerror(errno)));
  }
}

}  // namespace

CLI::App* setup_sweep(CLI::App& app, SweepOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "sweep", "Run operators over sequence lengths; place each on the roofline");
  sub->add_option("--config", o.config_file, "JSON sweep config (default: configs/default.json)");
  sub->add_option("--ops", o.ops, "Comma-separated operators (default: all six; see `list`)");
  sub->add_option("--seq", o.seq,
                  "Sequence lengths: 512..32768 (powers of two), 1000..4000:1000 (linear), "
                  "512,1000,4097 (list)");
  sub->add_option("--batch", o.batch, "Batch size B")->check(strict_integer<int64_t>());
  sub->add_option("--heads", o.heads, "Query heads H")->check(strict_integer<int64_t>());
  sub->add_option("--kv-heads", o.kv_heads, "KV heads H_kv (GQA; must divide H)")
      ->check(strict_integer<int64_t>());
  sub->add_option("--head-dim", o.head_dim, "Head dimension d")->check(strict_integer<int64_t>());
  sub->add_option("--dtype", o.dtype, "Element type: bf16 | fp16");
  sub->add_option("--gelu-form", o.gelu_form, "GELU form: erf | tanh");
  sub->add_flag("--causal", o.causal, "Causal mask (bottom-right aligned)");
  sub->add_option("--output,-o", o.output, "Write the JSON report here (atomically)");
  sub->add_option("--format", o.format, "stdout format: table | json");
  sub->add_option("--repetitions", o.repetitions, "Timed samples per point (default 10)")
      ->check(strict_integer<int>());
  CLI::Option* no_counters =
      sub->add_flag("--no-counters", o.no_counters, "Skip the CUPTI counter pass (timing only)");
  sub->add_flag("--require-counters", o.require_counters,
                "Exit 3 before the sweep starts when counters cannot be read (see `doctor`)")
      ->excludes(no_counters);
  sub->add_flag("--warm-l2", o.warm_l2, "Do not flush L2 before each timed sample");
  sub->add_option("--device", o.device, "CUDA device index")->check(strict_integer<int>());
  return sub;
}

int run_sweep_command(const SweepOptions& o) {
  if (o.format != "table" && o.format != "json") {
    throw bad_input(fmt::format("invalid --format '{}': allowed table, json", o.format));
  }
  check_output_path(o.output);
  const SweepConfig config = build_config(o);
  // Caught from here until the report is written: a signal stops the sweep between points and
  // the points done so far are still written (atomically), never half a file.
  const InterruptScope interrupt_scope;
  const Report report = run_sweep(config, std::cerr);
  const std::string json = report_to_json_text(report);
  if (!o.output.empty()) {
    write_file_atomically(o.output, json);
    fmt::print(stderr, "report written to {}\n", o.output);
  }
  if (o.format == "json") {
    fmt::print("{}", json);
  } else {
    fmt::print("{}", format_console_table(report));
  }
  if (pending_interrupt() != 0 || report_was_interrupted(report)) return kInterruptedExitCode;
  for (const auto& point : report.points) {
    if (point.status != PointStatus::kOk) return static_cast<int>(ExitCode::kPartial);
  }
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace rooflinectl
