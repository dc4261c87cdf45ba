#include "render/csv_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <optional>

#include "core/operator_names.hpp"
#include "core/sweep_axes.hpp"
#include "render/attention_summary.hpp"
#include "result/counter_fields.hpp"

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

// A figure of the placement (a double, or an optional one such as the L2 figures): nullopt
// without a placement or where the figure is unknown.
template <typename Field>
std::optional<double> roof_value(const PointResult& p, Field RooflinePoint::*field) {
  if (!p.roofline) return std::nullopt;
  return (*p.roofline).*field;
}

/// One CSV column: its header name and its cell for a point of a report (the report for the
/// per-run values, such as the device, repeated on every row).
struct CsvColumn {
  const char* name;
  std::function<std::string(const Report&, const PointResult&)> value;
};

/// A column whose cell depends on the point alone.
CsvColumn point_column(const char* name, std::function<std::string(const PointResult&)> value) {
  return {name,
          [value = std::move(value)](const Report&, const PointResult& p) { return value(p); }};
}

/// A column of the point's counter total (sum over its kernels), named by the field's JSON key.
template <CounterMember kMember>
CsvColumn counter_total_column() {
  constexpr const char* kName = counter_field(kMember).json_key;
  return point_column(kName,
                      [](const PointResult& p) { return number(p.counters.total.*kMember); });
}

/// A column of one figure of the point's placement (empty without a placement).
template <typename Field>
CsvColumn placement_column(const char* name, Field RooflinePoint::*field) {
  return point_column(name, [field](const PointResult& p) { return number(roof_value(p, field)); });
}

/// One of the gemm operator's effective dims (Shape::gemm_dims) as text; empty for other
/// operators.
std::string gemm_dim(const PointResult& p, int64_t GemmDims::*dim) {
  return p.op == kGemmOp ? std::to_string(p.shape.gemm_dims().*dim) : std::string();
}

/// The point's identity and shape: operator, kernel version, device and every axis.
std::vector<CsvColumn> shape_columns() {
  return {
      point_column("op", [](const PointResult& p) { return p.op; }),
      point_column("version", [](const PointResult& p) { return p.version; }),
      // The GPU is one per report; repeated on every row so that CSVs of several GPUs concatenate.
      // In a merged report, the GPU of the point's own shard.
      {"device",
       [](const Report& r, const PointResult& p) {
         return p.source && *p.source < r.sources.size() ? r.sources[*p.source].device.name
                                                         : r.device.name;
       }},
      point_column("seq_len", [](const PointResult& p) { return std::to_string(p.shape.seq_len); }),
      point_column("batch", [](const PointResult& p) { return std::to_string(p.shape.batch); }),
      point_column("heads", [](const PointResult& p) { return std::to_string(p.shape.heads); }),
      point_column("kv_heads",
                   [](const PointResult& p) { return std::to_string(p.shape.kv_heads); }),
      point_column("head_dim",
                   [](const PointResult& p) { return std::to_string(p.shape.head_dim); }),
      point_column("d_model",
                   [](const PointResult& p) { return std::to_string(p.shape.d_model()); }),
      point_column("dtype", [](const PointResult& p) { return to_string(p.shape.dtype); }),
      // Only where the operator reads it (gelu, geglu), as page_size only on paged rows.
      point_column("gelu_form",
                   [](const PointResult& p) {
                     return operator_uses_axis(p.op, SweepAxis::kGeluForm)
                                ? to_string(p.shape.gelu_form)
                                : std::string();
                   }),
      point_column(
          "causal",
          [](const PointResult& p) { return std::string(p.shape.causal ? "true" : "false"); }),
      point_column("kv_dtype", [](const PointResult& p) { return to_string(p.shape.kv_dtype); }),
      point_column("gemm_dtype",
                   [](const PointResult& p) { return to_string(p.shape.gemm_dtype); }),
      point_column("kv_layout", [](const PointResult& p) { return to_string(p.shape.kv_layout); }),
      point_column("page_size",
                   [](const PointResult& p) {
                     return p.shape.page_size != 0 ? std::to_string(p.shape.page_size)
                                                   : std::string();
                   }),
      // The GEMM's effective M, N, K (--gemm-n/--gemm-k or the default up projection); empty for
      // other operators.
      point_column("gemm_m", [](const PointResult& p) { return gemm_dim(p, &GemmDims::m); }),
      point_column("gemm_n", [](const PointResult& p) { return gemm_dim(p, &GemmDims::n); }),
      point_column("gemm_k", [](const PointResult& p) { return gemm_dim(p, &GemmDims::k); }),
      // The FFN width d_ff the element-wise FFN operators run at (--ffn-dim, else 4·d_model);
      // empty for the others.
      point_column("ffn_dim",
                   [](const PointResult& p) {
                     const bool ffn = p.op == kGeluOp || p.op == kSwigluOp || p.op == kGegluOp;
                     return ffn ? std::to_string(p.shape.ffn_width()) : std::string();
                   }),
      // Attention's query length L_q (--q-len, else L); empty for decode (one query) and the
      // operators without queries.
      point_column("q_len",
                   [](const PointResult& p) {
                     const bool queries = p.op == kNaiveAttentionOp || p.op == kFlashAttentionOp;
                     return queries ? std::to_string(p.shape.query_len()) : std::string();
                   }),
  };
}

