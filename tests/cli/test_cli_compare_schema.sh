#!/usr/bin/env bash
# `compare --format json` on the built binary, no GPU needed, against
# docs/compare-report-schema.json: comparisons of the committed sweep, profile and layer reports
# and of edited copies that between them reach every optional part of the three layouts (a time
# by roof, a point or kernel in one report only, a kernel version change, an unknown git
# revision, slower and failed rows) must each hold, each must reach the branch it is here for,
# and edited copies the writer never produces must not hold (so the schema is not vacuous).
# Exits 77 (skipped) when python3-jsonschema is not importable.
# Usage: test_cli_compare_schema.sh BINARY EXAMPLES_DIR SCHEMA
set -u
bin="$1"
examples="$2"
schema="$3"
source "$(dirname "$0")/harness.sh"
sweep="$examples/h200-sweep.json"
profile="$examples/h200-profile-block.json"
layer="$examples/h100-layer-decode.json"

# edit SOURCE OUT PYTHON: a copy of SOURCE at $work/OUT after the PYTHON statements edit `d`.
edit() {
  python3 - "$1" "$work/$2" <<PY
import json, statistics, sys
d = json.load(open(sys.argv[1]))
$3
json.dump(d, open(sys.argv[2], "w"))
PY
}

# Sweep: gemm 1.5x slower (a regression), flash attention L = 512 under another kernel version,
# the last point missing, and no git revision in the new report.
edit "$sweep" sweep_new.json '
for p in d["points"]:
    if p["op"] == "gemm":
        t = p["timing"]
        t["samples_s"] = [s * 1.5 for s in t["samples_s"]]
        t["median_s"] = statistics.median(t["samples_s"])
        t["min_s"], t["max_s"] = min(t["samples_s"]), max(t["samples_s"])
        p["roofline"]["time_s"] = t["median_s"]
    if p["op"] == "flash_attention" and p["shape"]["seq_len"] == 512:
        p["version"] = "flash_attention_v9_edited"
d["points"].pop()
d["tool"]["git_revision"] = ""'
# Layer: ffn_down at the first point 20% slower with tight intervals.
edit "$layer" layer_new.json '
def resum(k):
    m = d["points"][k]["measured"]
    m["layer_time_s"] = sum(o["measured"]["time_s"] for o in d["points"][k]["operators"])
    m["model_time_s"] = d["model"]["layers"] * m["layer_time_s"]
    m["decode_tokens_per_s"] = d["points"][k]["batch"] / m["model_time_s"]
o = {x["name"]: x["measured"] for x in d["points"][0]["operators"]}["ffn_down"]
o["time_s"] *= 1.2
o["median_noise"] = 0.01
resum(0)'
# Profile: the attention GEMMs (kernels[1], 16 launches) 3x slower; the last kernel missing.
edit "$profile" profile_new.json '
k = d["kernels"][1]
k["durations_s"] = [x * 3 for x in k["durations_s"]]
k["total_time_s"] = sum(k["durations_s"])
k["median_time_s"] = statistics.median(k["durations_s"])
fields = ("name", "grid", "block", "dynamic_shared_bytes", "nvtx")
own = [x for x in d["launches"] if all(x[f] == k[f] for f in fields)]
for launch, duration in zip(own, k["durations_s"]):
    launch["duration_s"] = duration
gone = d["kernels"].pop()
d["summary"]["kernels"] -= 1
d["summary"]["launches"] -= gone["launches"]
d["summary"]["profiled_launches"] -= gone["launches"]
d["launches"] = [x for x in d["launches"]
                 if (x["name"], x["grid"], x["block"]) != (gone["name"], gone["grid"], gone["block"])]
total = sum(x["total_time_s"] for x in d["kernels"])
for x in d["kernels"]:
    x["share_of_gpu_time"] = x["total_time_s"] / total
d["summary"]["total_kernel_time_s"] = total'

names=()
# run_compare NAME WANT_EXIT ARGS...: `compare ARGS --format json` into $work/NAME.json.
run_compare() {
  local name="$1" want="$2"
  shift 2
  "$bin" compare "$@" --format json >"$work/$name.json" 2>"$work/stderr"
  local got=$?
  if [[ $got -eq $want ]]; then
    names+=("$name")
    pass
  else
    fail "$name: compare $* --format json -> exit $got (want $want): $(head -c 300 "$work/stderr")"
  fi
}

