#include "core/sweep_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/json_input.hpp"
#include "core/layer_widths.hpp"
#include "core/operator_names.hpp"
#include "core/point_filter.hpp"
#include "core/seq_range.hpp"
#include "core/sweep_plan.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kDefaultSeqSpec = "512..32768";

// Every key a config file may hold; anything else is a typo the user should hear about.
const std::vector<std::string>& config_keys() {
  static const std::vector<std::string> keys = {
      "ops",           "seq",        "batch",       "heads",       "kv_heads",  "head_dim",
      "dtype",         "causal",     "gelu_form",   "repetitions", "max_noise", "min_samples",
      "min_time_s",    "max_time_s", "warmup_runs", "counters",    "warm_l2",   "device",
      "sm_throughput", "kernels",    "kv_layout",   "page_size",   "filter",    "kv_dtype",
      "gemm_n",        "gemm_k",     "hidden",      "ffn_dim",     "q_len",     "gemm_dtype"};
  return keys;
}

int get_int_at_least(const JsonObjectReader& r, const std::string& key, int minimum) {
  const int v = r.get_int(key);
  if (v < minimum) r.fail_key(key, fmt::format("value {} must be at least {}", v, minimum));
  return v;
}

/// Reads `key` as one value or a non-empty array of distinct values (a swept axis): `read_one`
/// reads the scalar form, `read_all` the array form.
template <typename T, typename ReadOne, typename ReadAll>
std::vector<T> get_axis(const JsonObjectReader& r, const std::string& key, ReadOne read_one,
                        ReadAll read_all) {
  if (!r.is_array(key)) return {read_one()};
  std::vector<T> values = read_all();
  if (values.empty()) r.fail_key(key, "an empty array (give one value or several)");
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (values[i] == values[j]) {
        r.fail_key(key, fmt::format("element {} repeats element {} (each value once)", i, j));
      }
    }
  }
  return values;
}

std::vector<int64_t> get_int_axis(const JsonObjectReader& r, const std::string& key,
                                  int64_t minimum = 1) {
  std::vector<int64_t> values = get_axis<int64_t>(
      r, key, [&] { return r.get_int64(key); }, [&] { return r.get_int64_array(key); });
  for (const int64_t v : values) {
    if (v < minimum) r.fail_key(key, fmt::format("value {} must be at least {}", v, minimum));
  }
  return values;
}

template <typename Parse>
auto get_parsed_axis(const JsonObjectReader& r, const std::string& key, Parse parse) {
  using T = decltype(parse(std::string()));
  return get_axis<T>(
      r, key, [&] { return r.get_parsed(key, parse); },
      [&] {
        std::vector<T> out;
        for (const std::string& text : r.get_string_array(key)) {
          try {
            out.push_back(parse(text));
          } catch (const Error& e) {
            r.fail_key(key, e.what());
          }
        }
        return out;
      });
}

// Each query length 0 (L) or 1..the longest L (a shorter L skips it: core/sweep_plan.hpp), and
// one other than 0 only where an operator reads it.
void validate_query_lengths(const SweepConfig& c) {
  const int64_t longest = *std::max_element(c.seq_lens.begin(), c.seq_lens.end());
  const std::vector<int64_t> values = axis_values(c.axes.q_len, c.base.q_len);
  for (const int64_t q : values) {
    if (q < 0 || q > longest) {
      throw bad_input(fmt::format(
          "invalid q-len {} (--q-len): allowed L (or 0) or 1 to the longest --seq length, {} (a "
          "query chunk is part of the L keys it attends to)",
          q, longest));
    }
  }
  const bool chunked = std::any_of(values.begin(), values.end(), [](int64_t q) { return q != 0; });
  if (chunked && std::none_of(c.ops.begin(), c.ops.end(), [](const std::string& op) {
        return operator_uses_axis(op, SweepAxis::kQLen);
      })) {
    std::vector<std::string> texts;
    for (const int64_t q : values) texts.push_back(q != 0 ? std::to_string(q) : "L");
    throw bad_input(fmt::format(
        "invalid q-len {} (--q-len): it sets the query length of {} and {}, and the operators "
        "(--ops) include neither (decode_attention has one query by definition)",
        fmt::join(texts, ","), kNaiveAttentionOp, kFlashAttentionOp));
  }
}

}  // namespace

