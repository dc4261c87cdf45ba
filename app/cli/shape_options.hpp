// The operator and shape flags that `sweep` and `model` share (--model, --ops, --kernel, --seq,
// --batch, --heads, --kv-heads, --head-dim, --dtype, --gelu-form, --causal, --kv-layout,
// --page-size, --kv-dtype, --gemm-dtype, --q-len, --gemm-n, --gemm-k, --hidden, --ffn-dim): bound
// once, applied to a SweepConfig.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sweep_config.hpp"

namespace rooflinectl {

/// Unset optionals keep the config's (or the built-in default) value.
struct ShapeOptions {
  /// --model: a preset id (configs/models/<id>.json) whose heads, kv_heads, head_dim (and GELU
  /// form) replace the config's; the flags below still override it.
  std::optional<std::string> model;
  std::optional<std::string> ops;  ///< comma-separated operator names
  /// --kernel values, one per occurrence: "OP=VERSION" or comma-separated lists of them
  std::vector<std::string> kernels;
  std::optional<std::string> seq;  ///< --seq spec (see parse_seq_spec)
  // The axes below take one value or a comma list of values, swept as a product.
  std::optional<std::string> batch;
  std::optional<std::string> heads;
  std::optional<std::string> kv_heads;
  std::optional<std::string> head_dim;
  std::optional<std::string> dtype;
  std::optional<std::string> gelu_form;
  std::optional<std::string> causal;     ///< "on" for a bare --causal, else "off", "on" or "off,on"
  std::optional<std::string> kv_layout;  ///< "contiguous" | "paged" (decode_attention)
  std::optional<int64_t> page_size;      ///< KV positions per page (--kv-layout paged)
  std::optional<int64_t> gemm_n;         ///< gemm's N (0: 4·d_model)
  std::optional<int64_t> gemm_k;         ///< gemm's K (0: d_model)
  std::optional<int64_t> hidden;        ///< d_model of the norms, FFN and gemm (0: heads·head_dim)
  std::optional<int64_t> ffn_dim;       ///< d_ff of gelu, swiglu, geglu and gemm (0: 4·d_model)
  std::optional<std::string> kv_dtype;  ///< "auto" | "fp8_e4m3", or a list (decode_attention)
  std::optional<std::string> gemm_dtype;  ///< "auto" | "fp8_e4m3", or a list (gemm)
  /// Attention's query length: an integer or "L" (L_q = L), or a list (naive, flash attention)
  std::optional<std::string> q_len;
};

/// Whether a command sweeps comma lists of the axis flags (sweep: every combination) or takes one
/// value of each (model, which refuses lists).
enum class AxisValues { kLists, kSingle };

/// Binds the shared flags of `sub` to `options`; the help of the axis flags says whether a comma
/// list sweeps each value (`values` kLists) or one value is taken (kSingle).
void add_shape_options(CLI::App& sub, ShapeOptions& options, AxisValues values);

/// Overrides `config` with the flags that were given, in order of precedence: the config (file or
/// built-in) < the --model preset (apply_preset_shape) < the other flags. --heads without
/// --kv-heads sets kv_heads = heads (multi-head attention), preset or not; a --kernel request
/// replaces the config's for that operator; --kv-layout paged without --page-size (and no page
/// size in the config) takes kDefaultKvPageSize, --kv-layout contiguous without it drops the
/// config's page size. An axis flag given a comma list sets that axis's list (core/sweep_axes.hpp),
/// one value fixes it; the preset clears the lists of the axes it sets. --heads with several values
/// needs --kv-heads (no single kv-heads default fits every heads value). Throws a bad-input Error
/// naming the flag for an unknown --model (listing the known ids) or a malformed --ops, --kernel,
/// --seq, --dtype, --gelu-form, --kv-layout, --kv-dtype, --gemm-dtype or --q-len; the values are
/// checked further by check_sweep_plan (operator and version names among them).
void apply_shape_options(const ShapeOptions& options, SweepConfig& config);

}  // namespace rooflinectl
