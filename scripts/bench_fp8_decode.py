#!/usr/bin/env python3
"""FP8 E4M3 vs bf16 KV cache for decode attention, side by side on one GPU.

Runs `rooflinectl sweep --ops decode_attention --kv-dtype auto,fp8_e4m3` at bench_gpu.py's decode
shape (B = 8, H = 32, H_kv = 32 and 8, d = 128 or --head-dim, bf16 Q and O) and L = 4096 ..
131072 (powers of two): one sweep runs both KV dtypes at each shape, the bf16 cache (auto) and
then the FP8 one, and the sweeps repeat in rounds so that slow drift of the GPU's clocks falls
on both alike. For each point it reads timing.median_s from the report; the row's result is the
throughput ratio FP8 / bf16 = bf16 time / FP8 time (decode tokens per second at the same
shape), with the target ≥ 1.8 at L ≥ 32768 (below it the fixed costs weigh more and the row is shown, not judged). Also
shown: the effective K/V bandwidth of each, 2·B·H_kv·L·d·e_kv / time (e_kv = 2 and 1), and with
--counters the counted DRAM bytes of both and their ratio (the analytic one is 0.5 plus the
scales and q, o). Both points must have validated: the FP8 one against the reference on its
dequantized K and V; its quantization error (validation.quantization_error) is printed, and each
dtype's SM clock as the sweep measured it right after timing the point (timing.sm_clock_hz; the
clocks are not locked), so that a ratio moved by a clock that dropped under load shows it.
--per-shape runs one sweep per (H_kv, L) instead of one per H_kv over every L (both KV dtypes
still side by side in it): on the H100 the six-length sweeps gave FP8 16-17% slower than sweeps
of one shape (1.63-1.66x against 1.89-1.93x at g = 1, docs/perf-notes.md), cause not established.

Usage: scripts/bench_fp8_decode.py [--rooflinectl build/release/rooflinectl]
           [--repetitions 30] [--rounds 2] [--head-dim 64|96|128|256] [--counters]
           [--per-shape] [--output fp8.json] [--dry-run]
Exit code: 0 every judged ratio met the target, 1 some did not, 3 a sweep failed or a point is
missing. A benchmark: run it on an otherwise idle GPU, never from CI.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile

from atomic_write import write_json_atomically
from bench_paged_decode import parse_bench_args, run_sweep

kBatch = 8
kHeads = 32
kKvHeads = (32, 8)  # GQA group 1 and 4
kHeadDim = 128  # the default of --head-dim (bench_paged_decode.parse_bench_args)
kSeqs = (4096, 8192, 16384, 32768, 65536, 131072)
kKvDtypes = ("auto", "fp8_e4m3")
kKvElementBytes = {"auto": 2, "fp8_e4m3": 1}
kTarget = 1.8  # FP8 throughput ≥ 1.8× bf16's ...
kJudgedFrom = 32768  # ... at L ≥ 32768


def sweep_command(binary: str, kv_heads: int, repetitions: int, counters: bool,
                  head_dim: int = kHeadDim, seqs: tuple = kSeqs) -> list:
    return [binary, "sweep", "--ops", "decode_attention",
            "--seq", ",".join(str(s) for s in seqs), "--batch", str(kBatch),
            "--heads", str(kHeads), "--kv-heads", str(kv_heads), "--head-dim", str(head_dim),
            "--dtype", "bf16", "--kv-dtype", ",".join(kKvDtypes), "--format", "json",
            "--repetitions", str(repetitions), *(() if counters else ("--no-counters",))]


def sweep_plan(binary: str, rounds: int, repetitions: int, counters: bool, head_dim: int,
               per_shape: bool) -> list:
    """The sweeps in the order they run, each (name, command, (H_kv, its lengths)): per round one
    sweep per H_kv over every L, or with per_shape one per (H_kv, L)."""
    plan = []
    for r in range(rounds):
        for kv_heads in kKvHeads:
            groups = [(seq,) for seq in kSeqs] if per_shape else [kSeqs]
            for seqs in groups:
                name = f"round{r}-hkv{kv_heads}" + (f"-L{seqs[0]}" if per_shape else "")
                cmd = sweep_command(binary, kv_heads, repetitions, counters, head_dim, seqs)
                plan.append((name, cmd, (kv_heads, seqs)))
    return plan


def kv_bytes(kv_heads: int, seq: int, kv_dtype: str, head_dim: int = kHeadDim) -> float:
    """K and V read once: 2·B·H_kv·L·d·e_kv."""
    return 2.0 * kBatch * kv_heads * seq * head_dim * kKvElementBytes[kv_dtype]


def point_measurement(report: dict, seq: int, kv_dtype: str) -> dict:
    """Median time, counted DRAM bytes (or None), version, quantization error and SM clock (or
    None) of the point at L = seq whose KV dtype is kv_dtype (a report leaves "kv_dtype" out for
    auto)."""
    for point in report.get("points", []):
        shape = point.get("shape", {})
        if (point.get("op") != "decode_attention" or shape.get("seq_len") != seq
                or shape.get("kv_dtype", "auto") != kv_dtype):
            continue
        where = f"L={seq} kv_dtype={kv_dtype}"
        timing = point.get("timing") or {}
        if point.get("status") != "ok" or timing.get("median_s") is None:
            raise RuntimeError(f"{where}: point {point.get('status')}: {point.get('reason')}")
        validation = point.get("validation") or {}
        if not validation.get("passed", False):
            raise RuntimeError(f"{where}: validation did not pass: {validation.get('detail')}")
        total = (point.get("counters") or {}).get("total") or {}
        return {"median_s": float(timing["median_s"]), "dram_bytes": total.get("dram_bytes"),
                "version": point.get("version"),
                "quantization_error": validation.get("quantization_error"),
                "sm_clock_hz": timing.get("sm_clock_hz")}
    raise RuntimeError(f"no decode_attention point at L={seq} with kv_dtype {kv_dtype}")


def ratio_rows(results: dict, head_dim: int = kHeadDim) -> list:
    """One row per (H_kv, L) at head_dim d: the median over rounds of each KV dtype's time, their
    K/V bandwidths and the FP8 / bf16 throughput ratio, judged at L ≥ kJudgedFrom."""
    rows = []
    for kv_heads in kKvHeads:
        for seq in kSeqs:
            bf16 = results[(kv_heads, seq, "auto")]
            fp8 = results[(kv_heads, seq, "fp8_e4m3")]
            bf16_s = statistics.median(m["median_s"] for m in bf16)
            fp8_s = statistics.median(m["median_s"] for m in fp8)
            row = {"kv_heads": kv_heads, "group": kHeads // kv_heads, "seq_len": seq,
                   "head_dim": head_dim, "bf16_s": bf16_s, "fp8_s": fp8_s,
                   "bf16_kv_bytes_per_s": kv_bytes(kv_heads, seq, "auto", head_dim) / bf16_s,
                   "fp8_kv_bytes_per_s": kv_bytes(kv_heads, seq, "fp8_e4m3", head_dim) / fp8_s,
                   "ratio": bf16_s / fp8_s, "target": kTarget, "judged": seq >= kJudgedFrom,
                   "fp8_quantization_error": fp8[-1]["quantization_error"]}
            row["met"] = row["ratio"] >= kTarget if row["judged"] else None
            for name, measured in (("bf16", bf16), ("fp8", fp8)):
                clocks = [m.get("sm_clock_hz") for m in measured]
                row[f"{name}_sm_clock_hz"] = (statistics.median(clocks)
                                              if all(c is not None for c in clocks) else None)
            counted_bf16 = [m["dram_bytes"] for m in bf16]
            counted_fp8 = [m["dram_bytes"] for m in fp8]
            if all(c is not None for c in counted_bf16 + counted_fp8):
                row["dram_bytes_ratio"] = (statistics.median(counted_fp8) /
                                           statistics.median(counted_bf16))
            rows.append(row)
    return rows


def print_table(rows: list) -> None:
    print(f"d = {rows[0]['head_dim']}" if rows else "no rows")
    print(f"{'H_kv':>4} {'g':>2} {'L':>6} {'bf16 ms':>9} {'fp8 ms':>9} {'bf16 TB/s':>9} "
          f"{'fp8 TB/s':>8} {'ratio':>6}  target")
    for r in rows:
        verdict = ("met" if r["met"] else "MISSED") if r["judged"] else "not judged"
        print(f"{r['kv_heads']:>4} {r['group']:>2} {r['seq_len']:>6} {r['bf16_s'] * 1e3:>9.4f} "
              f"{r['fp8_s'] * 1e3:>9.4f} {r['bf16_kv_bytes_per_s'] / 1e12:>9.3f} "
              f"{r['fp8_kv_bytes_per_s'] / 1e12:>8.3f} {r['ratio']:>6.3f}  {verdict} "
              f"(>= {kTarget} at L >= {kJudgedFrom})")
        details = []
        if r.get("bf16_sm_clock_hz") is not None and r.get("fp8_sm_clock_hz") is not None:
            details.append(f"SM clock bf16 {r['bf16_sm_clock_hz'] / 1e9:.3f} GHz, fp8 "
                           f"{r['fp8_sm_clock_hz'] / 1e9:.3f} GHz")
        if "dram_bytes_ratio" in r:
            details.append(f"counted DRAM bytes fp8 / bf16 {r['dram_bytes_ratio']:.3f}")
        q = r["fp8_quantization_error"]
        if q:
            details.append(f"quantization error max {q.get('max_abs_difference'):.3g}, rms "
                           f"{q.get('rms_difference'):.3g} (max |O| {q.get('max_abs_reference'):.3g})")
        if details:
            print(f"{'':>24} " + "; ".join(details))
    print("ratio = FP8 throughput / bf16 (= bf16 time / FP8 time); K/V bytes 2*B*H_kv*L*d*e_kv, "
          "e_kv = 2 (bf16) and 1 (fp8_e4m3)")


def main() -> int:
    args = parse_bench_args(__doc__.splitlines()[0], per_shape_option=True)
    if args is None:
        return 2

    plan = sweep_plan(args.rooflinectl, args.rounds, args.repetitions, args.counters,
                      args.head_dim, args.per_shape)
    if args.dry_run:
        for _, cmd, _ in plan:
            print(" ".join(cmd))
        return 0

    work_dir = args.work_dir or tempfile.mkdtemp(prefix="bench-fp8-")
    os.makedirs(work_dir, exist_ok=True)
    results = {}
    try:
        for name, cmd, (kv_heads, seqs) in plan:
            print(f"[{name}] {' '.join(cmd)}", file=sys.stderr, flush=True)
            report = run_sweep(cmd, work_dir, name)
            for seq in seqs:
                for kv_dtype in kKvDtypes:
                    m = point_measurement(report, seq, kv_dtype)
                    results.setdefault((kv_heads, seq, kv_dtype), []).append(m)
    except (RuntimeError, json.JSONDecodeError) as error:
        print(f"error: {error} (logs in {work_dir})", file=sys.stderr)
        return 3

    rows = ratio_rows(results, args.head_dim)
    print_table(rows)
    if args.output:
        raw = [{"kv_heads": k[0], "seq_len": k[1], "kv_dtype": k[2], "rounds": v}
               for k, v in results.items()]
        write_json_atomically(args.output,
                              {"schema": "rooflinectl-bench-fp8-decode/1", "rows": rows, "measurements": raw,
                               "per_shape": args.per_shape, "work_dir": work_dir}, indent=2)
    print(f"reports and logs: {work_dir}", file=sys.stderr)
    return 0 if all(r["met"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
