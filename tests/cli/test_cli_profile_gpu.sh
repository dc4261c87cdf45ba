#!/usr/bin/env bash
# `rooflinectl profile` on a GPU: a program that makes no CUDA call gets a report saying it launched
# no kernel; the program's exit status (and 128 + a killing signal) passes through, with the report
# still written; the kernel table follows the program's own output. Exits 77 (skipped) when no
# CUDA GPU is visible (`devices` exits 3).
# Usage: test_cli_profile_gpu.sh BINARY
set -u
bin="$1"
source "$(dirname "$0")/harness.sh"

"$bin" devices >/dev/null 2>&1
if [[ $? -eq 3 ]]; then
  echo "no CUDA GPU visible: skipped"
  exit 77
fi

# ran STATUS ARGS...: the program's status passes through and the report exists and is parseable.
ran() {
  local want="$1"
  shift
  rm -f "$work/report.json"
  "$bin" profile --quiet -o "$work/report.json" -- "$@" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  if [[ $got -ne $want ]]; then
    fail "profile -- $* -> exit $got (want $want): $(head -c 300 "$work/stderr")"
  elif ! python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['kind']=='profile'" \
      "$work/report.json"; then
    fail "profile -- $* -> no parseable report"
  else
    pass
  fi
}

ran 0 true
python3 - "$work/report.json" <<'PY' || fail "profile -- true: report content"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["program"]["command"] == ["true"], r["program"]
assert r["program"]["exit_code"] == 0 and r["program"]["signal"] is None, r["program"]
assert r["summary"]["launches"] == 0, r["summary"]
assert "the program launched no CUDA kernel" in r["warnings"], r["warnings"]
PY
ran 5 sh -c 'exit 5'
ran 137 sh -c 'kill -9 $$'
python3 - "$work/report.json" <<'PY' || fail "profile of a killed program: signal not recorded"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["program"]["signal"] == 9 and r["program"]["exit_code"] is None, r["program"]
PY

# The table goes to stdout after the program's own output.
"$bin" profile -o "$work/report.json" -- echo program-output >"$work/stdout" 2>"$work/stderr"
if ! head -1 "$work/stdout" | grep -qx program-output ||
  ! grep -q "^rooflinectl profile: echo program-output (exit 0" "$work/stdout"; then
  fail "profile -- echo: stdout $(head -c 300 "$work/stdout")"
else
  pass
fi

finish "cli profile gpu checks"
