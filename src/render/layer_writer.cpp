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
  std::string out = fmt::format(
      "rooflinectl layer --analytic: {} ({}) on {} ({}), {}: datasheet roofs only, nothing "
      "measured\n",
      m.name, m.id, r.gpu.name, r.gpu.id, to_string(r.phase));
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
                    p.peak_memory.fits ? "yes" : "no"});
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
  rows.push_back({"operator", "kind", "M", "N", "K", "GFLOP", "min bytes", "weights", "KV cache",
                  "activations", "I (FLOP/B)", "bound", "time lower bound", "share"});
  for (const auto& o : p.ops) {
    const auto dim = [&o](int64_t GemmDims::*field) {
      return o.op.gemm ? std::to_string((*o.op.gemm).*field) : std::string("-");
    };
    rows.push_back({o.op.name, o.op.kind, dim(&GemmDims::m), dim(&GemmDims::n), dim(&GemmDims::k),
                    fmt::format("{:.3f}", o.op.flop / 1e9), format_si(o.op.min_dram_bytes(), "B"),
                    bytes_cell(o.op.weight_bytes), bytes_cell(o.op.kv_cache_bytes),
                    bytes_cell(o.op.activation_bytes),
                    fmt::format("{:.1f}", o.intensity_flop_per_byte), to_string(o.bound),
                    format_time_s(o.time_lower_bound_s), percent(o.share_of_layer)});
  }
  rows.push_back({"layer", "", "", "", "", fmt::format("{:.3f}", p.flop / 1e9),
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

Json point_json(const LayerReport& r, const LayerPrediction& p) {
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
  Json ops = Json::array();
  for (const auto& o : p.ops) ops.push_back(operator_json(o));
  j["operators"] = std::move(ops);
  return j;
}

}  // namespace

std::string format_layer_table(const LayerReport& r) {
  std::string out = header_lines(r) + summary_table(r);
  for (const LayerPrediction& p : r.points) out += operator_table(r, p);
  out += list_lines("the estimates leave out", r.omissions);
  out += list_lines("conclusion", r.conclusion);
  return out;
}

Json layer_report_to_json(const LayerReport& r) {
  const ModelPreset& m = r.preset;
  Json j;
  j["layer_schema_version"] = kLayerSchemaVersion;
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
  for (const auto& p : r.points) points.push_back(point_json(r, p));
  j["points"] = std::move(points);
  j["omissions"] = r.omissions;
  j["conclusion"] = r.conclusion;
  return j;
}

std::string layer_report_to_json_text(const LayerReport& r) {
  return layer_report_to_json(r).dump(2) + "\n";
}

}  // namespace rooflinectl
