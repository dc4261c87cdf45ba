#!/usr/bin/env bash
# `layer --analytic` on the built binary, no GPU needed: the prefill and decode views of a preset
# on a datasheet GPU (table and JSON, the JSON against docs/layer-report-schema.json when
# python3-jsonschema is there), and each bad input as one error line with exit 2 and nothing on
# stdout; the measured `layer` (no --analytic) refuses bad input before the GPU and, where there
# is no GPU, exits 3. Usage: test_cli_layer.sh BINARY SCHEMA
set -u
bin="$1"
schema="$2"
source "$(dirname "$0")/harness.sh"

# ---- prefill and decode of llama-3.1-8b on the H200 ------------------------------------------
check 0 "^prefill summary" "" layer --model llama-3.1-8b --phase prefill --seq 512..32768 \
  --gpu h200-sxm --analytic
check 0 "beyond L = .* attention takes over from each FFN GEMM" "" layer --model llama-3.1-8b \
  --phase prefill --gpu h200-sxm --analytic
check 0 "B = 64, context = 131072" "" layer --model llama-3.1-8b --phase decode \
  --context 512..131072 --batch 1,16,64 --gpu h200-sxm --analytic

if "$bin" layer --model llama-3.1-8b --phase decode --context 512,32768 --batch 1,64 \
  --gpu h200-sxm --analytic --format json -o "$work/layer.json" >"$work/stdout.json" \
  2>"$work/stderr"; then
  pass
else
  fail "layer --format json -o: exit $?: $(head -c 300 "$work/stderr")"
fi
if cmp -s "$work/layer.json" "$work/stdout.json"; then pass; else fail "-o file differs from stdout"; fi
python_check "decode json" "$work/layer.json" '
assert doc["phase"] == "decode" and doc["length_axis"] == "context", doc["phase"]
assert doc["basis"] == "analytic" and doc["measurement"] is None, doc["basis"]
assert all(p["measured"] is None for p in doc["points"])
assert doc["batches"] == [1, 64] and doc["lengths"] == [512, 32768]
pts = {(p["batch"], p["context"]): p for p in doc["points"]}
assert len(pts) == 4
p = pts[(1, 512)]
ops = {o["name"]: o for o in p["operators"]}
assert ops["qkv_proj"]["gemm_mnk"] == [1, 6144, 4096], ops["qkv_proj"]
# One decode step at B = 1 reads the layer its bf16 weights: 2*(4096*6144 + 4096*4096 + 3*4096*14336) + 2 gammas.
w = 2 * (4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336) + 2 * 4096 * 2
assert p["weight_bytes"] == w, p["weight_bytes"]
assert all(o["bound"] == "memory" for o in p["operators"])
assert abs(p["decode_tokens_per_s"] - 1 / (32 * p["layer_time_s"])) < 1e-9 * p["decode_tokens_per_s"]
big = pts[(64, 32768)]
assert big["peak_memory"]["kv_cache_bytes"] == 32 * 2 * 64 * 8 * 32768 * 128 * 2
assert big["peak_memory"]["fits"] is False
assert any("KV cache outweighs the weights" in c for c in doc["conclusion"]), doc["conclusion"]
'
if python3 -c "import jsonschema" 2>/dev/null; then
  python_check "schema" "$work/layer.json" '
import jsonschema
jsonschema.validate(doc, json.load(open(sys.argv[1])))
' "$schema"
  "$bin" layer --model gpt2 --phase prefill --seq 512,1024 --gpu a100-sxm4-80gb --analytic \
    --format json >"$work/prefill.json" 2>/dev/null ||
    "$bin" layer --model gpt2 --phase prefill --seq 512,1024 --gpu h100-sxm --analytic \
      --format json >"$work/prefill.json"
  python_check "prefill schema" "$work/prefill.json" '
import jsonschema
jsonschema.validate(doc, json.load(open(sys.argv[1])))
assert doc["points"][0]["seq_len"] == 512 and "ttft_s" in doc["points"][0]
' "$schema"
fi

# ---- an FP8 KV cache: the header says so, the JSON records it --------------------------------
check 0 "KV cache fp8_e4m3" "" layer --model llama-3.1-8b --phase decode --context 32768 \
  --batch 16 --kv-dtype fp8_e4m3 --gpu h200-sxm --analytic
