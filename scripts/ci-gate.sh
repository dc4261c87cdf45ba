#!/usr/bin/env bash
# The CI performance gate in one call (docs/ci.md): sweep with --require-counters, compare against
# a baseline, write the Markdown summary, JUnit XML and JSON, append the summary to
# $GITHUB_STEP_SUMMARY when set, and exit with compare's code.
#
# Usage: scripts/ci-gate.sh [--bin PATH] [--baseline BASE.json] [--report NEW.json] [--out DIR]
#                           [-- SWEEP_FLAGS...]
#   --bin       rooflinectl binary (default build/release/rooflinectl)
#   --baseline  report to compare against; missing file: no comparison, the summary says so
#   --report    judge this existing report instead of sweeping (re-running a gate, tests)
#   --out       where report.json, summary.md, compare.xml and compare.json go (default
#               roofline-gate)
# Exit codes: 0 no regression; 1 a regression or a failed point; 2 bad input (bad flag, unreadable
# or mismatched baseline, too few repetitions for the gate); 3 environment (no GPU, counters not
# readable: see `rooflinectl doctor`). The summary is written in every case, exit 3 included.
set -u

bin=build/release/rooflinectl
baseline=""
report=""
out=roofline-gate
sweep_flags=()
while (($#)); do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --report) report="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; sweep_flags=("$@"); break ;;
    *) echo "error: ci-gate.sh: unknown argument '$1' (allowed: --bin, --baseline, --report, --out, -- SWEEP_FLAGS)" >&2
       exit 2 ;;
  esac
done
if [[ ! -x $bin ]]; then
  echo "error: ci-gate.sh: --bin '$bin' is not an executable; build it first (cmake --build --preset release)" >&2
  exit 3
fi
mkdir -p "$out" || exit 3
summary="$out/summary.md"

# publish CODE: appends the summary to the GitHub step summary (when set) and exits with CODE.
publish() {
  if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then cat "$summary" >>"$GITHUB_STEP_SUMMARY"; fi
  exit "$1"
}

# fence TITLE FILE: the summary for a run that stopped before a comparison.
fence() {
  { echo "$1"; echo; echo '```'; cat "$2"; echo '```'; } >"$summary"
}

sweep_code=0
if [[ -z $report ]]; then
  report="$out/report.json"
  "$bin" sweep --require-counters --output "$report" "${sweep_flags[@]}" \
    >"$out/sweep.txt" 2>"$out/sweep.log"
  sweep_code=$?
  case $sweep_code in
    0 | 1) ;;
    3) fence "**Roofline gate: not run** (exit 3, environment): the sweep could not start. Fix the runner (\`rooflinectl doctor\`); this is not a verdict on the code." "$out/sweep.log"
       publish 3 ;;
    *) fence "**Roofline gate: sweep failed** (exit $sweep_code)." "$out/sweep.log"
       publish "$sweep_code" ;;
  esac
fi

if [[ -z $baseline || ! -f $baseline ]]; then
  "$bin" report "$report" >"$out/table.txt" 2>&1
  fence "**Roofline gate: no baseline yet**${baseline:+ (\`$baseline\` not found)}: nothing to compare against; this run's report can become the baseline." "$out/table.txt"
  publish "$sweep_code"
fi

"$bin" compare "$baseline" "$report" --format md -o "$summary" 2>"$out/compare.log"
code=$?
if [[ $code -ne 0 && $code -ne 1 ]]; then
  fence "**Roofline gate: comparison refused** (exit $code)." "$out/compare.log"
  publish "$code"
fi
"$bin" compare "$baseline" "$report" --format junit -o "$out/compare.xml" 2>/dev/null
"$bin" compare "$baseline" "$report" --format json -o "$out/compare.json" 2>/dev/null
# A point that failed in the sweep fails the gate even when the comparison is clean.
if [[ $code -eq 0 && $sweep_code -eq 1 ]]; then code=1; fi
publish "$code"
