#!/usr/bin/env bash
# Table-driven end-to-end checks of every sweep flag and file input on the built binary (no GPU
# needed: inputs are validated before any GPU work, so a machine without one gives the same
# errors). Every bad input must exit 2 with exactly one "error:" line on stderr that names the bad
# value, and write no file. Usage: test_cli_errors.sh BINARY
#
# Permission cases (unreadable config, unwritable output directory) are skipped when running as
# root (CI does): root bypasses file permissions, so those inputs are not bad for root.
set -u
bin="$1"
source "$(dirname "$0")/harness.sh"  # $work: the output directory of every case, must stay empty
inputs="$(mktemp -d)"                  # config files the cases read
trap 'chmod -R u+rwx "$work" "$inputs"; rm -rf "$work" "$inputs"' EXIT
skips=0

# run_case WANT PATTERN OUTPUT ARGS...: runs the binary with ARGS and --output OUTPUT (none when
# OUTPUT is "-"); checks the exit code, that stderr is one line matching PATTERN (grep -F, so
# patterns are literal) starting with "error:", that stdout is empty, and that $work is empty.
run_case() {
  local want="$1" pattern="$2" output="$3"
  shift 3
  local args=("$@")
  [[ $output != "-" ]] && args+=(--output "$output")
  "$bin" "${args[@]}" >"$inputs/stdout" 2>"$inputs/stderr"
  local got=$?
  local lines
  lines=$(wc -l <"$inputs/stderr")
  if [[ $got -ne $want ]]; then
    fail "rooflinectl ${args[*]} -> exit $got (want $want): $(head -c 300 "$inputs/stderr")"
  elif ! grep -qF -- "$pattern" "$inputs/stderr"; then
    fail "rooflinectl ${args[*]} -> stderr does not name '$pattern': $(head -c 300 "$inputs/stderr")"
  elif [[ $lines -ne 1 ]] || ! grep -q '^error: ' "$inputs/stderr"; then
    fail "rooflinectl ${args[*]} -> want one 'error:' line, got $lines: $(head -c 300 "$inputs/stderr")"
  elif [[ -s "$inputs/stdout" ]]; then
    fail "rooflinectl ${args[*]} -> wrote to stdout: $(head -c 200 "$inputs/stdout")"
  elif [[ -n "$(ls -A "$work")" ]]; then
    fail "rooflinectl ${args[*]} -> left files: $(ls -A "$work")"
    rm -rf "${work:?}"/*
  else
    pass
  fi
}

# bad PATTERN ARGS...: exit 2, report path in the (empty) work directory.
bad() {
  local pattern="$1"
  shift
  run_case 2 "$pattern" "$work/report.json" "$@"
}

skip() {
  echo "SKIP: $*"
  skips=$((skips + 1))
}

# ---- --seq: exact integer arithmetic; every malformed token named --------------------------
bad "'512..32k'" sweep --seq 512..32k
bad "'32768..512'" sweep --seq 32768..512
bad "'512..'" sweep --seq 512..
bad "'0'" sweep --seq 0..512
bad "'4096..512'" sweep --seq 4096..512
bad "'abc'" sweep --seq abc
bad "'0'" sweep --seq 0,512
bad "''" sweep --seq 512,,1024
bad "''" sweep --seq ""
bad "'1.5'" sweep --seq 1.5
bad "'1e3'" sweep --seq 1e3
bad "'-512'" sweep --seq=-512
bad "'2147483648'" sweep --seq 2147483648
bad "'99999999999999999999'" sweep --seq 99999999999999999999
bad "'0'" sweep --seq 1000..4000:0
bad "'-1000'" sweep --seq 1000..4000:-1000
bad "power" sweep --seq 500..1000
bad "mixes" sweep --seq 512..1024,2048
bad "at most 1024" sweep --seq 1..2147483647:1
bad "length 512 is listed more than once" sweep --seq 512,512
bad "length 1000 is listed more than once" sweep --seq 512,1000,4097,1000

# ---- integer axes: negative, zero, huge, overflowing -----------------------------------------
for flag in batch heads kv-heads head-dim; do
  bad "$flag -1" sweep --"$flag"=-1
  bad "$flag 0" sweep --"$flag" 0
  bad "99999999999999999999" sweep --"$flag" 99999999999999999999
  bad "abc" sweep --"$flag" abc
done
# B·H·L² in 64 bits: 4e9 × 16 × 32768² would overflow int64 several times over.
bad "4000000000" sweep --batch 4000000000
bad "invalid batch 0 (--batch): must be a positive integer" sweep --batch 0
bad "invalid head-dim -1 (--head-dim): must be a positive integer" model --gpu h200-sxm --head-dim -1
bad "4000000000" sweep --heads 4000000000 --ops gelu
bad "9223372036854775807" sweep --batch 9223372036854775807 --seq 2147483647
bad "2147483647" sweep --seq 2147483647 --ops naive_attention
bad "kv-heads 5" sweep --heads 16 --kv-heads 5
bad "kv-heads 32" sweep --heads 16 --kv-heads 32
bad "kv-heads 4" sweep --heads 30 --kv-heads 4 --ops decode_attention
bad "70000" sweep --ops flash_attention --heads 70000 --seq 512
for d in 72 80 100 512; do  # decode supports 64, 96, 128 and 256
  bad "$d" sweep --ops decode_attention --head-dim "$d"
done
for d in 72 80 112 512; do  # flash supports 64, 96, 128 and 256
  bad "head-dim $d (supported: 64, 96, 128, 256)" sweep --ops flash_attention --head-dim "$d"
done
bad "head-dim 100" sweep --ops naive_attention --head-dim 100
# rmsnorm reads rows as 16-byte vectors: d_model = H·d must be a multiple of 8 (3·7 = 21 is not).
bad "rmsnorm: d_model 21 (--hidden, else heads × head_dim) is not supported" sweep --ops rmsnorm \
  --heads 3 --head-dim 7
bad "layernorm: d_model 4100 (--hidden, else heads × head_dim) is not supported" sweep \
  --ops layernorm --hidden 4100
# Explicit layer widths: a negative value names its flag; widths no operator reads are refused.
bad "invalid hidden -8 (--hidden)" sweep --ops rmsnorm --hidden=-8
bad "invalid ffn-dim -1 (--ffn-dim)" sweep --ops swiglu --ffn-dim=-1
bad "--hidden: '1.5' is not a whole number" sweep --ops rmsnorm --hidden 1.5
bad "invalid ffn-dim 14336 (--ffn-dim): it sets the width of gemm" sweep --ops flash_attention \
  --ffn-dim 14336
# gemm's K and N from the layer widths are multiples of 8 as explicit ones are; the message names
# the flag they came from. Oversized GEMMs name the flags that set them and the --seq given.
bad "invalid gemm K 1001 (d_model, from --hidden)" sweep --ops gemm --hidden 1001
bad "invalid gemm N 1001 (the FFN width, from --ffn-dim)" sweep --ops gemm --ffn-dim 1001
bad "K × N (GEMM W) = 1099511627776 × 8192" sweep --ops gemm --seq 1 --gemm-k 1099511627776
# flash attention's launch grid: the flag and its range, before any GPU work.
bad "flash_attention: --batch 1000000 exceeds 65535 (the launch grid's z dimension): allowed 1 to 65535" \
  sweep --ops flash_attention --seq 512 --batch 1000000
run_case 2 "flash_attention: --heads 70000 exceeds 65535" - \
  model --gpu h200-sxm --ops flash_attention --seq 512 --heads 70000 --kv-heads 1
bad "lower --gemm-k or --gemm-n" sweep --ops gemm --seq 1 --gemm-k 1099511627776
bad "M × K (GEMM X, M = batch × seq_len) = 1 × 64 × 140737488355328" sweep --ops gemm --seq 64 \
  --gemm-n 8 --gemm-k 140737488355328
bad "N = 3000000000 (--gemm-n)" sweep --ops gemm --seq 1 --gemm-n 3000000000
# The gated input holds gate and up: B·L·2·d_ff = 2^51 is refused, naming the product.
bad "gated FFN input" sweep --ops swiglu --batch 1073741824 --seq 1 --heads 262144 --head-dim 1
for flag in repetitions device; do
  bad "$flag" sweep --"$flag"=-1
  bad "4000000000" sweep --"$flag" 4000000000
done
bad "repetitions 0" sweep --repetitions 0
# Adaptive sampling: bad bounds, bounds without --max-noise, and --repetitions beside it.
bad "--max-noise: '150%' is out of range" sweep --max-noise 150%
bad "--max-noise: 'low' is not a number" sweep --max-noise low
# Each names the flag, the value and what is allowed.
bad "invalid min-samples 5 (--min-samples): allowed 6" sweep --max-noise 1% --min-samples 5
bad "--min-samples: '6.5' is not a whole number (allowed: integers 6..1000000)" \
  sweep --max-noise 1% --min-samples 6.5
bad "invalid min-samples 2000000 (--min-samples): allowed 6" \
  sweep --max-noise 1% --min-samples 2000000
for value in 0 -1 1e9 3601; do
  bad "--max-time: '$value' is out of range (allowed: seconds above 0 up to 3600)" \
    sweep --max-noise 1% --max-time "$value"
done
for value in abc nan inf 1s ""; do
  bad "--max-time: '$value' is not a number (allowed: seconds above 0 up to 3600)" \
    sweep --max-noise 1% --max-time "$value"
  bad "--min-time: '$value' is not a number (allowed: seconds 0 to 3600)" \
    sweep --max-noise 1% --min-time "$value"
done
bad "--min-time: '-1' is out of range (allowed: seconds 0 to 3600)" sweep --max-noise 1% --min-time=-1
bad "invalid min-time 3 s (--min-time): above max-time 2 s (--max-time)" \
  sweep --max-noise 1% --min-time 3 --max-time 2
bad "invalid repetitions 0 (--repetitions): allowed 1 to 1000000" sweep --repetitions 0
bad "without --max-noise" sweep --min-samples 20
bad "excludes" sweep --max-noise 1% --repetitions 5
bad "repetitions 2000000" sweep --repetitions 2000000
# Tokens that are not whole numbers, or past the flag's type: the message names the flag, the
# token and what the flag allows (not CLI11's int64 range).
for flag in batch heads kv-heads head-dim; do
  bad "--$flag: '1.5' is not a whole number (allowed: integers 1..2^50)" sweep --"$flag" 1.5
  run_case 2 "--$flag: '1e3' is not a whole number (allowed: integers 1..2^50)" - \
    model --gpu h200-sxm --"$flag" 1e3
done
bad "--batch: '99999999999999999999' is out of range (allowed: integers 1..2^50)" \
  sweep --batch 99999999999999999999
bad "--repetitions: '2.5' is not a whole number (allowed: integers 1..1000000)" \
  sweep --repetitions 2.5
bad "--repetitions: '4000000000' is out of range (allowed: integers 1..1000000)" \
  sweep --repetitions 4000000000
bad "--device: 'gpu0' is not a whole number (allowed: integers 0, 1, ...: a CUDA device index" \
  sweep --device gpu0
# CLI11's counts of values in the project's words: which subcommand, what is missing or repeated.
run_case 2 "'report' needs its reports argument" - report
# No subcommand, or an unknown one: the allowed ones are named.
run_case 2 "error: a subcommand is required: one of sweep, devices, list, compare, model, layer," -
run_case 2 "error: unknown subcommand 'swep': allowed sweep, devices, list," - swep
run_case 2 "--ops given 2 times to 'sweep': give it once (a list is one comma-separated value)" \
  - sweep --ops gelu --ops gemm
run_case 2 "--gpu of 'model' needs a value" - model --gpu
# Files that are JSON from rooflinectl but not sweep reports are named for what they are.
examples="$(dirname "$0")/../../docs/examples"
run_case 2 "a \`rooflinectl layer\` report (\"layer_schema_version\", basis measured)" - \
  merge "$examples/h100-layer-decode.json" -o "$inputs/merged.json"
# layer --batch in the length forms: the message shows batch examples, not sequence lengths.
run_case 2 "invalid --batch '1.5': '1.5' is not a positive integer (forms: 1..64 powers of two, 16..64:16 linear, 1,16,64 a list)" - \
  layer --model llama-3.1-8b --phase decode --analytic --gpu h200-sxm --batch 1.5
run_case 2 'benchmark rows of a scripts/bench_*.py script ("schema": "rooflinectl-bench/1")' - \
  report "$examples/h100-bench-new-ops.json"
run_case 2 'benchmark rows of a scripts/bench_*.py script ("rows", "measurements", "work_dir")' - \
  report "$examples/h100-bench-fp8-decode.json"
# A --head-dim that replaced a preset's is the user's value, refused as sweep refuses it (only a
# preset's own head_dim becomes a note).
run_case 2 "flash_attention: unsupported head-dim 80 (supported: 64, 96, 128, 256)" - \
  model --gpu h200-sxm --model gemma-2-9b --head-dim 80
"$bin" model --gpu h200-sxm --ops gemm --seq 512 --output "$inputs/model.json" >/dev/null 2>&1
run_case 2 "a \`rooflinectl model\` prediction (\"model_schema_version\"), not a sweep report" - \
  report "$inputs/model.json"
run_case 2 "a \`rooflinectl model\` prediction (\"model_schema_version\"), not a sweep report" - \
  plot "$inputs/model.json" -o "$inputs/model.svg"
# JSON of no rooflinectl kind: what report and compare read is named, not one missing key.
printf '{"a": 1}\n' >"$inputs/other.json"
run_case 2 'not a rooflinectl sweep report (no "schema_version"): report, compare and merge read' - \
  report "$inputs/other.json"
run_case 2 'not a rooflinectl sweep report (no "schema_version")' - \
  compare "$inputs/other.json" "$examples/h200-sweep.json"
# Two reports with no point in common: the side-by-side table still prints (exit 0), with one
# warning naming the pair; two reports that share points print no warning.
"$bin" report "$examples/h200-sweep.json" "$examples/h100-sweep-qlen.json" >"$inputs/stdout" 2>"$inputs/stderr"
code=$?
if [[ $code -eq 0 ]] && [[ -s "$inputs/stdout" ]] && [[ $(wc -l <"$inputs/stderr") -eq 1 ]] &&
   grep -q "^warning: .*h100-sweep-qlen.json shares no point with .*h200-sweep.json" "$inputs/stderr"; then
  pass; else fail "report A B without shared points -> exit $code: $(head -c 300 "$inputs/stderr")"; fi
"$bin" report "$examples/h200-sweep.json" "$examples/h200-sweep.json" >"$inputs/stdout" 2>"$inputs/stderr"
if [[ $? -eq 0 ]] && [[ ! -s "$inputs/stderr" ]]; then
  pass; else fail "report A A warned: $(head -c 300 "$inputs/stderr")"; fi
run_case 2 "--device: '1.5' is not a whole number (allowed: integers 0, 1, ..." - peaks --device 1.5
run_case 2 "--device: '1.5' is not a whole number (allowed: integers 0, 1, ..." - doctor --device 1.5
# --kernel: an unknown operator or version is bad input before any GPU work (exit 2, not the
# no-GPU 3), naming the request and what is allowed; also for an operator the sweep does not run.
bad "kernel 'gemm=v9': unknown version 'v9' of gemm (allowed: v1, v2, v3, v4, v6, v7, v8, fp8)" \
  sweep --ops gemm --seq 512 --kernel gemm=v9
bad "kernel 'flash_attention=3': unknown version '3' of flash_attention (allowed: v2, v3)" \
  sweep --ops flash_attention --seq 512 --kernel flash_attention=3
bad "invalid --kernel 'flash=v2': unknown operator 'flash' (allowed: naive_attention, flash_attention, gemm," \
  sweep --seq 512 --kernel flash=v2
bad "kernel 'gemm=v9'" sweep --ops gelu --seq 512 --kernel gelu=v2,gemm=v9
bad "kernel 'gemm=v9'" sweep --ops gemm --seq 512 --kernel flash_attention=v2 --kernel gemm=v9
bad "invalid --kernel 'gemm': 'gemm' is not OP=VERSION (e.g. flash_attention=v2)" \
  sweep --kernel gemm
bad "invalid --kernel 'gemm=': 'gemm=' has an empty version" sweep --kernel gemm=
bad "invalid --kernel 'gemm=v1,gemm=v2': gemm is given a version more than once" \
  sweep --kernel gemm=v1,gemm=v2
bad "invalid --kernel 'gemm=v2': gemm is given a version more than once" \
  sweep --kernel gemm=v1 --kernel gemm=v2
run_case 2 "kernel 'gemm=v9': unknown version 'v9' of gemm (allowed: v1, v2, v3, v4, v6, v7, v8, fp8)" - \
  model --gpu h200-sxm --ops gemm --seq 512 --kernel gemm=v9
# One OP=VERSION per --kernel: a second word is not taken as another request.
bad "unexpected argument 'gelu=v2' to 'sweep'" sweep --kernel gemm=v1 gelu=v2

# ---- axes as lists and --filter (README, "Axes and products") --------------------------------
bad "--batch: 'x' is not a whole number (allowed: integers 1..2^50)" sweep --batch 1,x
bad "invalid --batch '1,8,1': 1 is listed more than once" sweep --batch 1,8,1
bad "empty item" sweep --batch 1,,8
# An empty value is an error, not "not given" (an unset $BASE must not turn the gate off).
bad "--baseline: empty (give a sweep report file, or leave --baseline out)" sweep --baseline ''
bad "--filter: empty (give FIELD OP VALUE terms, or leave --filter out)" sweep --filter ' '
bad "--config: empty (give a JSON config file, or leave --config out)" sweep --config ''
bad "--config: empty (give a JSON config file, or leave --config out)" model --gpu h100-sxm --config ''
bad "--dtype: 'fp32' is not allowed (allowed: bf16, fp16)" sweep --dtype bf16,fp32
bad "--causal: 'maybe' is not allowed (allowed: off, on)" sweep --causal off,maybe
bad "invalid --heads '16,32' without --kv-heads" sweep --heads 16,32
bad "in the combination flash_attention H=16 H_kv=32 (drop it with --filter 'op!=flash_attention|heads!=16|kv_heads!=32')" \
  sweep --ops flash_attention --heads 16,32 --kv-heads 8,32
bad "in the combination flash_attention d=80 (drop it with --filter 'op!=flash_attention|head_dim!=80'; for every operator: --filter 'head_dim!=80')" \
  sweep --ops flash_attention,gemm --head-dim 64,80
# Several attention operators share the GQA ratio: the hint also gives the term for all of them.
bad "in the combination naive_attention H=16 H_kv=32 (drop it with --filter 'op!=naive_attention|heads!=16|kv_heads!=32'; for every operator: --filter 'heads!=16|kv_heads!=32')" \
  sweep --heads 16,32 --kv-heads 8,32
bad "invalid --filter 'batch>>8': term 'batch>>8': value '>8' is not an integer" sweep --filter 'batch>>8'
bad "unknown field 'bach'" sweep --filter 'bach=8'
bad "term 'dtype<fp16': dtype takes = or != only" sweep --filter 'op=gemm,dtype<fp16'
bad "it drops every point of the sweep" sweep --filter 'seq>100000'
run_case 2 "invalid --batch with several values for \`model\`" - model --gpu h200-sxm --batch 1,8

# ---- names ------------------------------------------------------------------------------------
bad "--dtype: 'fp32' is not allowed (allowed: bf16, fp16)" sweep --dtype fp32
bad "'BF16'" sweep --dtype BF16
bad "''" sweep --dtype ""
bad "--gelu-form: 'relu' is not allowed (allowed: erf, tanh)" sweep --gelu-form relu
bad "--ops: 'flashy' is not allowed (allowed: naive_attention," sweep --ops flashy
bad "--ops: 'rms_norm' is not allowed (allowed: naive_attention, flash_attention, gemm, gelu, layernorm, decode_attention, rmsnorm, swiglu, geglu)" sweep --ops rms_norm
bad "--ops: 'flashy' is not allowed" sweep --ops gemm,flashy
bad "--roof: 'theoretical' is not allowed (allowed: datasheet, counters, measured)" \
  sweep --roof theoretical
bad "invalid kv-heads 3 (--kv-heads)" sweep --kv-heads 3
bad "invalid device -1 (--device)" sweep --device=-1
bad "'GEMM'" sweep --ops GEMM
bad "empty item" sweep --ops gemm,,gelu
bad "empty item" sweep --ops ""
bad "invalid ops (--ops): 'gemm' is listed more than once" sweep --ops gemm,gelu,gemm
bad "'xml'" sweep --format xml
# ---- KV-cache layout (decode_attention only; refused with any other operator) ----------------
bad "--kv-layout: 'blocked' is not allowed (allowed: contiguous, paged)" \
  sweep --ops decode_attention --kv-layout blocked
for page in 0 8 24 256 -16; do
  bad "invalid page size $page (--page-size): allowed 16, 32, 64, 128" \
    sweep --ops decode_attention --kv-layout paged --page-size="$page"
done
bad "--page-size: 'abc' is not a whole number (allowed: 16, 32, 64 or 128)" sweep \
  --ops decode_attention --kv-layout paged --page-size abc
bad "invalid page size 32 (--page-size): needs --kv-layout paged" \
  sweep --ops decode_attention --page-size 32
bad "invalid page size 16 (--page-size): needs --kv-layout paged" \
  sweep --ops decode_attention --kv-layout contiguous --page-size 16
bad "invalid --kv-layout paged with operator 'naive_attention' (--ops)" sweep --kv-layout paged
bad "invalid --kv-layout paged with operator 'flash_attention' (--ops)" \
  sweep --ops decode_attention,flash_attention --kv-layout paged --page-size 64
bad "invalid page size 24 (--page-size): allowed 16, 32, 64, 128" \
  model --gpu h200-sxm --ops decode_attention --kv-layout paged --page-size 24
bad "invalid --kv-layout paged with operator 'gemm' (--ops)" \
  model --gpu h200-sxm --ops gemm --kv-layout paged
# ---- KV-cache dtype (decode_attention only; fp8_e4m3 alone refused beside another operator) ----
bad "--kv-dtype: 'fp8' is not allowed (allowed: auto, fp8_e4m3)" \
  sweep --ops decode_attention --kv-dtype fp8
bad "--kv-dtype: 'bf16' is not allowed (allowed: auto, fp8_e4m3)" \
  sweep --ops decode_attention --kv-dtype auto,bf16
bad "invalid --kv-dtype 'auto,auto': auto is listed more than once" \
  sweep --ops decode_attention --kv-dtype auto,auto
bad "invalid --kv-dtype fp8_e4m3 with operator 'naive_attention' (--ops): only decode_attention has a KV cache" \
  sweep --kv-dtype fp8_e4m3
# --batch in a range form: sweep expands it (a bad range names its forms); model takes one value.
bad "invalid --batch '1..6': a range without ':step' steps by powers of two" \
  sweep --ops gemm --seq 512 --batch 1..6
bad "invalid --batch with several values for \`model\`: it predicts one shape" \
  model --gpu h200-sxm --ops gemm --batch 1..8
# model predicts one shape: its message says to model the operator alone, not to list auto too
# (which model refuses).
bad "invalid --kv-dtype fp8_e4m3 with operator 'gemm' (--ops): only decode_attention has a KV cache, and \`model\` predicts one shape (model it alone: --ops decode_attention)" \
  model --gpu h200-sxm --ops decode_attention,gemm --kv-dtype fp8_e4m3
# ---- GEMM input dtype (gemm only; fp8_e4m3 alone refused beside another operator) ----
bad "--gemm-dtype: 'fp8' is not allowed (allowed: auto, fp8_e4m3)" \
  sweep --ops gemm --gemm-dtype fp8
bad "--gemm-dtype: 'fp8_e5m2' is not allowed (allowed: auto, fp8_e4m3)" \
  sweep --ops gemm --gemm-dtype auto,fp8_e5m2
bad "invalid --gemm-dtype 'fp8_e4m3,fp8_e4m3': fp8_e4m3 is listed more than once" \
  sweep --ops gemm --gemm-dtype fp8_e4m3,fp8_e4m3
bad "invalid --gemm-dtype fp8_e4m3 with operator 'naive_attention' (--ops): only gemm has GEMM inputs" \
  sweep --gemm-dtype fp8_e4m3
bad "invalid --gemm-dtype fp8_e4m3 with operator 'rmsnorm' (--ops): only gemm has GEMM inputs, and \`model\` predicts one shape (model it alone: --ops gemm)" \
  model --gpu h200-sxm --ops gemm,rmsnorm --gemm-dtype fp8_e4m3
bad "invalid gemm K 24 with --gemm-dtype fp8_e4m3: must be a multiple of 16" \
  sweep --ops gemm --gemm-dtype fp8_e4m3 --seq 512 --gemm-n 256 --gemm-k 24
bad "invalid --filter 'gemm_dtype=e4m3': term 'gemm_dtype=e4m3': invalid gemm dtype 'e4m3' (--gemm-dtype): allowed auto (the --dtype), fp8_e4m3" \
  sweep --ops gemm --gemm-dtype auto,fp8_e4m3 --filter gemm_dtype=e4m3
bad "invalid --q-len '512,half': 'half' is neither an integer nor L" \
  sweep --ops flash_attention --q-len 512,half
bad "invalid q-len 1024 (--q-len): allowed L (or 0) or 1 to the longest --seq length, 512" \
  sweep --ops flash_attention --seq 512 --q-len 1024
bad "invalid q-len 128 (--q-len): it sets the query length of naive_attention and flash_attention" \
  model --gpu h200-sxm --ops decode_attention,gemm --q-len 128
bad "invalid --q-len with several values for \`model\`" \
  model --gpu h200-sxm --ops flash_attention --q-len 128,L
bad "unknown option '--no-such-flag' for 'sweep'" sweep --no-such-flag
run_case 2 "frobnicate" - frobnicate
# The allowed list is CLI11's own subcommand list, all nine of them.
run_case 2 "allowed sweep, devices, list, compare, model, layer, peaks, plot, profile, report, doctor, merge" - bogus
bad "--no-counters" sweep --no-counters --require-counters
run_case 2 "--device -1" - doctor --device=-1
# Stray positional arguments are named, in the order given, with what the subcommand takes.
bad "unexpected argument 'extra' to 'sweep': it takes no positional arguments" sweep extra
bad "unexpected arguments 'one', 'two' to 'sweep'" sweep --seq 512 one two
run_case 2 "unexpected argument 'x' to 'list': it takes no positional arguments" - list x

# ---- config files: missing, a directory, unreadable, corrupt, wrong values --------------------
mkdir "$inputs/a-directory"
bad "no-such.json" sweep --config "$inputs/no-such.json"
bad "is a directory" sweep --config "$inputs/a-directory"
: >"$inputs/empty.json"
bad "empty.json" sweep --config "$inputs/empty.json"
printf '{"batch": 2,' >"$inputs/truncated.json"
bad "truncated.json" sweep --config "$inputs/truncated.json"
printf '\x00\xff\xfe garbage' >"$inputs/binary.json"
bad "binary.json" sweep --config "$inputs/binary.json"
printf '[1, 2]' >"$inputs/array.json"
bad "must be a JSON object" sweep --config "$inputs/array.json"
config_case() {  # config_case NAME JSON PATTERN
  printf '%s' "$2" >"$inputs/$1.json"
  bad "$3" sweep --config "$inputs/$1.json"
}
config_case unknown-key '{"batchsize": 2}' "'batchsize'"
config_case batch-empty-array '{"batch": []}' "'batch'"
config_case batch-repeated '{"batch": [1, 8, 1]}' "element 2 repeats element 0"
config_case dtype-array-bad '{"dtype": ["bf16", "fp8"]}' "fp8"
config_case filter-bad '{"filter": "batch>>8"}' "'filter'"
config_case kernels-string '{"kernels": "gemm=v1"}' "'kernels'"
config_case kernels-number '{"kernels": {"gemm": 1}}' "'kernels.gemm'"
config_case kernels-empty '{"kernels": {"gemm": ""}}' "empty version for gemm"
config_case kernels-version '{"kernels": {"gemm": "v9"}}' "kernels-version.json: key 'kernels': invalid --kernel 'gemm=v9': unknown version 'v9'"
config_case kernels-operator '{"kernels": {"gem": "v1"}}' "kernel 'gem=v1': unknown operator 'gem'"
config_case batch-string '{"batch": "2"}' "'batch'"
config_case batch-float '{"batch": 2.5}' "'batch'"
config_case batch-zero '{"batch": 0}' "'batch'"
config_case batch-negative '{"batch": -4}' "'batch'"
config_case batch-huge '{"batch": 4000000000}' "4000000000"
config_case batch-overflow '{"batch": 99999999999999999999}' "'batch'"
config_case batch-1e30 '{"batch": 1e30}' "'batch'"
config_case batch-1e400 '{"batch": 1e400}' "batch-1e400.json"
config_case seq-k '{"seq": "512..32k"}' "'512..32k'"
config_case seq-number '{"seq": 512.5}' "'seq'"
config_case seq-array-duplicate '{"seq": [512, 512]}' "'seq'"
config_case seq-duplicate '{"seq": "512,512"}' "length 512 is listed more than once"
config_case dtype '{"dtype": "fp8"}' "'fp8'"
config_case ops-empty '{"ops": []}' "'ops'"
config_case batch-null '{"batch": null}' "key 'batch': expected an integer, found null"
config_case ops-unknown '{"ops": ["gemm", "softmax"]}' "ops-unknown.json: key 'ops': unknown operator 'softmax': allowed naive_attention, flash_attention, gemm,"
config_case reps-huge '{"repetitions": 99999999999}' "'repetitions'"
config_case causal-int '{"causal": 1}' "'causal'"
config_case device-negative '{"device": -1}' "'device'"
config_case kv-layout-name '{"ops": ["decode_attention"], "kv_layout": "ring"}' "'ring'"
config_case page-size-alone '{"ops": ["decode_attention"], "page_size": 64}' \
  "invalid page size 64 (--page-size): needs --kv-layout paged"
config_case page-size-bad '{"ops": ["decode_attention"], "kv_layout": "paged", "page_size": 48}' \
  "invalid page size 48 (--page-size): allowed 16, 32, 64, 128"
config_case paged-gemm '{"ops": ["gemm"], "kv_layout": "paged"}' \
  "invalid --kv-layout paged with operator 'gemm' (--ops)"
config_case kv-dtype-name '{"ops": ["decode_attention"], "kv_dtype": "int8"}' \
  "invalid KV dtype 'int8' (--kv-dtype): allowed auto (the --dtype), fp8_e4m3"
config_case kv-dtype-gelu '{"ops": ["gelu"], "kv_dtype": "fp8_e4m3"}' \
  "invalid --kv-dtype fp8_e4m3 with operator 'gelu' (--ops)"
# nlohmann would keep the last of two equal keys, silently.
config_case duplicate-key '{"batch": 2, "heads": 8, "batch": 4}' \
  "key 'batch' appears more than once in the document (allowed: each key once)"
printf '{"counters": false}' >"$inputs/no-counters.json"
bad "--require-counters" sweep --config "$inputs/no-counters.json" --require-counters
printf '{"batch": 2}' >"$inputs/unreadable.json"
chmod 000 "$inputs/unreadable.json"
if [[ $(id -u) -eq 0 ]]; then
  skip "unreadable config: running as root, which reads any file"
else
  bad "unreadable.json" sweep --config "$inputs/unreadable.json"
fi

# ---- output paths -------------------------------------------------------------------------------
run_case 2 "does not exist" "$work/missing/dir/r.json" sweep --seq 512 --ops gelu
run_case 2 "is a directory" "$work" sweep --seq 512 --ops gelu
mkdir "$inputs/read-only"
chmod 555 "$inputs/read-only"
if [[ $(id -u) -eq 0 ]]; then
  skip "unwritable output directory: running as root, which writes anywhere"
else
  run_case 2 "is writable failed: Permission denied" "$inputs/read-only/r.json" sweep --seq 512 --ops gelu
  [[ -z "$(ls -A "$inputs/read-only")" ]] || fail "a file appeared in the read-only directory"
fi

# The report file is JSON whatever --format says; a name promising another format is refused by
# the check plot uses for its SVG.
for name in report.png report.csv report.md report; do
  run_case 2 "'$work/$name': the report is JSON (--format sets stdout only), the file name must end in .json" \
    "$work/$name" sweep --seq 512 --ops gelu --format csv
done

# ---- roofs, model, plot, report, peaks (no GPU needed) ----------------------------------------
bad "'bogus'" sweep --roof bogus
bad "no-counters" sweep --roof counters --no-counters
bad "--lock-clocks 'turbo'" sweep --lock-clocks turbo
run_case 2 "h200-sxm" - model --gpu h300
run_case 2 "'flashy'" - model --gpu h200-sxm --ops flashy
run_case 2 "'xml'" - model --gpu h200-sxm --format xml
run_case 2 "gpu" - model --seq 512
for d in 72 80; do  # the same head_dim checks as sweep (the kernels' check_shape)
  run_case 2 "head-dim $d" - model --gpu h200-sxm --head-dim "$d"
done
for d in 72 80 100 512; do
  run_case 2 "head-dim $d is not supported: allowed 64, 96, 128, 256" - model --gpu h200-sxm --ops decode_attention --head-dim "$d"
done
for d in 96 256; do  # flash and decode run them, so model predicts them
  for op in flash_attention decode_attention; do
    if "$bin" model --gpu h200-sxm --ops "$op" --head-dim "$d" >"$inputs/stdout" \
         2>"$inputs/stderr" && grep -q "$op" "$inputs/stdout"; then
      pass
    else
      fail "model --ops $op --head-dim $d: $(head -c 300 "$inputs/stderr")"
    fi
  done
done
# A query chunk longer than some --seq lengths: those lengths have no attention point, and the
# table says so rather than dropping them silently.
if "$bin" model --gpu h200-sxm --ops flash_attention --q-len 512 --seq 256..2048 \
     >"$inputs/stdout" 2>"$inputs/stderr" &&
   grep -q "no naive or flash attention point at L = 256: shorter than L_q = 512" "$inputs/stdout"; then
  pass
else
  fail "model --q-len 512 --seq 256..2048: $(head -c 300 "$inputs/stdout")"
fi
for d in 72 80 112 512; do  # flash_attention runs 64, 96, 128 and 256
  run_case 2 "head-dim $d (supported: 64, 96, 128, 256)" - model --gpu h200-sxm --ops flash_attention --head-dim "$d"
done
run_case 2 "length 512 is listed more than once" - model --gpu h200-sxm --seq 512,512
# The B·H·L² bound is for the operator that stores S and P (naive attention) only.
run_case 2 "seq_len² (attention scores S, P)" - model --gpu h200-sxm --ops naive_attention --seq 16777216
bad "seq_len² (attention scores S, P)" sweep --ops naive_attention --seq 16777216
for case in "gelu 268435456" "layernorm 268435456" "gemm 16777216" "decode_attention 16777216" \
            "flash_attention 16777216" "rmsnorm 268435456" "swiglu 268435456" "geglu 268435456"; do
  read -r op len <<<"$case"
  if "$bin" model --gpu h200-sxm --ops "$op" --seq "$len" >"$inputs/stdout" 2>"$inputs/stderr"; then
    pass
  else
    fail "model --ops $op --seq $len -> exit $?: $(head -c 300 "$inputs/stderr")"
  fi
done
h200="$(cd "$(dirname "$0")/../.." && pwd)/tests/unit/data/h200-sweep-first-run.json"
# An output that cannot be written (a full disk) is the environment's fault: exit 3, not internal.
if [[ -w /dev/full ]]; then
  # doctor exits 3 without a GPU anyway: the stderr line tells the write failure apart.
  for args in "report $h200" "model --gpu h200-sxm" "list" "list --json" "doctor" "doctor --json"; do
    # shellcheck disable=SC2086
    "$bin" $args >/dev/full 2>"$inputs/stderr"
    code=$?
    if [[ $code -eq 3 ]] && grep -q "^error: cannot write to standard output" "$inputs/stderr"; then
      pass
    else fail "$args >/dev/full -> exit $code: $(head -c 300 "$inputs/stderr")"; fi
  done
  # Help and --version go through stdout's buffer too (CLI11 prints them): a lost write is not a
  # success.
  for args in "--help" "sweep --help" "compare --help" "--version"; do
    # shellcheck disable=SC2086
    "$bin" $args >/dev/full 2>"$inputs/stderr"
    code=$?
    if [[ $code -eq 3 ]] && [[ $(wc -l <"$inputs/stderr") -eq 1 ]] &&
       grep -q "^error: cannot write to standard output: No space left on device" "$inputs/stderr"; then
      pass
    else fail "$args >/dev/full -> exit $code: $(head -c 300 "$inputs/stderr")"; fi
  done
else
  skip "no /dev/full"
fi

run_case 2 "'bar'" - plot "$h200" --chart bar -o "$work/chart.svg"
run_case 2 "no-such.json" - plot "$inputs/no-such.json" -o "$work/chart.svg"
for name in chart.png chart.pdf chart chart.svg.png; do  # the chart is SVG only
  run_case 2 "'$work/$name': the chart is SVG" - plot "$h200" -o "$work/$name"
done
run_case 2 "'xml'" - report "$h200" --format xml
run_case 2 "'junit'" - report "$h200" --format junit
run_case 2 "unexpected argument 'c.json' to 'compare': it takes 2 positional arguments (base, new)" \
  - compare "$h200" "$h200" c.json
for name in model.md model.csv model.txt; do  # model's file is JSON as sweep's; --format is stdout
  run_case 2 "'$work/$name': the model is JSON (--format sets stdout only)" - \
    model --gpu h200-sxm --format table -o "$work/$name"
done
run_case 2 "no-such.json" - report "$inputs/no-such.json" --format md
run_case 2 "'xml'" - peaks --format xml
# Every command that writes a file names a missing directory before doing any work.
run_case 2 "directory '$work/nodir' does not exist" - plot "$h200" -o "$work/nodir/x.svg"
run_case 2 "directory '$work/nodir' does not exist" - report "$h200" --format md -o "$work/nodir/x.md"
run_case 2 "directory '$work/nodir' does not exist" - model --gpu h200-sxm -o "$work/nodir/m.json"
: >"$inputs/plainfile"
run_case 2 "directory '$inputs/plainfile' is not a directory (a file of that name exists)" - \
  plot "$h200" -o "$inputs/plainfile/x.svg"

# Outputs that are not regular files are refused, never replaced by the atomic rename.
run_case 2 "/dev/null" - report "$h200" --format md -o /dev/null
run_case 2 "/dev/null" - model --gpu h200-sxm -o /dev/null
run_case 2 "'-'" - model --gpu h200-sxm -o -
ln -s "$inputs/link-target.json" "$inputs/link.json"
run_case 2 "link.json" - plot "$h200" -o "$inputs/link.json"
# report writes the kind its --format names, and never over its own input (a read-only input
# too: the atomic rename would replace it).
for case in "table txt" "md md" "csv csv" "json json"; do
  read -r format ext <<<"$case"
  run_case 2 "'$work/out.x': --format $format writes .$ext, the file name must end in .$ext" - \
    report "$h200" --format "$format" -o "$work/out.x"
done
run_case 2 "'$work/out.json': --format md writes .md" - report "$h200" --format md -o "$work/out.json"
# Without --format an unknown extension names every writer's, not the table's alone.
run_case 2 "'$work/out.x': without --format the file name picks the writer, so it must end in .txt (table), .md, .csv or .json" - \
  report "$h200" -o "$work/out.x"
# Without --format, -o's extension picks the writer: .md and .csv write what --format md and csv
# print; .json the JSON.
for ext in md csv json; do
  if "$bin" report "$h200" -o "$inputs/by-ext.$ext" 2>/dev/null &&
     "$bin" report "$h200" --format "$ext" >"$inputs/by-flag.$ext" &&
     cmp -s "$inputs/by-ext.$ext" "$inputs/by-flag.$ext"; then
    pass
  else
    fail "report -o by-ext.$ext without --format did not write what --format $ext prints"
  fi
done
cp "$h200" "$inputs/own.json"
chmod 444 "$inputs/own.json"
for same in "$inputs/own.json" "$inputs/./own.json" "$inputs/../$(basename "$inputs")/own.json"; do
  run_case 2 "is the input report '$inputs/own.json', which would be overwritten" - \
    report "$inputs/own.json" --format json -o "$same"
done
cmp -s "$h200" "$inputs/own.json" || fail "report -o over its own input changed the input"
ln "$inputs/own.json" "$inputs/hardlink.json"
run_case 2 "is the input report" - report "$inputs/own.json" --format json -o "$inputs/hardlink.json"
# An empty output name is refused by every command that writes a file (not taken as "no file"),
# and a name that is the extension alone (a hidden file with no stem) is named as such.
run_case 2 "invalid --output '': an empty file name" - report "$h200" -o ""
run_case 2 "invalid --output '': an empty file name" - model --gpu h200-sxm -o ""
run_case 2 "invalid --output '': an empty file name" - plot "$h200" -o ""
run_case 2 "invalid --output '': an empty file name" - sweep --seq 512 --ops gelu -o ""
run_case 2 "invalid --output '$work/.json': needs a file name before .json" - \
  model --gpu h200-sxm -o "$work/.json"
run_case 2 "invalid --output '$work/.svg': needs a file name before .svg" - plot "$h200" -o "$work/.svg"
run_case 2 "invalid --output '.md': needs a file name before .md" - report "$h200" --format md -o .md
# Without --format too, and an upper-case extension picks its writer.
run_case 2 "invalid --output '$work/.json': needs a file name before .json" - report "$h200" -o "$work/.json"
if "$bin" report "$h200" -o "$inputs/UPPER.MD" 2>/dev/null && grep -q '^| ' "$inputs/UPPER.MD"; then
  pass
else
  fail "report -o UPPER.MD did not write Markdown"
fi
bad "invalid warmup-runs -1: allowed 0 to 1000000" sweep --warmup-runs -1
bad "--warmup-runs: 'x' is not a whole number (allowed: integers 0..1000000)" sweep --warmup-runs x
bad "'abc'" sweep --time-threshold abc
bad "'-3%'" sweep --l2-threshold -3%
run_case 2 "'x'" - compare "$h200" "$h200" --l2-threshold x
run_case 2 "--time-threshold: '1.5x' is not a number (allowed: a percentage like 5%" - \
  compare "$h200" "$h200" --time-threshold 1.5x
run_case 2 "--counter-threshold: '5' is out of range (allowed: a percentage like 5% or a fraction like 0.05, above 0 and below 1; for 5 percent write 5%)" - \
  compare "$h200" "$h200" --counter-threshold 5
bad "'speed'" sweep --by speed
run_case 2 "--device -1" - peaks --device -1

# `model` takes --kernel as sweep does; its figures do not depend on the version.
"$bin" model --gpu h200-sxm --seq 4096 --format json >"$inputs/model-default.json" 2>"$inputs/stderr"
"$bin" model --gpu h200-sxm --seq 4096 --format json --kernel gemm=v1,flash_attention=v2 \
  >"$inputs/model-v1.json" 2>>"$inputs/stderr"
code=$?
if [[ $code -ne 0 ]] || ! cmp -s "$inputs/model-default.json" "$inputs/model-v1.json"; then
  fail "model --kernel gemm=v1,flash_attention=v2 -> exit $code, stderr: $(head -c 300 "$inputs/stderr")"
else pass; fi

# `model` needs no GPU: the worked example of src/model/memory_model.hpp (fp16, d = 128) comes out of the memory table,
# and --output writes the JSON.
"$bin" model --gpu h200-sxm --seq 4096,8192 --dtype fp16 --output "$inputs/model.json" \
  >"$inputs/stdout" 2>"$inputs/stderr"
code=$?
if [[ $code -ne 0 ]] || ! grep -q "33.6 MB" "$inputs/stdout" || ! grep -q "268 MB" "$inputs/stdout" ||
   ! grep -q '"model_schema_version"' "$inputs/model.json"; then
  fail "model --gpu h200-sxm -> exit $code, stderr: $(head -c 300 "$inputs/stderr")"
else pass; fi

# `model --kv-dtype fp8_e4m3`: the shape says so, and decode's KV cache and bytes halve (B = 1,
# H = H_kv = 16, d = 128, L = 32768: 268 MB of bf16 K and V, 134 MB of E4M3, plus 8 KiB of q, o
# and 128 B of scales).
"$bin" model --gpu h200-sxm --ops decode_attention --seq 32768 --format json \
  >"$inputs/model-bf16.json" 2>"$inputs/stderr"
"$bin" model --gpu h200-sxm --ops decode_attention --seq 32768 --kv-dtype fp8_e4m3 --format json \
  >"$inputs/model-fp8.json" 2>>"$inputs/stderr"
code=$?
if [[ $code -ne 0 ]] || ! python3 - "$inputs/model-bf16.json" "$inputs/model-fp8.json" <<'PY'
import json, sys
bf16, fp8 = (json.load(open(path)) for path in sys.argv[1:3])
assert fp8["shape"]["kv_dtype"] == "fp8_e4m3" and "kv_dtype" not in bf16["shape"]
b, f = bf16["points"][0], fp8["points"][0]
assert f["min_dram_bytes"] == 2 * 16 * 32768 * 128 * 1 + 2 * 16 * 128 * 2 + 2 * 16 * 4, f
assert b["min_dram_bytes"] == 2 * 16 * 32768 * 128 * 2 + 2 * 16 * 128 * 2, b
assert f["flop"] == b["flop"]
mem_b, mem_f = bf16["memory"][0], fp8["memory"][0]
assert mem_f["kv_cache_bytes"] * 2 == mem_b["kv_cache_bytes"], (mem_b, mem_f)
PY
then
  fail "model --kv-dtype fp8_e4m3 -> exit $code, stderr: $(head -c 300 "$inputs/stderr")"
else pass; fi

# plot and report on the committed H200 report: charts are SVG documents, CSV has one row per point.
for chart in roofline throughput; do
  if "$bin" plot "$h200" --chart "$chart" -o "$inputs/$chart.svg" 2>"$inputs/stderr" &&
     head -c 4 "$inputs/$chart.svg" | grep -q "<svg" && tail -n 1 "$inputs/$chart.svg" | grep -q "</svg>"; then
    pass
  else
    fail "plot --chart $chart: $(head -c 300 "$inputs/stderr")"
  fi
done
rows=$("$bin" report "$h200" --format csv 2>/dev/null | wc -l)
if [[ $rows -eq 43 ]]; then pass; else
  fail "report --format csv printed $rows lines (want header + 42)"; fi
# report --format json: the report re-validated and re-derived, readable again by report itself.
if "$bin" report "$h200" --format json >"$inputs/normalized.json" 2>"$inputs/stderr" &&
   cmp -s <("$bin" report "$inputs/normalized.json" --format csv) <("$bin" report "$h200" --format csv) &&
   grep -q '"schema_version"' "$inputs/normalized.json"; then
  pass; else fail "report --format json: $(head -c 300 "$inputs/stderr")"; fi
# report --format bmf: the Bencher export of a saved report, one benchmark per point.
if python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not (len(d) == 42 and all("latency" in v or "throughput" in v for v in d.values())))' \
     < <("$bin" report "$h200" --format bmf 2>/dev/null); then
  pass; else fail "report --format bmf: not 42 benchmarks with a measure"; fi
if "$bin" report "$h200" --format md 2>/dev/null | grep -qE "FlashAttention's gain is significant (beyond L = |at every L compared, from L = )"; then
  pass; else fail "report --format md lacks the conclusion"; fi
if ! command -v nvidia-smi >/dev/null 2>&1; then
  run_case 3 "no CUDA GPU found (" - peaks
  run_case 3 "no CUDA GPU found (" - devices
  # devices --json: the same exit code and error line, and a JSON answer on stdout for scripts.
  "$bin" devices --json >"$inputs/stdout" 2>"$inputs/stderr"
  code=$?
  if [[ $code -eq 3 ]] && [[ $(wc -l <"$inputs/stderr") -eq 1 ]] &&
     grep -q '^error: no CUDA GPU found' "$inputs/stderr" &&
     python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["devices"] == [] and d["error"] == "no CUDA GPU found" and d["reason"]))' "$inputs/stdout" 2>/dev/null; then
    pass
  else
    fail "devices --json without a GPU -> exit $code: $(head -c 300 "$inputs/stdout") $(head -c 300 "$inputs/stderr")"
  fi
  # Without a loaded driver CUDA's own words are "driver version is insufficient": every command
  # says that no driver is loaded instead, and how to load one.
  if [[ ! -e /proc/driver/nvidia/version ]]; then
    for args in devices "devices --json" doctor sweep peaks; do
      # shellcheck disable=SC2086
      "$bin" $args >"$inputs/stdout" 2>"$inputs/stderr"
      if grep -q "no NVIDIA driver is loaded" "$inputs/stdout" "$inputs/stderr" &&
         grep -q "install or load the NVIDIA driver" "$inputs/stdout" "$inputs/stderr" &&
         ! grep -q "insufficient" "$inputs/stdout" "$inputs/stderr"; then
        pass
      else fail "$args without a driver: $(head -c 300 "$inputs/stderr") $(grep -i -m1 -e driver -e insufficient "$inputs/stdout")"; fi
    done
  fi
fi

# Derived values in a report are recomputed on reading: a hand-edited fraction of roof of 5 on
# every point never prints as 500% (without the above-roof flag it would be a silent > 100%).
if command -v python3 >/dev/null 2>&1; then
  python3 - "$h200" "$inputs/edited.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for point in report["points"]:
    if point.get("roofline"):
        point["roofline"]["fraction_of_roof"] = 5.0
        point["roofline"]["above_roof"] = False
json.dump(report, open(sys.argv[2], "w"))
PY
  for format in table md; do
    if "$bin" report "$inputs/edited.json" --format "$format" >"$inputs/stdout" 2>"$inputs/stderr" &&
       ! grep -qE '(^|[^0-9.])500(\.0+)? ?%' "$inputs/stdout"; then
      pass
    else
      fail "report --format $format of an edited report: $(grep -m1 -E '500' "$inputs/stdout") $(head -c 300 "$inputs/stderr")"
    fi
  done
else
  skip "edited report: no python3"
fi

# Stored values no sweep can write are refused on loading by report, plot and compare (exit 2,
# one line naming the point and the key), never judged: the worst is an "ok" point whose
# validation failed, which compare would call "same".
if command -v python3 >/dev/null 2>&1; then
  python3 - "$h200" "$inputs" <<'PY'
import json, sys
cases = {  # file name: (JSON pointer inside points[3], value)
    "median-negative": ("/timing/median_s", -1),
    "median-zero": ("/timing/median_s", 0),
    "median-null": ("/timing/median_s", None),
    "median-huge": ("/timing/median_s", 1e300),
    "median-above-max": ("/timing/median_s", 1.0),
    "sample-negative": ("/timing/samples_s/0", -1e-5),
    "samples-empty": ("/timing/samples_s", []),
    "seq-zero": ("/shape/seq_len", 0),
    "heads-negative": ("/shape/heads", -16),
    "op-unknown": ("/op", "softmax"),
    "version-empty": ("/version", ""),
    "dram-negative": ("/counters/total/dram_read_bytes", -1),
    "validation-failed": ("/validation/passed", False),
}
# A key twice in one object (json.dump cannot write that): the reader would keep the last.
text = open(sys.argv[1]).read()
first = text.index('"median_s":')
open(f"{sys.argv[2]}/bad-duplicate-key.json", "w").write(text[:first] + '"median_s": 1e-3, ' + text[first:])
for name, (pointer, value) in cases.items():
    report = json.load(open(sys.argv[1]))
    node = report["points"][3]
    keys = pointer.strip("/").split("/")
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node[key]
    last = keys[-1]
    node[int(last) if isinstance(node, list) else last] = value
    json.dump(report, open(f"{sys.argv[2]}/bad-{name}.json", "w"))
PY
  for name in median-negative median-zero median-null median-huge median-above-max sample-negative \
              samples-empty seq-zero heads-negative op-unknown version-empty dram-negative \
              validation-failed; do
    file="$inputs/bad-$name.json"
    run_case 2 "points[3]." - report "$file"
    run_case 2 "points[3]." - plot "$file" -o "$work/chart.svg"
    run_case 2 "points[3]." - compare "$h200" "$file"
  done
  run_case 2 "'softmax': allowed naive_attention" - report "$inputs/bad-op-unknown.json"
  run_case 2 "passed is false" - compare "$h200" "$inputs/bad-validation-failed.json"
  run_case 2 "points[3].timing.median_s" - report "$inputs/bad-median-huge.json"
  run_case 2 "key 'median_s' appears more than once in object 'points[0].timing'" - \
    report "$inputs/bad-duplicate-key.json"
  run_case 2 "key 'median_s' appears more than once in object 'points[0].timing'" - \
    compare "$h200" "$inputs/bad-duplicate-key.json"
  # The roofline is placed at the timing median: an edited time that contradicts it is refused,
  # and so is a point listed more than once (report and plot, as compare).
  python3 - "$h200" "$inputs" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
report["points"][3]["roofline"]["time_s"] *= 2
json.dump(report, open(f"{sys.argv[2]}/time-mismatch.json", "w"))
report = json.load(open(sys.argv[1]))
report["points"].append(report["points"][3])
json.dump(report, open(f"{sys.argv[2]}/twice.json", "w"))
report = json.load(open(sys.argv[1]))
report["points"][3]["tokens_per_s"] = 1.0
json.dump(report, open(f"{sys.argv[2]}/tokens-edited.json", "w"))
PY
  # tokens/s is the shape's tokens over the timing median: recomputed on reading, as the roofline's
  # rates are, so an edited figure is never shown (naive attention L = 4096: 4096 tokens / median).
  if "$bin" report "$inputs/tokens-edited.json" --format csv >"$inputs/tokens.csv" 2>"$inputs/stderr" &&
    python3 - "$inputs/tokens.csv" "$h200" <<'PY'
import csv, json, sys
row = list(csv.DictReader(open(sys.argv[1])))[3]
point = json.load(open(sys.argv[2]))["points"][3]
want = 4096 / point["timing"]["median_s"]
assert abs(float(row["tokens_per_s"]) - want) <= 1e-6 * want, (row["tokens_per_s"], want)
PY
  then
    pass
  else
    fail "report of an edited tokens_per_s shows the edit or fails: $(head -c 300 "$inputs/stderr")"
  fi
  run_case 2 "points[3].roofline.time_s" - report "$inputs/time-mismatch.json"
  run_case 2 "differs from timing.median_s" - plot "$inputs/time-mismatch.json" -o "$work/chart.svg"
  run_case 2 "appears twice (points[3] and points[42])" - report "$inputs/twice.json"
  run_case 2 "appears twice (points[3] and points[42])" - plot "$inputs/twice.json" -o "$work/chart.svg"
  # A point above its roof is an error (README "roofs"): report and plot still write their output,
  # the chart marks the point, and both exit 1 as a run with failed points.
  python3 - "$h200" "$inputs" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
roof = report["points"][3]["roofline"]["roof"]
roof["peak_flop_per_s"] = roof["peak_bytes_per_s"] = 1.0
json.dump(report, open(f"{sys.argv[2]}/above-roof.json", "w"))
PY
  "$bin" report "$inputs/above-roof.json" >"$inputs/stdout" 2>"$inputs/stderr"
  code=$?
  if [[ $code -eq 1 ]] && grep -q "ERROR: above roof!" "$inputs/stdout" &&
     grep -q "1 point above its roof" "$inputs/stderr"; then
    pass
  else fail "report of an above-roof point -> exit $code: $(head -c 300 "$inputs/stderr")"; fi
  "$bin" plot "$inputs/above-roof.json" -o "$inputs/above.svg" >/dev/null 2>"$inputs/stderr"
  code=$?
  if [[ $code -eq 1 ]] && grep -q 'class="above-roof"' "$inputs/above.svg"; then
    pass
  else fail "plot of an above-roof point -> exit $code: $(head -c 300 "$inputs/stderr")"; fi
  # A report of no points, or of no ok point, gives nothing to compare or plot.
  python3 - "$h200" "$inputs" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
report["points"] = []
json.dump(report, open(f"{sys.argv[2]}/no-points.json", "w"))
report = json.load(open(sys.argv[1]))
for p in report["points"]:
    p.update(status="skipped", reason="does not fit", version="", validation=None, timing=None,
             roofline=None, roofline_null_reason="point skipped")
json.dump(report, open(f"{sys.argv[2]}/all-skipped.json", "w"))
report = json.load(open(sys.argv[1]))
report["points"][3].update(status="skipped", reason="does not fit", version="", validation=None,
                           timing=None, roofline=None, roofline_null_reason="point skipped")
json.dump(report, open(f"{sys.argv[2]}/one-skipped.json", "w"))
PY
  run_case 2 "no-points.json has no points: nothing to report" - report "$inputs/no-points.json"
  # A report with a point not ok exits 1 in report and plot, as the sweep that wrote it did; the
  # output is still written.
  for args in "report $inputs/one-skipped.json" "report $inputs/all-skipped.json" \
              "plot $inputs/one-skipped.json -o $inputs/one-skipped.svg"; do
    # shellcheck disable=SC2086
    "$bin" $args >"$inputs/stdout" 2>"$inputs/stderr"
    code=$?
    if [[ $code -eq 1 ]] && grep -qE "^(1|42) of 42 points not ok \(first: [a-z_]+ at L = [0-9]+, skipped: does not fit\); exit 1$" "$inputs/stderr" &&
       { [[ -s "$inputs/stdout" ]] || [[ -s "$inputs/one-skipped.svg" ]]; }; then
      pass
    else fail "$args (a point not ok) -> exit $code: $(head -c 300 "$inputs/stderr")"; fi
  done
  run_case 2 "no-points.json has no points" - compare "$h200" "$inputs/no-points.json"
  run_case 2 "no-points.json has no points" - compare "$inputs/no-points.json" "$h200"
  run_case 2 "no point with status ok" - plot "$inputs/no-points.json" -o "$work/chart.svg"
  run_case 2 "no point with status ok" - plot "$inputs/all-skipped.json" -o "$work/chart.svg"
else
  skip "impossible stored values: no python3"
fi

# ---- a valid sweep without a GPU: exit 3, one line -----------------------------------------
if ! command -v nvidia-smi >/dev/null 2>&1; then
  run_case 3 "no CUDA GPU found (" "$work/report.json" sweep --seq 512 --ops gelu
  run_case 3 "no CUDA GPU" "$work/report.json" sweep --seq 512 --ops gelu --require-counters
  run_case 3 "no CUDA GPU found (" "$work/report.json" sweep --seq 512 --ops gelu,gemm \
    --kernel gemm=v1,flash_attention=v2 --kernel gelu=v2
fi

finish "cli_errors" "$skips skipped"