/// Status, validation, timing and throughput.
std::vector<CsvColumn> timing_columns() {
  return {
      point_column("status", [](const PointResult& p) { return to_string(p.status); }),
      point_column("reason", [](const PointResult& p) { return p.reason; }),
      point_column("validation_passed",
                   [](const PointResult& p) {
                     return p.validation ? std::string(p.validation->passed ? "true" : "false")
                                         : "";
                   }),
      point_column("time_median_s",
                   [](const PointResult& p) {
                     return p.timing ? number(p.timing->median_s) : std::string();
                   }),
      point_column(
          "time_min_s",
          [](const PointResult& p) { return p.timing ? number(p.timing->min_s) : std::string(); }),
      point_column(
          "time_max_s",
          [](const PointResult& p) { return p.timing ? number(p.timing->max_s) : std::string(); }),
      point_column("repetitions",
                   [](const PointResult& p) {
                     return p.timing ? std::to_string(p.timing->samples_s.size()) : std::string();
                   }),
      // Prefill latency is the median time of one forward pass; only prefill attention has one.
      point_column("prefill_latency_s",
                   [](const PointResult& p) {
                     const bool prefill = p.op == kFlashAttentionOp || p.op == kNaiveAttentionOp;
                     return prefill && p.timing ? number(p.timing->median_s) : std::string();
                   }),
      point_column("tokens_per_s", [](const PointResult& p) { return number(p.tokens_per_s); }),
  };
}

