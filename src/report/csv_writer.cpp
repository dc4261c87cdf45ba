#include "report/csv_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <optional>

#include "report/attention_summary.hpp"

namespace rooflinectl {
namespace {

std::string number(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "";
  return fmt::format("{}", *v);  // shortest round-trip representation
}

std::string quoted(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::optional<double> roof_value(const PointResult& p, double RooflinePoint::*field) {
  if (!p.roofline) return std::nullopt;
  return (*p.roofline).*field;
}

struct CsvColumn {
  const char* name;
  std::function<std::string(const PointResult&)> value;
};

const std::vector<CsvColumn>& columns() {
  static const std::vector<CsvColumn> kColumns = {
      {"op", [](const PointResult& p) { return p.op; }},
      {"version", [](const PointResult& p) { return p.version; }},
      {"seq_len", [](const PointResult& p) { return std::to_string(p.shape.seq_len); }},
      {"batch", [](const PointResult& p) { return std::to_string(p.shape.batch); }},
      {"heads", [](const PointResult& p) { return std::to_string(p.shape.heads); }},
      {"kv_heads", [](const PointResult& p) { return std::to_string(p.shape.kv_heads); }},
      {"head_dim", [](const PointResult& p) { return std::to_string(p.shape.head_dim); }},
      {"dtype", [](const PointResult& p) { return to_string(p.shape.dtype); }},
      {"causal",
       [](const PointResult& p) { return std::string(p.shape.causal ? "true" : "false"); }},
      {"status", [](const PointResult& p) { return to_string(p.status); }},
      {"reason", [](const PointResult& p) { return p.reason; }},
      {"validation_passed",
       [](const PointResult& p) {
         return p.validation ? std::string(p.validation->passed ? "true" : "false") : "";
       }},
      {"time_median_s",
       [](const PointResult& p) { return p.timing ? number(p.timing->median_s) : std::string(); }},
      {"time_min_s",
       [](const PointResult& p) { return p.timing ? number(p.timing->min_s) : std::string(); }},
      {"time_max_s",
       [](const PointResult& p) { return p.timing ? number(p.timing->max_s) : std::string(); }},
      {"repetitions",
       [](const PointResult& p) {
         return p.timing ? std::to_string(p.timing->samples_s.size()) : std::string();
       }},
      // Prefill latency is the median time of one forward pass; only prefill attention has one.
      {"prefill_latency_s",
       [](const PointResult& p) {
         const bool prefill = p.op == kFlashAttentionOp || p.op == kNaiveAttentionOp;
         return prefill && p.timing ? number(p.timing->median_s) : std::string();
       }},
      {"tokens_per_s", [](const PointResult& p) { return number(p.tokens_per_s); }},
      {"flop", [](const PointResult& p) { return number(roof_value(p, &RooflinePoint::flop)); }},
      {"dram_bytes",
       [](const PointResult& p) { return number(roof_value(p, &RooflinePoint::dram_bytes)); }},
      {"arithmetic_intensity_flop_per_byte",
       [](const PointResult& p) {
         return number(roof_value(p, &RooflinePoint::arithmetic_intensity_flop_per_byte));
       }},
      {"achieved_flop_per_s",
       [](const PointResult& p) {
         return number(roof_value(p, &RooflinePoint::achieved_flop_per_s));
       }},
      {"achieved_bytes_per_s",
       [](const PointResult& p) {
         return number(roof_value(p, &RooflinePoint::achieved_bytes_per_s));
       }},
      {"attainable_flop_per_s",
       [](const PointResult& p) {
         return number(roof_value(p, &RooflinePoint::attainable_flop_per_s));
       }},
      {"fraction_of_roof",
       [](const PointResult& p) {
         return number(roof_value(p, &RooflinePoint::fraction_of_roof));
       }},
      {"bound",
       [](const PointResult& p) {
         return p.roofline ? to_string(p.roofline->bound) : std::string();
       }},
      {"pipe",
       [](const PointResult& p) {
         return p.roofline ? to_string(p.roofline->roof.pipe) : std::string();
       }},
      {"roof_peak_flop_per_s",
       [](const PointResult& p) {
         return p.roofline ? number(p.roofline->roof.peak_flop_per_s) : std::string();
       }},
      {"roof_peak_bytes_per_s",
       [](const PointResult& p) {
         return p.roofline ? number(p.roofline->roof.peak_bytes_per_s) : std::string();
       }},
      {"ridge_flop_per_byte",
       [](const PointResult& p) {
         return number(roof_value(p, &RooflinePoint::ridge_flop_per_byte));
       }},
      {"basis",
       [](const PointResult& p) { return p.roofline ? p.roofline->basis : std::string(); }},
      {"sm_throughput_fraction",
       [](const PointResult& p) { return number(p.counters.total.sm_throughput_fraction); }},
      {"dram_throughput_fraction",
       [](const PointResult& p) { return number(p.counters.total.dram_throughput_fraction); }},
      {"l2_bytes", [](const PointResult& p) { return number(p.counters.total.l2_bytes); }},
      {"peak_device_memory_bytes",
       [](const PointResult& p) { return number(p.peak_device_memory_bytes); }},
      {"device_bytes_needed",
       [](const PointResult& p) { return std::to_string(p.device_bytes_needed); }},
      {"analytic_flop", [](const PointResult& p) { return number(p.analytic.flop); }},
      {"analytic_min_dram_bytes",
       [](const PointResult& p) { return number(p.analytic.min_dram_bytes); }},
      {"analytic_implemented_dram_bytes",
       [](const PointResult& p) { return number(p.analytic.implemented_dram_bytes); }},
  };
  return kColumns;
}

}  // namespace

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& c : columns()) names.emplace_back(c.name);
    return names;
  }();
  return kNames;
}

std::string format_csv_report(const Report& report) {
  std::string out;
  for (size_t i = 0; i < csv_columns().size(); ++i) out += (i ? "," : "") + csv_columns()[i];
  out += "\n";
  for (const auto& p : report.points) {
    const auto& cols = columns();
    for (size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + quoted(cols[i].value(p));
    out += "\n";
  }
  return out;
}

}  // namespace rooflinectl
