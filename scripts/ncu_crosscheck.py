#!/usr/bin/env python3
"""rooflinectl's counters against Nsight Compute's, point by point.

1. One `rooflinectl sweep` with counters gives our numbers (repetitions 1).
2. For every point that ran, a separate process runs the same point under
   `ncu --cache-control all --clock-control none` with counters off, and the last launch of the
   operator's kernels (the timed launch) is taken: the last K kernels that are not the tool's own
   (flush sweep, clock probe, random fill, validation references), K being the kernel count in
   our report. An operator of several kernels (naive attention) is profiled in ncu's range
   replay over the NVTX range rooflinectl puts around each timed launch
   (`--replay-mode range --nvtx --nvtx-include "rooflinectl@<op> L=<L>/"`): ncu then flushes once
   before the operator's kernels, as rooflinectl's byte session does, instead of before each
   kernel, which would send the intermediate S and P through DRAM.
3. Prints a Markdown table per point: DRAM read, in-window write, deferred write-back, total,
   ncu's read and write, the ratios, tensor FLOPs ours/ncu, and the analytic minimum.

Usage: scripts/ncu-crosscheck.sh [--binary PATH] [--ops LIST] [--seq SPEC] [--output FILE.md]
       [--work DIR]. Without a GPU and ncu it cannot run; `--parse-only OURS.json DIR` rebuilds
the table from saved files (what the CPU test exercises).
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys

METRICS = [
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_bytes.sum",
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
]
# Kernels rooflinectl runs around the operator's own; never part of a measured launch.
TOOL_KERNELS = ("read_sweep_kernel", "clock_probe_kernel", "fill_uniform_kernel",
                "reference_attention_kernel", "gather_rows_kernel")
READ_TOLERANCE = 0.01
WRITE_TOLERANCE = 0.02
WRITE_ABS_TOLERANCE_BYTES = 0.5e6
MB = 1e6


def parse_number(text):
    """ncu's CSV prints numbers with thousands separators; 'n/a' and '' are None."""
    text = text.strip().replace(",", "")
    if text in ("", "n/a", "N/A"):
        return None
    return float(text)


def parse_ncu_csv(text):
    """The kernel rows of `ncu --csv --page raw` output: [{'name', metric: value, ...}]."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return []
    reader = csv.reader(io.StringIO("\n".join(lines[start:])))
    header = next(reader)
    rows = []
    for fields in reader:
        if len(fields) != len(header) or not fields[0].strip().isdigit():
            continue  # the units row, or a stray log line
        row = dict(zip(header, fields))
        kernel = {"name": row.get("Kernel Name", "")}
        for metric in METRICS:
            kernel[metric] = parse_number(row[metric]) if metric in row else None
        rows.append(kernel)
    return rows


def uses_range_replay(point):
    """Operators of several kernels are compared as one range (see the module docstring)."""
    return len(point["counters"]["kernels"]) > 1


def nvtx_range(point):
    """The NVTX range rooflinectl's timed pass marks around each launch of `point`."""
    return f"{point['op']} L={point['shape']['seq_len']}"


def timed_launch(kernels, count):
    """The last `count` kernels that are not the tool's own: the timed launch."""
    own = [k for k in kernels if not any(tool in k["name"] for tool in TOOL_KERNELS)]
    return own[-count:] if count and len(own) >= count else None


def total(kernels, metric):
    values = [k[metric] for k in kernels]
    return None if any(v is None for v in values) else sum(values)


def ratio(a, b):
    if a is None or b is None:
        return None
    if b == 0:
        return 1.0 if a == 0 else None
    return a / b


def fmt_ratio(r):
    return "n/a" if r is None else f"{r:.4f}"


def fmt_mb(v):
    return "null" if v is None else f"{v / MB:.2f}"


def row_for(point, ncu_kernels):
    """One comparison: our counters of `point` against the ncu rows of its timed launch."""
    c = point["counters"]
    t = c["total"]
    if uses_range_replay(point):
        launch = ncu_kernels[-1:] or None  # one result: the whole range
    else:
        launch = timed_launch(ncu_kernels, len(c["kernels"]))
    r = {"op": point["op"], "seq_len": point["shape"]["seq_len"],
         "read": t["dram_read_bytes"], "write": t["dram_write_bytes"],
         "writeback": c.get("dram_writeback_bytes"), "l2_write": t.get("l2_write_bytes"),
         "tensor": t["tensor_bf16_flop"], "min": point["analytic"]["min_dram_bytes"],
         "kernels": len(c["kernels"])}
    r["total"] = None if None in (r["read"], r["write"], r["writeback"]) else (
        r["read"] + r["write"] + r["writeback"])
    if launch is None:
        r["ncu_read"] = r["ncu_write"] = r["ncu_tensor"] = None
        r["ok"] = False
        r["why"] = ("ncu returned no range result" if uses_range_replay(point)
                    else f"ncu saw fewer than {r['kernels']} operator kernels")
        return r
    r["ncu_read"] = total(launch, "dram__bytes_read.sum")
    r["ncu_write"] = total(launch, "dram__bytes_write.sum")
    r["ncu_tensor"] = total(launch, "sm__ops_path_tensor_src_bf16_dst_fp32.sum")
    read_ok = (r["ncu_read"] is not None and r["read"] is not None
               and abs(r["read"] - r["ncu_read"]) <= READ_TOLERANCE * r["ncu_read"])
    write_ok = (r["ncu_write"] is not None and r["write"] is not None
                and abs(r["write"] - r["ncu_write"]) <= max(WRITE_TOLERANCE * r["ncu_write"],
                                                            WRITE_ABS_TOLERANCE_BYTES))
    tensor_ok = r["tensor"] == r["ncu_tensor"]
    r["ok"] = read_ok and write_ok and tensor_ok
    r["why"] = ", ".join(name for name, ok in (("read", read_ok), ("write", write_ok),
                                                ("tensor", tensor_ok)) if not ok)
    return r


