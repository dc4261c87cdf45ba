#!/usr/bin/env bash
# `rooflinectl profile` without a GPU: bad input exits 2 with one error line and writes no report;
# with no CUDA GPU visible it exits 3 with the fix, before running the program. What it does on a
# GPU (exit status pass-through, the report of a program with no kernel): test_cli_profile_gpu.sh.
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
bad_input "--launch-count 0: must be >= 1 (leave it out to profile every launch)" --launch-count 0 -- true
bad_input "--launch-skip: '-3' is out of range (allowed: integers 0, 1, ...)" --launch-skip -3 -- true
bad_input "--sample-every: '-1' is out of range (allowed: integers 1, 2, ...)" --sample-every -1 -- true
bad_input "--launch-count: '1.5' is not a whole number" --launch-count 1.5 -- true
bad_input "invalid --mode 'triple': allowed single-pass, full" --mode triple -- true
bad_input "invalid --mode full with --no-counters" --mode full --no-counters -- true
bad_input "cannot run 'rfl-no-such-program': No such file or directory" -- rfl-no-such-program
bad_input "cannot run '$work': Permission denied" -- "$work"

# The report is JSON: another extension is refused before the program runs, nothing written.
"$bin" profile -o "$work/report.txt" -- true >"$work/stdout" 2>"$work/stderr"
got=$?
if [[ $got -ne 2 ]] || ! grep -qF ".json" "$work/stderr" || [[ $(wc -l <"$work/stderr") -ne 1 ]] ||
   [[ -e "$work/report.txt" ]]; then
  fail "profile -o report.txt -> exit $got, want 2 and one error line naming .json: $(head -c 300 "$work/stderr")"
else
  pass
fi

# No GPU visible (none here, or hidden by CUDA_VISIBLE_DEVICES): exit 3 with one error line that
# names the cause and the fix; the program is not run and no report is written.
CUDA_VISIBLE_DEVICES= "$bin" profile -o "$work/report.json" -- touch "$work/ran" \
  >"$work/stdout" 2>"$work/stderr"
got=$?
if [[ $got -ne 3 ]] || ! one_error_line "$work/stderr" ||
   ! grep -qF "no CUDA GPU found (" "$work/stderr" ||
   ! grep -qF "(the program was not run)" "$work/stderr" ||
   [[ -e "$work/ran" ]] || [[ -e "$work/report.json" ]]; then
  fail "profile with no GPU visible -> exit $got, want 3, one error line, program not run: $(head -c 300 "$work/stderr")"
else
  pass
fi

finish "cli profile checks"
