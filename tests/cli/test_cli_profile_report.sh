#!/usr/bin/env bash
# report and plot on a saved `rooflinectl profile` report (the committed H200 profile of
# the PyTorch transformer block): report prints the table `profile` printed and re-writes the JSON
# byte for byte; plot draws the kernels' roofline; the formats and commands that do not read
# profile reports exit 2 with one line saying so and write nothing.
# Usage: test_cli_profile_report.sh BINARY EXAMPLES_DIR
set -u
bin="$1"
profile="$2/h200-profile-block.json"
table="$2/h200-profile-block.txt"
sweep="$2/h200-sweep.json"
source "$(dirname "$0")/harness.sh"

# refused PATTERN ARGS...: refused_run with exit 2, and nothing written to $work/out.*.
refused() {
  local pattern="$1"
  shift
  rm -f "$work"/out.*
  refused_run 2 "$pattern" "$@" || return
  if compgen -G "$work/out.*" >/dev/null; then
    fail "$* -> wrote $(ls "$work"/out.*)"
  else
    pass
  fi
}

# ok ARGS...: exit 0.
ok() {
  "$bin" "$@" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  [[ $got -eq 0 ]] || fail "$* -> exit $got (want 0): $(head -c 300 "$work/stderr")"
  return $got
}

# The table: what `profile` printed on the H200 (the saved console output from its first line on,
# less the "written to" line that went to stderr).
sed -n '/^rooflinectl profile:/,$p' "$table" | grep -v '^profile report written to ' >"$work/want.txt"
if ok report "$profile"; then
  if cmp -s "$work/stdout" "$work/want.txt"; then pass; else
    fail "report table differs from $table: $(diff "$work/want.txt" "$work/stdout" | head -5)"
  fi
fi
if ok report "$profile" --format table -o "$work/table.txt"; then
  if cmp -s "$work/table.txt" "$work/want.txt" && grep -q "written to" "$work/stderr"; then
    pass
  else
    fail "report --format table -o: file differs or no 'written to' line"
  fi
fi

# JSON: the report read back and written again is the same text.
if ok report "$profile" --format json; then
  if cmp -s "$work/stdout" "$profile"; then pass; else
    fail "report --format json differs from $profile"
  fi
fi
if ok report "$profile" --format json -o "$work/copy.json"; then
  if cmp -s "$work/copy.json" "$profile"; then pass; else
    fail "report --format json -o differs from $profile"
  fi
fi

for format in md csv bmf; do
  refused "--format $format: $profile is a \`rooflinectl profile\` report; allowed for profile reports: table, json" \
    report "$profile" --format "$format"
done
refused "allowed for profile reports: table, json" report "$profile" --format md -o "$work/out.md"

# The chart: an SVG with one marker per placed kernel and the unplaced ones listed.
if ok plot "$profile" -o "$work/chart.svg"; then
  if python3 - "$work/chart.svg" <<'PY'; then pass; else fail "plot: chart content"; fi
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
def cls(name):
    return [e for e in root.iter() if e.get("class") == name]
assert root.tag.endswith("svg"), root.tag
assert len(cls("kernel")) == 7, len(cls("kernel"))
assert len(cls("unplaced-kernel")) == 16, len(cls("unplaced-kernel"))
assert len(cls("roof-hbm")) == 1 and len(cls("roof")) == 1
assert "bf16 tensor FLOPs" in cls("bases")[0].text, cls("bases")[0].text
PY
  grep -q "roofline chart of 23 kernels written to $work/chart.svg (16 without a placement" \
    "$work/stderr" || fail "plot: stderr $(head -c 300 "$work/stderr")"
fi
refused "--chart throughput: $profile is a \`rooflinectl profile\` report, which has only --chart roofline" \
  plot "$profile" --chart throughput -o "$work/out.svg"

# sweep --baseline refuses a profile report before the GPU is touched, naming it (compare of two
# profiles: test_cli_profile_compare.sh).
refused "$profile is a \`rooflinectl profile\` report; a sweep baseline must be a sweep report" \
  sweep --ops gelu --seq 512 --baseline "$profile"

# A full-mode report (the block example edited: minor version 1, mode full, run 2's outcome and
# each launch's FLOP source, as `profile --mode full` writes them) reads, prints, re-writes byte
# for byte, plots and compares against the single-pass example (same schema version 1).
python3 - "$profile" "$work/full.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
full = {}
for key, value in r.items():
    full[key] = value
    if key == "schema_version":
        full["schema_minor_version"] = 1
    if key == "program":
        full["flop_run"] = {"exit_code": 0, "signal": None, "wall_time_s": 12.5, "complete": True,
                            "failure": ""}
