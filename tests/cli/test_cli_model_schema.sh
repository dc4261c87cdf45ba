#!/usr/bin/env bash
# `model --format json` on the built binary, no GPU needed, against docs/model-report-schema.json:
# runs that between them write every optional part of the report (a preset's layer and notes,
# paged and FP8 KV caches, the KV-cache capacity with either budget, a point without a roof, a
# query chunk, explicit layer and GEMM widths, GPU figures the spec table lacks) must each hold,
# each run must reach the branch it is here for, and edited copies the writer never produces must
# not hold (so the schema is not vacuous). Exits 77 (skipped) when python3-jsonschema is not
# importable. Usage: test_cli_model_schema.sh BINARY SCHEMA
set -u
bin="$1"
schema="$2"
source "$(dirname "$0")/harness.sh"

names=()
# run_model NAME ARGS...: `model --format json ARGS` into $work/NAME.json; a pass when it exits 0.
run_model() {
  local name="$1"
  shift
  if "$bin" model --format json "$@" >"$work/$name.json" 2>"$work/stderr"; then
    names+=("$name")
    pass
  else
    fail "$name: model --format json $* -> exit $?: $(head -c 300 "$work/stderr")"
  fi
}

run_model default --gpu h200-sxm
run_model llama --gpu h200-sxm --model llama-3.1-8b --seq 4096
run_model gemma --gpu h200-sxm --model gemma-2-9b
run_model paged --gpu h200-sxm --kv-layout paged --ops decode_attention
run_model fp8_kv --gpu h200-sxm --kv-dtype fp8_e4m3 --ops decode_attention
run_model no_roof --gpu a100-sxm4-80gb --ops gemm --gemm-dtype fp8_e4m3 --seq 1,4096
run_model q_chunk --gpu h100-nvl --q-len 1024 --causal on --ops naive_attention,flash_attention,gemm
run_model widths --gpu l4 --ops gemm,gelu,layernorm,rmsnorm,swiglu,geglu --hidden 1024 \
  --ffn-dim 4096 --gemm-n 256 --gemm-k 512 --dtype fp16 --gelu-form tanh
run_model budget_given --gpu h100-sxm --ops decode_attention --kv-layout paged --page-size 64 \
  --kv-dtype fp8_e4m3 --max-model-len 131072 --kv-lengths 500,4352,131072 --kv-budget-gib 1 \
  --layers 32
# The capacity block with the budget left after the preset's weights, written with -o as well.
if "$bin" model --gpu h100-sxm --model llama-3.1-8b --ops decode_attention --max-model-len 32768 \
  --kv-lengths 500,4352 --format json -o "$work/capacity.json" >"$work/capacity.stdout.json" \
  2>"$work/stderr"; then
  names+=(capacity)
  pass
else
  fail "capacity: model -o -> exit $?: $(head -c 300 "$work/stderr")"
fi
if cmp -s "$work/capacity.json" "$work/capacity.stdout.json"; then pass; else
  fail "capacity: the -o file differs from stdout"
fi

skip_without_jsonschema "cli_model_schema"

# ---- every run holds ---------------------------------------------------------------------------
for name in "${names[@]}"; do schema_holds "$name" "$work/$name.json" "$schema"; done

