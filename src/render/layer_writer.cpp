#include "render/layer_writer.hpp"

#include <fmt/format.h>

#include "render/aligned_columns.hpp"
#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::ordered_json;

// "14.0 GB (13.1 GiB)": decimal and binary units side by side.
std::string gb_and_gib(double bytes) {
  return fmt::format("{} ({})", format_si(bytes, "B"), format_bytes(bytes));
}

// Bytes with a decimal SI prefix; "0" for none (a norm reads no KV cache).
std::string bytes_cell(double bytes) { return bytes == 0 ? "0" : format_si(bytes, "B"); }

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100.0 * fraction); }

// The fits column: "yes", or "no" with how far the peak is over the GPU's memory ("no (+98.3 MB)"),
// since the two can print alike at three significant digits (151 GB against 151 GB).
std::string fits_cell(const LayerReport& r, const LayerPrediction& p) {
  if (p.peak_memory.fits) return "yes";
  return fmt::format("no (+{})",
                     format_si(p.peak_memory.total_bytes - r.gpu.memory_bytes.value, "B"));
}

std::string length_label(LayerPhase phase) {
  return phase == LayerPhase::kPrefill ? "L" : "context";
}

double op_share(const LayerPrediction& p, const std::vector<std::string>& names) {
  double share = 0;
  for (const auto& o : p.ops) {
    for (const auto& name : names) {
      if (o.op.name == name) share += o.share_of_layer;
    }
  }
  return share;
}

// "bf16" or "fp8_e4m3 (one fp32 scale per KV head for K and for V)".
std::string kv_cache_text(KvDtype kv_dtype) {
  return kv_dtype == KvDtype::kAuto
             ? std::string("bf16")
             : to_string(kv_dtype) + " (one fp32 scale per KV head for K and for V)";
}

std::string header_lines(const LayerReport& r) {
  const ModelPreset& m = r.preset;
  const LayerWidths& w = m.widths;
  std::string out;
  if (const auto& measured = r.measurement) {
    out = fmt::format(
        "rooflinectl layer: {} ({}) measured on {}, {}: {} sweep points, each validated and "
        "timed (median), placed on {} roofs ({}); the analytic columns and peak memory are the "
        "{} ({}) datasheet's\n",
        m.name, m.id, measured->device_name, to_string(r.phase), measured->sweep_points,
        measured->roof_source,
        measured->counters_available
            ? "counted FLOPs and bytes"
            : "analytic FLOPs and bytes: " + measured->counters_null_reason,
        r.gpu.name, r.gpu.id);
  } else {
    out = fmt::format(
        "rooflinectl layer --analytic: {} ({}) on {} ({}), {}: datasheet roofs only, nothing "
        "measured\n",
        m.name, m.id, r.gpu.name, r.gpu.id, to_string(r.phase));
  }
  out += fmt::format(
      "roofs: tensor bf16 {}, FP32 {}, HBM {}; ridge points {:.1f} (tensor), {:.1f} (FP32) "
      "FLOP/byte\n",
      format_si(r.roofs.tensor.peak_flop_per_s, "FLOP/s"),
      format_si(r.roofs.fp32.peak_flop_per_s, "FLOP/s"),
      format_si(r.roofs.tensor.peak_bytes_per_s, "B/s"), ridge_point_flop_per_byte(r.roofs.tensor),
      ridge_point_flop_per_byte(r.roofs.fp32));
  out += fmt::format(
      "layer: d_model {}, H {}, H_kv {} (GQA group {}), head_dim {}, ffn_dim {} {}, {}; {} "
      "layers; bf16; causal; KV cache {}\n",
      w.d_model, m.heads, m.kv_heads, m.heads / m.kv_heads, m.head_dim, w.ffn_dim,
      to_string(w.ffn_kind), to_string(w.norm), m.layers, kv_cache_text(r.kv_dtype));
  const double layer_weights = r.points.front().weight_bytes;
  out += fmt::format("weights: {} a layer, {} for {} layers\n\n", format_si(layer_weights, "B"),
                     gb_and_gib(layer_weights * static_cast<double>(m.layers)), m.layers);
  return out;
}

