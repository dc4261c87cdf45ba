#!/usr/bin/env bash
# End-to-end CLI checks on the built binary (no GPU needed): every bad input exits 2 with one
# "error:" line naming the bad value, and writes no report file. Usage: test_cli_errors.sh BINARY
set -u
bin="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

# expect CODE PATTERN ARGS...: run, check the exit code, that stderr matches PATTERN, and that no
# report file appeared.
expect() {
  local want="$1" pattern="$2"
  shift 2
  local out="$work/report.json"
  rm -f "$out"
  "$bin" "$@" --output "$out" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  if [[ $got -ne $want ]] || ! grep -q -- "$pattern" "$work/stderr" || [[ -e $out ]] ||
     [[ -n "$(ls -A "$work" | grep -v -e '^stdout$' -e '^stderr$')" ]]; then
    echo "FAIL: rooflinectl $* -> exit $got (want $want), stderr: $(head -c 300 "$work/stderr")"
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}

expect 2 "'4096..512'" sweep --seq 4096..512
expect 2 "'abc'" sweep --seq abc
expect 2 "'0'" sweep --seq 0,512
expect 2 "''" sweep --seq 512,,1024
expect 2 "'1.5'" sweep --seq 1.5
expect 2 "power" sweep --seq 500..1000
expect 2 "'-512'" sweep --seq=-512
expect 2 "'fp32'" sweep --dtype fp32
expect 2 "'flashy'" sweep --ops flashy
expect 2 "kv-heads 5" sweep --heads 16 --kv-heads 5
expect 2 "head-dim\|head_dim" sweep --ops flash_attention --head-dim 72
expect 2 "'xml'" sweep --format xml
expect 2 "repetitions" sweep --repetitions 0
expect 2 "no-such.json" sweep --config "$work/no-such.json"
expect 2 "error:" sweep --no-such-flag
expect 2 "'bogus'" sweep --roof bogus
expect 2 "no-counters" sweep --roof counters --no-counters

expect 2 "h200-sxm" model --gpu h300
expect 2 "'flashy'" model --gpu h200-sxm --ops flashy
expect 2 "'xml'" model --gpu h200-sxm --format xml
expect 2 "gpu" model --seq 512

# `model` needs no GPU: the seeds' worked example (fp16, d = 128) comes out of the memory table,
# and --output writes the JSON.
"$bin" model --gpu h200-sxm --seq 4096,8192 --dtype fp16 --output "$work/model.json" \
  >"$work/stdout" 2>"$work/stderr"
code=$?
if [[ $code -ne 0 ]] || ! grep -q "33.55" "$work/stdout" || ! grep -q "268.44" "$work/stdout" ||
   ! grep -q '"model_schema_version"' "$work/model.json"; then
  echo "FAIL: model --gpu h200-sxm -> exit $code, stderr: $(head -c 300 "$work/stderr")"
  failures=$((failures + 1))
else passes=$((passes + 1)); fi
rm -f "$work/model.json"
h200="$(cd "$(dirname "$0")/../.." && pwd)/docs/examples/h200-sweep.json"
expect 2 "'bar'" plot "$h200" --chart bar
expect 2 "no-such.json" plot "$work/no-such.json"
expect 2 "'xml'" report "$h200" --format xml
expect 2 "'json'" report "$h200" --format json
expect 2 "no-such.json" report "$work/no-such.json" --format md

# A valid sweep on a machine without a GPU exits 3 with one line; with a GPU it is not run here.
if ! command -v nvidia-smi >/dev/null 2>&1; then
  expect 3 "no CUDA GPU" sweep --seq 512 --ops gelu
fi

# The report directory must exist: refused before any work.
"$bin" sweep --seq 512 --ops gelu --output "$work/missing/dir/r.json" >/dev/null 2>"$work/stderr"
code=$?
if [[ $code -ne 2 ]] || ! grep -q "does not exist" "$work/stderr"; then
  echo "FAIL: missing output directory -> exit $code"; failures=$((failures + 1))
else passes=$((passes + 1)); fi

# `peaks` has no --output: its checks run without expect's report-file check.
"$bin" peaks --format xml >/dev/null 2>"$work/stderr"
code=$?
if [[ $code -ne 2 ]] || ! grep -q "'xml'" "$work/stderr"; then
  echo "FAIL: peaks --format xml -> exit $code"; failures=$((failures + 1))
else passes=$((passes + 1)); fi
if ! command -v nvidia-smi >/dev/null 2>&1; then
  "$bin" peaks >/dev/null 2>"$work/stderr"
  code=$?
  if [[ $code -ne 3 ]] || ! grep -q "no CUDA device" "$work/stderr"; then
    echo "FAIL: peaks without a GPU -> exit $code"; failures=$((failures + 1))
  else passes=$((passes + 1)); fi
fi
# plot and report on the committed H200 report: charts are SVG documents, CSV has one row per point.
for chart in roofline throughput; do
  if "$bin" plot "$h200" --chart "$chart" -o "$work/$chart.svg" 2>"$work/stderr" &&
     head -c 4 "$work/$chart.svg" | grep -q "<svg" && tail -n 1 "$work/$chart.svg" | grep -q "</svg>"; then
    passes=$((passes + 1))
  else
    echo "FAIL: plot --chart $chart: $(head -c 300 "$work/stderr")"; failures=$((failures + 1))
  fi
  rm -f "$work/$chart.svg"
done
rows=$("$bin" report "$h200" --format csv 2>/dev/null | wc -l)
if [[ $rows -eq 43 ]]; then passes=$((passes + 1)); else
  echo "FAIL: report --format csv printed $rows lines (want header + 42)"; failures=$((failures + 1)); fi
if "$bin" report "$h200" --format md 2>/dev/null | grep -q "FlashAttention's gain is significant beyond L = "; then
  passes=$((passes + 1)); else echo "FAIL: report --format md lacks the conclusion"; failures=$((failures + 1)); fi

echo "cli_errors: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
