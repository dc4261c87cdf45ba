#include "render/markdown_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/operator_names.hpp"
#include "core/sweep_axes.hpp"
#include "render/attention_summary.hpp"
#include "render/bytes_basis_text.hpp"
#include "render/value_format.hpp"
#include "result/clock_notes.hpp"

namespace rooflinectl {
namespace {

// Kept short so a reason does not stretch a table row across the page.
constexpr size_t kMaxReasonChars = 80;

std::string escape_cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// Cut on a code-point boundary so a multi-byte character is never split.
std::string shorten(const std::string& text) {
  if (text.size() <= kMaxReasonChars) return text;
  size_t end = kMaxReasonChars;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "…";
}

std::string time_column_title(const std::string& op) {
  if (op == kFlashAttentionOp || op == kNaiveAttentionOp) return "prefill latency";
  if (op == kDecodeAttentionOp) return "time per step";
  return "time";
}

// "; the L2 roof binds at L = 16384, 32768" where the L2 slope is the lowest ceiling; "" where it
// binds nowhere.
std::string l2_binding_text(const std::vector<const PointResult*>& placed) {
  std::vector<int64_t> lengths;
  for (const auto* p : placed) {
    if (p->roofline->binding_level == RoofLevel::kL2) lengths.push_back(p->shape.seq_len);
  }
  if (lengths.empty()) return "";
  std::sort(lengths.begin(), lengths.end());
  std::string list;
  for (const int64_t l : lengths) list += (list.empty() ? "" : ", ") + std::to_string(l);
  return lengths.size() == placed.size() ? "; the L2 roof binds at every L"
                                         : "; the L2 roof binds at L = " + list;
}

// "memory-bound at every L, 25.5–54.8% of attainable (the DRAM slope)": the ceiling named is the
// one that binds (a memory-bound point's is I × BW, not the pipe's peak); mixed bounds name where
// they switch.
std::string verdict(const std::vector<const PointResult*>& points) {
  std::vector<const PointResult*> placed;
  for (const auto* p : points) {
    if (p->roofline) placed.push_back(p);
  }
  if (placed.empty()) return "no point placed on the roofline";
  const bool all_memory = std::all_of(placed.begin(), placed.end(), [](const auto* p) {
    return p->roofline->bound == Bound::kMemory;
  });
  const bool all_compute = std::all_of(placed.begin(), placed.end(), [](const auto* p) {
    return p->roofline->bound == Bound::kCompute;
  });
  std::string text;
  if (all_memory || all_compute) {
    text = fmt::format("{}-bound at every L", all_memory ? "memory" : "compute");
  } else {
    // Runs of equal bound in L order: "memory-bound at L = 512, compute-bound at L = 1024–32768".
    std::vector<const PointResult*> by_length = placed;
    std::stable_sort(by_length.begin(), by_length.end(), [](const auto* a, const auto* b) {
      return a->shape.seq_len < b->shape.seq_len;
    });
    for (size_t i = 0; i < by_length.size();) {
      size_t j = i;
      while (j + 1 < by_length.size() &&
             by_length[j + 1]->roofline->bound == by_length[i]->roofline->bound)
        ++j;
      const int64_t first = by_length[i]->shape.seq_len, last = by_length[j]->shape.seq_len;
      text +=
          fmt::format("{}{}-bound at L = {}", text.empty() ? "" : ", ",
                      to_string(by_length[i]->roofline->bound),
                      first == last ? std::to_string(first) : fmt::format("{}–{}", first, last));
      i = j + 1;
    }
  }
  double lo = INFINITY;
  double hi = -INFINITY;
  for (const auto* p : placed) {
    lo = std::min(lo, p->roofline->fraction_of_roof);
    hi = std::max(hi, p->roofline->fraction_of_roof);
  }
  if (std::isfinite(lo) && std::isfinite(hi)) {
    const bool any_l2 = std::any_of(placed.begin(), placed.end(), [](const auto* p) {
      return p->roofline->l2_attainable_flop_per_s.has_value();
    });
    const std::string pipe = to_string(placed.front()->roofline->roof.pipe);
    std::string ceiling;
    if (all_memory) {
      ceiling = any_l2 ? "the DRAM or L2 slope, whichever is lower" : "the DRAM slope";
    } else if (all_compute) {
      ceiling = fmt::format("the {} peak{}", pipe, any_l2 ? ", or the L2 slope where lower" : "");
    } else {
      ceiling = fmt::format("the lower of the {} peak and the DRAM{} slope", pipe,
                            any_l2 ? " or L2" : "");
    }
    text += fmt::format(", {:.1f}–{:.1f}% of attainable ({})", lo * 100, hi * 100, ceiling);
  }
  text += l2_binding_text(placed);
  if (placed.size() < points.size()) {
    text +=
        fmt::format("; {} of {} points not placed", points.size() - placed.size(), points.size());
  }
  return text;
}

std::string status_cell(const PointResult& p) {
  if (p.status != PointStatus::kOk) {
    return escape_cell(to_string(p.status) + (p.reason.empty() ? "" : ": " + shorten(p.reason)));
  }
  if (!p.roofline && !p.roofline_null_reason.empty()) {
    return escape_cell("ok; no roofline: " + shorten(p.roofline_null_reason));
  }
  return "ok";
}

std::string point_row(const PointResult& p) {
  std::vector<std::string> cells(15, kNoValue);
  cells[0] = std::to_string(p.shape.seq_len);
  if (p.timing) cells[1] = format_time_s(p.timing->median_s);
  if (p.tokens_per_s) cells[2] = format_si(*p.tokens_per_s, "");
  if (p.roofline) {
    const RooflinePoint& r = *p.roofline;
    cells[3] = format_3sig(r.achieved_flop_per_s / 1e12);
    cells[4] = format_3sig(r.achieved_bytes_per_s / 1e12);
    cells[5] = format_3sig(r.arithmetic_intensity_flop_per_byte);
    // Only with both L2 figures: the point was then also placed under the L2 roof.
    if (r.l2_attainable_flop_per_s)
      cells[6] = format_3sig(*r.l2_arithmetic_intensity_flop_per_byte);
    cells[7] = to_string(r.bound);
    cells[8] = to_string(r.binding_level);
    cells[9] = format_percent(r.fraction_of_roof) + (r.above_roof ? " !" : "") +
               (r.write_back_after_window ? " ~" : "");
  }
  cells[10] = format_percent(p.counters.total.sm_throughput_fraction);
  cells[11] = format_percent(p.counters.total.dram_throughput_fraction);
  cells[12] = format_bytes(p.peak_device_memory_bytes);
  cells[13] = p.validation ? (p.validation->passed ? "pass" : "FAIL") : kNoValue;
  cells[14] = status_cell(p);
  std::string row = "|";
  for (const auto& c : cells) row += " " + c + " |";
  return row + "\n";
}

/// The table of `op`'s points whose values of the varying axes read `swept` (swept_axes_label;
/// "" in a sweep without lists: every point of `op`).
std::string operator_section(const std::string& op, const std::string& swept,
                             const Report& report) {
  std::vector<const PointResult*> points;
  for (const auto& p : report.points) {
    if (p.op == op && swept_axes_label(report.config.axes, op, p.shape) == swept) {
      points.push_back(&p);
    }
  }
  // The kernel versions that ran (CSV and JSON name them per point), in order of first use.
  std::vector<std::string> versions;
  for (const auto* p : points) {
    if (!p->version.empty() &&
        std::find(versions.begin(), versions.end(), p->version) == versions.end()) {
      versions.push_back(p->version);
    }
  }
  std::string ran;
  for (const auto& v : versions) ran += fmt::format("{}`{}`", ran.empty() ? "" : ", ", v);
  // One sweep has one KV layout: a paged one is named after the operator, "`decode_attention`
  // paged/16".
  // Likewise one sweep has one set of GEMM dims: "`gemm` N=6144 K=4096".
  std::string layout = !points.empty() && points.front()->shape.kv_layout == KvLayout::kPaged
                           ? " " + kv_layout_label(points.front()->shape)
                           : std::string();
  if (!points.empty()) {
    if (const std::string gemm = gemm_dims_label(points.front()->shape); !gemm.empty()) {
      layout += " " + gemm;
    }
    // And one set of layer widths: "`rmsnorm` hidden=4096".
    if (const std::string widths = layer_widths_label(points.front()->shape); !widths.empty()) {
      layout += " " + widths;
    }
  }
  // Likewise an FP8 KV cache, "`decode_attention` kv=fp8_e4m3", unless the KV dtype is an axis
  // that varies: then `swept` names it.
  if (!points.empty() && points.front()->shape.kv_dtype != KvDtype::kAuto &&
      !report.config.axes.varies(SweepAxis::kKvDtype)) {
    layout += " " + kv_dtype_label(points.front()->shape);
  }
  // And FP8 GEMM inputs, "`gemm` in=fp8_e4m3", unless the GEMM dtype varies.
  if (!points.empty() && points.front()->shape.gemm_dtype != GemmDtype::kAuto &&
      !report.config.axes.varies(SweepAxis::kGemmDtype)) {
    layout += " " + gemm_dtype_label(points.front()->shape);
  }
  // And one query length other than L, "`flash_attention` q=512" (the config's: a point at
  // L = 512 is the full prefill and carries 0), unless it varies: then `swept` names it.
  if (!points.empty() && report.config.base.q_len != 0 &&
      operator_uses_axis(op, SweepAxis::kQLen) && !report.config.axes.varies(SweepAxis::kQLen)) {
    layout += " " + q_len_label(report.config.base);
  }
  std::string out =
      fmt::format("### `{}`{}{}{}: {}\n\n", op, layout, swept.empty() ? "" : " " + swept,
                  ran.empty() ? "" : " (" + ran + ")", verdict(points));
  out += fmt::format(
      "| L | {} | tokens/s | TFLOP/s | TB/s | FLOP/B | L2 FLOP/B | bound | binding | % of roof | "
      "SM % of peak | DRAM % of peak | peak memory | validation | status |\n",
      time_column_title(op));
  out += "|--:|--:|--:|--:|--:|--:|--:|:--|:--|--:|--:|--:|--:|:--|:--|\n";
  for (const auto* p : points) out += point_row(*p);
  return out + "\n";
}

std::string attention_section(const AttentionSummary& s) {
  std::string out = "### Flash vs naive attention\n\n";
  if (!s.comparisons.empty()) {
    out +=
        "| L | naive prefill latency | flash prefill latency | speedup | naive peak memory | "
        "flash peak memory | memory reduction |\n";
    out += "|--:|--:|--:|--:|--:|--:|--:|\n";
    for (const auto& c : s.comparisons) {
      const bool significant = c.speedup >= kSignificantSpeedup;
      out += fmt::format(
          "| {} | {} | {} | {}{:.2f}×{} | {} | {} | {} |\n", c.seq_len,
          format_time_s(c.naive_time_s), format_time_s(c.flash_time_s), significant ? "**" : "",
          c.speedup, significant ? "**" : "", format_bytes(c.naive_peak_memory_bytes),
          format_bytes(c.flash_peak_memory_bytes), format_percent(c.memory_reduction_fraction));
    }
    out += fmt::format(
        "\nSpeedup = naive / flash prefill latency (= the tokens/s ratio); bold: ≥ {}×.\n",
        kSignificantSpeedup);
  }
  for (const auto& e : s.excluded) out += "- not compared: " + escape_cell(e) + "\n";
  return out + "\n";
}

// What L2 FLOP/B and binding mean, with the L2 roof's source kinds; "" when no point was placed
// under an L2 roof.
std::string l2_note(const Report& report) {
  std::vector<std::string> kinds;
  for (const auto& p : report.points) {
    if (!p.roofline || !p.roofline->l2_attainable_flop_per_s || !p.roofline->roof.l2_source_kind)
      continue;
    const std::string kind = to_string(*p.roofline->roof.l2_source_kind);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
  if (kinds.empty()) return "";
  std::string names;
  for (const auto& k : kinds) names += (names.empty() ? "" : " and ") + k;
  return fmt::format(
      "- L2 roof: {}. L2 FLOP/B: FLOPs per L2 byte (`lts__t_bytes.sum`), the point placed under "
      "the L2 bandwidth too (the hierarchical roofline of Nsight Compute); binding: the lowest "
      "ceiling at the point (compute, DRAM or L2), which % of roof is against; a point without "
      "L2 FLOP/B is judged on DRAM and compute only.\n",
      names);
}

// Each distinct roof source once, with the pipes that use it (the full text, with the clocks of
// each kernel, is in the JSON report).
std::string notes(const Report& report) {
  std::vector<std::pair<std::string, std::vector<std::string>>> sources;  // source → pipes
  for (const auto& p : report.points) {
    if (!p.roofline) continue;
    const std::string& source = p.roofline->roof.source;
    const std::string prefix = source.substr(0, source.find(':'));
    auto it = std::find_if(sources.begin(), sources.end(),
                           [&](const auto& s) { return s.first == prefix; });
    if (it == sources.end()) it = sources.insert(sources.end(), {prefix, {}});
    const std::string pipe = to_string(p.roofline->roof.pipe);
    if (std::find(it->second.begin(), it->second.end(), pipe) == it->second.end())
      it->second.push_back(pipe);
  }
  std::vector<std::string> lines;
  for (const auto& [prefix, pipes] : sources) {
    std::string names;
    for (const auto& pipe : pipes) names += (names.empty() ? "" : " and ") + pipe;
    lines.push_back(fmt::format("{} roof{}: {}", names, pipes.size() > 1 ? "s" : "", prefix));
  }
  std::string out = "<details><summary>How these numbers were measured</summary>\n\n";
  for (const auto& l : lines) {
    out +=
        "- " + escape_cell(l) + " (the full source of each point's roof is in the JSON report).\n";
  }
  out += l2_note(report);
  if (std::any_of(report.points.begin(), report.points.end(), [](const auto& p) {
        return p.roofline && p.roofline->write_back_after_window;
      })) {
    out += fmt::format("- ~ after a roof percentage: {}.\n", kWriteBackAfterWindowNote);
  }
  out += std::string("- Time: median of the timed pass (CUDA events). ") +
         (report.schema_version >= 2
              ? "FLOPs: hardware counters (CUPTI range profiler; each point's sessions and how "
                "they were replayed are in the JSON report's counters.sessions). DRAM and L2 "
                "bytes: a one-pass session after an L2 flush (docs/counter-method.md).\n"
              : "FLOPs and DRAM bytes: hardware counters (CUPTI range profiler, one kernel-replay "
                "session, report schema 1).\n");
  if (std::none_of(report.points.begin(), report.points.end(), [](const auto& p) {
        return p.counters.total.sm_throughput_fraction.has_value();
      })) {
    out +=
        "- SM % of peak: not collected at any point (`sweep --sm-throughput` adds it, a metric "
        "of 8 replay passes on GH100).\n";
  }
  if (const std::string basis = bytes_basis_summary(report); !basis.empty()) {
    out += "- " + escape_cell(basis) + ".\n";
  }
  out +=
      "- SM % and DRAM % of peak: `sm__throughput` and `dram__throughput` "
      "`.avg.pct_of_peak_sustained_elapsed`, duration-weighted over the operator's kernels: "
      "in-window traffic over the counter pass's own kernel time, so DRAM % leaves out the "
      "write-back that the TB/s column includes.\n"
      "- Peak memory: `cudaMemGetInfo` free bytes before the point allocated minus after its "
      "timed pass (device-wide).\n"
      "- tokens/s: B·L / time for prefill operators, B / time per decode step.\n";
  if (const auto clocks = sample_clocks_summary(report)) out += "- " + escape_cell(*clocks) + ".\n";
  return out + "\n</details>\n";
}

}  // namespace

std::string format_markdown_report(const Report& report) {
  const DeviceRecord& d = report.device;
  const Shape& s = report.config.base;
  std::string out = fmt::format("## rooflinectl: {}\n\n", d.name.empty() ? "unknown GPU" : d.name);
  out += fmt::format(
      "{} (cc {}.{}, {} SMs) · CUDA driver API {}.{}, runtime {}.{} · rooflinectl {}{} · {}  \n",
      d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version / 1000,
      d.driver_version % 1000 / 10, d.runtime_version / 1000, d.runtime_version % 1000 / 10,
      report.tool_version, report.git_revision.empty() ? "" : " (" + report.git_revision + ")",
      report.timestamp_utc);
  const auto axis = [&](SweepAxis a) { return axis_summary(report.config.axes, s, a); };
  // The query length only where a chunk was asked for: "L_q = {512, L}" (attention's).
  const std::string query_len = s.q_len != 0 || report.config.axes.varies(SweepAxis::kQLen)
                                    ? ", L_q = " + axis(SweepAxis::kQLen) + " (attention)"
                                    : std::string();
  // The preset the widths came from, where --model named one: "llama-3.1-8b's shapes: ".
  const std::string preset = report.config.model_preset.empty()
                                 ? std::string()
                                 : "`" + report.config.model_preset + "`'s shapes: ";
  out += fmt::format(
      "{}B = {}, H = {}, H_kv = {}, d = {}, {}, {}{}; {} after {} warm-ups, L2 {}.\n\n", preset,
      axis(SweepAxis::kBatch), axis(SweepAxis::kHeads), axis(SweepAxis::kKvHeads),
      axis(SweepAxis::kHeadDim), axis(SweepAxis::kDtype), axis(SweepAxis::kCausal), query_len,
      report.config.max_noise
          ? fmt::format("samples until the median's noise is at most {:.2g}% (min {} samples, "
                        "max {:g} s a point)",
                        *report.config.max_noise * 100, report.config.min_samples,
                        report.config.max_time_s)
          : fmt::format("{} timed repetitions", report.config.repetitions),
      report.config.warmup_runs,
      report.config.warm_l2 ? "left warm" : "flushed before each sample");

  const AttentionSummary summary = summarize_attention(report);
  if (summary.both_attention_ops) {
    out += "**Conclusion:** " + summary.conclusion + "\n\n";
    out += attention_section(summary);
  }
  // One table per operator and, in a sweep with lists, per combination of the varying axes.
  for (const auto& op : operators_in_order(report)) {
    std::vector<std::string> groups;
    for (const auto& p : report.points) {
      if (p.op != op) continue;
      std::string swept = swept_axes_label(report.config.axes, op, p.shape);
      if (std::find(groups.begin(), groups.end(), swept) == groups.end()) {
        groups.push_back(std::move(swept));
      }
    }
    for (const auto& swept : groups) out += operator_section(op, swept, report);
  }
  out += notes(report);
  return out;
}

}  // namespace rooflinectl
