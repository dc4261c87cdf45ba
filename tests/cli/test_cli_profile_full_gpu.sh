#!/usr/bin/env bash
# `rooflinectl profile --mode full` on a GPU, on tests/programs/full_mode_target.cu: the FP32 FLOPs
# of its FFMA kernel (2·n·k) and of its in-place x += 1 kernel (n) within 1% of the known counts,
# the FFMA kernel placed on the fp32 roof, the program's own check of its in-place result passed
# under kernel replay (it exits 1 otherwise), its exit status passed through, and a program that
# fails in run 1 gets no run 2. Exits 77 (skipped) when no CUDA GPU is visible.
# Usage: test_cli_profile_full_gpu.sh BINARY FULL_MODE_TARGET
set -u
bin="$1"
target="$2"
source "$(dirname "$0")/harness.sh"

"$bin" devices >/dev/null 2>&1
if [[ $? -eq 3 ]]; then
  echo "no CUDA GPU visible: skipped"
  exit 77
fi

"$bin" profile --mode full -o "$work/full.json" -- "$target" >"$work/stdout" 2>"$work/stderr"
got=$?
if [[ $got -ne 0 ]]; then
  fail "profile --mode full -- full_mode_target -> exit $got (want 0): $(tail -c 600 "$work/stderr")"
elif ! grep -q "^full_mode_target: in-place and FFMA results correct" "$work/stdout"; then
  fail "full_mode_target did not report correct results: $(head -c 300 "$work/stdout")"
else
  pass
fi
cat "$work/stdout"
python3 - "$work/full.json" <<'PY' && pass || fail "profile --mode full: report content"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["config"]["mode"] == "full", r["config"]
assert r["flop_run"]["exit_code"] == 0 and r["flop_run"]["failure"] == "", r["flop_run"]
n, k = 1 << 22, 512
expected = {"ffma_chain": 2.0 * n * k, "add_one": float(n)}
seen = {name: 0 for name in expected}
for l in r["launches"]:
    name = next((e for e in expected if e in l["name"]), None)
    if name is None:
        continue
    seen[name] += 1
    assert l["flop_source"] and l["flop_source"].startswith("counted, run 2, kernel replay"), l
    t = l["counters"]["total"]
    flop = t["fp32_flop"]
    print(f"{name}: fp32_flop {flop:.6g}, expected {expected[name]:.6g} "
          f"(ratio {flop / expected[name]:.5f}); sm_throughput {t['sm_throughput_fraction']}; "
          f"DRAM {l['counters']['dram_bytes_isolated']:.4g} B; verdict {l['verdict']}")
    assert abs(flop / expected[name] - 1) <= 0.01, (name, flop, expected[name])
    roles = [s["role"] for s in l["counters"]["sessions"]]
    assert roles == ["bytes", "flops"], roles
    if name == "ffma_chain":
        assert l["roofline"] is not None and l["roofline"]["pipe"] == "fp32", l["roofline"]
        assert "fp32 SIMT" in l["verdict"], l["verdict"]
assert seen == {"ffma_chain": 2, "add_one": 2}, seen
for w in r["warnings"]:
    assert not w.startswith("full mode"), w
PY

# A program that fails in run 1 passes its status through and gets no run 2; the report is
# written all the same.
"$bin" profile --mode full --quiet -o "$work/failed.json" -- "$target" 3 >"$work/stdout" \
  2>"$work/stderr"
got=$?
if [[ $got -ne 3 ]]; then
  fail "profile --mode full -- full_mode_target 3 -> exit $got (want 3): $(tail -c 300 "$work/stderr")"
elif ! python3 - "$work/failed.json" <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
assert r["program"]["exit_code"] == 3, r["program"]
assert r["flop_run"]["failure"].startswith("run 2 not run: the program exited with 3"), r["flop_run"]
assert r["flop_run"]["wall_time_s"] == 0, r["flop_run"]
PY
  fail "profile --mode full of a failing program: report content"
else
  pass
fi

finish "cli profile full-mode gpu checks"
