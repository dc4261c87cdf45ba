#include "render/model_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>

#include "core/kernel_tiles.hpp"
#include "core/layer_widths.hpp"
#include "core/model_preset.hpp"
#include "core/operator_names.hpp"
#include "core/sweep_axes.hpp"
#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::ordered_json;

constexpr double kGiB = 1073741824.0;

// Bytes with a decimal SI prefix (1 MB = 1e6 B), three significant digits: "16.8 MB", "70.4 PB".
std::string bytes_si(double bytes) { return format_si(bytes, "B"); }

std::string fixed(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

/// Whether the report predicts any of `ops`.
bool has_op(const ModelReport& r, std::initializer_list<const char*> ops) {
  return std::any_of(r.points.begin(), r.points.end(), [&](const Prediction& p) {
    return std::any_of(ops.begin(), ops.end(), [&](const char* op) { return p.op == op; });
  });
}

std::string opt_number(const std::optional<double>& v, double scale, int decimals) {
  return v ? fixed(*v / scale, decimals) : "-";
}

std::string format_time(const std::optional<double>& s) {
  if (!s) return "-";
  if (*s < 1e-6) return fmt::format("{:.1f} ns", *s * 1e9);
  if (*s < 1e-3) return fmt::format("{:.1f} µs", *s * 1e6);
  if (*s < 1.0) return fmt::format("{:.2f} ms", *s * 1e3);
  return fmt::format("{:.3f} s", *s);
}

// The model's one shape; the GELU form only when an operator that reads it is predicted
// (operator_uses_axis: gelu, geglu).
std::string shape_line(const Shape& s, bool gelu) {
  const std::string layout =
      s.kv_layout == KvLayout::kPaged ? " kv=" + kv_layout_label(s) : std::string();
  const std::string kv_dtype =
      s.kv_dtype == KvDtype::kAuto ? std::string() : " " + kv_dtype_label(s);
  const std::string gemm_dtype =
      s.gemm_dtype == GemmDtype::kAuto ? std::string() : " gemm " + gemm_dtype_label(s);
  const std::string gemm = gemm_dims_label(s);
  const std::string widths = layer_widths_label(s);
  // A query chunk: "q=512 (naive and flash attention: 512 queries over L keys)".
  const std::string chunk =
      s.q_len != 0 ? fmt::format(" q={} (naive and flash attention: {} queries over L keys)",
                                 s.q_len, s.q_len)
                   : std::string();
  return fmt::format(
      "B={} H={} H_kv={} d={} H*d={} {} {}{}{}{}{}{}{}{}", s.batch, s.heads, s.kv_heads, s.head_dim,
      s.heads * s.head_dim, to_string(s.dtype), s.causal ? "causal" : "non-causal",
      gelu ? " gelu=" + to_string(s.gelu_form) : std::string(), layout, kv_dtype, gemm_dtype,
      gemm.empty() ? "" : " gemm " + gemm, widths.empty() ? "" : " " + widths, chunk);
}

Json spec_value(const SpecValue& v) {
  if (!is_known(v)) return Json(nullptr);
  return Json{{"value", v.value}, {"source", v.source}};
}

void put_optional(Json& j, const std::string& key, const std::optional<double>& v,
                  const std::string& reason) {
  if (v && std::isfinite(*v)) {
    j[key] = *v;
    return;
  }
  j[key] = nullptr;
  j[key + "_null_reason"] = reason;
}

// The layer widths gemm and the element-wise and norm operators are predicted at, and where they
// come from.
std::string layer_line(const ModelReport& r) {
  const LayerWidths& w = r.widths;
  // Each width named by what set it: an explicit --hidden / --ffn-dim (a flag beats the
  // preset), else the preset's, else the sweep kernels' rule (kernel_layer_widths).
  std::string origin;
  if (r.preset) {
    const LayerWidths& p = find_model_preset(*r.preset).widths;
    origin = fmt::format("--model {}{}{}", *r.preset,
                         w.d_model != p.d_model ? "; d_model from --hidden" : "",
                         w.ffn_dim != p.ffn_dim ? "; ffn_dim from --ffn-dim" : "");
  } else {
    origin = fmt::format("the sweep kernels': d_model = {}, ffn_dim = {}",
                         r.base.hidden != 0 ? "--hidden" : "H*d",
                         r.base.ffn_dim != 0 ? "--ffn-dim" : "4*d_model");
  }
  return fmt::format("layer: d_model={} ffn_dim={} ffn={} norm={} ({})", w.d_model, w.ffn_dim,
                     to_string(w.ffn_kind), to_string(w.norm), origin);
}

// What the predictions at a preset's widths leave out; empty without a preset.
std::string notes_lines(const ModelReport& r) {
  if (r.notes.empty()) return "";
  std::string out = "notes:\n";
  for (const auto& note : r.notes) out += fmt::format("  - {}\n", note);
  return out + "\n";
}

// The GPU, its datasheet roofs and the base shape.
std::string gpu_lines(const ModelReport& r) {
  std::string out;
  const GpuSpec& g = r.gpu;
  out += fmt::format("rooflinectl model: {} ({}), datasheet figures only, nothing measured\n",
                     g.name, g.id);
  out += fmt::format("  DRAM   {:.2f} TB/s  [{}]\n", g.hbm_bytes_per_s.value / 1e12,
                     g.hbm_bytes_per_s.source);
  std::set<std::string> roofs_shown;
  for (const auto& p : r.points) {
    if (!p.roof) continue;
    // FP8 GEMM points sit under the fp8 tensor roof (the same selection as the sweep's).
    const bool fp8 = p.shape.gemm_dtype == GemmDtype::kFp8E4m3;
    const std::string label =
        p.pipe == Pipe::kTensor ? "tensor " + (fp8 ? std::string("fp8") : to_string(p.shape.dtype))
                                : "fp32";
    if (!roofs_shown.insert(label).second) continue;
    out += fmt::format("  {:<11} {:.1f} TFLOP/s, ridge {:.1f} FLOP/B  [{}]\n", label,
                       p.roof->peak_flop_per_s / 1e12, *p.ridge_flop_per_byte, p.roof->source);
  }
  const bool gelu = std::any_of(r.points.begin(), r.points.end(), [](const Prediction& p) {
    return operator_uses_axis(p.op, SweepAxis::kGeluForm);
  });
  out += fmt::format("  shape: {}\n", shape_line(r.base, gelu));
  // The layer widths only where an operator is predicted at them (gemm, the element-wise and
  // norm operators): an attention-only question has none.
  const bool widths = std::any_of(r.points.begin(), r.points.end(), [](const Prediction& p) {
    return operator_uses_layer_widths(p.op);
  });
  if (widths) out += fmt::format("  {}\n", layer_line(r));
  return out + "\n";
}

// One line per prediction, with the reasons of those that have no roof.
std::string predictions_table(const ModelReport& r) {
  std::string out =
      "predicted (min bytes: inputs read once, outputs written once; impl: as implemented, "
      "flash without L2 reuse)\n";
  out += fmt::format(
      "{:<17} {:>7} {:>11} {:>10} {:>11} {:>8} {:>6} {:>8} {:>8} {:>10} {:>10} {:<8} {:<8}\n",
      "operator", "L", "FLOP", "min bytes", "impl bytes", "I min", "I impl", "TF min", "TF impl",
      "time >=", "time impl", "bnd min", "bnd impl");
  std::set<std::string> reasons;
  for (const auto& p : r.points) {
    out += fmt::format(
        "{:<17} {:>7} {:>11} {:>10} {:>11} {:>8} {:>6} {:>8} {:>8} {:>10} {:>10} {:<8} {:<8}\n",
        p.op, p.shape.seq_len, format_si(p.analytic.flop, "FLOP"),
        bytes_si(p.analytic.min_dram_bytes), bytes_si(p.analytic.implemented_dram_bytes),
        fixed(p.min_intensity_flop_per_byte, 1), fixed(p.implemented_intensity_flop_per_byte, 1),
        opt_number(p.min_attainable_flop_per_s, 1e12, 1),
        opt_number(p.attainable_flop_per_s, 1e12, 1), format_time(p.time_lower_bound_s),
        format_time(p.implemented_time_s), p.min_bound ? to_string(*p.min_bound) : "-",
        p.bound ? to_string(*p.bound) : "-");
    if (!p.roof) reasons.insert(p.roof_null_reason);
  }
  for (const auto& reason : reasons) out += fmt::format("  no roof: {}\n", reason);
  // Lengths a query chunk is longer than have no attention point (core/sweep_plan.hpp): say so.
  std::vector<int64_t> short_lengths;
  for (const int64_t l : r.seq_lens) {
    if (l < r.base.q_len) short_lengths.push_back(l);
  }
  if (!short_lengths.empty() && has_op(r, {kNaiveAttentionOp, kFlashAttentionOp})) {
    out += fmt::format(
        "  no naive or flash attention point at L = {}: shorter than L_q = {} (a query chunk is "
        "part of the keys it attends to)\n",
        fmt::join(short_lengths, ", "), r.base.q_len);
  }
  out +=
      "  bytes in decimal units (1 MB = 1e6 B); I = FLOP/byte; TF = attainable min(peak, I x BW) "
      "in TFLOP/s; time >= and bnd min use "
      "the min bytes (no implementation does better), time impl and bnd impl the implemented "
      "bytes.";
  if (has_op(r, {kFlashAttentionOp})) {
    const int64_t br = flash_query_tile_rows(r.base.head_dim);
    const char* pairs = r.base.q_len != 0 ? "L_q*L" : "L^2";
    out += fmt::format(
        " flash impl assumes L2 keeps nothing: with {}-row query tiles its K/V re-reads "
        "(2*{}*d*e/{} per head) are then {:g}x naive attention's S and P traffic (4*{}*e) at "
        "d = {}; measured DRAM bytes (sweep) sit near min",
        br, pairs, br, static_cast<double>(r.base.head_dim) / (2.0 * static_cast<double>(br)),
        pairs, r.base.head_dim);
  }
  out += "\n\n";
  return out;
}

// How KV/layer is computed, as the memory tables' footnote says it.
std::string kv_formula(const ModelReport& r) {
  return r.base.kv_dtype == KvDtype::kFp8E4m3
             ? "KV/layer = 2*B*H_kv*L*d*1 (fp8_e4m3: 1 byte/element, scales left out; one "
               "attention layer's KV cache, which decode reads every step)"
             : "KV/layer = 2*B*H_kv*L*d*e (one attention layer's KV cache, which decode reads "
               "every step)";
}

// One layer's, as every row of the memory tables: a whole model's cache is the layers' sum
// (`layer` gives it). Empty without a preset.
std::string whole_model_kv_line(const ModelReport& r) {
  if (!r.preset) return "";
  return fmt::format(
      "  the whole {}'s KV cache is its layer count x KV/layer (`rooflinectl layer --model {}` "
      "gives it, with the model's peak memory and what fits)\n",
      *r.preset, *r.preset);
}

// The memory tables' units line: decimal units and the element size of the dtype.
std::string memory_units(const ModelReport& r) {
  return fmt::format("(decimal units: 1 MB = 1e6 bytes; {} = {} bytes/element)\n",
                     to_string(r.base.dtype), dtype_size_bytes(r.base.dtype));
}

// S, P and KV-cache sizes per L, and the largest L naive attention fits in (decode alone: the
// KV cache only); empty when the report predicts no attention operator (its JSON keeps the
// numbers).
std::string attention_memory_table(const ModelReport& r) {
  std::string out;
  if (!has_op(r, {kNaiveAttentionOp, kFlashAttentionOp, kDecodeAttentionOp})) return out;
  const GpuSpec& g = r.gpu;
  // Decode alone materializes no S or P: its question is the KV cache.
  if (!has_op(r, {kNaiveAttentionOp, kFlashAttentionOp})) {
    out += "KV cache " + memory_units(r);
    out += fmt::format("{:>7} {:>10}\n", "L", "KV/layer");
    for (const auto& m : r.memory) {
      out += fmt::format("{:>7} {:>10}\n", m.seq_len, bytes_si(m.kv_cache_bytes));
    }
    return out + "  " + kv_formula(r) + "\n" + whole_model_kv_line(r);
  }
  out += "attention memory " + memory_units(r);
  out += fmt::format("{:>7} {:>10} {:>12} {:>10} {:>12} {:>10} {:>5}\n", "L", "S/head", "S+P/head",
                     "S+P all", "naive total", "KV/layer", "fits");
  for (const auto& m : r.memory) {
    out += fmt::format("{:>7} {:>10} {:>12} {:>10} {:>12} {:>10} {:>5}\n", m.seq_len,
                       bytes_si(m.s_bytes_per_head), bytes_si(m.s_and_p_bytes_per_head),
                       bytes_si(m.s_and_p_bytes_total), bytes_si(m.naive_attention_bytes),
                       bytes_si(m.kv_cache_bytes),
                       m.naive_attention_bytes <= g.memory_bytes.value ? "yes" : "no");
  }
  // Both units: datasheets say "141 GB" where the capacity is nearer 141 GiB (configs/gpus/).
  const bool chunk = r.base.q_len != 0;
  out += fmt::format(
      "  largest L for naive attention (Q, K, V, O, S and P resident{}) in {:.1f} GiB = {:.1f} GB "
      "of device memory: {}\n",
      chunk ? fmt::format("; L_q = {} queries", r.base.q_len) : "", g.memory_bytes.value / kGiB,
      g.memory_bytes.value / 1e9, r.max_naive_seq_len);
  // An FP8 cache is named with its element size (a 16-bit one's is the e above, as before).
  const std::string s_and_p =
      chunk ? fmt::format("S+P all = 2*B*H*L_q*L*e (L_q = {}; L_q = L at L <= {})", r.base.q_len,
                          r.base.q_len)
            : "S+P all = 2*B*H*L^2*e";
  out += "  " + s_and_p + "; " + kv_formula(r) + "\n";
  out += whole_model_kv_line(r);
  return out;
}

// The flash attention IO bounds per L; empty when the report has none.
std::string flash_io_table(const ModelReport& r) {
  if (r.flash_io.empty()) return "";
  std::string out;
  const GpuSpec& g = r.gpu;
  out += fmt::format(
      "\nflash attention IO bound (FlashAttention Thm 2, FA2 Alg. 1; M = {:.0f} KiB shared memory "
      "per SM, cc {}.{})\n",
      *r.sram_bytes / 1024.0, g.cc_major, g.cc_minor);
  out += fmt::format("{:>7} {:>10} {:>9} {:>11} {:>10} {:>12} {:>14}\n", "L", "min bytes",
                     "paper Br", "paper bytes", "kernel Br", "kernel bytes", "Theta bytes");
  for (const auto& [seq_len, io] : r.flash_io) {
    Shape shape = r.base;
    settle_query_len(shape, seq_len);  // the report's flash_io has only the lengths it settles
    const double min_bytes = analytic_model(kFlashAttentionOp, shape).min_dram_bytes;
    out += fmt::format("{:>7} {:>10} {:>9} {:>11} {:>10} {:>12} {:>14}\n", seq_len,
                       bytes_si(min_bytes), io.paper_query_tile_rows, bytes_si(io.paper_io_bytes),
                       io.kernel_query_tile_rows, bytes_si(io.kernel_io_bytes),
                       bytes_si(io.theta_bytes));
  }
  // A chunk of L_q queries: Θ's L² is L_q·L (each of the L_q/Br query tiles passes over L keys).
  out += fmt::format(
      "  bytes in decimal units (1 MB = 1e6 B); paper/kernel bytes: Q, O, LSE once plus K and V "
      "once per query tile of Br rows (no L2 "
      "reuse); Theta = B*H*{}*d^2*e^2/M with M in bytes (Thm 2 counts M in elements, M/e), "
      "constant 1: an order of growth, not a bound; it sits below the min bytes (Q, K, V, O "
      "once) while L*d*e < 4*M\n",
      r.base.q_len != 0 ? "L_q*L" : "L^2");
  return out;
}

// Where the KV-cache budget came from, in words.
std::string kv_budget_basis(const ModelReport& r) {
  const double budget = r.kv_capacity->spec.budget_bytes;
  if (!r.kv_budget_utilization || !r.kv_budget_weight_bytes) {
    // A budget past the card's memory is a multi-GPU or what-if figure: said, not refused.
    const std::string beyond = budget > r.gpu.memory_bytes.value
                                   ? fmt::format(", more than the {:.2f} GB of one {}",
                                                 r.gpu.memory_bytes.value / 1e9, r.gpu.id)
                                   : "";
    return fmt::format("{:.2f} GiB = {:.2f} GB (--kv-budget-gib){}", budget / kGiB, budget / 1e9,
                       beyond);
  }
  return fmt::format(
      "{:.2f} GB = {} x {:.2f} GB ({}) - {:.2f} GB of bf16 weights (every layer, the embedding and "
      "the LM head, one matrix where the model ties them); activations not subtracted",
      budget / 1e9, *r.kv_budget_utilization, r.gpu.memory_bytes.value / 1e9, r.gpu.id,
      *r.kv_budget_weight_bytes / 1e9);
}

// Sequences that fit the KV-cache budget, contiguous vs paged; empty when not asked for.
std::string kv_capacity_table(const ModelReport& r) {
  if (!r.kv_capacity) return "";
  const KvCapacity& c = *r.kv_capacity;
  const KvCapacitySpec& s = c.spec;
  std::string out =
      "\nKV-cache capacity: sequences that fit (contiguous: each reserves --max-model-len "
      "positions; paged: ceil(L/page) pages each; Kwon et al. 2023, PagedAttention)\n";
  out += fmt::format(
      "  per position: 2*layers*H_kv*d*e_kv = 2*{}*{}*{}*{} = {} B; page of {} positions: {}\n",
      s.layers, s.kv_heads, s.head_dim, s.kv_element_bytes, c.bytes_per_position, s.page_size,
      bytes_si(c.page_bytes));
  out += fmt::format("  budget: {}\n", kv_budget_basis(r));
  out += fmt::format(
      "  pages in the budget: {} (vLLM's num_gpu_blocks); a contiguous sequence reserves {} "
      "positions = {}\n",
      c.total_pages, s.max_model_len,
      bytes_si(static_cast<double>(s.max_model_len) * c.bytes_per_position));
  out += fmt::format("{:>9} {:>9} {:>11} {:>10} {:>12} {:>12} {:>11}\n", "L", "pages/seq",
                     "contig seqs", "paged seqs", "paged/contig", "contig waste", "paged waste");
  for (const KvCapacityRow& row : c.rows) {
    const std::string ratio =
        row.contiguous_sequences > 0
            ? fmt::format("{:.1f}x", static_cast<double>(row.paged_sequences) /
                                         static_cast<double>(row.contiguous_sequences))
            : "-";
    // No contiguous sequence fits: no reservation, so no waste to show.
    const std::string contiguous_waste =
        row.contiguous_sequences > 0 ? fmt::format("{:.1f}%", 100.0 * row.contiguous_waste_fraction)
                                     : "-";
    out += fmt::format("{:>9} {:>9} {:>11} {:>10} {:>12} {:>12} {:>10.1f}%\n", row.seq_len,
                       row.pages_per_sequence, row.contiguous_sequences, row.paged_sequences, ratio,
                       contiguous_waste, 100.0 * row.paged_waste_fraction);
  }
  out +=
      "  L = positions a sequence holds (prompt + output); waste = reserved positions that hold "
      "no token; paged/contig and contig waste '-' where no contiguous sequence fits. A server "
      "also caps "
      "concurrency (vLLM's --max-num-seqs, default 256)\n";
  return out;
}

Json kv_capacity_json(const ModelReport& r) {
  const KvCapacity& c = *r.kv_capacity;
  const KvCapacitySpec& s = c.spec;
  Json j;
  j["layers"] = s.layers;
  j["kv_heads"] = s.kv_heads;
  j["head_dim"] = s.head_dim;
  j["kv_element_bytes"] = s.kv_element_bytes;
  j["page_size"] = s.page_size;
  j["max_model_len"] = s.max_model_len;
  j["budget_bytes"] = s.budget_bytes;
  const bool from_gpu = r.kv_budget_utilization && r.kv_budget_weight_bytes;
  j["budget_source"] = from_gpu ? "gpu_memory_minus_weights" : "kv_budget_gib";
  const std::string reason = "the budget was given (--kv-budget-gib)";
  put_optional(j, "gpu_memory_utilization", r.kv_budget_utilization, reason);
  put_optional(j, "weight_bytes", r.kv_budget_weight_bytes, reason);
  j["bytes_per_position"] = c.bytes_per_position;
  j["page_bytes"] = c.page_bytes;
  j["total_pages"] = c.total_pages;
  Json rows = Json::array();
  for (const KvCapacityRow& row : c.rows) {
    rows.push_back(Json{{"seq_len", row.seq_len},
                        {"pages_per_sequence", row.pages_per_sequence},
                        {"contiguous_bytes_per_sequence", row.contiguous_bytes_per_sequence},
                        {"paged_bytes_per_sequence", row.paged_bytes_per_sequence},
                        {"contiguous_sequences", row.contiguous_sequences},
                        {"paged_sequences", row.paged_sequences},
                        {"contiguous_waste_fraction", row.contiguous_waste_fraction},
                        {"paged_waste_fraction", row.paged_waste_fraction}});
  }
  j["rows"] = rows;
  return j;
}

}  // namespace

