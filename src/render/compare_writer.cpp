#include "render/compare_writer.hpp"

#include <fmt/format.h>

#include <vector>

#include "compare/significance.hpp"
#include "render/aligned_columns.hpp"
#include "render/bytes_basis_text.hpp"
#include "render/compare_common.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kMissing = "-";

// By roof, "~" marks a side above the DRAM slope by write-back after the window
// (kWriteBackAfterWindowNote, said once below the table).
std::string format_value(const TimeEvidence& t, double v, bool write_back_after_window) {
  return t.by == CompareBy::kTime
             ? format_duration_s(v)
             : fmt::format("{:.1f}% roof{}", 100.0 * v, write_back_after_window ? "~" : "");
}

// The footnote of the "~" marks, empty when no point carries one.
std::string write_back_note(const CompareResult& r) {
  for (const auto& p : r.points) {
    if (p.time &&
        (p.time->base_write_back_after_window || p.time->current_write_back_after_window)) {
      return fmt::format("~ after a fraction of the roof: {}\n", kWriteBackAfterWindowNote);
    }
  }
  return "";
}

struct Cells {
  std::string base = kMissing;
  std::string current = kMissing;
  std::string change = kMissing;
  std::string p_value = kMissing;
  std::string counters = kMissing;
};

Cells cells(const PointComparison& p) {
  Cells c;
  if (p.time) {
    c.base = format_value(*p.time, p.time->base_median, p.time->base_write_back_after_window);
    c.current =
        format_value(*p.time, p.time->current_median, p.time->current_write_back_after_window);
    c.change = signed_percent(p.time->relative_change);
    if (p.time->clock_scale) c.change += " (clk)";
    // The adjusted p is the one the verdict used.
    if (p.time->p_value_adjusted) c.p_value = fmt::format("{:.2g}", *p.time->p_value_adjusted);
  }
  if (!p.counters.empty()) {
    std::string beyond;
    for (const auto& k : p.counters) {
      if (!k.beyond_threshold) continue;
      const std::string change = k.relative_change ? signed_percent(*k.relative_change) : "from 0";
      beyond += (beyond.empty() ? "" : ", ") + k.metric + " " + change;
    }
    c.counters = beyond.empty() ? "=" : p.version_changed() ? "not gated: " + beyond : beyond;
  }
  return c;
}

std::string header_line(const CompareResult& r) {
  return fmt::format(
      "base {} vs new {} on {}; by {}; thresholds: time {}, FLOPs {}, DRAM bytes {}, L2 bytes {}; "
      "Mann-Whitney alpha {} "
      "(Holm-adjusted)",
      report_identity_label(r.base), report_identity_label(r.current), r.current.device_name,
      to_string(r.options.by), threshold_percent(r.options.time_threshold),
      threshold_percent(r.options.counter_threshold),
      threshold_percent(r.options.traffic_threshold), threshold_percent(r.options.l2_threshold),
      kMannWhitneyAlpha);
}

std::string summary_counts(const CompareResult& r) {
  std::string text = verdict_counts(r);
  if (const size_t changed = r.version_changes(); changed > 0) {
    text += fmt::format("; {} matched across a kernel version change (time gate only)", changed);
  }
  return text;
}

std::string outcome(const CompareResult& r) {
  return regression_outcome(r.regressions(), r.exit_code(), "points");
}

// "gemm_v1" or, across a version change, "gemm_v1 -> gemm_v2".
std::string version_text(const PointComparison& p) {
  return p.version_changed() ? p.key.version + " -> " + p.new_version : p.key.version;
}