if "$bin" layer --model llama-3.1-8b --phase decode --context 32768 --batch 16 \
  --kv-dtype fp8_e4m3 --gpu h200-sxm --analytic --format json >"$work/fp8.json" 2>"$work/stderr"; then
  python_check "fp8 decode json" "$work/fp8.json" '
assert doc["kv_dtype"] == "fp8_e4m3", doc["kv_dtype"]
# 2 (K, V) x 16 x 8 KV heads x 32768 x 128 x 1 byte
assert doc["points"][0]["kv_cache_bytes"] == 2 * 16 * 8 * 32768 * 128, doc["points"][0]["kv_cache_bytes"]
'
else
  fail "layer --kv-dtype fp8_e4m3 --format json -> exit $?: $(head -c 300 "$work/stderr")"
fi

# ---- bad input: one error line, exit 2 --------------------------------------------------------
for flag in "--repetitions 3" "--max-noise 1%" "--no-counters" "--require-counters" \
  "--roof datasheet" "--device 0"; do
  # shellcheck disable=SC2086
  refused_run 2 "invalid ${flag%% *} with --analytic" layer --model llama-3.1-8b --phase decode \
    --gpu h200-sxm --analytic $flag && pass
done
# Measured: bad input is refused before any GPU work, whether or not there is a GPU.
refused_run 2 "invalid --roof counters with --no-counters" layer --model llama-3.1-8b \
  --phase decode --no-counters --roof counters && pass
refused_run 2 "h999" layer --model llama-3.1-8b --phase decode --gpu h999 && pass
refused_run 2 "--max-noise: 'lots' is not a number" layer --model llama-3.1-8b --phase decode --max-noise lots && pass
# How the points are measured is checked as sweep checks it, before the GPU is looked for.
refused_run 2 "invalid repetitions 0 (--repetitions): allowed 1 to" layer --model llama-3.1-8b \
  --phase prefill --repetitions 0 && pass
refused_run 2 "invalid repetitions 99999999 (--repetitions)" layer --model llama-3.1-8b \
  --phase prefill --repetitions 99999999 && pass
refused_run 2 "invalid device -1 (--device): must be 0 or more" layer --model llama-3.1-8b \
  --phase prefill --device -1 && pass
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  refused_run 3 "without a GPU, \`layer --analytic --gpu ID\` models the layer" layer \
    --model llama-3.1-8b --phase decode --context 512 && pass
fi
refused_run 2 "needs --gpu ID" layer --model llama-3.1-8b --phase decode --analytic && pass
# Sizes past the 2^50-element bound are refused as sweep and model refuse them, naming the point.
refused_run 2 "invalid layer point --batch 2147483647 --seq 2147483647: invalid shape" layer \
  --model llama-3.1-8b --phase prefill --analytic --gpu h100-sxm --seq 2147483647 \
  --batch 2147483647 && pass
refused_run 2 "invalid --phase 'training': allowed prefill, decode" layer --model llama-3.1-8b \
  --phase training --gpu h200-sxm --analytic && pass
refused_run 2 "invalid --context '4096' with --phase prefill" layer --model llama-3.1-8b \
  --phase prefill --context 4096 --gpu h200-sxm --analytic && pass
refused_run 2 "invalid --seq '4096' with --phase decode" layer --model llama-3.1-8b \
  --phase decode --seq 4096 --gpu h200-sxm --analytic && pass
refused_run 2 "invalid --batch '1,0': '0' is out of range" layer --model llama-3.1-8b \
  --phase decode --batch 1,0 --gpu h200-sxm --analytic && pass
refused_run 2 "invalid --batch '1,1': batch 1 is listed more than once" layer \
  --model llama-3.1-8b --phase decode --batch 1,1 --gpu h200-sxm --analytic && pass
refused_run 2 "invalid --context '512..1000'" layer --model llama-3.1-8b --phase decode \
  --context 512..1000 --gpu h200-sxm --analytic && pass
refused_run 2 "invalid KV dtype 'fp8' (--kv-dtype)" layer --model llama-3.1-8b --phase decode \
  --kv-dtype fp8 --gpu h200-sxm --analytic && pass
refused_run 2 "unknown model preset 'llama-9'" layer --model llama-9 --phase decode \
  --gpu h200-sxm --analytic && pass
