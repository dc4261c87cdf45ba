#!/usr/bin/env python3
"""Agreement of `rooflinectl profile` with `rooflinectl sweep` on the same kernels.

Input: a profile report of rooflinectl's own sweep (`rooflinectl profile -o PROFILE.json --
rooflinectl sweep --ops ... --seq ... --no-counters`) and a sweep report of the same points taken
with counters (`rooflinectl sweep --require-counters -o SWEEP.json`). The sweep wraps each timed
launch in the NVTX range "<op> L=<seq_len>", so a profile launch belongs to the point whose key is
its innermost NVTX range. For each point with profiled launches it prints the sweep's figure, the
median over those launches, and their ratio (profile / sweep) for: DRAM bytes of the isolated
launch (counters.dram_bytes_isolated), DRAM read bytes and write-back bytes, bf16 tensor FLOPs.
A figure that one side did not measure (null) prints as "-". Exit 2 when a file cannot be read or
no point matched.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

FIGURES = (
    ("DRAM isolated", lambda c: c.get("dram_bytes_isolated")),
    ("DRAM read", lambda c: (c.get("total") or {}).get("dram_read_bytes")),
    ("DRAM write-back", lambda c: c.get("dram_writeback_bytes")),
    ("bf16 tensor FLOP", lambda c: (c.get("total") or {}).get("tensor_bf16_flop")),
)


def median_or_none(values):
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def load(path: str, kind: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"error: cannot read {kind} report {path}: {e}", file=sys.stderr)
        sys.exit(2)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", help="profile report of rooflinectl's own sweep")
    parser.add_argument("sweep", help="sweep report of the same points, with counters")
    args = parser.parse_args()
    profile = load(args.profile, "profile")
    sweep = load(args.sweep, "sweep")
    if profile.get("kind") != "profile":
        print(f"error: {args.profile} is not a profile report (kind is not 'profile')", file=sys.stderr)
        return 2
    print(f"{'point':24} {'figure':18} {'sweep':>12} {'profile median':>15} {'ratio':>8}  launches")
    matched = 0
    for point in sweep.get("points", []):
        key = f"{point['op']} L={point['shape']['seq_len']}"
        launches = [l for l in profile.get("launches", [])
                    if l.get("nvtx") and l["nvtx"][-1] == key and l.get("profiled")]
        counters = point.get("counters") or {}
        if not launches or not counters:
            continue
        matched += 1
        for name, get in FIGURES:
            ours = get(counters)
            theirs = median_or_none(get(l["counters"]) for l in launches)
            ratio = f"{theirs / ours:.4f}" if ours and theirs is not None else "-"
            fmt = lambda v: "-" if v is None else f"{v:.4g}"
            print(f"{key:24} {name:18} {fmt(ours):>12} {fmt(theirs):>15} {ratio:>8}  {len(launches)}")
    if matched == 0:
        print("error: no sweep point has a profiled launch in its NVTX range", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
