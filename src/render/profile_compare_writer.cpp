#include "render/profile_compare_writer.hpp"

#include <fmt/format.h>

#include <vector>

#include "compare/significance.hpp"
#include "render/aligned_columns.hpp"
#include "render/compare_common.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kMissing = "-";
constexpr size_t kMaxNameColumns = 48;

std::string nvtx_text(const KernelComparison& k) {
  std::string path;
  for (const auto& range : k.nvtx_path) path += (path.empty() ? "" : "/") + range;
  return path;
}

// The kernel name cut to kMaxNameColumns (counting UTF-8 code points), then " @<nvtx path>".
std::string kernel_cell(const KernelComparison& k) {
  std::string name = k.name;
  if (display_width(name) > kMaxNameColumns) {
    size_t columns = 0;
    size_t cut = 0;
    while (cut < name.size() && columns < kMaxNameColumns - 3) {
      ++cut;
      while (cut < name.size() && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) ++cut;
      ++columns;
    }
    name = name.substr(0, cut) + "...";
  }
  const std::string nvtx = nvtx_text(k);
  return nvtx.empty() ? name : name + " @" + nvtx;
}

struct Cells {
  std::string share = kMissing;
  std::string launches;
  std::string base = kMissing;
  std::string current = kMissing;
  std::string change = kMissing;
  std::string p_value = kMissing;
  std::string counters = kMissing;
};

Cells cells(const KernelComparison& k) {
  Cells c;
  if (k.base_share) c.share = fmt::format("{:.1f}%", 100.0 * *k.base_share);
  c.launches =
      fmt::format("{}/{}", k.verdict == Verdict::kAdded ? "-" : std::to_string(k.base_launches),
                  k.verdict == Verdict::kRemoved ? "-" : std::to_string(k.new_launches));
  if (k.time) {
    c.base = format_duration_s(k.time->base_median);
    c.current = format_duration_s(k.time->current_median);
    c.change = signed_percent(k.time->relative_change);
    if (k.time->p_value_adjusted) c.p_value = fmt::format("{:.2g}", *k.time->p_value_adjusted);
  }
  if (!k.counters.empty()) {
    std::string beyond;
    for (const auto& m : k.counters) {
      if (!m.beyond_threshold) continue;
      const std::string change = m.relative_change ? signed_percent(*m.relative_change) : "from 0";
      beyond += (beyond.empty() ? "" : ", ") + m.metric + " " + change;
    }
    c.counters = beyond.empty() ? "=" : beyond;
  }
  return c;
}

std::string header_line(const ProfileCompareResult& r) {
  const CompareOptions& g = r.options.gate;
  return fmt::format(
      "base {} vs new {} on {}; thresholds: time {}, bf16 tensor FLOPs {}, DRAM bytes {}; "
      "time gated above --min-share {} of the base's GPU time, {} kernel{} tested together "
      "(Mann-Whitney alpha {}, Holm-adjusted)",
      report_identity_label(r.base), report_identity_label(r.current),
      r.current.device_name.empty() ? "no GPU" : r.current.device_name,
      threshold_percent(g.time_threshold), threshold_percent(g.counter_threshold),
      threshold_percent(g.traffic_threshold), threshold_percent(r.options.min_share),
      r.time_family_size, r.time_family_size == 1 ? "" : "s", kMannWhitneyAlpha);
}

std::string outcome(const ProfileCompareResult& r) {
  return regression_outcome(r.regressions(), r.exit_code(), "kernels");
}

}  // namespace

std::string format_profile_compare_table(const ProfileCompareResult& r) {
  std::string out = "rooflinectl compare (profiles): " + header_line(r) + "\n";
  for (const auto& w : r.warnings) out += "warning: " + w + "\n";
  std::vector<std::vector<std::string>> rows = {
      {"verdict", "kernel", "share", "launches", "base", "new", "change", "p adj", "counters"}};
  for (const auto& k : r.kernels) {
    const Cells c = cells(k);
    rows.push_back({to_string(k.verdict), kernel_cell(k), c.share, c.launches, c.base, c.current,
                    c.change, c.p_value, c.counters});
  }
  out += format_aligned_rows(rows, {false, false, true, true, true, true, true, true, false});
  bool any_reason = false;
  for (const auto& k : r.kernels) {
    if (!needs_reason_line(k.verdict)) continue;
    if (!any_reason) out += "\n";
    any_reason = true;
    out += fmt::format("{}: {}: {}\n", to_string(k.verdict), k.label(), k.reason);
  }
  out += fmt::format("\nsummary: {} ({}); exit {}\n", outcome(r), verdict_counts(r), r.exit_code());
  return out;
}