std::string summary_table(const LayerReport& r) {
  const bool prefill = r.phase == LayerPhase::kPrefill;
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"B", length_label(r.phase), "layer time", prefill ? "TTFT" : "step time",
                  prefill ? "prefill tokens/s" : "tokens/s", "attention", "FFN GEMMs",
                  "compute-bound", "weights read", "KV cache read", "peak memory", "fits"});
  for (const LayerPrediction& p : r.points) {
    const double tokens_per_s =
        prefill ? static_cast<double>(p.point.batch * p.point.seq_len) / p.model_time_s
                : *p.decode_tokens_per_s;
    rows.push_back({std::to_string(p.point.batch), std::to_string(p.point.seq_len),
                    format_time_s(p.layer_time_s), format_time_s(p.model_time_s),
                    format_si(tokens_per_s, "tokens/s"), percent(op_share(p, {"attention"})),
                    percent(op_share(p, {"ffn_gate", "ffn_up", "ffn_down"})),
                    percent(p.compute_bound_time_share), percent(p.weight_time_share),
                    percent(p.kv_cache_time_share), gb_and_gib(p.peak_memory.total_bytes),
                    fits_cell(r, p)});
  }
  std::string out = fmt::format(
      "{} summary ({} layers; {}; time = the sum of the operators' time lower bounds; weights "
      "read, KV cache read = share of the layer time memory-bound operators spend reading them)\n",
      to_string(r.phase), r.preset.layers,
      prefill ? "TTFT = layers x layer time" : "tokens/s = B / (layers x layer time)");
  out += format_aligned_rows(
      rows, {true, true, true, true, true, true, true, true, true, true, true, false});
  return out + "\n";
}

std::string operator_table(const LayerReport& r, const LayerPrediction& p) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"operator", "kind", "M", "N", "K", "FLOP", "min bytes", "weights", "KV cache",
                  "activations", "I (FLOP/B)", "bound", "time lower bound", "share"});
  for (const auto& o : p.ops) {
    const auto dim = [&o](int64_t GemmDims::*field) {
      return o.op.gemm ? std::to_string((*o.op.gemm).*field) : std::string("-");
    };
    rows.push_back({o.op.name, o.op.kind, dim(&GemmDims::m), dim(&GemmDims::n), dim(&GemmDims::k),
                    format_si(o.op.flop, "FLOP"), format_si(o.op.min_dram_bytes(), "B"),
                    bytes_cell(o.op.weight_bytes), bytes_cell(o.op.kv_cache_bytes),
                    bytes_cell(o.op.activation_bytes),
                    fmt::format("{:.1f}", o.intensity_flop_per_byte), to_string(o.bound),
                    format_time_s(o.time_lower_bound_s), percent(o.share_of_layer)});
  }
  rows.push_back({"layer", "", "", "", "", format_si(p.flop, "FLOP"),
                  format_si(p.weight_bytes + p.kv_cache_bytes + p.activation_bytes, "B"),
                  format_si(p.weight_bytes, "B"), bytes_cell(p.kv_cache_bytes),
                  format_si(p.activation_bytes, "B"), "", "", format_time_s(p.layer_time_s),
                  "100.0%"});
  const LayerPeakMemory& m = p.peak_memory;
  std::string out =
      fmt::format("B = {}, {} = {}\n", p.point.batch, length_label(r.phase), p.point.seq_len);
  out += format_aligned_rows(rows, {false, false, true, true, true, true, true, true, true, true,
                                    true, false, true, true});
  out += fmt::format(
      "peak memory {} = weights {} + KV cache {} + largest activation {} ({}; embedding and LM "
      "head left out); {} the GPU's {}\n\n",
      gb_and_gib(m.total_bytes), gb_and_gib(m.weight_bytes), gb_and_gib(m.kv_cache_bytes),
      gb_and_gib(m.activation_bytes), m.largest_activation_op, m.fits ? "fits in" : "exceeds",
      gb_and_gib(r.gpu.memory_bytes.value));
  return out;
}

// "-" for a value not measured.
std::string optional_time(const std::optional<double>& s) { return s ? format_time_s(*s) : "-"; }
std::string optional_percent(const std::optional<double>& f) { return f ? percent(*f) : "-"; }

double measured_share(const LayerPrediction& p, const MeasuredLayerPoint& m,
                      const std::vector<std::string>& names) {
  double share = 0;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    for (const auto& name : names) {
      if (p.ops[i].op.name == name) share += m.ops[i].share_of_layer.value_or(0);
    }
  }
  return share;
}