// One line per point whose samples were taken power- or thermal-throttled (any verdict: a "same"
// on throttled samples may hide a change), "<prefix><label><suffix>: <note>".
std::string throttle_lines(const CompareResult& r, const std::string& prefix,
                           const std::string& suffix) {
  std::string out;
  for (const auto& p : r.points) {
    if (p.throttle_note.empty()) continue;
    out += fmt::format("{}{}{}: {}\n", prefix, p.key.label(), suffix, p.throttle_note);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Console table.

std::string format_compare_table(const CompareResult& r) {
  std::string out = "rooflinectl compare: " + header_line(r) + "\n";
  for (const auto& w : r.warnings) out += "warning: " + w + "\n";

  std::vector<std::vector<std::string>> rows = {
      {"verdict", "operator", "L", "version", "base", "new", "change", "p adj", "counters"}};
  for (const auto& p : r.points) {
    const Cells c = cells(p);
    rows.push_back({to_string(p.verdict), p.key.op + shape_variant_label(p.key.shape),
                    std::to_string(p.key.shape.seq_len), version_text(p), c.base, c.current,
                    c.change, c.p_value, c.counters});
  }
  out += format_aligned_rows(rows, {false, false, true, false, true, true, true, true, false});
  out += write_back_note(r);
  bool any_reason = false;
  for (const auto& p : r.points) {
    if (!needs_reason_line(p.verdict)) continue;
    if (!any_reason) out += "\n";
    any_reason = true;
    out += fmt::format("{}: {}: {}\n", to_string(p.verdict), p.key.label(), p.reason);
  }
  out += throttle_lines(r, "throttled: ", "");
  out += fmt::format("\nsummary: {} ({}); exit {}\n", outcome(r), summary_counts(r), r.exit_code());
  return out;
}

std::string format_compare_markdown(const CompareResult& r) {
  std::string out =
      fmt::format("### rooflinectl compare: {} {}\n\n",
                  r.regressions() > 0 ? "❌" : (r.exit_code() != 0 ? "⚠️" : "✅"), outcome(r));
  out += fmt::format("{}.\n\n", header_line(r));
  if (r.canary.machine_changed) {
    out +=
        "> **The machine changed** between the two runs (copy canary): read time verdicts "
        "with care.\n>\n";
  }
  for (const auto& w : r.warnings) out += "> ⚠️ " + w + "\n";
  if (!r.warnings.empty()) out += "\n";
  out += fmt::format("**{}** points: {}.\n\n", r.points.size(), summary_counts(r));

  auto table_header = [] {
    return std::string(
        "| verdict | operator | L | version | base | new | change | p (Holm) | counters |\n"
        "|---|---|--:|---|--:|--:|--:|--:|---|\n");
  };
  auto table_row = [](const PointComparison& p) {
    const Cells c = cells(p);
    const std::string verdict =
        is_regression(p.verdict) ? "**" + to_string(p.verdict) + "**" : to_string(p.verdict);
    return fmt::format("| {} | `{}`{} | {} | `{}` | {} | {} | {} | {} | {} |\n", verdict, p.key.op,
                       shape_variant_label(p.key.shape), p.key.shape.seq_len, version_text(p),
                       c.base, c.current, c.change, c.p_value, c.counters);
  };

  std::string notable;
  std::string reasons;
  for (const Verdict v : kVerdictAttentionOrder) {
    if (v == Verdict::kSame) continue;
    for (const auto& p : r.points) {
      if (p.verdict != v) continue;
      notable += table_row(p);
      if (!needs_reason_line(p.verdict)) continue;
      reasons += fmt::format("- **{}** `{}`: {}\n", to_string(p.verdict), p.key.label(), p.reason);
    }
  }
  if (!notable.empty()) out += table_header() + notable + "\n" + reasons + "\n";
  if (const std::string throttled = throttle_lines(r, "- ⚠️ throttled: `", "`");
      !throttled.empty()) {
    out += throttled + "\n";
  }

  if (const std::string note = write_back_note(r); !note.empty()) out += note + "\n";
  std::vector<std::string> rows;
  for (const auto& p : r.points) rows.push_back(table_row(p));
  append_folded_rows(out, "All points", table_header(), rows, "points");
  return out;
}

nlohmann::ordered_json compare_to_json(const CompareResult& r) {
  Json j;
  j["compare_schema_version"] = kCompareSchemaVersion;
  j["base"] = report_identity_json(r.base);
  j["new"] = report_identity_json(r.current);
  Json options;
  options["by"] = to_string(r.options.by);
  options["time_threshold"] = json_number(r.options.time_threshold);
  options["counter_threshold"] = json_number(r.options.counter_threshold);
  options["traffic_threshold"] = json_number(r.options.traffic_threshold);
  options["l2_threshold"] = json_number(r.options.l2_threshold);
  options["strict"] = r.options.strict;
  options["allow_different_gpu"] = r.options.allow_different_gpu;
  options["mann_whitney_alpha"] = kMannWhitneyAlpha;
  options["time_resolution_floor_s"] = kTimeResolutionFloorS;
  options["clock_tolerance"] = kClockTolerance;
  j["options"] = options;
  Json canary;
  canary["base_copy_bytes_per_s"] = json_number(r.canary.base_bytes_per_s);
  canary["new_copy_bytes_per_s"] = json_number(r.canary.current_bytes_per_s);
  canary["relative_change"] = json_number(r.canary.relative_change);
  canary["machine_changed"] = r.canary.machine_changed;
  j["canary"] = canary;
  j["warnings"] = r.warnings;
  Json summary = verdict_summary_json(r);
  summary["version_changed"] = r.version_changes();
  j["summary"] = summary;
  j["exit_code"] = r.exit_code();

  Json points = Json::array();
  for (const auto& p : r.points) {
    Json point;
    point["op"] = p.key.op;
    point["version"] = p.key.version;
    // The new report's version: null for a removed point; differs from "version" only across a
    // version change (then the counter gate was off).
    point["new_version"] = p.verdict == Verdict::kRemoved ? Json(nullptr)
                           : p.version_changed()          ? Json(p.new_version)
                                                          : Json(p.key.version);
    point["version_changed"] = p.version_changed();
    const Shape& s = p.key.shape;
    point["shape"] = Json{{"batch", s.batch},
                          {"heads", s.heads},
                          {"kv_heads", s.kv_heads},
                          {"head_dim", s.head_dim},
                          {"seq_len", s.seq_len},
                          {"causal", s.causal},
                          {"dtype", to_string(s.dtype)},
                          {"gelu_form", to_string(s.gelu_form)}};
    // The axes reports write only when set (io/json_writer.cpp), likewise.
    if (s.kv_layout == KvLayout::kPaged) {
      point["shape"]["kv_layout"] = to_string(s.kv_layout);
      point["shape"]["page_size"] = s.page_size;
    }
    if (s.kv_dtype != KvDtype::kAuto) point["shape"]["kv_dtype"] = to_string(s.kv_dtype);
    if (s.gemm_dtype != GemmDtype::kAuto) point["shape"]["gemm_dtype"] = to_string(s.gemm_dtype);
    if (s.gemm_n != 0) point["shape"]["gemm_n"] = s.gemm_n;
    if (s.gemm_k != 0) point["shape"]["gemm_k"] = s.gemm_k;
    if (s.hidden != 0) point["shape"]["hidden"] = s.hidden;
    if (s.ffn_dim != 0) point["shape"]["ffn_dim"] = s.ffn_dim;
    point["verdict"] = to_string(p.verdict);
    point["regression"] = is_regression(p.verdict);
    point["reason"] = p.reason;
    if (p.time) {
      const TimeEvidence& t = *p.time;
      Json time;
      time["by"] = to_string(t.by);
      // Seconds by time, fractions of the roof by roof.
      time["base_median"] = json_number(t.base_median);
      time["new_median"] = json_number(t.current_median);
      time["relative_change"] = json_number(t.relative_change);
      time["base_samples"] = t.base_samples;
      time["new_samples"] = t.current_samples;
      add_significance_json(time, t);
      time["clock_scale"] = json_number(t.clock_scale);
      time["base_sm_clock_hz"] = json_number(t.base_sm_clock_hz);
      time["new_sm_clock_hz"] = json_number(t.current_sm_clock_hz);
      if (t.by == CompareBy::kRoof) {
        time["base_write_back_after_window"] = t.base_write_back_after_window;
        time["new_write_back_after_window"] = t.current_write_back_after_window;
      }
      point["time"] = time;
    } else {
      point["time"] = nullptr;
    }
    point["counters"] = counter_changes_json(p.counters);
    point["counter_note"] = p.counter_note;
    point["traffic_note"] = p.traffic_note;
    point["throttle_note"] = p.throttle_note;
    points.push_back(point);
  }
  j["points"] = points;
  return j;
}

}  // namespace rooflinectl
