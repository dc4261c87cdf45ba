#!/usr/bin/env bash
# `rooflinectl compare` of two measured `layer` reports on the built binary (no GPU needed): exit
# codes 0 / 1 / 2 on edited copies of a committed H100 layer report (Llama-3.1-8B decode); and
# `report` re-printing that report's time split.
# Usage: test_cli_layer_compare.sh BINARY LAYER_REPORT.json
set -u
bin="$1"
report="$2"
source "$(dirname "$0")/harness.sh"

# edit OUT PYTHON: a copy of the report at $work/OUT after the PYTHON statements edit `d` (the
# document); `ops(k)` is point k's operators by name, `resum(k)` rewrites point k's layer time as
# the sum of its operators and the model time and tokens/s from it (as the writer does).
edit() {
  local out="$1" code="$2"
  python3 - "$report" "$work/$out" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
def ops(k):
    return {o["name"]: o["measured"] for o in d["points"][k]["operators"]}
def resum(k):
    p = d["points"][k]
    m = p["measured"]
    times = [o["measured"]["time_s"] for o in p["operators"]]
    m["layer_time_s"] = None if None in times else sum(times)
    m["model_time_s"] = None if None in times else d["model"]["layers"] * m["layer_time_s"]
    m["decode_tokens_per_s"] = None if None in times else p["batch"] / m["model_time_s"]
$code
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}

# The same report: every row the same, in both formats.
check 0 "no regression (0 failed, 0 slower, 0 inconclusive, 0 faster, 0 removed, 0 added, 270 same)" \
  "" compare "$report" "$report"
check 0 "^verdict  *B  *context  *operator" "" compare "$report" "$report"
check 0 '"exit_code": 0' "" compare "$report" "$report" --format json
python_check "identical JSON" <("$bin" compare "$report" "$report" --format json) '
assert doc["layer_compare_schema_version"] == 1
assert doc["phase"] == "decode" and doc["model"] == "Meta Llama 3.1 8B"
assert len(doc["points"]) == 27, len(doc["points"])
p = doc["points"][0]
assert p["batch"] == 1 and p["context"] == 512 and p["verdict"] == "same"
assert p["layer"]["role"] == "layer" and p["layer"]["relative_change"] == 0
assert [o["role"] for o in p["operators"]][:3] == ["input_norm", "qkv_proj", "attention"]
assert all(o["verdict"] == "same" for o in p["operators"])
'

# ffn_down at B = 1, context 512 20% slower with tight intervals: that row and the layer's sum
# (+4.4% of the layer: under the threshold) are judged apart. Exit 1 names the row.
edit down_slow.json 'o = ops(0)["ffn_down"]; o["time_s"] *= 1.2; o["median_noise"] = 0.01; resum(0)'
check 1 "1 regression" "" compare "$report" "$work/down_slow.json"
check 1 "^slower: B = 1 context = 512 ffn_down: .*+20.0%.*intervals apart" "" \
  compare "$report" "$work/down_slow.json"
check 1 "^same  *1  *512  *layer" "" compare "$report" "$work/down_slow.json"
check 0 "1 faster" "" compare "$work/down_slow.json" "$report"  # improvements never fail

# The same +20% with a wide interval (noise 20%): inconclusive, exit 0; --strict fails it.
edit down_noisy.json 'o = ops(0)["ffn_down"]; o["time_s"] *= 1.2; o["median_noise"] = 0.2; resum(0)'
check 0 "^inconclusive: B = 1 context = 512 ffn_down: .*intervals overlap" "" \
  compare "$report" "$work/down_noisy.json"
check 1 "1 inconclusive" "" compare "$report" "$work/down_noisy.json" --strict
check 0 "" "" compare "$report" "$work/down_noisy.json" --time-threshold 25%

# Every operator of B = 64, context 131072 10% slower: each row and the layer's sum are slower,
# but for the norms and the SwiGLU (under 1 µs apart: the event timer's resolution).
edit all_slow.json '
for o in d["points"][-1]["operators"]:
    o["measured"]["time_s"] *= 1.1
    o["measured"]["median_noise"] = 0.005
resum(len(d["points"]) - 1)'
check 1 "7 regressions" "" compare "$report" "$work/all_slow.json"
check 1 "^same  *64  *131072  *input_norm" "" compare "$report" "$work/all_slow.json"
check 1 "^slower: B = 64 context = 131072 layer: " "" compare "$report" "$work/all_slow.json"