void read_shape_axes(const JsonObjectReader& r, SweepConfig& c, bool required) {
  const auto given = [&](const char* key) { return required || r.has(key); };
  SweepAxes& a = c.axes;
  if (given("batch")) set_axis_values(a.batch, c.base.batch, get_int_axis(r, "batch"));
  if (given("heads")) set_axis_values(a.heads, c.base.heads, get_int_axis(r, "heads"));
  if (given("kv_heads")) {
    set_axis_values(a.kv_heads, c.base.kv_heads, get_int_axis(r, "kv_heads"));
  } else if (r.has("heads")) {
    // As --heads without --kv-heads: MHA, and a list of heads needs its KV heads named.
    if (!a.heads.empty()) {
      r.fail_key("heads",
                 "an array of heads needs \"kv_heads\" too (one value or an array; each pair where "
                 "kv_heads divides heads runs)");
    }
    set_axis_values(a.kv_heads, c.base.kv_heads, std::vector<int64_t>{c.base.heads});
  }
  if (given("head_dim")) set_axis_values(a.head_dim, c.base.head_dim, get_int_axis(r, "head_dim"));
  if (given("dtype")) {
    set_axis_values(a.dtype, c.base.dtype, get_parsed_axis(r, "dtype", parse_dtype));
  }
  if (given("causal")) {
    set_axis_values(a.causal, c.base.causal,
                    get_axis<bool>(
                        r, "causal", [&] { return r.get_bool("causal"); },
                        [&] { return r.get_bool_array("causal"); }));
  }
  if (given("gelu_form")) {
    set_axis_values(a.gelu_form, c.base.gelu_form,
                    get_parsed_axis(r, "gelu_form", parse_gelu_form));
  }
  // Optional even where the others are required: reports before FP8 decode have no "kv_dtype".
  if (r.has("kv_dtype")) {
    set_axis_values(a.kv_dtype, c.base.kv_dtype, get_parsed_axis(r, "kv_dtype", parse_kv_dtype));
  }
  // Optional too: reports before FP8 GEMM have no "gemm_dtype".
  if (r.has("gemm_dtype")) {
    set_axis_values(a.gemm_dtype, c.base.gemm_dtype,
                    get_parsed_axis(r, "gemm_dtype", parse_gemm_dtype));
  }
  // Optional too: reports before --q-len have no "q_len" (0: L_q = L).
  if (r.has("q_len")) set_axis_values(a.q_len, c.base.q_len, get_int_axis(r, "q_len", 0));
}

SweepConfig default_sweep_config() {
  SweepConfig c;
  c.ops = default_sweep_operator_names();
  c.seq_spec = kDefaultSeqSpec;
  c.seq_lens = parse_seq_spec(c.seq_spec);
  return c;
}

// Values are range-checked per key here so the message names the file and key; the checks that
// span keys (kv_heads dividing heads) wait for validate_sweep_config, because CLI flags applied
// after the file may still change either side.
SweepConfig parse_sweep_config(const std::string& json_text, const std::string& origin) {
  const nlohmann::json document = parse_json_text(json_text, origin);
  const JsonObjectReader r(document, origin, "");
  r.reject_unknown_keys(config_keys());

  SweepConfig c = default_sweep_config();
  if (r.has("ops")) {
    c.ops = r.get_string_array("ops");
    if (c.ops.empty()) r.fail_key("ops", "must name at least one operator");
    for (const std::string& op : c.ops) {
      const std::vector<std::string>& known = operator_names();
      if (std::find(known.begin(), known.end(), op) == known.end()) {
        r.fail_key("ops",
                   fmt::format("unknown operator '{}': allowed {}", op, fmt::join(known, ", ")));
      }
    }
  }
  if (r.has("seq")) {
    // A --seq SPEC string ("512..32768", "512,4096"), or as the other axes one integer or an
    // array of them, kept as the equivalent list spec.
    c.seq_spec = r.is_string("seq") ? r.get_string("seq")
                                    : fmt::format("{}", fmt::join(get_int_axis(r, "seq"), ","));
    try {
      c.seq_lens = parse_seq_spec(c.seq_spec);
    } catch (const Error& e) {
      r.fail_key("seq", e.what());
    }
  }
  read_shape_axes(r, c, false);
  if (r.has("filter")) {
    c.filter = r.get_string("filter");
    r.get_parsed("filter", parse_point_filter);  // a bad expression names the file and key
  }
  if (r.has("kv_layout")) c.base.kv_layout = r.get_parsed("kv_layout", parse_kv_layout);
  if (r.has("page_size")) {
    c.base.page_size = r.get_int64("page_size");
  } else if (c.base.kv_layout == KvLayout::kPaged) {
    c.base.page_size = kDefaultKvPageSize;
  }
  if (r.has("gemm_n")) c.base.gemm_n = r.get_int64("gemm_n");  // checked by validate_gemm_dims
  if (r.has("gemm_k")) c.base.gemm_k = r.get_int64("gemm_k");
  if (r.has("hidden")) c.base.hidden = r.get_int64("hidden");  // checked by validate_layer_widths
  if (r.has("ffn_dim")) c.base.ffn_dim = r.get_int64("ffn_dim");
  if (r.has("repetitions")) c.repetitions = get_int_at_least(r, "repetitions", 1);
  if (r.has("max_noise")) c.max_noise = r.get_double("max_noise");
  if (r.has("min_samples")) c.min_samples = get_int_at_least(r, "min_samples", 1);
  if (r.has("min_time_s")) c.min_time_s = r.get_double("min_time_s");
  if (r.has("max_time_s")) c.max_time_s = r.get_double("max_time_s");
  if (r.has("warmup_runs")) c.warmup_runs = get_int_at_least(r, "warmup_runs", 0);
  if (r.has("counters")) c.counters = r.get_bool("counters");
  if (r.has("warm_l2")) c.warm_l2 = r.get_bool("warm_l2");
  if (r.has("sm_throughput")) c.sm_throughput = r.get_bool("sm_throughput");
  if (r.has("device")) c.device = get_int_at_least(r, "device", 0);
  if (r.has("kernels")) {
    c.kernels = r.get_string_map("kernels");
    for (const auto& [op, key] : c.kernels) {
      if (key.empty()) {
        r.fail_key("kernels", fmt::format("empty version for {} (e.g. \"v1\"; see `list`)", op));
      }
    }
  }
  return c;
}

