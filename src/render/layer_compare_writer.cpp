#include "render/layer_compare_writer.hpp"

#include <fmt/format.h>

#include "render/aligned_columns.hpp"
#include "render/compare_common.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kGateName =
    "median change beyond the threshold with the two 95% intervals apart";

std::string length_key(const LayerCompareResult& r) {
  return r.phase == "decode" ? "context" : "seq_len";
}

std::string time_cell(const std::optional<double>& s) { return s ? format_duration_s(*s) : "-"; }

std::string version_cell(const LayerTimeComparison& c) {
  if (c.role == "layer") return "";
  if (c.new_version.empty()) return c.base_version.empty() ? "-" : c.base_version;
  return fmt::format("{} -> {}", c.base_version.empty() ? "-" : c.base_version, c.new_version);
}

std::vector<std::string> row(const LayerPointComparison& p, const LayerTimeComparison& c) {
  return {to_string(c.verdict),
          std::to_string(p.batch),
          std::to_string(p.length),
          c.role,
          time_cell(c.base_time_s),
          time_cell(c.current_time_s),
          c.relative_change ? signed_percent(*c.relative_change) : "-",
          version_cell(c)};
}

Json row_json(const LayerTimeComparison& c) {
  Json j;
  j["role"] = c.role;
  j["verdict"] = to_string(c.verdict);
  j["reason"] = c.reason;
  j["base_time_s"] = json_number(c.base_time_s);
  j["new_time_s"] = json_number(c.current_time_s);
  j["relative_change"] = json_number(c.relative_change);
  j["base_half_width_s"] = json_number(c.base_half_width_s);
  j["new_half_width_s"] = json_number(c.current_half_width_s);
  if (c.role != "layer") {
    j["version"] = c.base_version.empty() ? Json() : Json(c.base_version);
    j["new_version"] = c.new_version.empty() ? j["version"] : Json(c.new_version);
  }
  return j;
}

std::string outcome(const LayerCompareResult& r) {
  return regression_outcome(r.regressions(), r.exit_code(), "rows");
}

std::string header_line(const LayerCompareResult& r) {
  return fmt::format(
      "{}, {}, {}; base {} vs new {} on {}; time threshold {}; "
      "gate: {} (a layer report keeps medians and their intervals, not samples)",
      r.model_name, r.phase,
      r.kv_dtype == "auto" ? "KV cache in the model's dtype" : "KV cache " + r.kv_dtype,
      report_identity_label(r.base), report_identity_label(r.current),
      r.base.device_name == r.current.device_name
          ? r.current.device_name
          : fmt::format("{} (base) and {} (new)", r.base.device_name, r.current.device_name),
      threshold_percent(r.options.time_threshold), kGateName);
}

// A Markdown table row: the table's cells, the verdict in bold when it is a regression.
std::string markdown_row(const LayerPointComparison& p, const LayerTimeComparison* c) {
  const Verdict verdict = c != nullptr ? c->verdict : p.verdict;
  const std::string v =
      is_regression(verdict) ? "**" + to_string(verdict) + "**" : to_string(verdict);
  if (c == nullptr)
    return fmt::format("| {} | {} | {} | layer | - | - | - | |\n", v, p.batch, p.length);
  const std::vector<std::string> cells = row(p, *c);
  const std::string version = cells[7].empty() ? "" : "`" + cells[7] + "`";
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", v, cells[1], cells[2], cells[3],
                     cells[4], cells[5], cells[6], version);
}

}  // namespace