std::string measured_summary_table(const LayerReport& r) {
  const bool prefill = r.phase == LayerPhase::kPrefill;
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"B", length_label(r.phase), "layer time", prefill ? "TTFT" : "step time",
                  prefill ? "prefill tokens/s" : "tokens/s", "attention", "FFN GEMMs",
                  "compute-bound", "weights read", "KV cache read", "datasheet bound",
                  "peak memory", "fits"});
  for (size_t i = 0; i < r.points.size(); ++i) {
    const LayerPrediction& p = r.points[i];
    const MeasuredLayerPoint& m = r.measurement->points[i];
    std::string rate = "-";
    if (m.model_time_s) {
      rate =
          format_si(prefill ? static_cast<double>(p.point.batch * p.point.seq_len) / *m.model_time_s
                            : *m.decode_tokens_per_s,
                    "tokens/s");
    }
    const bool complete = m.layer_time_s.has_value();
    rows.push_back(
        {std::to_string(p.point.batch), std::to_string(p.point.seq_len),
         optional_time(m.layer_time_s), optional_time(m.model_time_s), rate,
         complete ? percent(measured_share(p, m, {"attention"})) : "-",
         complete ? percent(measured_share(p, m, {"ffn_gate", "ffn_up", "ffn_down"})) : "-",
         optional_percent(m.compute_bound_time_share), optional_percent(m.weight_time_share),
         optional_percent(m.kv_cache_time_share), format_time_s(p.layer_time_s),
         gb_and_gib(p.peak_memory.total_bytes), fits_cell(r, p)});
  }
  std::string out = fmt::format(
      "{} summary, measured ({} layers; {}; layer time = the sum of the operators' median times; "
      "weights read, KV cache read = the memory-bound operators' time split by their bytes; "
      "datasheet bound = the analytic layer time lower bound; - = not measured)\n",
      to_string(r.phase), r.preset.layers,
      prefill ? "TTFT = layers x layer time" : "tokens/s = B / (layers x layer time)");
  out += format_aligned_rows(
      rows, {true, true, true, true, true, true, true, true, true, true, true, true, false});
  return out + "\n";
}

std::string measured_operator_table(const LayerReport& r, size_t index) {
  const LayerPrediction& p = r.points[index];
  const MeasuredLayerPoint& m = r.measurement->points[index];
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"operator", "kind", "M", "N", "K", "time", "share", "bound", "roof", "version",
                  "datasheet bound", "lower bound"});
  std::vector<std::string> unmeasured;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    const LayerOperatorPrediction& a = p.ops[i];
    const LayerOperatorMeasurement& o = m.ops[i];
    const auto dim = [&a](int64_t GemmDims::*field) {
      return a.op.gemm ? std::to_string((*a.op.gemm).*field) : std::string("-");
    };
    rows.push_back({a.op.name, a.op.kind, dim(&GemmDims::m), dim(&GemmDims::n), dim(&GemmDims::k),
                    optional_time(o.time_s), optional_percent(o.share_of_layer),
                    o.bound ? to_string(*o.bound) : "-", optional_percent(o.fraction_of_roof),
                    o.version.empty() ? "-" : o.version, to_string(a.bound),
                    format_time_s(a.time_lower_bound_s)});
    if (!o.time_s) unmeasured.push_back(fmt::format("{}: {}", a.op.name, o.null_reason));
  }
  rows.push_back({"layer", "", "", "", "", optional_time(m.layer_time_s),
                  m.layer_time_s ? "100.0%" : "-", "", "", "", "", format_time_s(p.layer_time_s)});
  std::string out =
      fmt::format("B = {}, {} = {}\n", p.point.batch, length_label(r.phase), p.point.seq_len);
  out += format_aligned_rows(
      rows, {false, false, true, true, true, true, true, false, true, false, false, true});
  for (const auto& line : unmeasured) out += fmt::format("  {}\n", line);
  return out + "\n";
}

std::string list_lines(const std::string& title, const std::vector<std::string>& items) {
  std::string out = title + ":\n";
  for (const auto& item : items) out += fmt::format("  - {}\n", item);
  return out;
}

Json roof_json(const Roof& roof) {
  return Json{{"peak_flop_per_s", roof.peak_flop_per_s},
              {"peak_bytes_per_s", roof.peak_bytes_per_s},
              {"ridge_flop_per_byte", ridge_point_flop_per_byte(roof)},
              {"source", roof.source}};
}