std::string format_profile_compare_markdown(const ProfileCompareResult& r) {
  std::string out =
      fmt::format("### rooflinectl compare (profiles): {} {}\n\n",
                  r.regressions() > 0 ? "❌" : (r.exit_code() != 0 ? "⚠️" : "✅"), outcome(r));
  out += fmt::format("{}.\n\n", header_line(r));
  for (const auto& w : r.warnings) out += "> ⚠️ " + w + "\n";
  if (!r.warnings.empty()) out += "\n";
  out += fmt::format("**{}** kernels: {}.\n\n", r.kernels.size(), verdict_counts(r));

  const auto table_header = [] {
    return std::string(
        "| verdict | kernel | share | launches | base | new | change | p (Holm) | counters |\n"
        "|---|---|--:|--:|--:|--:|--:|--:|---|\n");
  };
  const auto table_row = [](const KernelComparison& k) {
    const Cells c = cells(k);
    const std::string verdict =
        is_regression(k.verdict) ? "**" + to_string(k.verdict) + "**" : to_string(k.verdict);
    return fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {} | {} |\n", verdict,
                       kernel_cell(k), c.share, c.launches, c.base, c.current, c.change, c.p_value,
                       c.counters);
  };
  std::string notable;
  std::string reasons;
  for (const Verdict v : kVerdictAttentionOrder) {
    if (v == Verdict::kSame) continue;
    for (const auto& k : r.kernels) {
      if (k.verdict != v) continue;
      notable += table_row(k);
      if (needs_reason_line(k.verdict)) {
        reasons += fmt::format("- **{}** `{}`: {}\n", to_string(k.verdict), k.label(), k.reason);
      }
    }
  }
  if (!notable.empty()) out += table_header() + notable + "\n" + reasons + "\n";
  std::vector<std::string> rows;
  for (const auto& k : r.kernels) rows.push_back(table_row(k));
  append_folded_rows(out, "All kernels", table_header(), rows, "kernels");
  return out;
}

nlohmann::ordered_json profile_compare_to_json(const ProfileCompareResult& r) {
  Json j;
  j["profile_compare_schema_version"] = kProfileCompareSchemaVersion;
  j["base"] = report_identity_json(r.base);
  j["new"] = report_identity_json(r.current);
  Json options;
  options["time_threshold"] = json_number(r.options.gate.time_threshold);
  options["counter_threshold"] = json_number(r.options.gate.counter_threshold);
  options["traffic_threshold"] = json_number(r.options.gate.traffic_threshold);
  options["min_share"] = json_number(r.options.min_share);
  options["strict"] = r.options.gate.strict;
  options["allow_different_gpu"] = r.options.gate.allow_different_gpu;
  options["mann_whitney_alpha"] = kMannWhitneyAlpha;
  options["time_resolution_floor_s"] = kTimeResolutionFloorS;
  j["options"] = options;
  j["time_family_size"] = r.time_family_size;
  j["warnings"] = r.warnings;
  j["summary"] = verdict_summary_json(r);
  j["exit_code"] = r.exit_code();

  Json kernels = Json::array();
  for (const auto& k : r.kernels) {
    Json kernel;
    kernel["key"] = k.key;
    kernel["name"] = k.name;
    kernel["nvtx"] = k.nvtx_path;
    kernel["verdict"] = to_string(k.verdict);
    kernel["regression"] = is_regression(k.verdict);
    kernel["reason"] = k.reason;
    kernel["base_share"] = json_number(k.base_share);
    // Launch counts of a side the kernel is missing from are null, not 0.
    kernel["base_launches"] = k.verdict == Verdict::kAdded ? Json(nullptr) : Json(k.base_launches);
    kernel["new_launches"] = k.verdict == Verdict::kRemoved ? Json(nullptr) : Json(k.new_launches);
    kernel["time_gated"] = k.time_gated;
    if (k.time) {
      const TimeEvidence& t = *k.time;
      Json time;
      time["base_median_s"] = json_number(t.base_median);
      time["new_median_s"] = json_number(t.current_median);
      time["relative_change"] = json_number(t.relative_change);
      time["base_timed_launches"] = t.base_samples;
      time["new_timed_launches"] = t.current_samples;
      add_significance_json(time, t);
      kernel["time"] = time;
    } else {
      kernel["time"] = nullptr;
    }
    kernel["counters"] = counter_changes_json(k.counters);
    kernel["counter_note"] = k.counter_note;
    kernel["traffic_note"] = k.traffic_note;
    kernels.push_back(kernel);
  }
  j["kernels"] = kernels;
  return j;
}

}  // namespace rooflinectl