SweepConfig load_sweep_config(const std::string& path) {
  return parse_sweep_config(read_text_file(path, "config"), path);
}

void validate_sweep_config(const SweepConfig& c) {
  if (c.ops.empty()) throw bad_input("invalid config: no operators to run (ops is empty)");
  for (size_t i = 0; i < c.ops.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      // A repeated name would run the same points twice and give compare two records per key.
      if (c.ops[i] == c.ops[j]) {
        throw bad_input(
            fmt::format("invalid ops (--ops): '{}' is listed more than once", c.ops[i]));
      }
    }
  }
  if (c.seq_lens.empty()) throw bad_input("invalid config: no sequence lengths (seq is empty)");
  for (const int64_t len : c.seq_lens) {
    if (len <= 0) {
      throw bad_input(fmt::format("invalid sequence length {}: must be a positive integer", len));
    }
  }
  // A listed value no combination can run is that value's error, not a combination's.
  for (const int64_t v : c.axes.batch) check_positive_axis("batch", "--batch", v);
  for (const int64_t v : c.axes.heads) check_positive_axis("heads", "--heads", v);
  for (const int64_t v : c.axes.kv_heads) check_positive_axis("kv-heads", "--kv-heads", v);
  for (const int64_t v : c.axes.head_dim) check_head_dim_axis(v);
  {
    // At the sweep's first length, not the base shape's default one: the M of a message about X
    // or C is then the M the user's --seq gives.
    Shape first = c.base;
    first.seq_len = c.seq_lens.front();
    validate_gemm_dims(first);
  }
  if (c.base.gemm_n != 0 || c.base.gemm_k != 0) {
    if (std::find(c.ops.begin(), c.ops.end(), kGemmOp) == c.ops.end()) {
      const bool n = c.base.gemm_n != 0;
      throw bad_input(fmt::format(
          "invalid {} {} (--{}): it sets the gemm operator's {}, and the operators (--ops) do "
          "not include gemm (add it)",
          n ? "gemm-n" : "gemm-k", n ? c.base.gemm_n : c.base.gemm_k, n ? "gemm-n" : "gemm-k",
          n ? "N" : "K"));
    }
  }
  validate_layer_widths(c.base);
  if ((c.base.hidden != 0 || c.base.ffn_dim != 0) &&
      std::none_of(c.ops.begin(), c.ops.end(),
                   [](const std::string& op) { return operator_uses_layer_widths(op); })) {
    const bool hidden = c.base.hidden != 0;
    throw bad_input(fmt::format(
        "invalid {} {} (--{}): it sets the width of gemm, gelu, layernorm, rmsnorm, swiglu and "
        "geglu, and the operators (--ops) include none of them",
        hidden ? "hidden" : "ffn-dim", hidden ? c.base.hidden : c.base.ffn_dim,
        hidden ? "hidden" : "ffn-dim"));
  }
  validate_query_lengths(c);
  if (!c.filter.empty()) parse_point_filter(c.filter);
  const std::vector<PlannedPoint> plan = plan_all_points(c);
  if (plan.empty()) {
    throw bad_input(fmt::format(
        "invalid --filter '{}': it drops every point of the sweep (a point is kept when the "
        "expression holds)",
        c.filter));
  }
  // Each combination of the axes at the first length, as before lists; the other lengths are
  // checked with the operators' shapes (check_sweep_plan).
  // A chunk of queries is checked at the first length it runs at, L = its q_len or longer.
  std::vector<PlannedPoint> first_length = plan;
  for (PlannedPoint& point : first_length) {
    settle_query_len(point.shape, std::max(c.seq_lens.front(), point.shape.q_len));
  }
  check_planned_points(c, first_length, [](const std::string&, const Shape& shape) {
    validate_common_shape(shape);
  });
  if (c.base.kv_layout == KvLayout::kPaged) {
    // Refused rather than ignored: a report whose flash or GEMM points say "paged" would claim a
    // layout those kernels never read.
    for (const std::string& op : c.ops) {
      if (op != kDecodeAttentionOp) {
        throw bad_input(fmt::format(
            "invalid --kv-layout paged with operator '{}' (--ops): a paged KV cache is read by {} "
            "only (run it with --ops {})",
            op, kDecodeAttentionOp, kDecodeAttentionOp));
      }
    }
  }
  const std::vector<KvDtype> kv_dtypes = axis_values(c.axes.kv_dtype, c.base.kv_dtype);
  if (std::find(kv_dtypes.begin(), kv_dtypes.end(), KvDtype::kAuto) == kv_dtypes.end()) {
    // Every value quantizes the KV cache: an operator without one would run at a KV dtype it
    // cannot have (its points keep auto), which the user did not ask for.
    for (const std::string& op : c.ops) {
      if (op != kDecodeAttentionOp) {
        throw bad_input(fmt::format(
            "invalid --kv-dtype {} with operator '{}' (--ops): only {} has a KV cache (run it "
            "with --ops {}, or list auto too: --kv-dtype auto,{})",
            to_string(kv_dtypes.front()), op, kDecodeAttentionOp, kDecodeAttentionOp,
            to_string(kv_dtypes.front())));
      }
    }
  }
  const std::vector<GemmDtype> gemm_dtypes = axis_values(c.axes.gemm_dtype, c.base.gemm_dtype);
  if (std::find(gemm_dtypes.begin(), gemm_dtypes.end(), GemmDtype::kAuto) == gemm_dtypes.end()) {
    // As --kv-dtype: every value quantizes the GEMM inputs, which the other operators lack.
    for (const std::string& op : c.ops) {
      if (op != kGemmOp) {
        throw bad_input(fmt::format(
            "invalid --gemm-dtype {} with operator '{}' (--ops): only {} has GEMM inputs (run it "
            "with --ops {}, or list auto too: --gemm-dtype auto,{})",
            to_string(gemm_dtypes.front()), op, kGemmOp, kGemmOp, to_string(gemm_dtypes.front())));
      }
    }
  }
  validate_run_settings(c);
}