/// The roofline placement: FLOPs and bytes, intensities, rates, attainable performance, roof.
std::vector<CsvColumn> placement_columns() {
  return {
      placement_column("flop", &RooflinePoint::flop),
      placement_column("dram_bytes", &RooflinePoint::dram_bytes),
      placement_column("dram_bytes_in_window", &RooflinePoint::dram_bytes_in_window),
      placement_column("arithmetic_intensity_flop_per_byte",
                       &RooflinePoint::arithmetic_intensity_flop_per_byte),
      placement_column("l2_arithmetic_intensity_flop_per_byte",
                       &RooflinePoint::l2_arithmetic_intensity_flop_per_byte),
      placement_column("achieved_flop_per_s", &RooflinePoint::achieved_flop_per_s),
      placement_column("achieved_bytes_per_s", &RooflinePoint::achieved_bytes_per_s),
      placement_column("achieved_l2_bytes_per_s", &RooflinePoint::achieved_l2_bytes_per_s),
      placement_column("dram_attainable_flop_per_s", &RooflinePoint::dram_attainable_flop_per_s),
      placement_column("l2_attainable_flop_per_s", &RooflinePoint::l2_attainable_flop_per_s),
      placement_column("attainable_flop_per_s", &RooflinePoint::attainable_flop_per_s),
      placement_column("fraction_of_roof", &RooflinePoint::fraction_of_roof),
      point_column("above_roof",
                   [](const PointResult& p) {
                     return p.roofline ? std::string(p.roofline->above_roof ? "true" : "false")
                                       : std::string();
                   }),
      point_column("write_back_after_window",
                   [](const PointResult& p) {
                     return p.roofline ? std::string(p.roofline->write_back_after_window ? "true"
                                                                                         : "false")
                                       : std::string();
                   }),
      point_column("bound",
                   [](const PointResult& p) {
                     return p.roofline ? to_string(p.roofline->bound) : std::string();
                   }),
      point_column("binding_level",
                   [](const PointResult& p) {
                     return p.roofline ? to_string(p.roofline->binding_level) : std::string();
                   }),
      point_column("pipe",
                   [](const PointResult& p) {
                     return p.roofline ? to_string(p.roofline->roof.pipe) : std::string();
                   }),
      point_column("roof_peak_flop_per_s",
                   [](const PointResult& p) {
                     return p.roofline ? number(p.roofline->roof.peak_flop_per_s) : std::string();
                   }),
      point_column("roof_peak_bytes_per_s",
                   [](const PointResult& p) {
                     return p.roofline ? number(p.roofline->roof.peak_bytes_per_s) : std::string();
                   }),
      point_column("roof_source",
                   [](const PointResult& p) {
                     return p.roofline ? to_string(p.roofline->roof.source_kind) : std::string();
                   }),
      point_column("roof_l2_bytes_per_s",
                   [](const PointResult& p) {
                     return p.roofline ? number(p.roofline->roof.l2_bytes_per_s) : std::string();
                   }),
      point_column("roof_l2_source",
                   [](const PointResult& p) {
                     const auto kind = p.roofline ? p.roofline->roof.l2_source_kind : std::nullopt;
                     return kind ? to_string(*kind) : std::string();
                   }),
      placement_column("ridge_flop_per_byte", &RooflinePoint::ridge_flop_per_byte),
      placement_column("l2_ridge_flop_per_byte", &RooflinePoint::l2_ridge_flop_per_byte),
      point_column(
          "basis",
          [](const PointResult& p) { return p.roofline ? p.roofline->basis : std::string(); }),
      point_column("bytes_basis",
                   [](const PointResult& p) {
                     return p.roofline ? p.roofline->bytes_basis : std::string();
                   }),
  };
}

/// Counter totals, device memory and the analytic model's figures.
std::vector<CsvColumn> counter_and_model_columns() {
  return {
      counter_total_column<&KernelCounters::sm_throughput_fraction>(),
      counter_total_column<&KernelCounters::dram_throughput_fraction>(),
      counter_total_column<&KernelCounters::l2_bytes>(),
      point_column("peak_device_memory_bytes",
                   [](const PointResult& p) { return number(p.peak_device_memory_bytes); }),
      point_column("device_bytes_needed",
                   [](const PointResult& p) { return std::to_string(p.device_bytes_needed); }),
      point_column("analytic_flop", [](const PointResult& p) { return number(p.analytic.flop); }),
      point_column("analytic_min_dram_bytes",
                   [](const PointResult& p) { return number(p.analytic.min_dram_bytes); }),
      point_column("analytic_implemented_dram_bytes",
                   [](const PointResult& p) { return number(p.analytic.implemented_dram_bytes); }),
  };
}

/// Every column, in the header's order.
const std::vector<CsvColumn>& columns() {
  static const std::vector<CsvColumn> kColumns = [] {
    std::vector<CsvColumn> all;
    for (auto part :
         {shape_columns(), timing_columns(), placement_columns(), counter_and_model_columns()}) {
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  }();
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
    for (size_t i = 0; i < cols.size(); ++i) {
      out += (i ? "," : "") + quoted(cols[i].value(report, p));
    }
    out += "\n";
  }
  return out;
}

}  // namespace rooflinectl