std::string format_layer_compare_markdown(const LayerCompareResult& r) {
  std::string out =
      fmt::format("### rooflinectl compare (layer): {} {}\n\n",
                  r.regressions() > 0 ? "❌" : (r.exit_code() != 0 ? "⚠️" : "✅"), outcome(r));
  out += header_line(r) + ".\n\n";
  for (const std::string& w : r.warnings) out += "> ⚠️ " + w + "\n";
  if (!r.warnings.empty()) out += "\n";
  out += fmt::format("{}.\n\n", verdict_counts(r));
  const std::string table_header = fmt::format(
      "| verdict | B | {} | operator | base | new | change | version |\n"
      "|---|--:|--:|---|--:|--:|--:|---|\n",
      r.phase == "decode" ? "context" : "L");
  std::string notable;
  std::string reasons;
  for (const Verdict v : kVerdictAttentionOrder) {
    if (v == Verdict::kSame) continue;
    for (const LayerPointComparison& p : r.points) {
      if (!p.layer) {
        if (p.verdict == v) notable += markdown_row(p, nullptr);
        continue;
      }
      std::vector<const LayerTimeComparison*> items = {&*p.layer};
      for (const LayerTimeComparison& op : p.ops) items.push_back(&op);
      for (const LayerTimeComparison* c : items) {
        if (c->verdict != v) continue;
        notable += markdown_row(p, c);
        if (needs_reason_line(v)) {
          // An operator's change is read against its layer's: what it does to TTFT or tokens/s.
          std::string layer_context;
          if (c != &*p.layer && p.layer->relative_change) {
            layer_context =
                fmt::format("; the layer {} -> {} ({}, {})", time_cell(p.layer->base_time_s),
                            time_cell(p.layer->current_time_s),
                            signed_percent(*p.layer->relative_change), to_string(p.layer->verdict));
          }
          reasons += fmt::format("- **{}** B = {} {} = {} `{}`: {}{}\n", to_string(v), p.batch,
                                 r.phase == "decode" ? "context" : "L", p.length, c->role,
                                 c->reason, layer_context);
        }
      }
    }
  }
  if (!notable.empty()) out += table_header + notable + "\n" + reasons + "\n";
  std::vector<std::string> all_rows;
  for (const LayerPointComparison& p : r.points) {
    if (!p.layer) {
      all_rows.push_back(markdown_row(p, nullptr));
      continue;
    }
    all_rows.push_back(markdown_row(p, &*p.layer));
    for (const LayerTimeComparison& op : p.ops) all_rows.push_back(markdown_row(p, &op));
  }
  append_folded_rows(out, "All rows", table_header, all_rows, "rows");
  return out;
}

std::string format_layer_compare_table(const LayerCompareResult& r) {
  std::string out = "rooflinectl compare (layer): " + header_line(r) + "\n";
  for (const std::string& w : r.warnings) out += "warning: " + w + "\n";
  std::vector<std::vector<std::string>> rows = {{"verdict", "B",
                                                 r.phase == "decode" ? "context" : "L", "operator",
                                                 "base", "new", "change", "version"}};
  for (const LayerPointComparison& p : r.points) {
    if (!p.layer) {
      rows.push_back({to_string(p.verdict), std::to_string(p.batch), std::to_string(p.length),
                      "layer", "-", "-", "-", ""});
      continue;
    }
    rows.push_back(row(p, *p.layer));
    for (const LayerTimeComparison& op : p.ops) rows.push_back(row(p, op));
  }
  out += format_aligned_rows(rows, {false, true, true, false, true, true, true, false});
  bool any_reason = false;
  for (const LayerPointComparison& p : r.points) {
    if (!p.layer) continue;
    std::vector<const LayerTimeComparison*> items = {&*p.layer};
    for (const LayerTimeComparison& op : p.ops) items.push_back(&op);
    for (const LayerTimeComparison* c : items) {
      if (!needs_reason_line(c->verdict)) continue;
      if (!any_reason) out += "\n";
      any_reason = true;
      out += fmt::format("{}: B = {} {} = {} {}: {}\n", to_string(c->verdict), p.batch,
                         r.phase == "decode" ? "context" : "L", p.length, c->role, c->reason);
    }
  }
  out += fmt::format("\nsummary: {} ({}); exit {}\n", outcome(r), verdict_counts(r), r.exit_code());
  return out;
}

nlohmann::ordered_json layer_compare_to_json(const LayerCompareResult& r) {
  Json j;
  j["layer_compare_schema_version"] = kLayerCompareSchemaVersion;
  j["model"] = r.model_name;
  j["phase"] = r.phase;
  j["kv_dtype"] = r.kv_dtype;
  j["base"] = report_identity_json(r.base);
  j["new"] = report_identity_json(r.current);
  Json options;
  options["time_threshold"] = json_number(r.options.time_threshold);
  options["strict"] = r.options.strict;
  options["allow_different_gpu"] = r.options.allow_different_gpu;
  options["gate"] = kGateName;
  options["time_resolution_floor_s"] = kTimeResolutionFloorS;
  j["options"] = options;
  j["warnings"] = r.warnings;
  j["summary"] = verdict_summary_json(r);
  j["exit_code"] = r.exit_code();
  Json points = Json::array();
  for (const LayerPointComparison& p : r.points) {
    Json point;
    point["batch"] = p.batch;
    point[length_key(r)] = p.length;
    point["verdict"] = to_string(p.verdict);
    point["layer"] = p.layer ? row_json(*p.layer) : Json();
    Json ops = Json::array();
    for (const LayerTimeComparison& op : p.ops) ops.push_back(row_json(op));
    point["operators"] = ops;
    points.push_back(point);
  }
  j["points"] = points;
  return j;
}

}  // namespace rooflinectl
