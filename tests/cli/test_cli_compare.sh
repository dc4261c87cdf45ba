#!/usr/bin/env bash
# End-to-end checks of `rooflinectl compare` and `sweep --baseline` on the built binary (no GPU
# needed): exit codes 0 / 1 / 2 on edited copies of the committed H200 report.
# Usage: test_cli_compare.sh BINARY REPORT.json
set -u
bin="$1"
report="$2"
source "$(dirname "$0")/harness.sh"

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

# CI outputs: JUnit XML (the regression a <failure>), -o FILE written atomically with the
# format's extension, a full stdout is an environment error (exit 3), not a pass.
check 1 '<failure message="slower: ' "" compare "$report" "$work/l2_up.json" --format junit
check 0 'failures="0" skipped="0"' "" compare "$report" "$report" --format junit
check 1 "" "written to $work/cmp.md" compare "$report" "$work/l2_up.json" --format md -o "$work/cmp.md"
if ! grep -q "1 regression" "$work/cmp.md"; then
  fail "compare -o did not write the comparison"
fi
check 2 "" "--format junit writes .xml" compare "$report" "$report" --format junit -o "$work/x.json"
# Without --format, -o's extension picks the writer (as report's -o does).
check 1 "" "written to $work/cmp2.md" compare "$report" "$work/l2_up.json" -o "$work/cmp2.md"
if ! grep -q '^| ' "$work/cmp2.md"; then
  fail "compare -o cmp2.md without --format did not write Markdown"
fi
check 1 "" "written to $work/cmp.xml" compare "$report" "$work/l2_up.json" -o "$work/cmp.xml"
if ! grep -q '<failure message="slower: ' "$work/cmp.xml"; then
  fail "compare -o cmp.xml without --format did not write JUnit XML"
fi
check 2 "" "invalid --output '$work/cmp.pdf': without --format the file name picks the writer" \
  compare "$report" "$report" -o "$work/cmp.pdf"
check 2 "" "invalid --output '$work/.md': needs a file name before .md" \
  compare "$report" "$report" -o "$work/.md"
check 0 "" "written to $work/CMP.MD" compare "$report" "$report" -o "$work/CMP.MD"
if ! grep -q '^| ' "$work/CMP.MD"; then
  fail "compare -o CMP.MD without --format did not write Markdown"
fi
"$bin" compare "$report" "$report" >/dev/full 2>"$work/stderr"
code=$?
if [[ $code -ne 3 ]]; then
  fail "compare > /dev/full -> exit $code (want 3)"
fi

# Bad input: exit 2 with one error line naming the problem.
sed 's/"name": "NVIDIA H200"/"name": "NVIDIA H100 80GB HBM3"/' "$report" >"$work/h100.json"
check 2 "" "different GPUs.*--allow-different-gpu" compare "$report" "$work/h100.json"
check 0 "different GPUs" "" compare "$report" "$work/h100.json" --allow-different-gpu
# merge's spelling is the same flag
check 0 "different GPUs" "" compare "$report" "$work/h100.json" --allow-different-gpus
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

# Power before verdicts: 5 samples per point over 42 points can never reach p < 0.01 after the
# Holm adjustment, so a 1.5x slower GEMM would pass as "inconclusive"; compare refuses (exit 2)
# naming the repetitions needed. At 10 samples (the default) the same slowdown is flagged.
python3 - "$report" "$work" <<'PY'
import json, statistics, sys
for count in (5, 10):
    for scale, name in ((1.0, "base"), (1.5, "gemm_slow")):
        report = json.load(open(sys.argv[1]))
        for p in report["points"]:
            t = p["timing"]
            t["samples_s"] = [s * (scale if p["op"] == "gemm" else 1.0) for s in t["samples_s"][:count]]
            t["median_s"] = statistics.median(t["samples_s"])
            t["min_s"], t["max_s"] = min(t["samples_s"]), max(t["samples_s"])
            if p["roofline"]:
                p["roofline"]["time_s"] = t["median_s"]
        report["config"]["repetitions"] = count
        json.dump(report, open(f"{sys.argv[2]}/{name}{count}.json", "w"))
PY
check 2 "" "cannot flag a regression.*42 points.*--repetitions 10 or more" \
  compare "$work/base5.json" "$work/gemm_slow5.json"
check 1 "7 slower" "" compare "$work/base10.json" "$work/gemm_slow10.json"
# sweep --baseline checks the same before the GPU is touched: the planned 7 GELU points with 3
# repetitions against a 10-sample base cannot reach it (7 x 2/C(13,3) = 0.049).
check 2 "" "cannot flag a regression.*--repetitions" \
  sweep --ops gelu --repetitions 3 --baseline "$(dirname "$0")/../../docs/examples/h200-sweep.json"