Json operator_json(const LayerOperatorPrediction& o) {
  Json j;
  j["name"] = o.op.name;
  j["kind"] = o.op.kind;
  j["pipe"] = to_string(o.op.pipe);
  j["gemm_mnk"] = o.op.gemm ? Json::array({o.op.gemm->m, o.op.gemm->n, o.op.gemm->k}) : Json();
  j["flop"] = o.op.flop;
  j["min_dram_bytes"] = o.op.min_dram_bytes();
  j["weight_bytes"] = o.op.weight_bytes;
  j["kv_cache_bytes"] = o.op.kv_cache_bytes;
  j["activation_bytes"] = o.op.activation_bytes;
  j["arithmetic_intensity_flop_per_byte"] = o.intensity_flop_per_byte;
  j["ridge_flop_per_byte"] = o.ridge_flop_per_byte;
  j["bound"] = to_string(o.bound);
  j["time_lower_bound_s"] = o.time_lower_bound_s;
  j["share_of_layer"] = o.share_of_layer;
  j["flop_formula"] = o.op.flop_formula;
  j["bytes_formula"] = o.op.bytes_formula;
  return j;
}

// A value not measured is null, never 0.
Json optional_json(const std::optional<double>& v) { return v ? Json(*v) : Json(); }
// A reason is null where there is nothing to explain.
Json reason_json(const std::string& reason) { return reason.empty() ? Json() : Json(reason); }

Json measured_operator_json(const LayerOperatorMeasurement& o) {
  Json j;
  j["sweep_operator"] = o.sweep_op;
  Json shape{{"batch", o.shape.batch},
             {"heads", o.shape.heads},
             {"kv_heads", o.shape.kv_heads},
             {"head_dim", o.shape.head_dim},
             {"seq_len", o.shape.seq_len},
             {"causal", o.shape.causal},
             {"dtype", to_string(o.shape.dtype)},
             {"gelu_form", to_string(o.shape.gelu_form)}};
  if (o.shape.gemm_n != 0) shape["gemm_n"] = o.shape.gemm_n;
  if (o.shape.gemm_k != 0) shape["gemm_k"] = o.shape.gemm_k;
  if (o.shape.hidden != 0) shape["hidden"] = o.shape.hidden;
  if (o.shape.ffn_dim != 0) shape["ffn_dim"] = o.shape.ffn_dim;
  if (o.shape.kv_dtype != KvDtype::kAuto) shape["kv_dtype"] = to_string(o.shape.kv_dtype);
  j["shape"] = std::move(shape);
  j["sweep_point"] = o.sweep_point ? Json(*o.sweep_point) : Json();
  j["status"] = o.status;
  j["version"] = o.version.empty() ? Json() : Json(o.version);
  j["validated"] = o.validated;
  j["time_s"] = optional_json(o.time_s);
  j["time_null_reason"] = reason_json(o.null_reason);
  j["median_noise"] = optional_json(o.median_noise);
  j["bound"] = o.bound ? Json(to_string(*o.bound)) : Json();
  j["fraction_of_roof"] = optional_json(o.fraction_of_roof);
  j["binding_level"] = o.binding_level ? Json(to_string(*o.binding_level)) : Json();
  j["placement_basis"] = o.placement_basis.empty() ? Json() : Json(o.placement_basis);
  j["placement_null_reason"] = reason_json(o.placement_null_reason);
  j["share_of_layer"] = optional_json(o.share_of_layer);
  return j;
}

Json measured_point_json(const LayerReport& r, const MeasuredLayerPoint& m) {
  Json j;
  j["layer_time_s"] = optional_json(m.layer_time_s);
  j["model_time_s"] = optional_json(m.model_time_s);
  if (r.phase == LayerPhase::kPrefill) {
    j["ttft_s"] = optional_json(m.ttft_s);
  } else {
    j["decode_tokens_per_s"] = optional_json(m.decode_tokens_per_s);
  }
  j["weight_time_share"] = optional_json(m.weight_time_share);
  j["kv_cache_time_share"] = optional_json(m.kv_cache_time_share);
  j["activation_time_share"] = optional_json(m.activation_time_share);
  j["compute_bound_time_share"] = optional_json(m.compute_bound_time_share);
  j["null_reason"] = reason_json(m.null_reason);
  return j;
}

Json measurement_json(const LayerMeasurement& m) {
  return Json{{"device_name", m.device_name},
              {"tool_version", m.tool_version},
              {"git_revision", m.git_revision.empty() ? Json() : Json(m.git_revision)},
              {"timestamp_utc", m.timestamp_utc},
              {"roof_source", m.roof_source},
              {"counters_available", m.counters_available},
              {"counters_null_reason", reason_json(m.counters_null_reason)},
              {"sweep_points", m.sweep_points},
              {"conclusion_scope", m.conclusion_scope}};
}