run_compare sweep_same 0 "$sweep" "$sweep"
run_compare sweep_roof 0 "$sweep" "$sweep" --by roof
run_compare sweep_changed 1 "$sweep" "$work/sweep_new.json"
run_compare sweep_added 0 "$work/sweep_new.json" "$sweep"
run_compare profile_same 0 "$profile" "$profile"
run_compare profile_changed 1 "$profile" "$work/profile_new.json"
run_compare profile_added 0 "$work/profile_new.json" "$profile"
run_compare layer_same 0 "$layer" "$layer"
run_compare layer_changed 1 "$layer" "$work/layer_new.json"

# ---- each run reaches the branch it is here for ------------------------------------------------
python_check "sweep by roof" "$work/sweep_roof.json" '
t = doc["points"][0]["time"]
assert t["by"] == "roof" and "new_write_back_after_window" in t, t'
python_check "sweep changed" "$work/sweep_changed.json" '
assert doc["new"]["git_revision"] is None and doc["base"]["git_revision"]
v = {p["verdict"] for p in doc["points"]}
assert {"slower", "removed"} <= v, v
removed = [p for p in doc["points"] if p["verdict"] == "removed"][0]
assert removed["time"] is None and removed["new_version"] is None
assert any(p["version_changed"] for p in doc["points"])'
python_check "sweep added" "$work/sweep_added.json" '
assert any(p["verdict"] == "added" and p["time"] is None for p in doc["points"])'
python_check "profile changed" "$work/profile_changed.json" '
v = {k["verdict"] for k in doc["kernels"]}
assert {"slower", "removed"} <= v, v
assert any(k["time"] is None and not k["time_gated"] for k in doc["kernels"])
assert any(k["new_launches"] is None for k in doc["kernels"])'
python_check "profile added" "$work/profile_added.json" '
assert any(k["verdict"] == "added" and k["base_launches"] is None for k in doc["kernels"])'
python_check "layer changed" "$work/layer_changed.json" '
p = doc["points"][0]
assert p["verdict"] == "slower" and "context" in p
assert [o for o in p["operators"] if o["verdict"] == "slower"][0]["role"] == "ffn_down"'

skip_without_jsonschema "cli_compare_schema"

# ---- every run holds ---------------------------------------------------------------------------
for name in "${names[@]}"; do schema_holds "$name" "$work/$name.json" "$schema"; done

# ---- edited copies the writer never produces do not hold ---------------------------------------
# not_held NAME SOURCE PYTHON: the PYTHON statements edit `doc` (a comparison) and the result
# must fail the schema.
not_held() {
  python_check "$1 refused" "$work/$2.json" "
import copy, jsonschema
schema = json.load(open(sys.argv[1]))
$3
try:
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
except jsonschema.ValidationError:
    pass
else:
    raise AssertionError('an edited copy held')" "$schema"
}
not_held "unknown verdict" sweep_changed 'doc["points"][0]["verdict"] = "worse"'
not_held "git revision a number" sweep_changed 'doc["new"]["git_revision"] = 0'
not_held "empty git revision" sweep_changed 'doc["new"]["git_revision"] = ""'
not_held "two layout keys" sweep_same 'doc["layer_compare_schema_version"] = 1'
not_held "no layout key" sweep_same 'del doc["compare_schema_version"]'
not_held "missing shape axis" sweep_same 'del doc["points"][0]["shape"]["heads"]'
not_held "page size without layout" sweep_same 'doc["points"][0]["shape"]["page_size"] = 16'
not_held "old sweep version" sweep_same 'doc["compare_schema_version"] = 1'
not_held "unknown key" profile_same 'doc["kernels"][0]["share"] = 0.5'
not_held "exit code 2" profile_same 'doc["exit_code"] = 2'
not_held "both lengths" layer_same 'doc["points"][0]["seq_len"] = 512'
not_held "no length" layer_same 'del doc["points"][0]["context"]'
not_held "mixed layouts" layer_same 'doc["kernels"] = []'
not_held "negative count" layer_same 'doc["summary"]["same"] = -1'

finish "cli_compare_schema"
