#include "cli/shape_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "cli/list_validator.hpp"
#include "cli/strict_integer.hpp"
#include "core/error.hpp"
#include "core/kernel_version.hpp"
#include "core/model_preset.hpp"
#include "core/operator_names.hpp"
#include "core/seq_range.hpp"
#include "core/sweep_axes.hpp"
#include "core/sweep_config.hpp"

namespace rooflinectl {
namespace {

std::vector<std::string> split_list(const std::string& text, const std::string& flag) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw bad_input(fmt::format("invalid {} '{}': empty item", flag, text));
    out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

void add_shape_options(CLI::App& sub, ShapeOptions& o, AxisValues values) {
  const bool swept = values == AxisValues::kLists;
  // "B[,B...]" where lists sweep, "B" where one value is taken.
  const auto type = [swept](const std::string& one, const std::string& list) {
    return swept ? list : one;
  };
  // The defaults shown are the built-in ones (a --config file replaces them).
  const SweepConfig d = default_sweep_config();
  std::vector<std::string> preset_ids;
  for (const ModelPreset& preset : builtin_model_presets()) preset_ids.push_back(preset.id);
  // model predicts gemm and the element-wise operators at the preset's widths; a sweep runs its
  // kernels at H·d unless --hidden/--ffn-dim are given (README, "Model presets").
  const std::string widths =
      swept ? "; the widths of gemm and the element-wise operators stay H*d and 4*d_model unless "
              "--hidden and --ffn-dim are given"
            : " and the widths d_model and ffn_dim of gemm and the element-wise operators";
  sub.add_option("--model", o.model,
                 fmt::format("Model preset (configs/models/, `list` shows each with its sources): "
                             "{}. Sets --heads, --kv-heads, --head-dim and, for a GELU FFN, "
                             "--gelu-form{}; those flags given explicitly beat the preset, and the "
                             "preset beats --config (default: none)",
                             fmt::join(preset_ids, ", "), widths))
      ->type_name("NAME");
  sub.add_option(
         "--ops", o.ops,
         "Comma-separated operators (default: the six of configs/default.json; rmsnorm, swiglu "
         "and geglu run when named; see `list`)")
      ->check(one_of(operator_names(), true));
  sub.add_option("--kernel", o.kernels,
                 "Kernel version of an operator, OP=VERSION, e.g. flash_attention=v2 (repeatable, "
                 "or comma-separated: gemm=v1,flash_attention=v2; `list` shows each operator's "
                 "versions and default). A version the GPU or the shape cannot run falls back as "
                 "`list` says; each sweep point's version names the one that ran")
      ->type_name("OP=VERSION")
      ->allow_extra_args(false);
  sub.add_option("--seq", o.seq,
                 "Sequence lengths: 512..32768 (powers of two), 1000..4000:1000 (linear), "
                 "512,1000,4097 (list) (default " +
                     d.seq_spec + ")")
      ->type_name("SPEC");
  // No axis can exceed the largest tensor it is a factor of (validate_common_shape).
  static_assert(kMaxTensorElements == int64_t{1} << 50, "the text below names 2^50");
  static_assert(kBatchSpecNames.max_value == kMaxTensorElements, "--batch's range form, too");
  const std::string axis = "integers 1..2^50";
  const std::string lists = swept
                                ? "; a comma list sweeps each value (README, \"Axes and products\")"
                                : "; one value: lists are for sweep";
  // The batch axis also takes --seq's range forms (parse_length_spec names their errors).
  const CLI::Validator batch_items = list_of(strict_integer<int64_t>(axis));
  sub.add_option(
         "--batch", o.batch,
         fmt::format("Batch size B (default {}{})", d.base.batch,
                     swept ? lists + "; or a range: 1..64 powers of two, 16..64:16 linear" : lists))
      ->type_name(type("B", "B[,B...]|B..B[:STEP]"))
      ->check(CLI::Validator(
          [batch_items](std::string& token) -> std::string {
            // A range is parse_length_spec's to check; `model` then refuses several values.
            if (token.find("..") != std::string::npos) return "";
            std::string item_token = token;
            return batch_items(item_token);
          },
          ""));
  sub.add_option("--heads", o.heads,
                 fmt::format("Query heads H (default {}; with --model, the preset's{})",
                             d.base.heads, lists))
      ->type_name(type("H", "H[,H...]"))
      ->check(list_of(strict_integer<int64_t>(axis)));
  sub.add_option("--kv-heads", o.kv_heads,
                 "KV heads H_kv (GQA; must divide H) (default: H, MHA; with --model and no "
                 "--heads, the preset's" +
                     lists + ")")
      ->type_name(type("H_KV", "H_KV[,...]"))
      ->check(list_of(strict_integer<int64_t>(axis)));
  sub.add_option("--head-dim", o.head_dim,
                 fmt::format("Head dimension d (default {}; with --model, the preset's{})",
                             d.base.head_dim, lists))
      ->type_name(type("D", "D[,D...]"))
      ->check(list_of(strict_integer<int64_t>(axis)));
  sub.add_option("--dtype", o.dtype,
                 "Element type: bf16 | fp16 (default " + to_string(d.base.dtype) + lists + ")")
      ->type_name(type("DTYPE", "DTYPE[,...]"))
      ->check(list_of(one_of({to_string(Dtype::kBf16), to_string(Dtype::kFp16)})));
  sub.add_option("--gelu-form", o.gelu_form,
                 "GELU form: erf | tanh (default " + to_string(d.base.gelu_form) + lists + ")")
      ->type_name(type("FORM", "FORM[,...]"))
      ->check(list_of(one_of({to_string(GeluForm::kErf), to_string(GeluForm::kTanh)})));
  sub.add_option("--kv-layout", o.kv_layout,
                 "KV cache of decode_attention: contiguous | paged (pages scattered through a "
                 "block table) (default " +
                     to_string(d.base.kv_layout) + ")")
      ->type_name("LAYOUT")
      ->check(one_of({to_string(KvLayout::kContiguous), to_string(KvLayout::kPaged)}));
  sub.add_option("--page-size", o.page_size,
                 fmt::format("KV positions per page with --kv-layout paged: 16 | 32 | 64 | 128 "
                             "(default {})",
                             kDefaultKvPageSize))
      ->type_name("N")
      ->transform(strict_integer<int64_t>("16, 32, 64 or 128"));
  // Checked by validate_gemm_dims (multiple of 8), so the error names the value and the rule.
  const std::string gemm_dim = "0, or multiples of 8 up to 2^50";
  sub.add_option(
         "--gemm-n", o.gemm_n,
         "gemm's N, e.g. a layer's QKV projection (H + 2*H_kv)*d, or ffn_dim: a multiple of "
         "8 (default 0: the FFN up projection's d_ff: --ffn-dim, or in `model --model` the "
         "preset's ffn_dim, else 4*d_model). M is batch*seq_len (decode: --seq 1)")
      ->type_name("N")
      ->transform(strict_integer<int64_t>(gemm_dim));
  sub.add_option("--gemm-k", o.gemm_k,
                 "gemm's K, e.g. ffn_dim for the FFN down projection: a multiple of 8 (default 0: "
                 "d_model: --hidden, else H*d)")
      ->type_name("N")
      ->transform(strict_integer<int64_t>(gemm_dim));
  // Checked by validate_layer_widths (and each kernel's width rule), naming the value.
  const std::string width = "0, or positive integers";
  sub.add_option("--hidden", o.hidden,
                 "d_model of gemm, gelu, layernorm, rmsnorm, swiglu and geglu, e.g. a preset's "
                 "hidden size (default 0: H*d)")
      ->type_name("N")
      ->transform(strict_integer<int64_t>(width));
  sub.add_option("--ffn-dim", o.ffn_dim,
                 "FFN width d_ff of gelu, swiglu, geglu and gemm's default N, e.g. 14336 for "
                 "llama-3.1-8b (default 0: 4*d_model)")
      ->type_name("N")
      ->transform(strict_integer<int64_t>(width));
  sub.add_option("--kv-dtype", o.kv_dtype,
                 "Element type of decode_attention's KV cache: auto (the --dtype) | fp8_e4m3 (one "
                 "fp32 scale per KV head for K and one for V; Q and O stay in the --dtype) "
                 "(default " +
                     to_string(d.base.kv_dtype) + lists + ")")
      ->type_name(type("KV_DTYPE", "KV_DTYPE[,...]"))
      ->check(list_of(one_of({to_string(KvDtype::kAuto), to_string(KvDtype::kFp8E4m3)})));
  sub.add_option("--gemm-dtype", o.gemm_dtype,
                 "Element type of gemm's inputs X and W: auto (the --dtype) | fp8_e4m3 (one fp32 "
                 "scale per tensor, W stored [N, K], compute capability 9.0; C stays in the "
                 "--dtype) (default " +
                     to_string(d.base.gemm_dtype) + lists + ")")
      ->type_name(type("GEMM_DTYPE", "GEMM_DTYPE[,...]"))
      ->check(list_of(one_of({to_string(GemmDtype::kAuto), to_string(GemmDtype::kFp8E4m3)})));
  sub.add_option("--q-len", o.q_len,
                 "Query length L_q of naive and flash attention: a chunk of L_q new tokens "
                 "attending to L keys that end with it (chunked prefill, prefill over a KV cache; "
                 "with --causal the mask is bottom-right aligned), an integer 1..L or L (0 also "
                 "means L); --seq "
                 "stays the key length L, and an L shorter than L_q has no point (default L: "
                 "L_q = L" +
                     lists + ")")
      ->type_name(type("L_Q", "L_Q[,...]"));
  sub.add_option("--causal", o.causal,
                 swept ? "Causal mask (bottom-right aligned): --causal alone is on; off | on, or "
                         "off,on to sweep both (default off)"
                       : "Causal mask (bottom-right aligned): --causal alone is on; off | on "
                         "(default off)")
      ->expected(0, 1)
      ->default_str("on")
      ->type_name(type("[off|on]", "[off|on[,...]]"))
      ->check(list_of(one_of({"off", "on"})));
}

void apply_shape_options(const ShapeOptions& o, SweepConfig& config) {
  if (o.model) {
    const ModelPreset& preset = find_model_preset(*o.model);
    apply_preset_shape(preset, config.base);
    // The preset's values replace the config's lists of the axes it sets.
    config.axes.heads.clear();
    config.axes.kv_heads.clear();
    config.axes.head_dim.clear();
    if (preset.gelu_form) config.axes.gelu_form.clear();
  }
  if (o.ops) config.ops = split_list(*o.ops, "--ops");
  for (const auto& [op, key] : parse_kernel_requests(o.kernels)) config.kernels[op] = key;
  if (o.seq) {
    config.seq_lens = parse_seq_spec(*o.seq);
    config.seq_spec = *o.seq;
  }
  SweepAxes& a = config.axes;
  Shape& base = config.base;
  if (o.batch) {
    set_axis_values(a.batch, base.batch,
                    o.batch->find("..") != std::string::npos
                        ? parse_length_spec(*o.batch, kBatchSpecNames)
                        : parse_int_axis_list(*o.batch, "--batch"));
  }
  if (o.heads) set_axis_values(a.heads, base.heads, parse_int_axis_list(*o.heads, "--heads"));
  if (o.kv_heads) {
    set_axis_values(a.kv_heads, base.kv_heads, parse_int_axis_list(*o.kv_heads, "--kv-heads"));
  } else if (o.heads) {
    if (!a.heads.empty()) {
      throw bad_input(fmt::format(
          "invalid --heads '{}' without --kv-heads: with several heads values give the KV heads "
          "too, one value or a list (e.g. --kv-heads {}); each pair where kv-heads divides heads "
          "runs",
          *o.heads, *o.heads));
    }
    // MHA unless --kv-heads says otherwise
    set_axis_values(a.kv_heads, base.kv_heads, std::vector<int64_t>{base.heads});
  }
  if (o.head_dim) {
    set_axis_values(a.head_dim, base.head_dim, parse_int_axis_list(*o.head_dim, "--head-dim"));
  }
  if (o.dtype) {
    std::vector<Dtype> values;
    for (const std::string& item : split_axis_list(*o.dtype, "--dtype")) {
      values.push_back(parse_dtype(item));
    }
    set_axis_values(a.dtype, base.dtype, values);
  }
  if (o.gelu_form) {
    std::vector<GeluForm> values;
    for (const std::string& item : split_axis_list(*o.gelu_form, "--gelu-form")) {
      values.push_back(parse_gelu_form(item));
    }
    set_axis_values(a.gelu_form, base.gelu_form, values);
  }
  if (o.causal) set_axis_values(a.causal, base.causal, parse_causal_list(*o.causal));
  if (o.kv_dtype) set_axis_values(a.kv_dtype, base.kv_dtype, parse_kv_dtype_list(*o.kv_dtype));
  if (o.gemm_dtype) {
    set_axis_values(a.gemm_dtype, base.gemm_dtype, parse_gemm_dtype_list(*o.gemm_dtype));
  }
  if (o.q_len) set_axis_values(a.q_len, base.q_len, parse_q_len_list(*o.q_len));
  if (o.kv_layout) {
    config.base.kv_layout = parse_kv_layout(*o.kv_layout);
    if (config.base.kv_layout == KvLayout::kContiguous) {
      config.base.page_size = 0;
    } else if (config.base.page_size == 0) {
      config.base.page_size = kDefaultKvPageSize;
    }
  }
  if (o.page_size) config.base.page_size = *o.page_size;  // checked by validate_kv_layout
  if (o.gemm_n) config.base.gemm_n = *o.gemm_n;           // checked by validate_gemm_dims
  if (o.gemm_k) config.base.gemm_k = *o.gemm_k;
  if (o.hidden) config.base.hidden = *o.hidden;  // checked by validate_layer_widths
  if (o.ffn_dim) config.base.ffn_dim = *o.ffn_dim;
}

}  // namespace rooflinectl
