#!/usr/bin/env bash
# End-to-end checks of `rooflinectl compare` and `sweep --baseline` on the built binary (no GPU
# needed): exit codes 0 / 1 / 2 on edited copies of the committed H200 report.
# Usage: test_cli_compare.sh BINARY REPORT.json
set -u
bin="$1"
report="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

# check WANT_CODE STDOUT_PATTERN STDERR_PATTERN ARGS...: run and check the exit code and that
# stdout and stderr match their patterns ("" matches anything).
check() {
  local want="$1" out_pattern="$2" err_pattern="$3"
  shift 3
  "$bin" "$@" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  if [[ $got -ne $want ]] ||
     { [[ -n $out_pattern ]] && ! grep -q -- "$out_pattern" "$work/stdout"; } ||
     { [[ -n $err_pattern ]] && ! grep -q -- "$err_pattern" "$work/stderr"; }; then
    echo "FAIL: rooflinectl $* -> exit $got (want $want)"
    echo "  stdout: $(head -c 300 "$work/stdout")"
    echo "  stderr: $(head -c 300 "$work/stderr")"
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}

# Identical reports: no regression, in every format.
check 0 "no regression" "" compare "$report" "$report"
check 0 "no regression" "" compare "$report" "$report" --format md
check 0 '"exit_code": 0' "" compare "$report" "$report" --format json
check 0 "no regression" "" compare "$report" "$report" --by roof --strict

# The GELU L=512 point's L2 bytes (one kernel: the value appears in kernels[0] and total) up 15%:
# the counter gate flags exactly that point.
python3 - "$report" "$work/l2_up.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for p in report["points"]:
    if p["op"] == "gelu" and p["shape"]["seq_len"] == 512:
        for k in p["counters"]["kernels"] + [p["counters"]["total"]]:
            k["l2_bytes"] *= 1.15
json.dump(report, open(sys.argv[2], "w"), indent=2)
PY
check 1 "1 regression" "" compare "$report" "$work/l2_up.json"
check 1 "slower: gelu gelu_v1_vectorized L=512 .*l2_bytes +15.0%" "" \
  compare "$report" "$work/l2_up.json"
check 0 "1 faster" "" compare "$work/l2_up.json" "$report"  # improvements never fail

# The same 15% L2 increase on a new kernel version: matched by operator and shape, counters shown
# but not gated (a different kernel may move more bytes), so no regression; the summary counts it.
python3 - "$work/l2_up.json" "$work/l2_up_v9.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for p in report["points"]:
    if p["op"] == "gelu":
        p["version"] = "gelu_v9_test"
json.dump(report, open(sys.argv[2], "w"), indent=2)
PY
check 0 "7 matched across a kernel version change" "" compare "$report" "$work/l2_up_v9.json"
check 0 "gelu_v1_vectorized -> gelu_v9_test" "" compare "$report" "$work/l2_up_v9.json"
check 0 "version changed: gelu_v1_vectorized -> gelu_v9_test; counters not gated" "" \
  compare "$report" "$work/l2_up_v9.json" --format json
check 0 '"version_changed": 7' "" compare "$report" "$work/l2_up_v9.json" --format json
check 0 "0 removed, 0 added" "" compare "$report" "$work/l2_up_v9.json" --strict

# Bad input: exit 2 with one error line naming the problem.
sed 's/"name": "NVIDIA H200"/"name": "NVIDIA H100 80GB HBM3"/' "$report" >"$work/h100.json"
check 2 "" "different GPUs.*--allow-different-gpu" compare "$report" "$work/h100.json"
check 0 "different GPUs" "" compare "$report" "$work/h100.json" --allow-different-gpu
sed 's/"schema_version": 1,/"schema_version": 3,/' "$report" >"$work/v3.json"
check 2 "" "schema_version 3" compare "$report" "$work/v3.json"
check 2 "" "no-such.json" compare "$report" "$work/no-such.json"
echo '{"schema_version": 1,' >"$work/broken.json"
check 2 "" "malformed JSON" compare "$work/broken.json" "$report"
check 2 "" "'5'" compare "$report" "$report" --time-threshold 5
check 2 "" "--counter-threshold" compare "$report" "$report" --counter-threshold 200%
check 2 "" "'xml'" compare "$report" "$report" --format xml
check 2 "" "'speed'" compare "$report" "$report" --by speed
check 2 "" "error:" compare "$report"
# A report without points would make every point "removed" (or "added") and pass the gate.
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r["points"] = []; json.dump(r, open(sys.argv[2], "w"))' \
  "$report" "$work/no-points.json"
check 2 "" "no-points.json has no points" compare "$report" "$work/no-points.json"
check 2 "" "no-points.json has no points" compare "$work/no-points.json" "$report"
# An "ok" point whose validation failed is refused, never judged "same".
python3 - "$report" "$work/failed-validation.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
report["points"][0]["validation"]["passed"] = False
json.dump(report, open(sys.argv[2], "w"))
PY
check 2 "" "points\[0\].validation.*passed is false" compare "$report" "$work/failed-validation.json"

# sweep --baseline reads and checks the baseline before anything touches a GPU: a bad one is
# exit 2 (not 3 for "no GPU") on any machine.
check 2 "" "no-such.json" sweep --ops gelu --seq 512 --baseline "$work/no-such.json"
check 2 "" "schema_version 3" sweep --ops gelu --seq 512 --baseline "$work/v3.json"
check 2 "" "--baseline" sweep --ops gelu --seq 512 --baseline "$report" --format json
check 2 "" "--time-threshold" sweep --ops gelu --seq 512 --baseline "$report" --time-threshold x
check 2 "" "no-points.json has no points" sweep --ops gelu --seq 512 --baseline "$work/no-points.json"

echo "cli_compare: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