Json point_json(const LayerReport& r, size_t index) {
  const LayerPrediction& p = r.points[index];
  const bool prefill = r.phase == LayerPhase::kPrefill;
  Json j;
  j["batch"] = p.point.batch;
  j[prefill ? "seq_len" : "context"] = p.point.seq_len;
  j["layer_time_s"] = p.layer_time_s;
  j["model_time_s"] = p.model_time_s;
  if (prefill) {
    j["ttft_s"] = *p.ttft_s;
  } else {
    j["decode_tokens_per_s"] = *p.decode_tokens_per_s;
  }
  j["flop"] = p.flop;
  j["weight_bytes"] = p.weight_bytes;
  j["kv_cache_bytes"] = p.kv_cache_bytes;
  j["activation_bytes"] = p.activation_bytes;
  j["weight_time_share"] = p.weight_time_share;
  j["kv_cache_time_share"] = p.kv_cache_time_share;
  j["activation_time_share"] = p.activation_time_share;
  j["compute_bound_time_share"] = p.compute_bound_time_share;
  const LayerPeakMemory& m = p.peak_memory;
  j["peak_memory"] = Json{{"weight_bytes", m.weight_bytes},
                          {"kv_cache_bytes", m.kv_cache_bytes},
                          {"activation_bytes", m.activation_bytes},
                          {"largest_activation_operator", m.largest_activation_op},
                          {"total_bytes", m.total_bytes},
                          {"fits", m.fits}};
  const MeasuredLayerPoint* measured = r.measurement ? &r.measurement->points[index] : nullptr;
  j["measured"] = measured ? measured_point_json(r, *measured) : Json();
  Json ops = Json::array();
  for (size_t i = 0; i < p.ops.size(); ++i) {
    Json op = operator_json(p.ops[i]);
    op["measured"] = measured ? measured_operator_json(measured->ops[i]) : Json();
    ops.push_back(std::move(op));
  }
  j["operators"] = std::move(ops);
  return j;
}

}  // namespace

std::string format_layer_table(const LayerReport& r) {
  std::string out = header_lines(r);
  if (r.measurement) {
    out += measured_summary_table(r);
    for (size_t i = 0; i < r.points.size(); ++i) out += measured_operator_table(r, i);
    out += list_lines("the estimates leave out", r.omissions);
    out +=
        list_lines(fmt::format("conclusion (measured; from {})", r.measurement->conclusion_scope),
                   r.conclusion);
    // No stacked time-split chart yet: render/svg has no bar or stack primitive.
    return out;
  }
  out += summary_table(r);
  for (const LayerPrediction& p : r.points) out += operator_table(r, p);
  out += list_lines("the estimates leave out", r.omissions);
  out += list_lines("conclusion", r.conclusion);
  return out;
}

Json layer_report_to_json(const LayerReport& r) {
  const ModelPreset& m = r.preset;
  Json j;
  j["layer_schema_version"] = kLayerSchemaVersion;
  j["basis"] = r.basis();
  j["measurement"] = r.measurement ? measurement_json(*r.measurement) : Json();
  j["gpu"] =
      Json{{"id", r.gpu.id}, {"name", r.gpu.name}, {"memory_bytes", r.gpu.memory_bytes.value}};
  j["roofs"] = Json{{"tensor", roof_json(r.roofs.tensor)}, {"fp32", roof_json(r.roofs.fp32)}};
  j["model"] = Json{{"id", m.id},
                    {"name", m.name},
                    {"layers", m.layers},
                    {"d_model", m.widths.d_model},
                    {"heads", m.heads},
                    {"kv_heads", m.kv_heads},
                    {"head_dim", m.head_dim},
                    {"ffn_dim", m.widths.ffn_dim},
                    {"ffn_kind", to_string(m.widths.ffn_kind)},
                    {"norm", to_string(m.widths.norm)},
                    {"dtype", "bf16"},
                    {"layer_weight_bytes", r.points.front().weight_bytes}};
  j["phase"] = to_string(r.phase);
  j["length_axis"] = r.phase == LayerPhase::kPrefill ? "seq_len" : "context";
  j["batches"] = r.batches;
  j["lengths"] = r.lengths;
  j["kv_dtype"] = to_string(r.kv_dtype);
  Json points = Json::array();
  for (size_t i = 0; i < r.points.size(); ++i) points.push_back(point_json(r, i));
  j["points"] = std::move(points);
  j["omissions"] = r.omissions;
  j["conclusion"] = r.conclusion;
  return j;
}

std::string layer_report_to_json_text(const LayerReport& r) {
  return layer_report_to_json(r).dump(2) + "\n";
}

}  // namespace rooflinectl