# A sweep none of whose points is in the baseline (here another batch) would run in full and then
# be refused by the comparison: refused before the GPU, naming the axis, nothing written.
check 2 "" "no point of the planned sweep matches one of the base report .*: batch: base 1, new 2" \
  sweep --batch 2 --baseline "$(dirname "$0")/../../docs/examples/h200-sweep.json" \
  -o "$work/unmatched.json"
if [[ -e "$work/unmatched.json" ]]; then fail "sweep --baseline unmatched: wrote a report"; else pass; fi

# Nothing matched (the same sweep at batch 2): exit 2 naming the axis that differs, never
# "42 removed, 42 added" and exit 0. One removed point: a warning, exit 0 (1 with --strict).
python3 - "$report" "$work" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for p in report["points"]:
    p["shape"]["batch"] = 2
report["config"]["batch"] = 2
json.dump(report, open(f"{sys.argv[2]}/batch2.json", "w"))
report = json.load(open(sys.argv[1]))
report["points"].pop()
json.dump(report, open(f"{sys.argv[2]}/one_removed.json", "w"))
PY
check 2 "" "no point of the new report matches.*batch: base 1, new 2" \
  compare "$report" "$work/batch2.json"
check 0 "1 point of the base report is missing" "" compare "$report" "$work/one_removed.json"
check 1 "" "" compare "$report" "$work/one_removed.json" --strict

# A new GEMM point above its roof (samples 5x faster: 1.64 PFLOP/s against a 925 TFLOP/s roof) is a
# measurement error that fails the gate with its reason, never "faster".
python3 - "$report" "$work/above_roof.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for p in report["points"]:
    if p["op"] == "gemm" and p["shape"]["seq_len"] == 32768:
        t = p["timing"]
        for k in ("median_s", "min_s", "max_s"):
            t[k] /= 5
        t["samples_s"] = [s / 5 for s in t["samples_s"]]
        p["roofline"]["time_s"] = t["median_s"]
json.dump(report, open(sys.argv[2], "w"))
PY
check 1 "failed: gemm .*L=32768.*above the .* roof" "" compare "$report" "$work/above_roof.json"

# Stored placement against raw data: an edited roofline.dram_bytes is refused by every reader.
python3 - "$report" "$work/edited_bytes.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
report["points"][3]["roofline"]["dram_bytes"] *= 0.5
json.dump(report, open(sys.argv[2], "w"))
PY
check 2 "" "points\[3\].*roofline.dram_bytes .* differs from dram_bytes" \
  compare "$report" "$work/edited_bytes.json"
check 2 "" "roofline.dram_bytes .* differs" report "$work/edited_bytes.json"
check 2 "" "roofline.dram_bytes .* differs" plot "$work/edited_bytes.json" -o "$work/c.svg"

# sweep --baseline reads and checks the baseline before anything touches a GPU: a bad one is
# exit 2 (not 3 for "no GPU") on any machine.
check 2 "" "no-such.json" sweep --ops gelu --seq 512 --baseline "$work/no-such.json"
check 2 "" "schema_version 3" sweep --ops gelu --seq 512 --baseline "$work/v3.json"
check 2 "" "--baseline" sweep --ops gelu --seq 512 --baseline "$report" --format json
check 2 "" "--time-threshold" sweep --ops gelu --seq 512 --baseline "$report" --time-threshold x
check 2 "" "no-points.json has no points" sweep --ops gelu --seq 512 --baseline "$work/no-points.json"
# A baseline of another schema, or one whose placements disagree with its raw data, is refused
# before the sweep (exit 2), not after it.
check 2 "" "schema_version 1 cannot be compared" sweep --ops gelu --seq 512 \
  --baseline "$(dirname "$0")/../unit/data/h200-sweep-first-run.json"
python3 - "$(dirname "$0")/../../docs/examples/h200-sweep.json" "$work/edited-bytes.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["points"][0]["roofline"]["dram_bytes"] *= 1.5
json.dump(r, open(sys.argv[2], "w"))
PY
check 2 "" "edited-bytes.json.*roofline.dram_bytes.*differs" sweep --ops gelu --seq 512 \
  --baseline "$work/edited-bytes.json"
# The DRAM-byte gate uses the roofline's bytes, write-back included: 50% more write-back on one
# point (+10% of its DRAM bytes, kept consistent) is a traffic regression, its in-window bytes unchanged.
python3 - "$(dirname "$0")/../../docs/examples/h200-sweep.json" "$work/more-writeback.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = next(p for p in r["points"] if p["op"] == "gelu" and p["shape"]["seq_len"] == 4096)
extra = 0.5 * p["counters"]["dram_writeback_bytes"]
p["counters"]["dram_writeback_bytes"] += extra
p["roofline"]["dram_bytes"] += extra
json.dump(r, open(sys.argv[2], "w"))
PY
check 1 "dram_bytes +" "" compare "$(dirname "$0")/../../docs/examples/h200-sweep.json" \
  "$work/more-writeback.json"

finish "cli_compare"