# A validation failure in the new run is a regression whatever the times; an operator the new
# run did not measure is inconclusive; a kernel version change is named.
edit failed.json 'o = ops(0)["attention"]; o["status"] = "failed"; o["time_s"] = None
o["time_null_reason"] = "validation failed"; resum(0)'
check 1 "^failed: B = 1 context = 512 attention: failed in the new report (status failed: validation failed)" \
  "" compare "$report" "$work/failed.json"
check 1 "^inconclusive: B = 1 context = 512 layer: the layer time is unknown in the new report" \
  "" compare "$report" "$work/failed.json"
# A time on an unvalidated operator is a damaged file; a point's JSON verdict is its worst row (an
# operator 20% slower under a layer that moved less than the threshold).
edit unvalidated.json 'ops(0)["attention"]["validated"] = False'
check 2 "" "time_s is .* but the operator attention (status ok, validated false)" \
  compare "$report" "$work/unvalidated.json"
python_check "point verdict" <("$bin" compare "$report" "$work/down_slow.json" --format json) '
p = doc["points"][0]
assert p["layer"]["verdict"] == "same" and p["verdict"] == "slower", p["verdict"]
'
edit version.json 'ops(2)["qkv_proj"]["version"] = "gemm_v9_test"'
check 0 "gemm_v6_skinny_wgmma -> gemm_v9_test" "" compare "$report" "$work/version.json"

# A point only in one report: removed (a warning; --strict fails it) or added.
edit fewer.json 'del d["points"][0]'
check 0 "warning: 1 (batch, length) point(s) of the base are not in the new report (first: B = 1, context = 512;" \
  "" compare "$report" "$work/fewer.json"
check 1 "1 removed" "" compare "$report" "$work/fewer.json" --strict
check 0 "1 added" "" compare "$work/fewer.json" "$report"

# Refused: another model, phase or GPU; a sweep report against a layer report; an analytic
# layer report; flags a layer report has nothing for; an edited layer time.
edit other_model.json 'd["model"]["id"] = "mistral-7b"'
check 2 "" "differ in model: base .llama-3.1-8b., new .mistral-7b." \
  compare "$report" "$work/other_model.json"
edit other_gpu.json 'd["measurement"]["device_name"] = "NVIDIA H200"'
check 2 "" "measured on different GPUs" compare "$report" "$work/other_gpu.json"
check 0 "warning: different GPUs" "" compare "$report" "$work/other_gpu.json" --allow-different-gpu
sweep="$(dirname "$0")/../../docs/examples/h200-sweep.json"
check 2 "" "is a layer report, the new .* a sweep report" compare "$report" "$sweep"
"$bin" layer --analytic --gpu h100-sxm --model llama-3.1-8b --phase decode --context 512 \
  -o "$work/analytic.json" >/dev/null 2>&1
check 2 "" "an analytic layer report" compare "$work/analytic.json" "$report"
check 2 "" "--format junit is for sweep reports; allowed for layer reports: table, md, json" \
  compare "$report" "$report" --format junit
# Markdown for a pull request: the outcome first, the regressed row in bold in the notable table.
check 1 "^### rooflinectl compare (layer): ❌ 1 regression" "" \
  compare "$report" "$work/down_slow.json" --format md
check 1 "^| \*\*slower\*\* | 1 | 512 | ffn_down | " "" compare "$report" "$work/down_slow.json" --format md
check 1 "^- \*\*slower\*\* B = 1 context = 512 .ffn_down.: .*; the layer .* -> .* (+4.[0-9]%, same)$" "" \
  compare "$report" "$work/down_slow.json" --format md
# A comment longer than GitHub takes (65,536 characters) is cut in its folded rows, saying so.
edit big.json '
import copy
first = [p for p in d["points"] if p["batch"] == 1]
for b in range(2, 14):
    for p in first:
        q = copy.deepcopy(p)
        q["batch"] = b
        d["points"].append(q)
        resum(len(d["points"]) - 1)
d["batches"] = sorted(set(p["batch"] for p in d["points"]))'
"$bin" compare "$work/big.json" "$work/big.json" --format md >"$work/big.md"
if [[ $(wc -c <"$work/big.md") -lt 65536 ]] && grep -q "more rows not shown" "$work/big.md" &&
   tail -1 "$work/big.md" | grep -q "</details>"; then pass; else
  fail "compare --format md of a big layer: $(wc -c <"$work/big.md") characters"; fi
check 0 "" "written to" compare "$report" "$report" -o "$work/same.md"
if grep -q "^### rooflinectl compare (layer): ✅ no regression" "$work/same.md"; then pass; else
  fail "-o same.md: no Markdown outcome line"; fi
check 2 "" "--traffic-threshold does not apply to layer reports" \
  compare "$report" "$report" --traffic-threshold 3%
