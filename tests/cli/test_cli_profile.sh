#!/usr/bin/env bash
# `rooflinectl profile` without a GPU: bad input exits 2 with one error line and writes no report;
# a program that makes no CUDA call gets a report saying it launched no kernel; the program's exit
# status (and 128 + a killing signal) passes through, with the report still written.
# Usage: test_cli_profile.sh BINARY
set -u
bin="$1"
source "$(dirname "$0")/harness.sh"

# bad_input PATTERN ARGS...: `profile -o $work/bad.json ARGS` refused (refused_run, exit 2), no
# report file.
bad_input() {
  local pattern="$1"
  shift
  refused_run 2 "$pattern" profile -o "$work/bad.json" "$@" || return
  if [[ -e "$work/bad.json" ]]; then
    fail "profile $* -> wrote a report"
  else
    pass
  fi
}

bad_input "'profile' needs its command argument" --
bad_input "cannot run '/nonexistent/program': No such file or directory" -- /nonexistent/program
bad_input "--kernel-regex '(': bad regular expression" --kernel-regex '(' -- true
bad_input "--nvtx-include 'dom@range/': NVTX domains" --nvtx-include 'dom@range/' -- true
bad_input "--sample-every 0: must be >= 1" --sample-every 0 -- true
bad_input "--launch-skip" --launch-skip -3 -- true

# The report is JSON: another extension is refused before the program runs, nothing written.
"$bin" profile -o "$work/report.txt" -- true >"$work/stdout" 2>"$work/stderr"
got=$?
if [[ $got -ne 2 ]] || ! grep -qF ".json" "$work/stderr" || [[ $(wc -l <"$work/stderr") -ne 1 ]] ||
   [[ -e "$work/report.txt" ]]; then
  fail "profile -o report.txt -> exit $got, want 2 and one error line naming .json: $(head -c 300 "$work/stderr")"
else
  pass
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

finish "cli profile checks"