refused_run 2 "h999" layer --model llama-3.1-8b --phase decode --gpu h999 --analytic && pass
# --chart writes the time split as SVG (one segment per operator, batch and length); another
# extension is refused before anything runs.
if "$bin" layer --model llama-3.1-8b --phase prefill --seq 512,4096 --gpu h200-sxm --analytic \
  --chart "$work/split.svg" >/dev/null 2>"$work/stderr" &&
  [[ $(grep -c 'class="segment"' "$work/split.svg") -eq 18 ]] &&
  grep -qF "datasheet lower bounds on NVIDIA H200" "$work/split.svg"; then
  pass
else fail "layer --chart: $(head -c 300 "$work/stderr")"; fi
# plot draws a saved layer report the same, byte for byte.
if "$bin" layer --model llama-3.1-8b --phase prefill --seq 512,4096 --gpu h200-sxm --analytic \
  -o "$work/split.json" >/dev/null 2>&1 &&
  "$bin" plot "$work/split.json" -o "$work/plotted.svg" 2>"$work/stderr" &&
  cmp -s "$work/split.svg" "$work/plotted.svg"; then
  pass
else fail "plot LAYER.json differs from layer --chart: $(head -c 300 "$work/stderr")"; fi
# A layer report has one chart: --chart is refused for it, whichever value (the default too).
for chart in roofline throughput; do
  refused_run 2 "--chart $chart: $work/split.json is a \`rooflinectl layer\` report, drawn as its time split (leave --chart out)" \
    plot "$work/split.json" -o "$work/p2.svg" --chart "$chart" && pass
done
refused_run 2 "invalid --chart '$work/split.png': the chart is SVG" layer --model llama-3.1-8b --phase prefill --seq 512 \
  --gpu h200-sxm --analytic --chart "$work/split.png" && pass
refused_run 2 "invalid --format 'csv': allowed table, json" layer --model llama-3.1-8b \
  --phase decode --gpu h200-sxm --analytic --format csv && pass
refused_run 2 "must end in .json" layer --model llama-3.1-8b --phase decode --gpu h200-sxm \
  --analytic -o "$work/layer.txt" && pass

# `report` re-prints a layer report's time split (table, md, csv); other readers say what it is.
check 0 "^layer report: Meta Llama 3.1 8B, decode, 32 layers; datasheet lower bounds on NVIDIA H200" "" \
  report "$work/layer.json"
check 0 "lower bounds on the datasheet roofs: tokens/s is an upper bound" "" report "$work/layer.json"
check 0 "^the estimates leave out:" "" report "$work/layer.json"
check 0 "^| B | context | layer | model | tokens/s | fits | input_norm |" "" report "$work/layer.json" --format md
# B = 64 at context 32768 needs the weights and 64 sequences' KV cache of all 32 layers: more than
# the H200's 141 GB. The row says by how much, a note says what that means for its tokens/s, and
# the conclusion that cites the point says it too.
check 0 "^64 *32768 .* no (+[0-9.]* GB) " "" report "$work/layer.json"
check 0 "^ *1 *512 .* yes " "" report "$work/layer.json"
check 0 "^- fits no: the whole model's peak memory .* exceeds the NVIDIA H200 SXM 141GB's 151 GB" "" \
  report "$work/layer.json" --format md
python_check "conclusion names the point the model cannot hold" "$work/layer.json" '
line = [c for c in doc["conclusion"] if "B = 64, context 32768" in c][0]
assert "the whole model does not fit the GPU there" in line, line
'
check 0 "^batch,context,operator,time_s,share_of_layer,model_time_s,decode_tokens_per_s,peak_memory_bytes,fits,basis$" "" \
  report "$work/layer.json" --format csv
check 0 "^1,512,layer,.*,1,.*,.*,true,analytic$" "" report "$work/layer.json" --format csv
check 0 "^64,32768,layer,.*,false,analytic$" "" report "$work/layer.json" --format csv
refused_run 2 "--format json: $work/layer.json is a \`rooflinectl layer\` report (JSON already); allowed for layer reports: table, md, csv" \
  report "$work/layer.json" --format json && pass
refused_run 2 "is a \`rooflinectl layer\` report; the side-by-side view takes sweep reports" \
  report "$work/layer.json" "$work/layer.json" && pass
refused_run 2 "a \`rooflinectl layer\` report (\"layer_schema_version\", basis analytic)" \
  merge "$work/layer.json" -o "$work/merged.json" && pass
refused_run 2 "an analytic layer report (layer --analytic: datasheet lower bounds, nothing measured)" \
  compare "$work/layer.json" "$work/layer.json" && pass

finish cli_layer