# ---- each run reaches the branch it is here for ----------------------------------------------
# reaches NAME PYTHON: the PYTHON assertions on $work/NAME.json.
reaches() {
  python_check "$1 reaches its branch" "$work/$1.json" "$2"
}
reaches default '
assert doc["layer"]["preset"] is None and doc["layer"]["notes"] == [], doc["layer"]
assert doc["kv_capacity"] is None and "kv_capacity_null_reason" in doc, doc["kv_capacity"]
assert doc["flash_io"] and doc["sram_bytes"] > 0
'
reaches llama '
assert doc["layer"]["preset"] == "llama-3.1-8b" and doc["layer"]["notes"], doc["layer"]
'
reaches gemma '
assert any("context window" in n for n in doc["layer"]["notes"]), doc["layer"]["notes"]
'
reaches paged '
assert doc["shape"]["kv_layout"] == "paged" and doc["shape"]["page_size"] == 16, doc["shape"]
'
reaches fp8_kv '
assert doc["shape"]["kv_dtype"] == "fp8_e4m3", doc["shape"]
'
reaches no_roof '
p = doc["points"][0]
assert p["roof"] is None and p["roof_null_reason"] and p["bound"] is None, p
assert p["time_lower_bound_s"] is None and p["time_lower_bound_s_null_reason"], p
assert doc["shape"]["gemm_dtype"] == "fp8_e4m3", doc["shape"]
'
reaches q_chunk '
assert doc["shape"]["q_len"] == 1024 and doc["shape"]["causal"] is True, doc["shape"]
assert any(p.get("q_len") == 1024 for p in doc["points"]), doc["points"]
assert doc["gpu"]["l2_bytes"] is None and doc["gpu"]["boost_clock_hz"] is None, doc["gpu"]
assert "h100-nvl.json gives no l2_bytes" in doc["gpu"]["l2_bytes_null_reason"], doc["gpu"]
assert doc["gpu"]["boost_clock_hz_null_reason"] and "fp32_flop_per_s_null_reason" not in doc["gpu"]
'
reaches widths '
s = doc["shape"]
assert (s["hidden"], s["ffn_dim"], s["gemm_n"], s["gemm_k"]) == (1024, 4096, 256, 512), s
assert doc["gpu"]["fp64_flop_per_s"] is None and doc["flash_io"] == [], doc["gpu"]
assert doc["gpu"]["fp64_flop_per_s_null_reason"] and doc["gpu"]["sm_count_source"], doc["gpu"]
'
reaches budget_given '
c = doc["kv_capacity"]
assert c["budget_source"] == "kv_budget_gib" and c["weight_bytes"] is None, c
assert c["gpu_memory_utilization_null_reason"] and c["page_size"] == 64, c
assert c["kv_element_bytes"] == 1 and c["rows"][0]["contiguous_sequences"] == 0, c
'
reaches capacity '
c = doc["kv_capacity"]
assert c["budget_source"] == "gpu_memory_minus_weights" and c["weight_bytes"] > 0, c
assert "weight_bytes_null_reason" not in c and [r["seq_len"] for r in c["rows"]] == [500, 4352], c
'

# ---- the schema refuses what the writer never writes ------------------------------------------
python_check "edited copies do not hold" "$work/capacity.json" '
import copy, jsonschema
schema = json.load(open(sys.argv[1]))
no_roof = json.load(open(sys.argv[2]))
llama = json.load(open(sys.argv[3]))
validator = jsonschema.Draft202012Validator(schema)
def edit(base, change):
    d = copy.deepcopy(base)
    change(d)
    return d
bad = {
    "unknown top-level key": edit(doc, lambda d: d.update(extra=1)),
    "unknown point key": edit(doc, lambda d: d["points"][0].update(time_s=1.0)),
    "point without flop": edit(doc, lambda d: d["points"][0].pop("flop")),
    "roof null, no reasons": edit(doc, lambda d: d["points"][0].update(roof=None)),
    "number null, no reason": edit(doc, lambda d: d["points"][0].update(implemented_time_s=None)),
    "reason beside a number": edit(doc, lambda d: d["points"][0].update(ridge_flop_per_byte_null_reason="x")),
    "bound without a roof": edit(no_roof, lambda d: d["points"][0].update(bound="memory")),
    "q_len on gemm": edit(no_roof, lambda d: d["points"][0].update(q_len=1)),
    "kv_capacity null, no reason": edit(doc, lambda d: d.update(kv_capacity=None)),
    "budget given with weights": edit(doc, lambda d: d["kv_capacity"].update(budget_source="kv_budget_gib")),
    "page_size without kv_layout": edit(doc, lambda d: d["shape"].update(page_size=16)),
    "notes without a preset": edit(llama, lambda d: d["layer"].update(preset=None)),
    "string count": edit(doc, lambda d: d["kv_capacity"].update(total_pages="29205")),
    "schema version 2": edit(doc, lambda d: d.update(model_schema_version=2)),
    "gpu figure null, no reason": edit(doc, lambda d: d["gpu"].update(l2_bytes=None)),
    "gpu reason beside a figure": edit(doc, lambda d: d["gpu"].update(fp64_flop_per_s_null_reason="x")),
    "gpu without sm_count_source": edit(doc, lambda d: d["gpu"].pop("sm_count_source")),
}
assert not list(validator.iter_errors(doc))
held = [name for name, d in bad.items() if validator.is_valid(d)]
assert not held, f"held: {held}"
' "$schema" "$work/no_roof.json" "$work/llama.json"

finish "cli_model_schema"
