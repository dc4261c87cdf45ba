#!/usr/bin/env python3
"""Paged vs contiguous KV cache for decode attention, side by side on one GPU.

Runs `rooflinectl sweep --ops decode_attention` at bench_gpu.py's decode shape (B = 8, H = 32,
H_kv = 32 and 8, d = 128 or --head-dim, bf16) and L = 4096, 32768, once per layout: contiguous, then paged at
page sizes 16 and 128 (`--kv-layout paged --page-size P`), in rounds so that slow drift of the
GPU's clocks falls on every layout alike. For each point it reads timing.median_s from the
report and computes the K/V bandwidth, 2·B·H_kv·L·d·2 bytes / median time (the same bytes for
both layouts: the paged kernel reads the same K and V rows, plus a block table of
4·B·H_kv·ceil(L/P) bytes at most, under 0.1% of them). The ratio paged / contiguous of that
bandwidth (= contiguous time / paged time) is the row's result; the target is ≥ 0.95. With
--counters, the sweeps also read DRAM bytes from the counters and the table adds the counted
DRAM bandwidth of both.

Usage: scripts/bench_paged_decode.py [--rooflinectl build/release/rooflinectl]
           [--repetitions 30] [--rounds 2] [--head-dim 64|96|128|256] [--counters]
           [--output paged.json] [--dry-run]
Exit code: 0 every ratio met the target, 1 some did not, 3 a sweep failed or a point is
missing. A benchmark: run it on an otherwise idle GPU, never from CI.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from atomic_write import write_json_atomically

kBatch = 8
kHeads = 32
kKvHeads = (32, 8)  # GQA group 1 and 4
kHeadDim = 128  # the default of --head-dim
kHeadDims = (64, 96, 128, 256)  # the head dims decode_attention runs
kSeqs = (4096, 32768)
kPageSizes = (16, 128)
kElementBytes = 2
kTarget = 0.95  # paged K/V bandwidth ≥ 0.95× contiguous


def layouts() -> list:
    """(label, extra sweep flags) of each layout: contiguous first, then each page size."""
    out = [("contiguous", ("--kv-layout", "contiguous"))]
    out += [(f"paged/{p}", ("--kv-layout", "paged", "--page-size", str(p))) for p in kPageSizes]
    return out


def sweep_command(binary: str, kv_heads: int, layout_flags: tuple, repetitions: int,
                  counters: bool, head_dim: int = kHeadDim) -> list:
    return [binary, "sweep", "--ops", "decode_attention",
            "--seq", ",".join(str(s) for s in kSeqs), "--batch", str(kBatch),
            "--heads", str(kHeads), "--kv-heads", str(kv_heads), "--head-dim", str(head_dim),
            "--dtype", "bf16", *layout_flags, "--format", "json",
            "--repetitions", str(repetitions), *(() if counters else ("--no-counters",))]


def kv_bytes(kv_heads: int, seq: int, head_dim: int = kHeadDim) -> float:
    """K and V read once: 2·B·H_kv·L·d·e."""
    return 2.0 * kBatch * kv_heads * seq * head_dim * kElementBytes


def run_sweep(cmd: list, log_dir: str, name: str) -> dict:
    """Runs one sweep and returns its JSON report; raises RuntimeError with the reason."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    with open(os.path.join(log_dir, f"{name}.stderr.log"), "w") as log:
        log.write(done.stderr)
    if done.returncode not in (0, 1):  # 1: some point skipped or failed, the report is written
        tail = (done.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {tail}")
    with open(os.path.join(log_dir, f"{name}.json"), "w") as out:
        out.write(done.stdout)
    return json.loads(done.stdout)


def point_measurement(report: dict, seq: int) -> dict:
    """Median time, counted DRAM bytes (or None) and the layout the point says it used."""
    for point in report.get("points", []):
        shape = point.get("shape", {})
        if point.get("op") != "decode_attention" or shape.get("seq_len") != seq:
            continue
        timing = point.get("timing") or {}
        if point.get("status") != "ok" or timing.get("median_s") is None:
            raise RuntimeError(f"L={seq}: point {point.get('status')}: {point.get('reason')}")
        if not (point.get("validation") or {}).get("passed", False):
            raise RuntimeError(f"L={seq}: validation did not pass")
        total = (point.get("counters") or {}).get("total") or {}
        layout = shape.get("kv_layout", "contiguous")
        if layout == "paged":
            layout = f"paged/{shape.get('page_size')}"
        return {"median_s": float(timing["median_s"]), "dram_bytes": total.get("dram_bytes"),
                "layout": layout, "version": point.get("version")}
    raise RuntimeError(f"no decode_attention point at L={seq}")


def ratio_rows(results: dict, head_dim: int = kHeadDim) -> list:
    """One row per (H_kv, L, page size) at head_dim d: the median over rounds of each layout's
    time, the K/V bandwidths and the paged / contiguous ratio."""
    rows = []
    for kv_heads in kKvHeads:
        for seq in kSeqs:
            base = results[(kv_heads, seq, "contiguous")]
            base_s = statistics.median(m["median_s"] for m in base)
            for page in kPageSizes:
                runs = results[(kv_heads, seq, f"paged/{page}")]
                paged_s = statistics.median(m["median_s"] for m in runs)
                moved = kv_bytes(kv_heads, seq, head_dim)
                row = {"kv_heads": kv_heads, "group": kHeads // kv_heads, "seq_len": seq,
                       "head_dim": head_dim, "page_size": page, "contiguous_s": base_s, "paged_s": paged_s,
                       "contiguous_kv_bytes_per_s": moved / base_s,
                       "paged_kv_bytes_per_s": moved / paged_s,
                       "ratio": base_s / paged_s, "target": kTarget}
                row["met"] = row["ratio"] >= kTarget
                counted = [m["dram_bytes"] for m in base + runs]
                if all(c is not None for c in counted):
                    row["contiguous_dram_bytes_per_s"] = statistics.median(
                        m["dram_bytes"] / m["median_s"] for m in base)
                    row["paged_dram_bytes_per_s"] = statistics.median(
                        m["dram_bytes"] / m["median_s"] for m in runs)
                rows.append(row)
    return rows


def print_table(rows: list) -> None:
    print(f"d = {rows[0]['head_dim']}" if rows else "no rows")
    print(f"{'H_kv':>4} {'g':>2} {'L':>6} {'P':>4} {'contig ms':>10} {'paged ms':>10} "
          f"{'contig TB/s':>11} {'paged TB/s':>10} {'ratio':>6}  target")
    for r in rows:
        print(f"{r['kv_heads']:>4} {r['group']:>2} {r['seq_len']:>6} {r['page_size']:>4} "
              f"{r['contiguous_s'] * 1e3:>10.4f} {r['paged_s'] * 1e3:>10.4f} "
              f"{r['contiguous_kv_bytes_per_s'] / 1e12:>11.3f} "
              f"{r['paged_kv_bytes_per_s'] / 1e12:>10.3f} {r['ratio']:>6.3f}  "
              f"{'met' if r['met'] else 'MISSED'} (>= {kTarget})")
        if "paged_dram_bytes_per_s" in r:
            print(f"{'':>24} counted DRAM: contiguous "
                  f"{r['contiguous_dram_bytes_per_s'] / 1e12:.3f} TB/s, paged "
                  f"{r['paged_dram_bytes_per_s'] / 1e12:.3f} TB/s")
    print("ratio = paged K/V bandwidth / contiguous (= contiguous time / paged time); "
          "K/V bytes 2*B*H_kv*L*d*2 for both")


def parse_bench_args(description: str, per_shape_option: bool = False):
    """The options of both decode benchmarks (this one and bench_fp8_decode.py, which adds
    --per-shape with per_shape_option), parsed from the command line; None, after one error line,
    when --repetitions or --rounds is below 1."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rooflinectl", default="build/release/rooflinectl")
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--head-dim", type=int, choices=kHeadDims, default=kHeadDim,
                        help=f"head_dim d of every point (default {kHeadDim})")
    parser.add_argument("--counters", action="store_true",
                        help="also count DRAM bytes (slower: CUPTI passes per point)")
    parser.add_argument("--output", help="write the rows and the raw measurements as JSON")
    parser.add_argument("--work-dir", help="sweep reports and logs (default: a temp directory)")
    parser.add_argument("--dry-run", action="store_true", help="print the sweeps, run nothing")
    if per_shape_option:
        parser.add_argument("--per-shape", action="store_true",
                            help="one sweep per (H_kv, L), not one per H_kv over every L")
    args = parser.parse_args()
    if args.repetitions < 1 or args.rounds < 1:
        print("error: --repetitions and --rounds must be at least 1", file=sys.stderr)
        return None
    return args


def main() -> int:
    args = parse_bench_args(__doc__.splitlines()[0])
    if args is None:
        return 2

    plan = [(r, kv_heads, label, sweep_command(args.rooflinectl, kv_heads, flags,
                                               args.repetitions, args.counters, args.head_dim))
            for r in range(args.rounds) for kv_heads in kKvHeads for label, flags in layouts()]
    if args.dry_run:
        for _, _, _, cmd in plan:
            print(" ".join(cmd))
        return 0

    work_dir = args.work_dir or tempfile.mkdtemp(prefix="bench-paged-")
    os.makedirs(work_dir, exist_ok=True)
    results = {}
    try:
        for r, kv_heads, label, cmd in plan:
            name = f"round{r}-hkv{kv_heads}-{label.replace('/', '')}"
            print(f"[{name}] {' '.join(cmd)}", file=sys.stderr, flush=True)
            report = run_sweep(cmd, work_dir, name)
            for seq in kSeqs:
                m = point_measurement(report, seq)
                if m["layout"] != label:
                    raise RuntimeError(f"{name}: the report says layout {m['layout']}")
                results.setdefault((kv_heads, seq, label), []).append(m)
    except (RuntimeError, json.JSONDecodeError) as error:
        print(f"error: {error} (logs in {work_dir})", file=sys.stderr)
        return 3

    rows = ratio_rows(results, args.head_dim)
    print_table(rows)
    if args.output:
        raw = [{"kv_heads": k[0], "seq_len": k[1], "layout": k[2], "rounds": v}
               for k, v in results.items()]
        write_json_atomically(args.output,
                              {"schema": "rooflinectl-bench-paged-decode/1", "rows": rows, "measurements": raw,
                               "work_dir": work_dir}, indent=2)
    print(f"reports and logs: {work_dir}", file=sys.stderr)
    return 0 if all(r["met"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