check 2 "" "--by roof does not apply to layer reports" compare "$report" "$report" --by roof
check 2 "" "--min-share does not apply to layer reports" compare "$report" "$report" --min-share 2%
check 2 "" "--counter-threshold does not apply to layer reports" \
  compare "$report" "$report" --counter-threshold 1%  # refused at its default value too
check 2 "" "invalid --by 'bogus': allowed time, roof" compare "$report" "$report" --by bogus
# A file that is no report at all is named for what it is, whatever the other file is.
check 2 "" "cannot read report '$work/missing.json'" compare "$report" "$work/missing.json"
echo '{}' >"$work/empty-object.json"
check 2 "" "not a rooflinectl sweep report (no \"schema_version\")" \
  compare "$work/empty-object.json" "$report"
# A report rounded to six significant digits (jq, a spreadsheet) still reads.
edit rounded.json '
def rnd(x):
    if isinstance(x, float): return float(f"{x:.6g}")
    if isinstance(x, dict): return {k: rnd(v) for k, v in x.items()}
    if isinstance(x, list): return [rnd(v) for v in x]
    return x
d = rnd(d)'
check 0 "270 same" "" compare "$report" "$work/rounded.json"
edit bad_phase.json 'd["phase"] = "decoding"'
check 2 "" "key .phase. is .decoding.: allowed prefill, decode" compare "$report" "$work/bad_phase.json"
edit edited_sum.json 'ops(0)["ffn_down"]["time_s"] *= 1.2'
check 2 "" "points\[0\].measured.layer_time_s is .* but its operators. times sum to" \
  compare "$report" "$work/edited_sum.json"
# The model time and tokens/s the writer derived from the layer time: a stale one is refused, by
# compare and by report, not silently recomputed.
edit stale_model.json 'd["points"][0]["measured"]["model_time_s"] *= 1.1'
check 2 "" "points\[0\].measured: key .model_time_s. is .* but the layer time gives" \
  compare "$report" "$work/stale_model.json"
check 2 "" "key .model_time_s. is .* but the layer time gives" report "$work/stale_model.json"
edit stale_rate.json 'd["points"][3]["measured"]["decode_tokens_per_s"] = 1.0'
check 2 "" "points\[3\].measured: key .decode_tokens_per_s. is 1 but the layer time gives" \
  report "$work/stale_rate.json"
edit null_model.json 'd["points"][0]["measured"]["model_time_s"] = None'
check 2 "" "key .model_time_s. is null while layer_time_s is set" report "$work/null_model.json"
edit negative.json 'ops(0)["ffn_down"]["median_noise"] = -0.1'
check 2 "" "median_noise. is -0.1: a time or noise must be finite and >= 0" \
  compare "$report" "$work/negative.json"
edit schema.json 'd["layer_schema_version"] = 1'
check 2 "" "layer_schema_version 1 is not supported" compare "$report" "$work/schema.json"

# -o writes the comparison atomically, its extension picking the format.
check 1 "" "written to" compare "$report" "$work/down_slow.json" -o "$work/cmp.json"
python_check "-o JSON" "$work/cmp.json" 'assert doc["summary"]["slower"] == 1 and doc["exit_code"] == 1'

# `report` of the measured report: its CSV holds every (batch, length) with its layer time, the
# sum of its operators' times, and the shares add up to 1; the table names the basis; an edited
# report is refused as compare refuses it.
check 0 "measured median times on NVIDIA H100 80GB HBM3" "" report "$report"
check 2 "" "but its operators. times sum to" report "$work/edited_sum.json"
check 2 "" "but the operator attention (status ok, validated false)" report "$work/unvalidated.json"
"$bin" report "$report" --format csv >"$work/split.csv"
if python3 - "$work/split.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
layers = [r for r in rows if r["operator"] == "layer"]
assert len(layers) == 27, len(layers)
for layer in layers:
    ops = [r for r in rows if r["operator"] != "layer" and r["batch"] == layer["batch"]
           and r["context"] == layer["context"]]
    assert len(ops) == 9, len(ops)
    total = sum(float(r["time_s"]) for r in ops)
    assert abs(total - float(layer["time_s"])) <= 1e-8 * total, (layer, total)
    assert abs(sum(float(r["share_of_layer"]) for r in ops) - 1) < 1e-6
    rate = float(layer["batch"]) / (32 * float(layer["time_s"]))
    assert abs(float(layer["decode_tokens_per_s"]) - rate) <= 1e-6 * rate, layer
PY
then pass; else fail "report --format csv of the measured layer report"; fi

finish "cli_layer_compare"
