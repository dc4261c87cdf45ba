#!/usr/bin/env bash
# scripts/ci-gate.sh end to end on the committed H200 report (no GPU needed): exit codes 0 / 1 /
# 2 / 3, the summary written in every case (exit 3 included) and appended to
# $GITHUB_STEP_SUMMARY, the JUnit XML of a regression.
# Usage: test_ci_gate.sh BINARY SCRIPT REPORT.json
set -u
bin="$1"
gate="$2"
report="$3"
source "$(dirname "$0")/harness.sh"

# expect WANT_CODE OUT_DIR FILE PATTERN ARGS...: run the gate into OUT_DIR, check its exit code and
# that FILE (under OUT_DIR) matches PATTERN.
expect() {
  local want="$1" dir="$2" file="$3" pattern="$4"
  shift 4
  GITHUB_STEP_SUMMARY="$work/step-summary.md" "$gate" --bin "$bin" --out "$dir" "$@" \
    >/dev/null 2>"$work/stderr"
  local got=$?
  if [[ $got -ne $want ]] || ! grep -q -- "$pattern" "$dir/$file" 2>/dev/null; then
    fail "ci-gate.sh $* -> exit $got (want $want), $file ~ '$pattern'
  $file: $(head -c 300 "$dir/$file" 2>/dev/null)
  stderr: $(head -c 300 "$work/stderr")"
  else
    pass
  fi
}

# Every GELU sample 1.3x slower: the time gate's regression, in the summary and as JUnit failures.
python3 - "$report" "$work/gelu_slow.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for p in report["points"]:
    if p["op"] == "gelu":
        t = p["timing"]
        t["samples_s"] = [s * 1.3 for s in t["samples_s"]]
        for k in ("median_s", "min_s", "max_s"):
            t[k] *= 1.3
        p["roofline"]["time_s"] = t["median_s"]
json.dump(report, open(sys.argv[2], "w"))
PY
expect 0 "$work/same" summary.md "no regression" --baseline "$report" --report "$report"
expect 0 "$work/same" compare.xml 'failures="0"' --baseline "$report" --report "$report"
expect 1 "$work/slow" summary.md "regression" --baseline "$report" --report "$work/gelu_slow.json"
expect 1 "$work/slow" compare.xml 'classname="gelu".*<failure message="slower: ' \
  --baseline "$report" --report "$work/gelu_slow.json"
expect 1 "$work/slow" compare.json '"exit_code": 1' --baseline "$report" --report "$work/gelu_slow.json"
expect 0 "$work/first" summary.md "no baseline yet" --baseline "$work/none.json" --report "$report"
# A baseline that cannot be compared: exit 2 and the refusal in the summary.
sed 's/"name": "NVIDIA H200"/"name": "NVIDIA H100 80GB HBM3"/' "$report" >"$work/h100.json"
expect 2 "$work/refused" summary.md "comparison refused" --baseline "$work/h100.json" --report "$report"
# No GPU here: the sweep exits 3, and the summary says the gate did not run (never empty).
if ! nvidia-smi >/dev/null 2>&1; then
  expect 3 "$work/nogpu" summary.md "not run.*environment" --baseline "$report" -- --ops gelu
  if ! grep -q "not run" "$work/step-summary.md"; then
    fail "the exit-3 summary was not appended to GITHUB_STEP_SUMMARY"
  fi
fi
"$gate" --bin "$bin" --bogus >/dev/null 2>"$work/stderr"
if [[ $? -ne 2 ]] || ! grep -q "unknown argument '--bogus'" "$work/stderr"; then
  fail "an unknown argument is not exit 2"
fi

finish "ci_gate"