std::string format_model_table(const ModelReport& r) {
  return gpu_lines(r) + notes_lines(r) + predictions_table(r) + attention_memory_table(r) +
         flash_io_table(r) + kv_capacity_table(r);
}

nlohmann::ordered_json model_report_to_json(const ModelReport& r) {
  Json j;
  j["model_schema_version"] = kModelSchemaVersion;
  const GpuSpec& g = r.gpu;
  Json gpu;
  gpu["id"] = g.id;
  gpu["name"] = g.name;
  gpu["cc_major"] = g.cc_major;
  gpu["cc_minor"] = g.cc_minor;
  gpu["sm_count"] = g.sm_count;
  gpu["sm_count_source"] = g.sm_count_source;
  // A figure the spec file lacks is null with its reason, as every other null of the report.
  const auto put_spec = [&gpu, &g](const char* key, const SpecValue& v) {
    gpu[key] = spec_value(v);
    if (!is_known(v)) {
      gpu[std::string(key) + "_null_reason"] = fmt::format(
          "configs/gpus/{}.json gives no {} (a spec file holds only sourced figures)", g.id, key);
    }
  };
  put_spec("memory_bytes", g.memory_bytes);
  put_spec("hbm_bytes_per_s", g.hbm_bytes_per_s);
  put_spec("l2_bytes", g.l2_bytes);
  put_spec("boost_clock_hz", g.boost_clock_hz);
  Json tensor = Json::object();
  for (const auto& [dtype, v] : g.dense_tensor_flop_per_s) tensor[dtype] = spec_value(v);
  gpu["dense_tensor_flop_per_s"] = tensor;
  put_spec("fp32_flop_per_s", g.fp32_flop_per_s);
  put_spec("fp64_flop_per_s", g.fp64_flop_per_s);
  j["gpu"] = gpu;
  j["shape"] = Json{{"batch", r.base.batch},
                    {"heads", r.base.heads},
                    {"kv_heads", r.base.kv_heads},
                    {"head_dim", r.base.head_dim},
                    {"causal", r.base.causal},
                    {"dtype", to_string(r.base.dtype)},
                    {"gelu_form", to_string(r.base.gelu_form)}};
  if (r.base.kv_layout == KvLayout::kPaged) {  // absent: contiguous, as in the sweep report
    j["shape"]["kv_layout"] = to_string(r.base.kv_layout);
    j["shape"]["page_size"] = r.base.page_size;
  }
  if (r.base.gemm_n != 0) j["shape"]["gemm_n"] = r.base.gemm_n;  // absent: 4*d_model, as above
  if (r.base.gemm_k != 0) j["shape"]["gemm_k"] = r.base.gemm_k;
  if (r.base.hidden != 0) j["shape"]["hidden"] = r.base.hidden;  // absent: H*d, as above
  if (r.base.ffn_dim != 0) j["shape"]["ffn_dim"] = r.base.ffn_dim;
  if (r.base.kv_dtype != KvDtype::kAuto) j["shape"]["kv_dtype"] = to_string(r.base.kv_dtype);
  if (r.base.gemm_dtype != GemmDtype::kAuto) {
    j["shape"]["gemm_dtype"] = to_string(r.base.gemm_dtype);
  }
  if (r.base.q_len != 0) j["shape"]["q_len"] = r.base.q_len;  // absent: L_q = L, as above
  j["layer"] = Json{{"preset", r.preset ? Json(*r.preset) : Json(nullptr)},
                    {"d_model", r.widths.d_model},
                    {"ffn_dim", r.widths.ffn_dim},
                    {"ffn_kind", to_string(r.widths.ffn_kind)},
                    {"norm", to_string(r.widths.norm)},
                    {"notes", r.notes}};
  j["seq_lens"] = r.seq_lens;

  Json points = Json::array();
  for (const auto& p : r.points) {
    Json q;
    q["op"] = p.op;
    q["seq_len"] = p.shape.seq_len;
    if (p.shape.q_len != 0) q["q_len"] = p.shape.q_len;  // absent: L_q = L (or no queries)
    q["pipe"] = to_string(p.pipe);
    q["flop"] = p.analytic.flop;
    q["min_dram_bytes"] = p.analytic.min_dram_bytes;
    q["implemented_dram_bytes"] = p.analytic.implemented_dram_bytes;
    q["flop_formula"] = p.analytic.flop_formula;
    q["bytes_formula"] = p.analytic.bytes_formula;
    q["min_intensity_flop_per_byte"] = p.min_intensity_flop_per_byte;
    q["implemented_intensity_flop_per_byte"] = p.implemented_intensity_flop_per_byte;
    const std::string reason = p.roof_null_reason;
    if (p.roof) {
      q["roof"] = Json{{"peak_flop_per_s", p.roof->peak_flop_per_s},
                       {"peak_bytes_per_s", p.roof->peak_bytes_per_s},
                       {"source", p.roof->source}};
    } else {
      q["roof"] = nullptr;
      q["roof_null_reason"] = reason;
    }
    put_optional(q, "ridge_flop_per_byte", p.ridge_flop_per_byte, reason);
    put_optional(q, "attainable_flop_per_s", p.attainable_flop_per_s, reason);
    put_optional(q, "min_attainable_flop_per_s", p.min_attainable_flop_per_s, reason);
    put_optional(q, "time_lower_bound_s", p.time_lower_bound_s, reason);
    put_optional(q, "implemented_time_s", p.implemented_time_s, reason);
    q["bound"] = p.bound ? Json(to_string(*p.bound)) : Json(nullptr);
    q["min_bound"] = p.min_bound ? Json(to_string(*p.min_bound)) : Json(nullptr);
    points.push_back(q);
  }
  j["points"] = points;

  Json memory = Json::array();
  for (const auto& m : r.memory) {
    memory.push_back(Json{{"seq_len", m.seq_len},
                          {"s_bytes_per_head", m.s_bytes_per_head},
                          {"s_and_p_bytes_per_head", m.s_and_p_bytes_per_head},
                          {"s_and_p_bytes_total", m.s_and_p_bytes_total},
                          {"qkvo_bytes", m.qkvo_bytes},
                          {"naive_attention_bytes", m.naive_attention_bytes},
                          {"kv_cache_bytes", m.kv_cache_bytes},
                          {"naive_fits_memory", m.naive_attention_bytes <= g.memory_bytes.value}});
  }
  j["memory"] = memory;
  j["max_naive_attention_seq_len"] = r.max_naive_seq_len;
  put_optional(j, "sram_bytes", r.sram_bytes,
               fmt::format("compute capability {}.{} not in the shared-memory table", g.cc_major,
                           g.cc_minor));
  Json flash = Json::array();
  for (const auto& [seq_len, io] : r.flash_io) {
    flash.push_back(Json{{"seq_len", seq_len},
                         {"paper_query_tile_rows", io.paper_query_tile_rows},
                         {"paper_io_bytes", io.paper_io_bytes},
                         {"kernel_query_tile_rows", io.kernel_query_tile_rows},
                         {"kernel_key_tile_cols", io.kernel_key_tile_cols},
                         {"kernel_io_bytes", io.kernel_io_bytes},
                         {"theta_bytes", io.theta_bytes}});
  }
  j["flash_io"] = flash;
  if (r.kv_capacity) {
    j["kv_capacity"] = kv_capacity_json(r);
  } else {
    j["kv_capacity"] = nullptr;
    j["kv_capacity_null_reason"] = "not asked for (--max-model-len and --kv-lengths)";
  }
  return j;
}

std::string model_report_to_json_text(const ModelReport& report) {
  return model_report_to_json(report).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace rooflinectl
