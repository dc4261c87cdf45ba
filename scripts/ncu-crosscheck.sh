#!/usr/bin/env bash
# The cross-check on a GPU machine with Nsight Compute: rooflinectl's DRAM bytes and tensor
# FLOPs against ncu's (--cache-control all --clock-control none) at every point of a sweep, one
# ncu process per point. Prints a Markdown table; exit 0 only when every point is within the
# tolerances (read 1%, in-window write 2% or 0.5 MB, tensor FLOPs exact). --repeats N measures
# both sides N times, compares medians and shows each side's run-to-run spread. A point outside
# the tolerances is measured again under ncu --cache-control none (from the L2 state our own
# flush leaves) to tell a starting-state difference from a counting one.
#
# Usage: scripts/ncu-crosscheck.sh [--binary build/release/rooflinectl] [--ops LIST]
#        [--seq 512..32768] [--repeats N] [--work DIR] [--output FILE.md] [--ours-per-point]
#        [--resume]
# --ours-per-point runs our side as one process per point, as ncu's side runs.
# --resume goes on with a run cut short in the same --work, measuring only what is missing.
# Needs a built rooflinectl, ncu on PATH (or --ncu PATH) and python3. A benchmark-style run:
# never from CI (no GPU there).
set -euo pipefail
exec python3 "$(dirname "$0")/ncu_crosscheck.py" "$@"