full["config"]["mode"] = "full"
for l in full["launches"]:
    rest = {k: l.pop(k) for k in ["roofline"] + (["roofline_null_reason"] if "roofline_null_reason" in l else [])}
    if l["profiled"]:
        l["flop_source"] = "counted, run 2, kernel replay, 11 passes"
    else:
        l["flop_source"] = None
        l["flop_null_reason"] = "not profiled: " + l.get("not_profiled_reason", "")
    l.update(rest)
json.dump(full, open(sys.argv[2], "w"), indent=2, ensure_ascii=False)
open(sys.argv[2], "a").write("\n")
PY
# Python writes some doubles with other digits than rooflinectl does: compare rooflinectl's own
# rewrite with its rewrite of that.
if ok report "$work/full.json" --format json -o "$work/full-1.json" &&
   ok report "$work/full-1.json" --format json; then
  if cmp -s "$work/stdout" "$work/full-1.json" && grep -q '"mode": "full"' "$work/stdout" &&
     grep -q '"flop_source": "counted, run 2, kernel replay, 11 passes"' "$work/stdout"; then pass; else
    fail "report --format json of a full-mode report: $(diff "$work/full-1.json" "$work/stdout" | head -5)"
  fi
fi
if ok report "$work/full.json"; then
  if grep -q "^full mode: FLOPs from run 2 (exit 0; 12.50 s wall, kernel replay)" "$work/stdout" &&
     grep -q "FLOP/B, TFLOP/s and roof from the FLOPs of every pipe" "$work/stdout"; then pass; else
    fail "report table of a full-mode report: $(head -c 300 "$work/stdout")"
  fi
fi
if ok plot "$work/full.json" -o "$work/full.svg"; then pass; fi
if ok compare "$profile" "$work/full.json" --min-share 5%; then pass; fi

# A kernel above the DRAM slope by write-back that moved after its window is explained, not an
# error: the committed H100 full-mode block profile has three element-wise adds at 1.009x the
# datasheet DRAM slope on the write-back-inclusive basis, 83% of it on their in-window bytes.
# report exits 0, their roof cells end in "~", their verdicts and the footer say why.
wb="$(dirname "$profile")/h100-profile-block-full.json"
"$bin" report "$wb" >"$work/stdout" 2>"$work/stderr"
got=$?
if [[ $got -eq 0 ]] && [[ $(grep -c "%~ .*above the DRAM slope by write-back after the kernel, in window 83% of the DRAM roof" "$work/stdout") -eq 3 ]] &&
   grep -q "~ after the roof: above the DRAM slope by write-back" "$work/stdout" &&
   ! grep -q "ERROR: above roof" "$work/stdout" && [[ ! -s "$work/stderr" ]]; then pass; else
  fail "report of a profile with write-back after the window: exit $got; $(head -c 400 "$work/stderr")"
fi

# A kernel above its roof is never silent, as for a sweep point and as `compare` fails it: the
# same profile with the adds' DRAM roof lowered to 2.5 TB/s, below even their in-window 2.78 TB/s.
# report: the table row says so and exit 1 with one stderr line naming the count, the first
# kernel and that deferred write-back does not explain it; plot draws the chart and exits 1.
above="$work/above.json"
python3 - "$wb" "$above" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for section in ("kernels", "launches"):
    for entry in report[section]:
        if "CUDAFunctor_add" in entry["name"] and entry.get("roofline"):
            entry["roofline"]["roof"]["peak_bytes_per_s"] = 2.5e12
json.dump(report, open(sys.argv[2], "w"))
PY
"$bin" report "$above" >"$work/stdout" 2>"$work/stderr"
got=$?
if [[ $got -eq 1 ]] && [[ $(grep -c "ERROR: above roof!" "$work/stdout") -eq 3 ]] &&
   grep -q "^3 kernels above their roof (first: .*CUDAFunctor_add.*1.352x.*not explained by deferred write-back.*; exit 1$" "$work/stderr" &&
   [[ $(wc -l <"$work/stderr") -eq 1 ]]; then pass; else
  fail "report of a profile with kernels above their roof: exit $got; $(head -c 400 "$work/stderr")"
fi
"$bin" plot "$above" -o "$work/above.svg" >"$work/stdout" 2>"$work/stderr"
got=$?
if [[ $got -eq 1 ]] && [[ -s "$work/above.svg" ]] && grep -q "^3 kernels above their roof" "$work/stderr"; then
  pass
else
  fail "plot of a profile with kernels above their roof: exit $got; $(head -c 300 "$work/stderr")"
fi

finish "cli profile report checks"