def table(rows):
    out = ["| op | L | ours read | ours write (window) | write-back | ours total | ncu read | "
           "ncu write | read ours/ncu | write ours-ncu MB | tensor ours/ncu | total / analytic "
           "min | within tolerance |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        diff = (None if r["write"] is None or r["ncu_write"] is None
                else (r["write"] - r["ncu_write"]) / MB)
        out.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r["op"], r["seq_len"], fmt_mb(r["read"]), fmt_mb(r["write"]), fmt_mb(r["writeback"]),
            fmt_mb(r["total"]), fmt_mb(r["ncu_read"]), fmt_mb(r["ncu_write"]),
            fmt_ratio(ratio(r["read"], r["ncu_read"])),
            "n/a" if diff is None else f"{diff:+.2f}",
            fmt_ratio(ratio(r["tensor"], r["ncu_tensor"])),
            fmt_ratio(ratio(r["total"], r["min"])), "yes" if r["ok"] else "NO: " + r["why"]))
    good = sum(r["ok"] for r in rows)
    out.append("")
    out.append(f"{good}/{len(rows)} points within tolerance (read {READ_TOLERANCE:.0%}, "
               f"in-window write {WRITE_TOLERANCE:.0%} or {WRITE_ABS_TOLERANCE_BYTES / MB} MB, "
               "tensor FLOPs exact). MB = 10^6 bytes.")
    return "\n".join(out)


def ncu_file(work, point):
    return os.path.join(work, f"ncu-{point['op']}-{point['shape']['seq_len']}.csv")


def ok_points(report):
    return [p for p in report["points"] if p["status"] == "ok" and p["counters"]["kernels"]]


def run(args):
    os.makedirs(args.work, exist_ok=True)
    ours = os.path.join(args.work, "ours.json")
    config = os.path.join(args.work, "no-warmup.json")
    with open(config, "w") as f:
        json.dump({"warmup_runs": 0, "repetitions": 1}, f)
    sweep = [args.binary, "sweep", "--ops", args.ops, "--seq", args.seq, "--repetitions", "1",
             "--require-counters", "--output", ours]
    print("+", " ".join(sweep), file=sys.stderr, flush=True)
    subprocess.run(sweep, check=False, stdout=subprocess.DEVNULL)
    with open(ours) as f:
        report = json.load(f)
    for point in ok_points(report):
        replay = (["--replay-mode", "range", "--nvtx", "--nvtx-include",
                   f"rooflinectl@{nvtx_range(point)}/"] if uses_range_replay(point) else [])
        cmd = [args.ncu, "--cache-control", "all", "--clock-control", "none", *replay, "--csv",
               "--page", "raw", "--metrics", ",".join(METRICS), "--log-file",
               ncu_file(args.work, point), args.binary, "sweep", "--config", config, "--ops", point["op"], "--seq",
               str(point["shape"]["seq_len"]), "--no-counters", "--format", "json"]
        print("+", " ".join(cmd), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL)
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="build/release/rooflinectl")
    parser.add_argument("--ncu", default="ncu")
    parser.add_argument("--ops", default="naive_attention,flash_attention,gemm,gelu,layernorm,"
                        "decode_attention")
    parser.add_argument("--seq", default="512..32768")
    parser.add_argument("--work", default="ncu-crosscheck-out")
    parser.add_argument("--output", help="write the Markdown table here too")
    parser.add_argument("--parse-only", nargs=2, metavar=("OURS_JSON", "DIR"),
                        help="rebuild the table from a saved report and ncu CSV files")
    args = parser.parse_args()
    if args.parse_only:
        with open(args.parse_only[0]) as f:
            report = json.load(f)
        args.work = args.parse_only[1]
    else:
        report = run(args)
    rows = []
    for point in ok_points(report):
        path = ncu_file(args.work, point)
        kernels = parse_ncu_csv(open(path).read()) if os.path.exists(path) else []
        rows.append(row_for(point, kernels))
    text = table(rows)
    print(text)
    if args.output:
        tmp = args.output + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, args.output)
    return 0 if rows and all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