void validate_run_settings(const SweepConfig& c) {
  if (c.repetitions < 1 || c.repetitions > kMaxRepetitions) {
    throw bad_input(fmt::format("invalid repetitions {} (--repetitions): allowed 1 to {}",
                                c.repetitions, kMaxRepetitions));
  }
  if (c.max_noise && !(*c.max_noise > 0 && *c.max_noise < 1)) {
    throw bad_input(fmt::format(
        "invalid max-noise {} (--max-noise): allowed a fraction above 0 and below 1 (e.g. 0.01 for "
        "1%)",
        *c.max_noise));
  }
  if (c.min_samples < 6 || c.min_samples > kMaxRepetitions) {
    throw bad_input(fmt::format(
        "invalid min-samples {} (--min-samples): allowed 6 (the fewest for a 95% interval of the "
        "median) to {}",
        c.min_samples, kMaxRepetitions));
  }
  if (!(c.min_time_s >= 0 && c.min_time_s <= kMaxSamplingSeconds)) {
    throw bad_input(fmt::format("invalid min-time {} s (--min-time): allowed 0 to {} s",
                                c.min_time_s, kMaxSamplingSeconds));
  }
  if (!(c.max_time_s > 0 && c.max_time_s <= kMaxSamplingSeconds)) {
    throw bad_input(fmt::format("invalid max-time {} s (--max-time): allowed above 0 up to {} s",
                                c.max_time_s, kMaxSamplingSeconds));
  }
  if (c.min_time_s > c.max_time_s) {
    throw bad_input(
        fmt::format("invalid min-time {} s (--min-time): above max-time {} s (--max-time); allowed "
                    "up to it",
                    c.min_time_s, c.max_time_s));
  }
  if (c.warmup_runs < 0 || c.warmup_runs > kMaxRepetitions) {
    throw bad_input(
        fmt::format("invalid warmup-runs {}: allowed 0 to {}", c.warmup_runs, kMaxRepetitions));
  }
  if (c.device < 0) {
    throw bad_input(fmt::format("invalid device {} (--device): must be 0 or more", c.device));
  }
}

}  // namespace rooflinectl
