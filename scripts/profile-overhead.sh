#!/usr/bin/env bash
# The cost of `rooflinectl profile` against Nsight Compute on the same program, measured side by
# side in one run: the program alone, under `rooflinectl profile` (single-pass mode, every launch
# profiled) and under `ncu` collecting the same metrics on every launch with its own cache
# flush (--cache-control all --clock-control none). Prints the three wall times and the ratio
# (rooflinectl's added time over ncu's).
#
#   scripts/profile-overhead.sh [--rooflinectl BIN] [--ncu NCU] -- CMD ARGS...
set -euo pipefail

rooflinectl=build/release/rooflinectl
ncu=ncu
while [[ $# -gt 0 && "$1" != "--" ]]; do
  case "$1" in
    --rooflinectl) rooflinectl="$2"; shift 2 ;;
    --ncu) ncu="$2"; shift 2 ;;
    *) echo "profile-overhead.sh: unknown option '$1' (allowed: --rooflinectl BIN, --ncu NCU, then -- CMD ARGS...)" >&2; exit 2 ;;
  esac
done
[[ "${1:-}" == "--" ]] || { echo "profile-overhead.sh: expected -- CMD ARGS..." >&2; exit 2; }
shift
[[ $# -gt 0 ]] || { echo "profile-overhead.sh: no program after --" >&2; exit 2; }

# The metrics of rooflinectl's single-pass byte set (src/cupti/metrics.cpp, byte_metric_candidates).
metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_bytes.sum,sm__cycles_elapsed.avg.per_second,dram__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__inst_executed_pipe_tensor.sum

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" > "$work/out.txt" 2>&1 || { echo "profile-overhead.sh: '$*' failed:" >&2; tail -5 "$work/out.txt" >&2; exit 1; }
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.2f}')"
}

alone=$(seconds "$@")
ours=$(seconds "$rooflinectl" profile --quiet -o "$work/profile.json" -- "$@")
launches=$(python3 -c "import json; r=json.load(open('$work/profile.json')); print(r['summary']['launches'], r['summary']['profiled_launches'])")
theirs=$(seconds "$ncu" --cache-control all --clock-control none --metrics "$metrics" --csv --log-file "$work/ncu.csv" "$@")
python3 - "$alone" "$ours" "$theirs" "$launches" <<'PY'
import sys
alone, ours, theirs = map(float, sys.argv[1:4])
launches = sys.argv[4]
print(f"program alone:        {alone:8.2f} s")
print(f"rooflinectl profile:  {ours:8.2f} s  (+{ours - alone:.2f} s; launches, profiled: {launches})")
print(f"ncu, same metrics:    {theirs:8.2f} s  (+{theirs - alone:.2f} s)")
if theirs > alone:
    print(f"rooflinectl adds {(ours - alone) / (theirs - alone):.3f} of what ncu adds; "
          f"{ours / alone:.2f}x the program's own wall time")
PY
